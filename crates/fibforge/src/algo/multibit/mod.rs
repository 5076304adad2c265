//! Multibit tries built by controlled prefix expansion (Srinivasan & Varghese, SIGMETRICS
//! 1998, §4.3 and §5; `cpe-srinivasan-varghese-1998.txt`).
//!
//! A trie of `k` levels reads `s` address bits per node (its *stride*) and indexes an array
//! of `2^s` entries; routes whose length falls inside a node's window are expanded into it
//! with prefix capture ([`crate::algo::cpe`]). The strides come from the paper's dynamic
//! programs: one per level ([`Config::variable`] off, `cpe_fixed`) or one per node
//! (`cpe_var`), minimising memory for at most `k` levels, optionally with a maximum stride
//! and packed-array nodes.
//!
//! Two layouts:
//! - [`LeafPushedTrie`] (§4.3 leaf pushing): 4-byte entries, each a child pointer or the
//!   final answer; the fastest lookups and half the memory; built once (`Compile`).
//! - [`UpdatableTrie`] (non-leaf-pushed): 8-byte entries holding a child pointer and the best
//!   route of the node's own window; insert, delete and route change touch one node
//!   (`Incremental`, see `update.rs`), with a default maximum stride of 17 bits, the paper's
//!   bound on the rebuild cost.
//!
//! Memory layout: all nodes in one arena of 64-byte-aligned lines (`arena.rs`); a node never
//! straddles two lines; packed nodes (`packed.rs`) are exactly one line. Pointers carry the
//! child's stride, so fixed and variable tries share one lookup loop. The updatable trie's
//! arena keeps a quarter of its size (and at least two nodes of 2^17 entries) spare, so an
//! update does not move the whole array; `memory_bytes` counts that spare.
//!
//! Invariants: an entry is a pointer exactly when a route longer than the node's window ends
//! lies below it; every node's window holds the routes of lengths `(d, d + s]` below it (the
//! root also length 0); leaf-pushed entries hold the longest route covering them of at most
//! `d + s` bits, non-leaf-pushed ones that of their window only.
//!
//! Limits (checked, reported as `BuildError::LimitExceeded`): leaf-pushed next-hop raw ids
//! below 2^31 and at most 2^26 entries; non-leaf-pushed any next-hop id and at most 2^27
//! entries; strides at most [`crate::algo::cpe::MAX_STRIDE`] bits.

mod arena;
mod leaf_pushed;
mod packed;
mod plan;
mod updatable;
mod update;

pub use leaf_pushed::LeafPushedTrie;
pub use plan::{
    Config, DEFAULT_IPV4_LEVELS, DEFAULT_IPV6_LEVELS, DEFAULT_UPDATABLE_MAX_STRIDE, Plan,
    StridePlan, make_plan,
};
pub use updatable::UpdatableTrie;

/// The leaf-pushed building blocks other structures put their tries in (the §7 hybrid of
/// `bsl_hybrid` keeps one leaf-pushed trie per hashed key).
pub(crate) type LeafArena = arena::Arena<u32>;
pub(crate) use leaf_pushed::{LeafBuilder, PTR, step as leaf_step, walk as leaf_walk};

/// What a built trie looks like.
#[derive(Clone, Debug, Default, PartialEq)]
#[doc(hidden)]
pub struct TrieStats {
    /// Nodes.
    pub nodes: usize,
    /// Packed-array nodes among them.
    pub packed_nodes: usize,
    /// Deepest level (the root is level 1).
    pub levels: usize,
    /// Bytes of live node arrays (what the dynamic program predicts for unpacked tries).
    pub node_bytes: u64,
    /// Bytes the dynamic program predicted.
    pub predicted_bytes: u64,
    /// Time of the dynamic program.
    pub dp_time: std::time::Duration,
}

#[cfg(test)]
mod tests;
