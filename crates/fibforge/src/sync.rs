//! The concurrent table: one writer, any number of readers that look up without locks or
//! per-lookup synchronisation (RCU-style publication, QSBR reclamation).
//!
//! [`Table`] owns the [`Rib`] (the truth) and an updatable FIB (Poptrie by default). Each
//! change goes to the RIB, then to the FIB through [`Incremental::apply_changes`], which
//! writes new blocks where no reader can reach them and publishes each with one atomic store
//! (see `algo/poptrie/update.rs`). [`Reader`]s are handles for other threads, one per thread:
//! online, a lookup loads the published view pointer and walks it, nothing else; readers
//! report quiescent states between bursts ([`Reader::quiescent`]), or use [`Reader::pin`] for
//! bursts and stay offline in between.
//!
//! Layout: the reclamation primitives live one layer down, in `qsbr/` (the QSBR domain
//! [`Grace`], the published view pointer, the [`Concurrent`] trait), where the structures
//! that reuse memory (Poptrie, the B+-tree, LOOP, SAIL_M) reach them without depending on
//! this table; here are `reader.rs` ([`Reader`], [`Pinned`]), `any.rs`
//! ([`AnyTable`]: the structure chosen at run time, for the C and Python bindings),
//! `left_right.rs` ([`LeftRight`]: two copies, for any [`Incremental`] structure not built
//! for concurrent readers).
//!
//! # Safety model
//!
//! - The published pointer always holds the current view's `Arc`; the writer swaps it when
//!   the FIB moves to new arrays (growth, widening, compaction) and keeps the old view until
//!   every online reader has reported a quiescent state since ([`Grace`]).
//! - Inside one view, blocks an update unlinks are reused only after the same grace period:
//!   [`Concurrent::share`] hands the FIB the table's [`Grace`] domain, the FIB takes a
//!   [`Ticket`] with [`Grace::retire`] after unlinking, and reuses the blocks once
//!   [`Grace::passed`] reaches it.
//! - The writer never waits for a reader: retired memory is checked again on later updates.
//!   A reader that never reports delays reclamation (memory grows); a dropped reader is
//!   deregistered.
//!
//! Each address sees, at any instant, either the state before or after a single prefix's
//! update: never a mix. A batch is applied prefix by prefix.

mod any;
mod left_right;
mod pending;
mod reader;

pub use crate::qsbr::{Concurrent, Grace, Registration, SETTLE_WAIT, Ticket};
pub use any::{AnyKey, AnyReader, AnyTable, Structure};
pub use left_right::LeftRight;
pub use pending::PendingReclaim;
pub use reader::{Pinned, Reader};

use crate::qsbr::Published;

use crate::addr::Address;
use crate::algo::poptrie::{self, Key, Poptrie};
use crate::fib::BuildError;
#[cfg(doc)]
use crate::fib::Incremental;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::{ChangeMark, Rib};
use std::sync::Arc;

impl<A: Key> Concurrent<A> for Poptrie<A> {
    type View = poptrie::Fib<A>;
    fn view(&self) -> &Arc<poptrie::Fib<A>> {
        Poptrie::view(self)
    }
    fn share(&mut self, grace: &Grace) {
        self.defer_reclamation(grace.clone());
    }
    fn retired_inside(&self) -> (usize, usize) {
        self.retired_bytes()
    }
}

/// One route change of a batch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Change<A: Address> {
    /// Insert or replace the route.
    Insert(Prefix<A>, NextHop),
    /// Withdraw the route.
    Remove(Prefix<A>),
}

/// A routing table with one writer and lock-free concurrent readers.
pub struct Table<A: Address, F: Concurrent<A> = Poptrie<A>> {
    rib: Rib<A>,
    fib: F,
    published: Arc<Published<F::View>>,
    mark: ChangeMark,
}

impl<A: Key> Table<A> {
    /// A Poptrie table with the recommended configuration.
    pub fn new(rib: Rib<A>) -> Result<Self, BuildError> {
        Self::with_config(rib, &poptrie::Config::for_family::<A>())
    }
}

impl<A: Address, F: Concurrent<A>> Table<A, F> {
    /// Compiles `rib` with `cfg`.
    pub fn with_config(rib: Rib<A>, cfg: &F::Config) -> Result<Self, BuildError> {
        let mut fib = F::compile(&rib, cfg)?;
        let grace = Grace::new();
        fib.share(&grace);
        let published = Arc::new(Published::new(fib.view().clone(), grace));
        let mark = rib.change_mark();
        Ok(Table { rib, fib, published, mark })
    }

    /// A new reader (registered, offline) to hand to another thread; see [`Reader`].
    pub fn reader(&self) -> Reader<A, F::View> {
        Reader::new(self.published.clone())
    }

    /// The readers' grace-period domain (registered readers, tickets).
    #[doc(hidden)]
    pub fn grace(&self) -> &Grace {
        self.published.grace()
    }

    /// Replaced views not yet dropped (they wait for online readers to report).
    #[doc(hidden)]
    pub fn pending_views(&self) -> usize {
        self.published.pending()
    }

    /// The routes.
    pub fn rib(&self) -> &Rib<A> {
        &self.rib
    }

    /// The FIB (for statistics).
    #[doc(hidden)]
    pub fn fib(&self) -> &F {
        &self.fib
    }

    /// A lookup from the writer's thread.
    #[inline(always)]
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        self.fib.lookup(addr)
    }

    /// Inserts or replaces a route; returns the previous next hop of this prefix. On error
    /// (a structural limit) the table is unchanged.
    pub fn insert(
        &mut self,
        prefix: Prefix<A>,
        hop: NextHop,
    ) -> Result<Option<NextHop>, BuildError> {
        let old = self.rib.insert(prefix, hop);
        self.sync_or_undo(&[(prefix, old)])?;
        Ok(old)
    }

    /// Withdraws a route; returns its next hop if it was present.
    pub fn remove(&mut self, prefix: &Prefix<A>) -> Result<Option<NextHop>, BuildError> {
        let old = self.rib.remove(prefix);
        self.sync_or_undo(&[(*prefix, old)])?;
        Ok(old)
    }

    /// Changes the next hop of an existing route; does nothing (returns `None`) when absent.
    pub fn replace(
        &mut self,
        prefix: Prefix<A>,
        hop: NextHop,
    ) -> Result<Option<NextHop>, BuildError> {
        if self.rib.get(&prefix).is_none() {
            return Ok(None);
        }
        self.insert(prefix, hop)
    }

    /// Applies a batch of changes, then updates the FIB once. On error the table is unchanged.
    #[doc(hidden)]
    pub fn apply(&mut self, changes: &[Change<A>]) -> Result<(), BuildError> {
        let mut undo = Vec::with_capacity(changes.len());
        for c in changes {
            match *c {
                Change::Insert(p, h) => undo.push((p, self.rib.insert(p, h))),
                Change::Remove(p) => undo.push((p, self.rib.remove(&p))),
            }
        }
        self.sync_or_undo(&undo)
    }

    /// Brings the FIB up to date; on error restores the RIB (`undo`: prefix and old value,
    /// in the order applied) and brings the FIB back.
    fn sync_or_undo(&mut self, undo: &[(Prefix<A>, Option<NextHop>)]) -> Result<(), BuildError> {
        let Err(e) = self.sync() else { return Ok(()) };
        for &(p, old) in undo.iter().rev() {
            match old {
                Some(h) => self.rib.insert(p, h),
                None => self.rib.remove(&p),
            };
        }
        self.settle();
        let changed = self.rib.changes_since(self.mark).to_vec();
        self.fib.apply_changes(&self.rib, &changed).expect("the previous routes fit");
        self.finish();
        Err(e)
    }

    fn sync(&mut self) -> Result<(), BuildError> {
        if self.rib.changes_since(self.mark).is_empty() {
            return Ok(());
        }
        self.settle();
        let changed = self.rib.changes_since(self.mark);
        let result = self.fib.apply_changes(&self.rib, changed);
        if result.is_ok() {
            self.finish();
        } else {
            self.publish(); // a failed update may have moved to new arrays already
        }
        result
    }

    /// For structures that write the views they replaced: waits (at most [`SETTLE_WAIT`])
    /// until the replaced views are dropped.
    fn settle(&mut self) {
        if !self.fib.settle_before_update() {
            return;
        }
        let start = std::time::Instant::now();
        while self.published.reclaim() > 0 && start.elapsed() < SETTLE_WAIT {
            std::thread::yield_now();
        }
    }

    fn finish(&mut self) {
        self.mark = self.rib.change_mark();
        self.rib.trim_changes(self.mark);
        self.publish();
    }

    /// Publishes the FIB's view if it was replaced, and drops the replaced views whose grace
    /// period has passed.
    fn publish(&mut self) {
        self.published.publish(self.fib.view());
        self.published.reclaim();
    }
}
