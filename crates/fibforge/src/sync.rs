//! The concurrent table: one writer, any number of lock-free readers (RCU-style publication
//! with crossbeam-epoch reclamation).
//!
//! [`Table`] owns the [`Rib`] (the truth) and an updatable FIB (Poptrie by default). Each
//! change goes to the RIB, then to the FIB through [`Incremental::apply_changes`], which
//! writes new blocks where no reader can reach them and publishes each with one atomic store
//! (see `algo/poptrie/update.rs`). [`Reader`]s are cheap handles (`Clone + Send`) for other
//! threads; a lookup pins a crossbeam epoch, loads the published view pointer and walks it.
//!
//! # Safety model
//!
//! - `Published::ptr` always holds a pointer obtained from `Arc::into_raw` of the current
//!   view, and `Published` owns that one strong count.
//! - The writer replaces the pointer (when the FIB moves to new arrays: growth, widening,
//!   compaction) with a swap, then defers dropping the old `Arc` on the epoch collector. A
//!   reader dereferences the pointer only while pinned, so the old view outlives every reader
//!   that could have loaded it.
//! - Inside one view, blocks an update unlinks are reused only after an epoch grace period
//!   (the FIB is switched to deferred reclamation by [`Concurrent::share`]).
//!
//! Each address sees, at any instant, either the state before or after a single prefix's
//! update: never a mix. A batch is applied prefix by prefix.

use crate::addr::Address;
use crate::algo::poptrie::{self, Key, Poptrie};
use crate::fib::{BuildError, Incremental, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::{ChangeMark, Rib};
use crossbeam_epoch::{self as epoch, Guard};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicPtr, Ordering};

/// An updatable FIB whose arrays readers on other threads can use while it is updated.
pub trait Concurrent<A: Address>: Incremental<A> {
    /// What readers look up in.
    type View: Lookup<A> + 'static;
    /// The current view; a different `Arc` after an update means the view was replaced.
    fn view(&self) -> &Arc<Self::View>;
    /// From now on readers share the view: retired memory waits for an epoch grace period.
    fn share(&mut self);
}

impl<A: Key> Concurrent<A> for Poptrie<A> {
    type View = poptrie::Fib<A>;
    fn view(&self) -> &Arc<poptrie::Fib<A>> {
        Poptrie::view(self)
    }
    fn share(&mut self) {
        self.defer_reclamation();
    }
}

/// One route change of a batch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Change<A: Address> {
    /// Insert or replace the route.
    Insert(Prefix<A>, NextHop),
    /// Withdraw the route.
    Remove(Prefix<A>),
}

/// The published view pointer (owns one strong count of an `Arc<V>`).
struct Published<V> {
    ptr: AtomicPtr<V>,
}

impl<V> Drop for Published<V> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `Arc::into_raw` and this struct owns that count; nobody can
        // load it any more (we have `&mut self`, so no reader handle is left).
        drop(unsafe { Arc::from_raw(*self.ptr.get_mut()) });
    }
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
        fib.share();
        let ptr = AtomicPtr::new(Arc::into_raw(fib.view().clone()) as *mut F::View);
        let mark = rib.change_mark();
        Ok(Table { rib, fib, published: Arc::new(Published { ptr }), mark })
    }

    /// A handle for lookups on any thread.
    pub fn reader(&self) -> Reader<A, F::View> {
        Reader { published: self.published.clone(), _addr: PhantomData }
    }

    /// The routes.
    pub fn rib(&self) -> &Rib<A> {
        &self.rib
    }

    /// The FIB (for statistics).
    pub fn fib(&self) -> &F {
        &self.fib
    }

    /// A lookup from the writer's thread.
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
        let changed = self.rib.changes_since(self.mark).to_vec();
        self.fib.apply_changes(&self.rib, &changed).expect("the previous routes fit");
        self.finish();
        Err(e)
    }

    fn sync(&mut self) -> Result<(), BuildError> {
        let changed = self.rib.changes_since(self.mark);
        if changed.is_empty() {
            return Ok(());
        }
        let result = self.fib.apply_changes(&self.rib, changed);
        if result.is_ok() {
            self.finish();
        } else {
            self.publish(); // a failed update may have moved to new arrays already
        }
        result
    }

    fn finish(&mut self) {
        self.mark = self.rib.change_mark();
        self.rib.trim_changes(self.mark);
        self.publish();
    }

    /// Publishes the FIB's view if it was replaced.
    fn publish(&mut self) {
        let view = self.fib.view();
        if std::ptr::eq(Arc::as_ptr(view), self.published.ptr.load(Ordering::Relaxed)) {
            return;
        }
        let new = Arc::into_raw(view.clone()) as *mut F::View;
        let old = self.published.ptr.swap(new, Ordering::AcqRel);
        // SAFETY: `old` came from `Arc::into_raw` and the published slot owned that count,
        // which we now take over.
        let old = unsafe { Arc::from_raw(old) };
        // Readers pinned now may still use `old`: drop it after the grace period.
        epoch::pin().defer(move || drop(old));
    }
}

/// A lookup handle for one thread (clone it for more); lookups never block.
pub struct Reader<A: Address, V: Lookup<A> + 'static> {
    published: Arc<Published<V>>,
    _addr: PhantomData<fn(A) -> A>,
}

impl<A: Address, V: Lookup<A>> Clone for Reader<A, V> {
    fn clone(&self) -> Self {
        Reader { published: self.published.clone(), _addr: PhantomData }
    }
}

// SAFETY: `Published<V>` only hands out `&V` under an epoch guard; `V: Lookup` is `Send +
// Sync`, so sharing or sending the handle across threads is sound.
unsafe impl<V: Send + Sync> Sync for Published<V> {}
// SAFETY: as above; dropping it on another thread drops an `Arc<V>` with `V: Send + Sync`.
unsafe impl<V: Send + Sync> Send for Published<V> {}

impl<A: Address, V: Lookup<A>> Reader<A, V> {
    /// One lookup (pins an epoch for its duration).
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        self.pin().lookup(addr)
    }

    /// Looks up `addrs` into `out` under one pin.
    pub fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.pin().lookup_batch(addrs, out)
    }

    /// Pins an epoch for a series of lookups (cheaper than pinning each); call
    /// [`Pinned::repin`] now and then so retired memory can be reclaimed.
    pub fn pin(&self) -> Pinned<'_, A, V> {
        Pinned { reader: self, guard: epoch::pin() }
    }
}

/// A reader with a pinned epoch.
pub struct Pinned<'r, A: Address, V: Lookup<A> + 'static> {
    reader: &'r Reader<A, V>,
    guard: Guard,
}

impl<A: Address, V: Lookup<A>> Pinned<'_, A, V> {
    /// The current view, valid while pinned.
    #[inline(always)]
    pub fn view(&self) -> &V {
        let p = self.reader.published.ptr.load(Ordering::Acquire);
        // SAFETY: `p` is the published view (a live `Arc`); a replaced view is dropped only
        // after a grace period, which cannot end while `self.guard` is pinned, and the
        // returned borrow cannot outlive `self` (hence the guard).
        unsafe { &*p }
    }

    /// One lookup.
    #[inline]
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        self.view().lookup(addr)
    }

    /// A batch of lookups.
    pub fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.view().lookup_batch(addrs, out)
    }

    /// Lets the epoch advance (drops and retakes the pin).
    pub fn repin(&mut self) {
        self.guard.repin();
    }
}
