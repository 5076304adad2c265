//! Many tables by name: the rows of [`MANY_TABLES`] (LOOP, SAIL_M, one structure per table
//! and LOOP's merged-trie comparators), the same shape as [`super::ALGORITHMS`]'s, and
//! [`PerTable`] over any registered structure.

use super::{AlgoSpec, Opt, RegistryFamily, build};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::multi::bitmap_trie::{self, BitmapTrie};
use crate::multi::braiding;
use crate::multi::braiding::TrieBraiding;
use crate::multi::loop_;
use crate::multi::loop_::Loop;
use crate::multi::merged;
use crate::multi::merged::MergedTrie;
use crate::multi::overlap;
use crate::multi::overlap::TrieOverlap;
use crate::multi::sail_m::SailM;
use crate::multi::{MultiLookup, PerTable, VrfId};
use crate::rib::Rib;

/// What a many-table builder returns.
#[doc(hidden)]
pub type BuiltMany<A> = Result<Box<dyn MultiLookup<A>>, BuildError>;

/// Builds a many-table structure over tables of family `A` (VRF id = position).
#[doc(hidden)]
pub type ManyBuilder<A> = fn(&AlgoSpec, &[Rib<A>]) -> BuiltMany<A>;

/// One many-table structure: a row of [`MANY_TABLES`].
#[derive(Debug, Clone, Copy)]
pub struct ManyDescriptor {
    /// The name used on the command line (`verify DIR --algo NAME`).
    pub name: &'static str,
    /// One line on what it is, with its options.
    pub summary: &'static str,
    /// The options it accepts (`None`: its one-table row's, see [`super::ALGORITHMS`]).
    pub options: Option<&'static [Opt]>,
    /// The specs `fibforge bench --multi` and `verify DIR --algo all` measure.
    pub bench: &'static [&'static str],
    /// One of the merged-trie comparators of LOOP's evaluation (`papers/loop-mi-yang.txt` §V).
    pub comparator: bool,
    /// Its IPv4 builder.
    pub ipv4: ManyBuilder<u32>,
    /// Its IPv6 builder.
    pub ipv6: ManyBuilder<u128>,
}

/// The options of `per_table`.
const PER_TABLE_OPTS: &[Opt] =
    &[Opt { key: "algo", default: "poptrie", help: "the structure of each table" }];

/// Every many-table structure, in the order `fibforge algos` lists them.
pub const MANY_TABLES: &[ManyDescriptor] = &[
    ManyDescriptor {
        name: "loop",
        summary: "LOOP (Mi, Yang et al.): one layered overlay structure for all tables",
        options: None,
        bench: &["loop"],
        comparator: false,
        ipv4: loop_::<u32>,
        ipv6: loop_::<u128>,
    },
    ManyDescriptor {
        name: "sail_m",
        summary: "SAIL_M (Yang 2014): SAIL_L over the merged trie of all tables",
        options: None,
        bench: &["sail_m"],
        comparator: false,
        ipv4: sail_m::<u32>,
        ipv6: sail_m::<u128>,
    },
    ManyDescriptor {
        name: "per_table",
        summary: "one structure per table",
        options: Some(PER_TABLE_OPTS),
        bench: &["per_table"],
        comparator: false,
        ipv4: per_table::<u32>,
        ipv6: per_table::<u128>,
    },
    ManyDescriptor {
        name: "merged_trie",
        summary: "Merged Trie, one next-hop vector per node",
        options: Some(&[Opt { key: "leafpush", default: "off", help: "on|off: leaf pushing" }]),
        bench: &["merged_trie:leafpush=off", "merged_trie:leafpush=on"],
        comparator: true,
        ipv4: merged::<u32>,
        ipv6: merged::<u128>,
    },
    ManyDescriptor {
        name: "trie_overlap",
        summary: "Trie Overlap (Fu & Rexford 2008): leaf-pushed, level-compressed",
        options: Some(&[
            Opt { key: "fill", default: "0.5", help: "fill factor of the level compression" },
            Opt { key: "root", default: "16", help: "root branching bits (0: by fill)" },
            Opt { key: "stride", default: "0", help: "bits per level (0: by fill)" },
        ]),
        bench: &["trie_overlap"],
        comparator: true,
        ipv4: overlap::<u32>,
        ipv6: overlap::<u128>,
    },
    ManyDescriptor {
        name: "trie_braiding",
        summary: "Trie Braiding (Song et al. 2010), braiding bits",
        options: Some(&[Opt { key: "braid", default: "optimal", help: "optimal|greedy|off" }]),
        bench: &["trie_braiding", "trie_braiding:braid=greedy", "trie_braiding:braid=off"],
        comparator: true,
        ipv4: braiding::<u32>,
        ipv6: braiding::<u128>,
    },
    ManyDescriptor {
        name: "bitmap_trie",
        summary: "Bitmap-assisted Trie (LOOP §II): per-node table bitmap + next-hop array",
        options: Some(&[]),
        bench: &["bitmap_trie"],
        comparator: true,
        ipv4: bitmap::<u32>,
        ipv6: bitmap::<u128>,
    },
];

/// Looks up a many-table structure by name.
pub fn many_info(name: &str) -> Option<&'static ManyDescriptor> {
    MANY_TABLES.iter().find(|m| m.name == name)
}

/// The specs `bench --multi` measures of LOOP's comparators: every comparator, the Merged
/// Trie with and without leaf pushing, Trie Braiding with its three braiding choices.
#[doc(hidden)]
pub fn comparator_specs() -> impl Iterator<Item = &'static str> {
    MANY_TABLES.iter().filter(|m| m.comparator).flat_map(|m| m.bench.iter().copied())
}

/// Every spec `verify DIR --algo all` checks: each many-table structure's bench specs.
#[doc(hidden)]
pub fn many_specs() -> impl Iterator<Item = &'static str> {
    MANY_TABLES.iter().flat_map(|m| m.bench.iter().copied())
}

/// Builds the many-table structure `spec` names over `tables`; `None` when the name is not
/// one of [`MANY_TABLES`].
pub fn build_many<A: RegistryFamily>(spec: &AlgoSpec, tables: &[Rib<A>]) -> Option<BuiltMany<A>> {
    let row = many_info(&spec.name)?;
    Some(A::many_builder(row)(spec, tables))
}

fn boxed<A: Address, M: MultiLookup<A> + 'static>(m: M) -> Box<dyn MultiLookup<A>> {
    Box::new(m)
}

/// LOOP, built at once or (`build=incremental`) by table insertions and a deletion (the
/// middle table removed and added back: it must get its VRF id again).
fn loop_<A: Address>(spec: &AlgoSpec, ribs: &[Rib<A>]) -> BuiltMany<A> {
    let mut spec = spec.clone();
    let incremental = match spec.options.remove("build").as_deref() {
        None | Some("full") => false,
        Some("incremental") => true,
        Some(other) => {
            return Err(crate::spec::bad(
                "loop",
                "build",
                other,
                "expected 'full' or 'incremental'",
            ));
        }
    };
    let cfg = loop_::Config::from_spec(&spec)?;
    if !incremental {
        return Loop::build(ribs.to_vec(), &cfg).map(boxed);
    }
    let mut l = Loop::build(Vec::new(), &cfg)?;
    for rib in ribs {
        l.add_table(rib.clone())?;
    }
    if ribs.len() > 2 {
        let middle = (ribs.len() / 2) as VrfId;
        let rib = l.remove_table(middle)?;
        let again = l.add_table(rib)?;
        if again != middle {
            let reason = format!("re-added table got VRF {again}, not {middle}");
            return Err(BuildError::Unsupported { algo: "loop", reason });
        }
    }
    Ok(boxed(l))
}

fn sail_m<A: Address>(spec: &AlgoSpec, ribs: &[Rib<A>]) -> BuiltMany<A> {
    let cfg = crate::algo::sail::Config::from_spec(spec)?;
    SailM::build(ribs, &cfg).map(boxed)
}

fn per_table<A: RegistryFamily>(spec: &AlgoSpec, ribs: &[Rib<A>]) -> BuiltMany<A> {
    spec.check_options("per_table", &["algo"])?;
    let inner = spec.options.get("algo").map_or("poptrie", |s| s.as_str());
    PerTable::build(ribs, &AlgoSpec::named(inner)).map(boxed)
}

fn merged<A: Address>(spec: &AlgoSpec, ribs: &[Rib<A>]) -> BuiltMany<A> {
    MergedTrie::build(ribs, &merged::Config::from_spec(spec)?).map(boxed)
}

fn overlap<A: Address>(spec: &AlgoSpec, ribs: &[Rib<A>]) -> BuiltMany<A> {
    TrieOverlap::build(ribs, &overlap::Config::from_spec(spec)?).map(boxed)
}

fn braiding<A: Address>(spec: &AlgoSpec, ribs: &[Rib<A>]) -> BuiltMany<A> {
    TrieBraiding::build(ribs, &braiding::Config::from_spec(spec)?).map(boxed)
}

fn bitmap<A: Address>(spec: &AlgoSpec, ribs: &[Rib<A>]) -> BuiltMany<A> {
    bitmap_trie::check_spec(spec)?;
    BitmapTrie::build(ribs).map(boxed)
}

impl<A: RegistryFamily> PerTable<A> {
    /// Builds `spec` for every table.
    pub fn build(ribs: &[Rib<A>], spec: &AlgoSpec) -> Result<Self, BuildError> {
        let tables = ribs.iter().map(|r| build(spec, r)).collect::<Result<_, _>>()?;
        Ok(PerTable::from_lookups(tables))
    }
}
