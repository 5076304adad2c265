//! LOOP's readers: [`LoopReader`], a handle for one thread on the library's one publication
//! protocol (QSBR, the same as [`crate::sync::Reader`]), and [`LoopView`], the structure as
//! a reader (or the writer) sees it.
//!
//! A reader is registered with the writer's [`Grace`](crate::sync::Grace) domain from
//! creation to drop. Offline (the initial state), each call brings it online for its own
//! duration (a store and a fence, the cost of an epoch pin) and the writer does not wait for
//! it in between. Online ([`LoopReader::online`]), a lookup only walks the structure held
//! since going online or the last report; what the writer retires meanwhile is kept until
//! the reader reports a quiescent state ([`LoopReader::quiescent`]), goes offline or is
//! dropped, and a structure the writer replaced shows at that report.
//!
//! Soundness rests on what the types enforce: a `LoopReader` is `Send` but not `Sync` (its
//! slot is used by one thread at a time), every method that ends a read-side section takes
//! `&mut self`, and a [`LoopView`] borrows the reader (or the writer), so no reference into a
//! structure outlives the report.

use super::layout::Core;
use crate::addr::Address;
use crate::multi::{MultiLookup, VrfId};
use crate::nexthop::NextHop;
use crate::qsbr::{Published, Session};
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::Arc;

/// Ties a reader to its address family and makes it `Send` but not `Sync`.
type Marker<A> = PhantomData<(fn(A) -> A, Cell<()>)>;

/// A lookup handle for one thread (QSBR, see the module docs), created offline by
/// [`Loop::reader`](super::Loop::reader); `Send`, not `Sync`. Cloning registers another,
/// offline reader.
pub struct LoopReader<A: Address> {
    session: Session<Core>,
    /// `Send` but not `Sync`: the slot belongs to one thread at a time.
    _marker: Marker<A>,
}

impl<A: Address> Clone for LoopReader<A> {
    fn clone(&self) -> Self {
        LoopReader { session: self.session.another(), _marker: PhantomData }
    }
}

impl<A: Address> LoopReader<A> {
    /// Registers an offline reader of `published`.
    pub(super) fn new(published: Arc<Published<Core>>) -> Self {
        LoopReader { session: Session::new(published), _marker: PhantomData }
    }

    /// True while online.
    pub fn is_online(&self) -> bool {
        self.session.is_online()
    }

    /// Goes online (QSBR mode): calls do no synchronisation, and what the writer retires from
    /// now on is kept until this reader reports [`quiescent`](Self::quiescent), goes offline
    /// or is dropped. A reader that never reports only makes memory pile up.
    #[inline]
    pub fn online(&mut self) {
        self.session.online()
    }

    /// Goes offline (for a thread that goes idle): the writer stops waiting for it; calls
    /// still work, each bringing the reader online for its own duration.
    #[inline]
    pub fn offline(&mut self) {
        self.session.offline()
    }

    /// Reports a quiescent state (no reference into the structure is held): what was retired
    /// before may now be reused. Does nothing while offline.
    #[inline]
    pub fn quiescent(&mut self) {
        self.session.quiescent()
    }

    /// Runs `f` on the current structure: when offline, online for `f`'s duration; lookups
    /// inside pay no per-call cost.
    #[inline]
    #[doc(hidden)]
    pub fn with<R>(&self, f: impl FnOnce(&LoopView<'_, A>) -> R) -> R {
        self.session.with(|core| f(&LoopView::new(core)))
    }

    /// The next hop of table `vrf` for `addr`.
    #[inline]
    pub fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.with(|v| v.lookup(vrf, addr))
    }

    /// Looks up `keys` into `out` (interleaved, see `batch.rs`).
    pub fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        self.with(|v| v.lookup_batch(keys, out))
    }

    /// Number of table slots (valid VRF ids are `0..vrfs()`).
    #[doc(hidden)]
    pub fn vrfs(&self) -> usize {
        self.with(|v| v.vrfs())
    }

    /// Bytes allocated, including the capacity reserved for updates.
    #[doc(hidden)]
    pub fn memory_bytes(&self) -> usize {
        self.with(|v| v.memory_bytes())
    }
}

/// The structure as a reader sees it inside [`LoopReader::with`], or the writer through
/// [`Loop::view`](super::Loop::view).
#[doc(hidden)]
pub struct LoopView<'g, A: Address> {
    core: &'g Core,
    _family: PhantomData<fn() -> A>,
}

impl<'g, A: Address> LoopView<'g, A> {
    pub(super) fn new(core: &'g Core) -> Self {
        LoopView { core, _family: PhantomData }
    }

    /// The next hop of table `vrf` for `addr`.
    #[inline]
    pub fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.core.lookup(vrf, addr)
    }
}

/// The view as a multi-table lookup (benchmarks: one synchronisation for many lookups).
impl<A: Address> MultiLookup<A> for LoopView<'_, A> {
    fn vrfs(&self) -> usize {
        self.core.vrfs as usize
    }
    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.core.lookup(vrf, addr)
    }
    /// Interleaved: keys walked in step, with prefetches (see `batch.rs`).
    fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        self.core.lookup_batch(keys, out)
    }
    /// Bytes allocated, including the capacity reserved for updates.
    fn memory_bytes(&self) -> usize {
        let c = self.core;
        4 * (c.root.len() + c.chunk_groups.len() + c.arena.len()) + c.pmt.allocated_bytes()
    }
}
