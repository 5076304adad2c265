//! The state both reader handles share ([`super::Reader`] for single tables, LOOP's
//! `LoopReader`): a published structure, this thread's registration in its grace domain, and
//! the structure the reader holds while online. One implementation of going online, offline,
//! reporting and borrowing the current structure, so the two handles cannot drift apart.
//!
//! An online session keeps the pointer it loaded when it went online or last reported, so a
//! lookup is the walk behind one plain load: the structure it holds is the one published at
//! its last report (RCU's read-side section), and a newer one is taken at the next report.

use super::grace::Registration;
use super::publish::Published;
use std::ptr::NonNull;
use std::sync::Arc;

/// A registered reader of one published `T`; its owner is `Send` but not `Sync` and takes
/// `&mut self` for every method that ends a read-side section.
pub(crate) struct Session<T: 'static> {
    published: Arc<Published<T>>,
    registration: Registration,
    /// The structure held while online (loaded when going online and at each report); `None`
    /// while offline.
    held: Option<NonNull<T>>,
}

// SAFETY: `held` points into the `Published` this session shares through `Arc` (which is
// `Send` for `T: Send + Sync`); it is only dereferenced by the thread that owns the session,
// under the grace-period rules stated on `current`.
unsafe impl<T: Send + Sync + 'static> Send for Session<T> {}

impl<T: 'static> Session<T> {
    /// Registers an offline reader of `published`.
    pub(crate) fn new(published: Arc<Published<T>>) -> Self {
        let registration = published.grace().register();
        Session { published, registration, held: None }
    }

    /// Another, separately registered and offline, reader of the same structure.
    pub(crate) fn another(&self) -> Self {
        Session::new(self.published.clone())
    }

    #[inline(always)]
    pub(crate) fn is_online(&self) -> bool {
        self.held.is_some()
    }

    #[inline]
    pub(crate) fn online(&mut self) {
        if self.held.is_none() {
            self.registration.online();
            self.hold();
        }
    }

    #[inline]
    pub(crate) fn offline(&mut self) {
        if self.held.take().is_some() {
            self.registration.offline();
        }
    }

    #[inline]
    pub(crate) fn quiescent(&mut self) {
        if self.held.is_some() {
            self.registration.quiescent();
            self.hold();
        }
    }

    /// Takes the structure published now (after going online or reporting).
    #[inline(always)]
    fn hold(&mut self) {
        self.held = NonNull::new(self.published.load().cast_mut());
    }

    /// The structure held while online, or `None` offline. The borrow cannot outlive `&self`,
    /// which every report needs `&mut` of.
    #[inline(always)]
    pub(crate) fn current(&self) -> Option<&T> {
        // SAFETY: `held` was loaded from the published pointer after this reader went online
        // or reported, so its retirement (if any) has a ticket the reader's slot has not
        // passed: it cannot be dropped before the next report or going offline, and both take
        // `&mut self`, which this borrow excludes (the owning handle is not `Sync`).
        self.held.map(|p| unsafe { p.as_ref() })
    }

    /// Runs `f` on the current structure with the slot online for `f`'s duration only (the
    /// offline path of a lookup).
    #[inline]
    pub(crate) fn briefly<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        self.registration.online();
        // SAFETY: the slot is online from before this load until after `f`'s last use of the
        // reference, so the structure cannot be dropped meanwhile.
        let result = f(unsafe { &*self.published.load() });
        self.registration.offline();
        result
    }

    /// `f` on the current structure, online or briefly online.
    #[inline]
    pub(crate) fn with<R>(&self, f: impl FnOnce(&T) -> R) -> R {
        match self.current() {
            Some(t) => f(t),
            None => self.briefly(f),
        }
    }
}
