//! The merged-trie comparators of LOOP's evaluation (`papers/loop-mi-yang.txt` §V) by name,
//! for the many-table `verify` and `bench --multi`: [`NAMES`] lists them, [`build`] builds
//! one from an [`AlgoSpec`] behind `Box<dyn MultiLookup>`.

use super::MultiLookup;
use super::bitmap_trie::{self, BitmapTrie};
use super::braiding::{BraidingConfig, TrieBraiding};
use super::merged::{MergedConfig, MergedTrie};
use super::overlap::{OverlapConfig, TrieOverlap};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::rib::Rib;
use crate::spec::AlgoSpec;

/// The comparators' names with their options.
pub const NAMES: &[(&str, &str)] = &[
    ("merged_trie", "Merged Trie, one next-hop vector per node; leafpush=on|off (default off)"),
    (
        "trie_overlap",
        "Trie Overlap (Fu & Rexford 2008): leaf-pushed, level-compressed; fill=F, root=N, stride=N",
    ),
    (
        "trie_braiding",
        "Trie Braiding (Song et al. 2010), braiding bits; braid=optimal|greedy|off (optimal)",
    ),
    ("bitmap_trie", "Bitmap-assisted Trie (LOOP §II): per-node table bitmap + next-hop array"),
];

/// The specs `bench --multi` measures: every comparator, the Merged Trie with and without
/// leaf pushing, Trie Braiding with its three braiding choices.
pub const BENCH_SPECS: &[&str] = &[
    "merged_trie:leafpush=off",
    "merged_trie:leafpush=on",
    "trie_overlap",
    "trie_braiding",
    "trie_braiding:braid=greedy",
    "trie_braiding:braid=off",
    "bitmap_trie",
];

/// Builds the comparator `spec` names over `tables`; `None` when the name is not one of them.
pub fn build<A: Address>(
    spec: &AlgoSpec,
    tables: &[Rib<A>],
) -> Option<Result<Box<dyn MultiLookup<A>>, BuildError>> {
    fn boxed<A: Address, M: MultiLookup<A> + 'static>(m: M) -> Box<dyn MultiLookup<A>> {
        Box::new(m)
    }
    let built =
        match spec.name.as_str() {
            "merged_trie" => {
                MergedConfig::from_spec(spec).and_then(|c| MergedTrie::build(tables, &c).map(boxed))
            }
            "trie_overlap" => OverlapConfig::from_spec(spec)
                .and_then(|c| TrieOverlap::build(tables, &c).map(boxed)),
            "trie_braiding" => BraidingConfig::from_spec(spec)
                .and_then(|c| TrieBraiding::build(tables, &c).map(boxed)),
            "bitmap_trie" => {
                bitmap_trie::check_spec(spec).and_then(|_| BitmapTrie::build(tables).map(boxed))
            }
            _ => return None,
        };
    Some(built)
}
