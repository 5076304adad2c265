//! The change log: which prefixes changed since a mark.
//!
//! Every insert that adds or alters a route and every successful removal appends the prefix.
//! Recording starts with the first [`Rib::change_mark`] (before that nobody could ask, and a
//! bulk load should not pay for a log). An incremental compiler takes a [`ChangeMark`] after it builds, and later asks for
//! [`Rib::changes_since`] that mark to learn which subtrees to rebuild. The log keeps entries
//! until [`Rib::trim_changes`] discards those before a mark, so several consumers can share one
//! RIB.

use super::Rib;
use crate::addr::Address;
use crate::prefix::Prefix;
use std::sync::atomic::{AtomicBool, Ordering};

/// A position in the change log.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[doc(hidden)]
pub struct ChangeMark(u64);

#[derive(Debug)]
pub(super) struct ChangeLog<A: Address> {
    /// Sequence number of `entries[0]`.
    base: u64,
    entries: Vec<Prefix<A>>,
    /// Set by the first `change_mark`; atomic so that `&Rib` stays `Sync`.
    enabled: AtomicBool,
}

impl<A: Address> Clone for ChangeLog<A> {
    fn clone(&self) -> Self {
        ChangeLog {
            base: self.base,
            entries: self.entries.clone(),
            enabled: AtomicBool::new(self.enabled.load(Ordering::Relaxed)),
        }
    }
}

impl<A: Address> Default for ChangeLog<A> {
    fn default() -> Self {
        ChangeLog { base: 0, entries: Vec::new(), enabled: AtomicBool::new(false) }
    }
}

impl<A: Address> ChangeLog<A> {
    pub(super) fn record(&mut self, prefix: Prefix<A>) {
        if self.enabled.load(Ordering::Relaxed) {
            self.entries.push(prefix);
        } else {
            self.base += 1;
        }
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Prefix<A>>()
    }
}

impl<A: Address> Rib<A> {
    /// The current end of the change log.
    #[doc(hidden)]
    pub fn change_mark(&self) -> ChangeMark {
        self.log.enabled.store(true, Ordering::Relaxed);
        ChangeMark(self.log.base + self.log.entries.len() as u64)
    }

    /// Prefixes changed since `mark`, oldest first (a prefix may appear more than once).
    /// Entries already trimmed away are not returned.
    #[doc(hidden)]
    pub fn changes_since(&self, mark: ChangeMark) -> &[Prefix<A>] {
        let start = mark.0.saturating_sub(self.log.base) as usize;
        &self.log.entries[start.min(self.log.entries.len())..]
    }

    /// Forgets log entries before `mark`.
    #[doc(hidden)]
    pub fn trim_changes(&mut self, mark: ChangeMark) {
        let n = (mark.0.saturating_sub(self.log.base) as usize).min(self.log.entries.len());
        self.log.entries.drain(..n);
        self.log.base += n as u64;
    }
}
