//! What incremental updates replaced (§4.9 counts them per update): direct-pointing entries
//! stored, internal nodes and leaves written, and whole-array copies.
//!
//! The writer adds to these counters when it publishes a direct-pointing entry (the blocks
//! that entry made reachable), so abandoned patches (an arena was full; the prefix is
//! patched again) are not counted and lookups do no work for them. They accumulate from
//! compile on; a study takes the difference around the updates it measures.

use super::reclaim::Block;

/// Objects that incremental updates replaced since the structure was compiled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[doc(hidden)]
pub struct UpdateCounts {
    /// Changed prefixes patched (after dropping those inside another changed prefix).
    pub prefixes: u64,
    /// Patched prefixes no longer than `s`: the paper's "replacements of the top-level
    /// array" (it rebuilds the whole `2^s` array for them; this structure rebuilds the
    /// entries inside the prefix, counted in `dir_entries`).
    pub top_level: u64,
    /// Direct-pointing entries stored: a patch below `s` ends with one (a new root), a
    /// prefix no longer than `s` stores one per entry inside it.
    pub dir_entries: u64,
    /// Internal nodes written (new node records, roots included).
    pub inodes: u64,
    /// Leaves written.
    pub leaves: u64,
    /// Bytes of the internal nodes written.
    pub inode_bytes: u64,
    /// Bytes of the leaves written (their width: 1, 2 or 4 bytes).
    pub leaf_bytes: u64,
    /// Times the arrays were copied whole (arenas grown, leaves or `dir` widened, or the
    /// structure recompiled to compact it).
    pub array_copies: u64,
}

impl UpdateCounts {
    /// Adds one published entry and the blocks it made reachable.
    pub(crate) fn published(&mut self, fresh: &[Block], node_size: usize, leaf_size: usize) {
        self.dir_entries += 1;
        for b in fresh {
            match *b {
                Block::Nodes(_, n) => {
                    self.inodes += n as u64;
                    self.inode_bytes += (n as usize * node_size) as u64;
                }
                Block::Leaves(_, n) => {
                    self.leaves += n as u64;
                    self.leaf_bytes += (n as usize * leaf_size) as u64;
                }
            }
        }
    }

    /// Adds one prefix patched to the end, no longer than `s` when `short`.
    pub(crate) fn patched(&mut self, short: bool) {
        self.prefixes += 1;
        self.top_level += short as u64;
    }

    /// The counts between `earlier` and `self` (both from the same structure).
    pub fn since(&self, earlier: &UpdateCounts) -> UpdateCounts {
        UpdateCounts {
            prefixes: self.prefixes - earlier.prefixes,
            top_level: self.top_level - earlier.top_level,
            dir_entries: self.dir_entries - earlier.dir_entries,
            inodes: self.inodes - earlier.inodes,
            leaves: self.leaves - earlier.leaves,
            inode_bytes: self.inode_bytes - earlier.inode_bytes,
            leaf_bytes: self.leaf_bytes - earlier.leaf_bytes,
            array_copies: self.array_copies - earlier.array_copies,
        }
    }
}
