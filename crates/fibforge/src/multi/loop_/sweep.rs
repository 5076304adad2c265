//! Reusing PortMapTable entries that route updates left unnamed (column layout).
//!
//! A route update interns the composites its regenerated elements need; the entries the
//! replaced elements named may then be named by no lookup entry at all. Counting references
//! per entry would cost every update a read-modify-write per range head; instead, once route
//! updates have made more than a quarter of the entries in use (at least [`MIN_CREATED`])
//! since the last sweep, a sweep marks every entry some lookup entry of the live structure
//! names (root, group range heads, sparse chunks), and retires the others that are not
//! already free or retired: they leave the composite index at once (no later update can
//! name them again) and become free after the readers' grace period, like entries merged
//! away by a table deletion. A sweep reads the whole structure once, so its cost is spread
//! over at least a quarter of the entries' worth of updates.
//!
//! Invariant: an entry is in the index only while it is not idle (free or retired).
//! Packed rows (`compress_pmt`) are append-only and are not swept (entries wait for a
//! rebuild).

use super::layout::{Core, TAG_PMT, payload, tag};
use super::pmt::Pmt;
use super::update::Store;
use std::sync::atomic::Ordering;

/// Updates create at least this many entries between two sweeps.
pub(super) const MIN_CREATED: u32 = 256;

/// True when enough entries were made since the last sweep.
pub(super) fn due(core: &Core, store: &Store) -> bool {
    let book = &store.pmt;
    matches!(core.pmt, Pmt::Columns(_)) && book.created >= MIN_CREATED.max(book.in_use() / 4)
}

/// Retires every entry not named by `core` and not idle (into `store.pmt.merged_away`, for the
/// caller to free after the grace period).
pub(super) fn sweep(core: &Core, store: &mut Store) {
    let book = &mut store.pmt;
    book.created = 0;
    let mut named = vec![false; book.top as usize];
    let mut stack: Vec<u32> = core.root.iter().map(|e| e.load(Ordering::Relaxed)).collect();
    while let Some(e) = stack.pop() {
        match tag(e) {
            TAG_PMT => named[payload(e) as usize] = true,
            _ => stack.extend(core.children(e)),
        }
    }
    let unnamed: Vec<u32> =
        (0..book.top).filter(|&i| !named[i as usize] && !book.is_idle(i)).collect();
    for &i in &unnamed {
        book.index.forget(book.hashes[i as usize], i);
        book.retire(i);
    }
}
