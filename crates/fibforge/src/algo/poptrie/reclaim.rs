//! When retired blocks may be reused.
//!
//! An update unlinks blocks (old children and leaf blocks of the rebuilt nodes, whole old
//! subtrees, the old root record of a direct-pointing entry). A reader that loaded the old
//! direct-pointing entry may still be walking them, so they must not be handed out again
//! before every such reader has finished.
//!
//! - Immediate (no [`Grace`] domain): nobody else reads this structure (a plain `Poptrie`,
//!   whose lookups borrow it, cannot run during `apply_changes(&mut self)`), so retired
//!   blocks are freed at the end of the update.
//! - Shared (a [`Grace`] domain, see [`crate::sync::Table`]): each update's retired batch
//!   takes a [`Ticket`] after the stores that unlinked it, and returns to the allocators once
//!   [`Grace::passed`] reaches that ticket (every online reader has reported a quiescent
//!   state since). Batches are checked oldest first at the start of each update; the writer
//!   never blocks on a reader.

use super::alloc::{BlockAlloc, NodeAlloc};
use crate::qsbr::{Grace, Ticket};
use std::collections::VecDeque;

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

/// Retired blocks not yet returned to the allocators.
pub(crate) struct Reclaim {
    /// The readers' domain; `None`: no concurrent readers, free at once.
    grace: Option<Grace>,
    pending: VecDeque<(Ticket, Vec<Block>)>,
    /// Node and leaf slots in `pending`.
    pending_slots: (u64, u64),
}

impl Reclaim {
    /// Immediate reclamation (no concurrent readers).
    pub(crate) fn new() -> Self {
        Reclaim { grace: None, pending: VecDeque::new(), pending_slots: (0, 0) }
    }

    /// From now on retired blocks wait for grace periods of `grace`.
    pub(crate) fn share(&mut self, grace: Grace) {
        self.grace = Some(grace);
    }

    /// True when readers on other threads share the arrays.
    pub(crate) fn is_shared(&self) -> bool {
        self.grace.is_some()
    }

    /// Retired batches not yet reusable.
    pub(crate) fn pending_batches(&self) -> usize {
        self.pending.len()
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
        let Some(grace) = &self.grace else {
            blocks.into_iter().for_each(|b| b.free(na, la));
            return;
        };
        for b in &blocks {
            match *b {
                Block::Nodes(_, n) => self.pending_slots.0 += n as u64,
                Block::Leaves(_, n) => self.pending_slots.1 += n as u64,
            }
        }
        self.pending.push_back((grace.retire(), blocks));
    }

    /// Frees every batch whose grace period has ended (oldest first).
    pub(crate) fn collect(&mut self, na: &mut NodeAlloc, la: &mut BlockAlloc) {
        let (Some(grace), Some((first, _))) = (&self.grace, self.pending.front()) else {
            return;
        };
        let passed = grace.passed();
        if *first > passed {
            return;
        }
        while let Some((ticket, _)) = self.pending.front() {
            if *ticket > passed {
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
