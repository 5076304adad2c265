//! When retired blocks may be reused.
//!
//! An update unlinks blocks (old children and leaf blocks of the rebuilt nodes, whole old
//! subtrees, the old root record of a direct-pointing entry). A reader that loaded the old
//! direct-pointing entry may still be walking them, so they must not be handed out again
//! before every such reader has finished.
//!
//! - [`Mode::Immediate`]: nobody else reads this structure (a plain `Poptrie`, whose lookups
//!   borrow it, cannot run during `apply_changes(&mut self)`), so retired blocks are freed at
//!   the end of the update.
//! - [`Mode::Epoch`]: the arrays are shared with readers on other threads (see
//!   [`crate::sync::Table`]) that pin a crossbeam epoch around their lookups. A retired batch
//!   waits for a flag that a closure deferred on the epoch collector sets; crossbeam runs that
//!   closure only after every thread pinned at retirement time has unpinned.

use super::alloc::{BlockAlloc, NodeAlloc};
use crossbeam_epoch as epoch;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A block of `len` slots at `start` in the node or the leaf arena.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Block {
    Nodes(u32, u32),
    Leaves(u32, u32),
}

impl Block {
    /// Returns the block to its allocator.
    pub(crate) fn free(self, nodes: &mut NodeAlloc, leaves: &mut BlockAlloc) {
        match self {
            Block::Nodes(start, len) => nodes.free(start, len),
            Block::Leaves(start, len) => leaves.free(start, len),
        }
    }
}

/// How retired blocks are reclaimed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Immediate,
    Epoch,
}

/// Retired blocks not yet returned to the allocators.
pub(crate) struct Reclaim {
    pub(crate) mode: Mode,
    pending: VecDeque<(Arc<AtomicBool>, Vec<Block>)>,
    /// Node and leaf slots in `pending`.
    pending_slots: (u64, u64),
}

impl Reclaim {
    pub(crate) fn new(mode: Mode) -> Self {
        Reclaim { mode, pending: VecDeque::new(), pending_slots: (0, 0) }
    }

    /// Node and leaf slots retired but not yet reusable.
    pub(crate) fn pending_slots(&self) -> (u64, u64) {
        self.pending_slots
    }

    /// Hands `blocks` (already unlinked from the published structure) to reclamation.
    pub(crate) fn retire(&mut self, blocks: Vec<Block>, na: &mut NodeAlloc, la: &mut BlockAlloc) {
        if blocks.is_empty() {
            return;
        }
        if self.mode == Mode::Immediate {
            blocks.into_iter().for_each(|b| b.free(na, la));
            return;
        }
        for b in &blocks {
            match *b {
                Block::Nodes(_, n) => self.pending_slots.0 += n as u64,
                Block::Leaves(_, n) => self.pending_slots.1 += n as u64,
            }
        }
        let flag = Arc::new(AtomicBool::new(false));
        let set = flag.clone();
        let guard = epoch::pin();
        guard.defer(move || set.store(true, Ordering::Release));
        self.pending.push_back((flag, blocks));
        if self.pending.len().is_multiple_of(64) {
            guard.flush();
        }
    }

    /// Pushes this thread's deferred work to the epoch collector and lets it advance (so
    /// that grace periods can end without waiting for more retirements).
    pub(crate) fn nudge(&self) {
        if self.mode == Mode::Epoch {
            epoch::pin().flush();
        }
    }

    /// Frees every batch whose grace period has ended (oldest first).
    pub(crate) fn collect(&mut self, na: &mut NodeAlloc, la: &mut BlockAlloc) {
        while let Some((flag, _)) = self.pending.front() {
            if !flag.load(Ordering::Acquire) {
                return;
            }
            let (_, blocks) = self.pending.pop_front().expect("non-empty");
            for b in blocks {
                match b {
                    Block::Nodes(_, n) => self.pending_slots.0 -= n as u64,
                    Block::Leaves(_, n) => self.pending_slots.1 -= n as u64,
                }
                b.free(na, la);
            }
        }
    }

    /// Forgets every pending batch (their arena was replaced by a fresh compile).
    pub(crate) fn forget(&mut self) {
        self.pending.clear();
        self.pending_slots = (0, 0);
    }
}
