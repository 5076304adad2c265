//! The published view pointer of a table, and the views it replaced, waiting for their grace
//! period.
//!
//! # Invariants
//!
//! - `ptr` always holds a pointer from `Arc::into_raw` of the current view, and this struct
//!   owns that one strong count.
//! - A replaced view is kept in `retired` with the ticket of its retirement and dropped only
//!   once the domain's grace period has passed that ticket, so a reader online since before
//!   the swap still finds it alive.
//! - The `Published` itself lives in an `Arc` shared by the table and every reader: views
//!   still retired when the table is dropped go when the last reader goes.

use super::grace::{Grace, Ticket};
use super::prim::{AtomicPtr, Mutex, Ordering};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::{Arc, PoisonError};

/// The current view of a table and the views it replaced.
pub(crate) struct Published<V> {
    ptr: AtomicPtr<V>,
    grace: Grace,
    retired: Mutex<VecDeque<(Ticket, Arc<V>)>>,
    /// Sends and shares like the `Arc<V>` it owns.
    _owns: PhantomData<Arc<V>>,
}

impl<V> Published<V> {
    /// Publishes `view` for the readers of `grace`.
    pub(crate) fn new(view: Arc<V>, grace: Grace) -> Self {
        let ptr = AtomicPtr::new(Arc::into_raw(view) as *mut V);
        Published { ptr, grace, retired: Mutex::default(), _owns: PhantomData }
    }

    /// The readers' domain.
    pub(crate) fn grace(&self) -> &Grace {
        &self.grace
    }

    /// The current view. It stays alive while the caller's reader is online and has not
    /// reported a quiescent state since this load.
    #[inline(always)]
    pub(crate) fn load(&self) -> *const V {
        self.ptr.load(Ordering::Acquire)
    }

    /// Writer only: publishes `view` unless it is already the current one; the replaced view
    /// waits for a grace period.
    pub(crate) fn publish(&self, view: &Arc<V>) {
        if std::ptr::eq(Arc::as_ptr(view), self.ptr.load(Ordering::Relaxed)) {
            return;
        }
        let new = Arc::into_raw(view.clone()) as *mut V;
        let old = self.ptr.swap(new, Ordering::AcqRel);
        // SAFETY: `old` came from `Arc::into_raw` and the slot owned that count, which we
        // now take over.
        let old = unsafe { Arc::from_raw(old) };
        let ticket = self.grace.retire();
        self.lock().push_back((ticket, old));
    }

    /// Writer only: drops the replaced views whose grace period has passed; how many remain.
    pub(crate) fn reclaim(&self) -> usize {
        let mut retired = self.lock();
        if retired.is_empty() {
            return 0;
        }
        let passed = self.grace.passed();
        while retired.front().is_some_and(|(t, _)| *t <= passed) {
            retired.pop_front();
        }
        retired.len()
    }

    /// Replaced views not yet dropped.
    pub(crate) fn pending(&self) -> usize {
        self.lock().len()
    }

    /// Replaced views not yet dropped, and their bytes as `size` measures each.
    pub(crate) fn pending_bytes(&self, size: impl Fn(&V) -> usize) -> (usize, usize) {
        let retired = self.lock();
        (retired.len(), retired.iter().map(|(_, view)| size(view)).sum())
    }

    fn lock(&self) -> super::prim::MutexGuard<'_, VecDeque<(Ticket, Arc<V>)>> {
        self.retired.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<V> Drop for Published<V> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `Arc::into_raw` and this struct owns that count; nobody can
        // load it any more (we are being dropped, so no reader handle is left).
        drop(unsafe { Arc::from_raw(self.ptr.load(Ordering::Relaxed)) });
    }
}
