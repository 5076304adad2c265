//! Controlled prefix expansion and the dynamic programs that choose expansion levels.
//!
//! Paper: V. Srinivasan and G. Varghese, "Faster IP Lookups using Controlled Prefix
//! Expansion", ACM SIGMETRICS 1998 (`cpe-srinivasan-varghese-1998.txt`). This module is the
//! reusable half; the structures built on it are [`crate::algo::multibit`] (expanded tries,
//! §5) and [`crate::algo::bsl`] (binary search on prefix lengths, §6–§7).
//!
//! - `expand` / [`expand_each`] (§4.1): rewrite a table so that only the target lengths
//!   `L1 < … < Lk` ([`Levels`]) remain, with prefix capture. [`expansion_count`] counts
//!   without producing; [`ExpansionCosts`] gives the count for every (previous level, level)
//!   pair and [`min_expansion_levels`] the `k` lengths with the fewest expanded prefixes.
//! - [`FixedStrideDp`] (§4.2, Table 5): the level ends of the smallest fixed-stride trie with
//!   at most `k` levels, from the node counts per depth ([`DepthProfile`]).
//! - [`VarStrideDp`] (§5, Figure 5, Tables 6–8): per-node strides of the smallest
//!   variable-stride trie with at most `k` levels, over the 1-bit trie ([`OneBitTrie`]),
//!   optionally with packed-array nodes and a maximum stride.
//!
//! Memory is in bytes under a [`CostModel`] (entry size, packed-node size and capacity), the
//! same model the trie builders use, so a plan's bytes equal the built arrays' bytes
//! (without packing; with packing the builders may pack more nodes, never fewer).
//!
//! Limits: strides are at most [`MAX_STRIDE`] bits (a node of `2^24` entries); `expand`
//! materialises at most [`MAX_EXPANDED`] prefixes (stream bigger expansions).

mod cost;
mod expand;
mod expansion_dp;
mod fixed_dp;
mod levels;
mod onebit;
mod var_dp;

pub use cost::{CostModel, INFEASIBLE, PackedCost};
pub use expand::{Expansion, MAX_EXPANDED, expand, expand_each, expansion_count};
pub use expansion_dp::{ExpansionCosts, min_expansion_levels};
pub use fixed_dp::{DepthProfile, FixedStrideDp};
pub use levels::Levels;
pub use onebit::OneBitTrie;
pub use var_dp::{MAX_STRIDE, VarPlan, VarStrideDp};

pub(crate) use expand::sweep;

#[cfg(test)]
pub(crate) mod tests;
