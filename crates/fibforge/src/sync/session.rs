//! The state both reader handles share ([`super::Reader`] for single tables, LOOP's
//! `LoopReader`): a published structure, this thread's registration in its grace domain, and
//! whether the reader is online. One implementation of going online, offline, reporting and
//! borrowing the current structure, so the two handles cannot drift apart.

use super::grace::Registration;
use super::publish::Published;
use std::sync::Arc;

/// A registered reader of one published `T`; its owner is `Send` but not `Sync` and takes
/// `&mut self` for every method that ends a read-side section.
pub(crate) struct Session<T: 'static> {
    published: Arc<Published<T>>,
    registration: Registration,
    online: bool,
}

impl<T: 'static> Session<T> {
    /// Registers an offline reader of `published`.
    pub(crate) fn new(published: Arc<Published<T>>) -> Self {
        let registration = published.grace().register();
        Session { published, registration, online: false }
    }

    /// Another, separately registered and offline, reader of the same structure.
    pub(crate) fn another(&self) -> Self {
        Session::new(self.published.clone())
    }

    #[inline(always)]
    pub(crate) fn is_online(&self) -> bool {
        self.online
    }

    #[inline]
    pub(crate) fn online(&mut self) {
        if !self.online {
            self.registration.online();
            self.online = true;
        }
    }

    #[inline]
    pub(crate) fn offline(&mut self) {
        if self.online {
            self.registration.offline();
            self.online = false;
        }
    }

    #[inline]
    pub(crate) fn quiescent(&mut self) {
        if self.online {
            self.registration.quiescent();
        }
    }

    /// The current structure; the caller is online (or inside [`Session::briefly`]) and the
    /// borrow cannot outlive `&self`, which every report needs `&mut` of.
    #[inline(always)]
    pub(crate) fn current(&self) -> &T {
        // SAFETY: the published structure is a live `Arc`; a replaced one is dropped only
        // after the grace period of its retirement, which cannot pass while this reader's
        // slot is online and silent. The slot stays so while `&self` is borrowed: going
        // offline or reporting takes `&mut self` (or, in `briefly`, happens after the last
        // use of the borrow), and the owning handle is not `Sync`.
        unsafe { &*self.published.load() }
    }

    /// Runs `f` on the current structure with the slot online for `f`'s duration only (the
    /// offline path of a lookup).
    #[inline]
    pub(crate) fn briefly<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        self.registration.online();
        let result = f(self.current());
        self.registration.offline();
        result
    }

    /// `f` on the current structure, online or briefly online.
    #[inline]
    pub(crate) fn with<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        if self.online { f(self.current()) } else { self.briefly(f) }
    }
}
