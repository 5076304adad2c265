//! One address family of a Python `Table`: the concurrent table ([`AnyTable`]: Poptrie or
//! the interval B+-tree, as the `algo` argument chose) behind a mutex (the writer) and
//! [`AnyReader`]s for lookups.
//!
//! Lookups never take the writer's mutex, so any number of Python threads can look up
//! (batches run with the GIL released) while another inserts or removes routes. A batch
//! registers one QSBR reader per thread it runs on: online, lookups with no synchronisation,
//! a quiescent state after each chunk, deregistered at the end. Single lookups (under the
//! GIL) share one offline reader behind its own mutex, online for each lookup.

use fibforge::sync::{AnyKey, AnyReader, AnyTable, Structure};
use fibforge::{BuildError, NextHop, Prefix, Rib};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The value batch lookups write where no route matches (`fibforge.NO_ROUTE`).
pub const NO_ROUTE: u32 = u32::MAX;

/// Addresses looked up per chunk (the reader reports a quiescent state after each).
const CHUNK: usize = 512;

/// The writer and reader of one family.
pub struct Side<A: AnyKey> {
    writer: Mutex<AnyTable<A>>,
    /// Offline; single lookups and the template of the batches' readers.
    reader: Mutex<AnyReader<A>>,
}

impl<A: AnyKey> Side<A> {
    /// Compiles `rib` into `structure`.
    pub fn new(rib: Rib<A>, structure: &Structure) -> Result<Self, BuildError> {
        let table = AnyTable::new(rib, structure)?;
        let reader = Mutex::new(table.reader());
        Ok(Side { writer: Mutex::new(table), reader })
    }

    fn writer(&self) -> MutexGuard<'_, AnyTable<A>> {
        // A panic while updating leaves the table consistent (updates are undone on error),
        // so a poisoned lock is still usable.
        self.writer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Inserts or replaces a route; the previous next hop of the prefix.
    pub fn insert(&self, prefix: Prefix<A>, hop: NextHop) -> Result<Option<NextHop>, BuildError> {
        self.writer().insert(prefix, hop)
    }

    /// Withdraws a route; its next hop if it was present.
    pub fn remove(&self, prefix: &Prefix<A>) -> Result<Option<NextHop>, BuildError> {
        self.writer().remove(prefix)
    }

    fn reader(&self) -> MutexGuard<'_, AnyReader<A>> {
        // Lookups cannot leave the reader half-changed.
        self.reader.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One lookup.
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        self.reader().lookup(addr)
    }

    /// Registered readers (the single-lookup one plus those of batches running now).
    pub fn readers(&self) -> usize {
        self.writer().grace().readers()
    }

    /// Number of routes.
    pub fn route_count(&self) -> usize {
        self.writer().rib().len()
    }

    /// Every route, in prefix order.
    pub fn routes(&self) -> Vec<(Prefix<A>, NextHop)> {
        self.writer().rib().iter().collect()
    }

    /// Looks up `out.len()` addresses into `out` (`NO_ROUTE` where none matches), on
    /// `threads` threads. `fill(start, keys)` writes the addresses `start..start + keys.len()`.
    pub fn lookup_into(
        &self,
        out: &mut [u32],
        threads: usize,
        fill: impl Fn(usize, &mut [A]) + Sync,
    ) {
        let per_thread = out.len().div_ceil(threads.max(1)).max(CHUNK);
        if per_thread >= out.len() {
            return self.lookup_range(0, out, &fill);
        }
        std::thread::scope(|s| {
            for (i, part) in out.chunks_mut(per_thread).enumerate() {
                let fill = &fill;
                s.spawn(move || self.lookup_range(i * per_thread, part, fill));
            }
        });
    }

    /// Looks up addresses `start..start + out.len()` into `out`, chunk by chunk, with a
    /// reader of its own (QSBR: online, a quiescent state after each chunk).
    fn lookup_range(&self, start: usize, out: &mut [u32], fill: &impl Fn(usize, &mut [A])) {
        let mut reader = self.reader().clone();
        reader.online();
        let mut keys = [A::ZERO; CHUNK];
        let mut hops = [None; CHUNK];
        for (i, out) in out.chunks_mut(CHUNK).enumerate() {
            let m = out.len();
            fill(start + i * CHUNK, &mut keys[..m]);
            reader.lookup_batch(&keys[..m], &mut hops[..m]);
            reader.quiescent();
            for (o, h) in out.iter_mut().zip(&hops[..m]) {
                *o = h.map_or(NO_ROUTE, NextHop::index);
            }
        }
    }
}
