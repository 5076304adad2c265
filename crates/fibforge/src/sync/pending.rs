//! Retired memory that waits for readers: [`Table::pending_reclaim`].
//!
//! The writer never waits for a reader (see the module docs of [`crate::sync`]), so a reader
//! that stays online without reporting quiescent states holds back every view and block
//! retired since its last report, and that memory grows with each update without bound (377
//! MiB after 10^6 updates of a full table, measured). Nothing fails, so without a count the
//! leak is invisible until the process is killed; this module gives the count and a flag
//! that says when it has outgrown what well-behaved readers explain. The library only
//! reports: the faces print (CLI) or warn (Python) once.

use super::{Concurrent, Table};
use crate::addr::Address;
use crate::fib::Lookup;

/// The least pending memory flagged, whatever the structure's size: a small table's few
/// retired copies are not worth a warning.
const FLOOR_BYTES: usize = 64 << 20;

/// Pending memory flagged relative to the structure: readers that report between bursts
/// hold back at most the retirements of the updates since their last report, a fraction of
/// the structure (one replaced view at most is one copy); four whole copies mean readers
/// have missed many grace periods.
const STRUCTURE_MULTIPLE: usize = 4;

/// Memory that updates retired (replaced views, unlinked blocks) and that waits until every
/// online reader has reported a quiescent state: [`Table::pending_reclaim`].
///
/// `over_threshold` is set when `bytes` exceeds the larger of 4 × the structure's own
/// memory and 64 MiB: a sign that a reader is online but silent (it never calls
/// [`Reader::quiescent`](super::Reader::quiescent) or goes offline), which lets this
/// memory grow with every update.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PendingReclaim {
    /// Retired objects not yet freed: replaced views plus batches of blocks unlinked inside
    /// the current one.
    pub objects: usize,
    /// Their bytes (an estimate: the arrays' sizes).
    pub bytes: usize,
    /// `bytes` exceeds max(4 × the structure's bytes, 64 MiB).
    pub over_threshold: bool,
}

impl PendingReclaim {
    /// The count for `objects` retired objects of `bytes` beside a structure of
    /// `structure_bytes`.
    fn new(objects: usize, bytes: usize, structure_bytes: usize) -> Self {
        let bound = structure_bytes.saturating_mul(STRUCTURE_MULTIPLE).max(FLOOR_BYTES);
        PendingReclaim { objects, bytes, over_threshold: bytes > bound }
    }
}

impl<A: Address, F: Concurrent<A>> Table<A, F> {
    /// Memory retired by updates and not yet freed because an online reader has not
    /// reported a quiescent state since (see [`PendingReclaim`]). Reclamation runs on
    /// updates: after every reader reports, the next update frees all but its own
    /// retirements.
    ///
    /// ```
    /// use fibforge::sync::Table;
    /// use fibforge::{NextHop, Rib};
    ///
    /// let mut table = Table::new(Rib::<u32>::new())?;
    /// let mut reader = table.reader();
    /// reader.online(); // and then silent: retired memory waits for it
    /// for i in 0..100u32 {
    ///     table.insert(fibforge::Prefix::new(i << 8, 24)?, NextHop::from_index(i))?;
    /// }
    /// let held = table.pending_reclaim();
    /// assert!(held.objects > 0 && held.bytes > 0 && !held.over_threshold);
    /// reader.quiescent();
    /// table.remove(&fibforge::Prefix::new(0, 24)?)?; // frees all but its own retirements
    /// assert!(table.pending_reclaim().objects < held.objects);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn pending_reclaim(&self) -> PendingReclaim {
        let (views, view_bytes) = self.published.pending_bytes(|v| v.memory_bytes());
        let (inside, inside_bytes) = self.fib.retired_inside();
        PendingReclaim::new(views + inside, view_bytes + inside_bytes, self.fib.memory_bytes())
    }
}

#[cfg(test)]
mod tests;
