//! Lookup handles for other threads: [`Reader`] (QSBR: online, look up, report quiescent
//! states) and [`Pinned`] (a burst that brings an offline reader online and back).
//!
//! A reader is registered with its table's [`Grace`](super::Grace) domain from creation to
//! drop. While *online* it holds the view published when it went online or last reported,
//! and its lookups walk that view with no other work (not even a load of the published
//! pointer, which the compiler can then keep out of a lookup loop); the writer frees nothing
//! the reader may hold until the reader reports a quiescent state ([`Reader::quiescent`]),
//! goes offline, or is dropped. So an online reader sees a replaced view (a rebuild, a
//! structure swapped by an update) at its next report; changes the writer makes in place
//! show at once. While *offline* (the initial state)
//! the writer does not wait for it, and each lookup brings it online for its own duration
//! (a store and a fence, the cost of an epoch pin).
//!
//! Soundness rests on two things the types enforce: a `Reader` is `Send` but not `Sync` (its
//! slot is used by one thread at a time), and every method that ends a read-side section
//! (`quiescent`, `offline`, dropping a [`Pinned`]) takes `&mut self`, so no reference into a
//! view can outlive the report.

use crate::addr::Address;
use crate::fib::Lookup;
use crate::nexthop::NextHop;
use crate::qsbr::Published;
use crate::qsbr::Session;
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::Arc;

/// Ties a reader to its address type and makes it `Send` but not `Sync`.
type Marker<A> = PhantomData<(fn(A) -> A, Cell<()>)>;

/// A lookup handle for one thread (QSBR, see [`crate::sync`]), created offline by
/// [`Table::reader`](super::Table::reader). Online ([`online`](Self::online)), a lookup only
/// walks the view held since the last report, and the writer keeps what it retires until the
/// reader reports ([`quiescent`](Self::quiescent)), goes offline or is dropped; a view the
/// writer replaced shows at the next report. Offline, each
/// lookup synchronises for its own duration. `Send`, not `Sync`.
pub struct Reader<A: Address, V: Lookup<A> + 'static> {
    session: Session<V>,
    /// `Send` but not `Sync`: the slot belongs to one thread at a time.
    _marker: Marker<A>,
}

impl<A: Address, V: Lookup<A>> Clone for Reader<A, V> {
    /// Another reader of the same table, registered separately and offline.
    fn clone(&self) -> Self {
        Reader { session: self.session.another(), _marker: PhantomData }
    }
}

impl<A: Address, V: Lookup<A>> Reader<A, V> {
    /// Registers an offline reader of `published`.
    pub(crate) fn new(published: Arc<Published<V>>) -> Self {
        Reader { session: Session::new(published), _marker: PhantomData }
    }

    /// True while online (lookups cost only the walk; the writer waits for reports).
    #[doc(hidden)]
    pub fn is_online(&self) -> bool {
        self.session.is_online()
    }

    /// Goes online (QSBR mode): lookups do no synchronisation, and memory the writer retires
    /// from now on is kept until this reader calls [`quiescent`](Self::quiescent), goes
    /// offline or is dropped. Call `quiescent` between bursts; a reader that never does
    /// only makes memory pile up, it never makes a lookup unsafe.
    #[inline]
    pub fn online(&mut self) {
        self.session.online()
    }

    /// Goes offline (for a thread that goes idle): the writer stops waiting for it; lookups
    /// still work, each bringing the reader online for its own duration.
    #[inline]
    pub fn offline(&mut self) {
        self.session.offline()
    }

    /// Reports a quiescent state (no reference into the table is held): memory retired
    /// before this call may now be freed. A load and, when an update happened since the last
    /// report, a store to this reader's own cache line. Does nothing while offline.
    #[inline]
    pub fn quiescent(&mut self) {
        self.session.quiescent()
    }

    /// One lookup: only the walk when online; when offline, goes online for the lookup.
    #[inline]
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        match self.session.current() {
            Some(v) => v.lookup(addr),
            None => self.lookup_offline(addr),
        }
    }

    /// The current view while online (`None` offline): for walks the caller runs itself,
    /// such as the C ABI's inline lookup. The borrow ends before the next report, which
    /// takes `&mut self`; the view may be replaced by a newer one meanwhile (it then answers
    /// for the table as it was), so take it again after each quiescent state.
    #[inline]
    #[doc(hidden)]
    pub fn view(&self) -> Option<&V> {
        self.session.current()
    }

    /// Looks up `addrs` into `out` (offline: online for the batch).
    pub fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.session.with(|v| v.lookup_batch(addrs, out))
    }

    /// A burst of lookups: online until the returned guard is dropped, which then reports a
    /// quiescent state (and goes back offline if the reader was offline before).
    pub fn pin(&mut self) -> Pinned<'_, A, V> {
        let was_online = self.session.is_online();
        self.online();
        Pinned { reader: self, was_online }
    }

    /// Kept out of line so that the online lookup stays only the walk.
    #[inline(never)]
    fn lookup_offline(&self, addr: A) -> Option<NextHop> {
        self.session.briefly(|v| v.lookup(addr))
    }
}

/// A reader kept online for a burst of lookups ([`Reader::pin`]).
pub struct Pinned<'r, A: Address, V: Lookup<A> + 'static> {
    reader: &'r mut Reader<A, V>,
    was_online: bool,
}

impl<A: Address, V: Lookup<A>> Pinned<'_, A, V> {
    /// The current view, valid while pinned.
    #[inline(always)]
    #[doc(hidden)]
    pub fn view(&self) -> &V {
        self.reader.session.current().expect("a pinned reader is online")
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

    /// Reports a quiescent state and stays online (lets retired memory go in a long burst).
    pub fn repin(&mut self) {
        self.reader.quiescent();
    }
}

impl<A: Address, V: Lookup<A>> Drop for Pinned<'_, A, V> {
    fn drop(&mut self) {
        if self.was_online {
            self.reader.quiescent();
        } else {
            self.reader.offline();
        }
    }
}
