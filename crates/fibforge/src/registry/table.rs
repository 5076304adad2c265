//! The registry's one table: a [`Descriptor`] per name (aliases are rows too, pointing at
//! their structure with the options they imply), with its summary, options (key, default,
//! help), [`Id`], capabilities and a builder per address family. Adding a structure is one
//! row here plus its module (whose `Config` parses its own options), an [`Id`] variant, and,
//! when it takes updates or makes a concurrent table, its arm in `updates.rs` or
//! `structure.rs` (matched on the id, never on the name).

use super::{AlgoSpec, Built, Capabilities, Descriptor, Opt, StructureId as Id, Updates};
use crate::addr::Address;
use crate::algo;
use crate::export::file::Algorithm;
use crate::fib::{Compile, Lookup};
use crate::multi;
use crate::rib::Rib;

const NONE: &[Opt] = &[];

/// The `isa=` option of the structures with SIMD kernels ([`crate::cpu`]).
const fn isa_opt(help: &'static str) -> Opt {
    Opt { key: "isa", default: "auto", help }
}

const POPTRIE_OPTS: &[Opt] = &[
    Opt { key: "s", default: "18", help: "direct-pointing bits, 0 to 24" },
    Opt { key: "aggregate", default: "on", help: "on|off: route aggregation (§3)" },
    Opt {
        key: "leafvec",
        default: "on",
        help: "on|off: leaf runs in 24-byte nodes (§3.3); off: basic 16-byte nodes, a leaf \
               per slot (§3.1; no fan-out, export or C view)",
    },
    Opt {
        key: "dir16",
        default: "on",
        help: "on|off: 16-bit direct-pointing entries where they fit",
    },
    Opt {
        key: "fanout",
        default: "on (IPv6), off (IPv4)",
        help: "on|off: root fan-out, IPv6 only",
    },
    isa_opt("auto|portable|avx2|avx512: the walk (popcnt/BMI at avx2, dir gathers at avx512)"),
];

const BLOOM_OPTS: &[Opt] = &[
    Opt {
        key: "fpr",
        default: "0.3",
        help: "target false-positive rate of each filter, in (0, 1)",
    },
    Opt {
        key: "hash",
        default: "h2 (bloomfwd IPv4), murmur (bloomfwd IPv6), independent hashes (others)",
        help: "h2|murmur|knuth: the double-hashing function",
    },
    Opt {
        key: "levels",
        default: "5 (bloomfwd IPv6), cpe (IPv4 but bloom_naive), 0 (others)",
        help: "DPCPE levels (0: one level per length)",
    },
    Opt {
        key: "cpe",
        default: "on (IPv4 but bloom_naive), off (others)",
        help: "on|off: IPv4 /20+/24+/32 grouping",
    },
    isa_opt("auto|portable|avx2|avx512: batch hashing of double-hashing schemes"),
];

const SAIL_OPTS: &[Opt] =
    &[Opt { key: "width", default: "auto", help: "auto|16|32: word width of the arrays" }];

const DXR16_OPTS: &[Opt] = &[
    Opt { key: "short", default: "on", help: "on|off: the short range format (IPv4 only)" },
    Opt { key: "k", default: "16", help: "direct-table bits, overriding the name's" },
];

const DXR18_OPTS: &[Opt] = &[
    Opt { key: "short", default: "on", help: "on|off: the short range format (IPv4 only)" },
    Opt { key: "k", default: "18", help: "direct-table bits, overriding the name's" },
];

const CPE_OPTS: &[Opt] = &[
    Opt { key: "levels", default: "4 (IPv4), 16 (IPv6)", help: "most trie levels" },
    Opt { key: "leafpush", default: "on", help: "on|off: leaf-pushed (fast) or updatable trie" },
    Opt { key: "packed", default: "off", help: "on|off: sparse nodes as packed one-line arrays" },
    Opt {
        key: "maxstride",
        default: "24 (leafpush=on), 17 (leafpush=off)",
        help: "largest stride in bits",
    },
];

/// What every Poptrie row can do (the aliases included).
const POPTRIE_CAPS: Capabilities = Capabilities {
    updates: Updates::Native,
    table: true,
    export: Some(Algorithm::Poptrie),
    ..Capabilities::STATIC
};

/// Every algorithm, in the order reports show them.
pub const ALGORITHMS: &[Descriptor] = &[
    Descriptor {
        name: "radix",
        summary: "binary radix (Patricia) tree: the RIB itself, the baseline",
        options: NONE,
        id: Id::Radix,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed(2, ""),
        ipv4: Some(radix::<u32>),
        ipv6: Some(radix::<u128>),
    },
    Descriptor {
        name: "loop",
        summary: "LOOP layered overlay bitmaps (Mi, Yang et al.), one table; many tables via `verify DIR`",
        options: &[
            Opt { key: "group", default: "64", help: "prefixes per overlay group" },
            Opt { key: "sparse", default: "3", help: "most routes of a sparse chunk" },
            Opt { key: "strides", default: "", help: "level strides joined by '-', e.g. 16-8-8" },
            Opt { key: "pmt", default: "columns", help: "columns|packed: the PortMapTable layout" },
        ],
        id: Id::Loop,
        implies: &[],
        alias_of: None,
        caps: Capabilities { many_tables: true, ..Capabilities::left_right() }.replayed(3, ""),
        ipv4: Some(loop_::<u32>),
        ipv6: Some(loop_::<u128>),
    },
    Descriptor {
        name: "bloom_naive",
        summary: "Bloom filter + hash table per prefix length (Dharmapurikar; Lucchesi §3.1)",
        options: BLOOM_OPTS,
        id: Id::Bloom,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed(4, ""),
        ipv4: Some(bloom::<u32>),
        ipv6: Some(bloom::<u128>),
    },
    Descriptor {
        name: "bloom_base",
        summary: "counting Bloom filters, asymmetric sizes, IPv4 CPE /20+/24+/32 (Lucchesi §3.2)",
        options: BLOOM_OPTS,
        id: Id::Bloom,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed(5, ""),
        ipv4: Some(bloom::<u32>),
        ipv6: Some(bloom::<u128>),
    },
    Descriptor {
        name: "bloomfwd",
        summary: "Bloomfwd: H2/Murmur/Knuth double hashing, SIMD batches, DPCPE for IPv6 (Lucchesi §4)",
        options: BLOOM_OPTS,
        id: Id::Bloom,
        implies: &[],
        alias_of: None,
        caps: Capabilities { export: Some(Algorithm::Bloomfwd), ..Capabilities::left_right() }
            .replayed(6, ""),
        ipv4: Some(bloom::<u32>),
        ipv6: Some(bloom::<u128>),
    },
    Descriptor {
        name: "poptrie",
        summary: "Poptrie (Asai & Ohara 2015): 64-ary popcount trie",
        options: POPTRIE_OPTS,
        id: Id::Poptrie,
        implies: &[],
        alias_of: None,
        caps: POPTRIE_CAPS.replayed(0, ""),
        ipv4: Some(poptrie::<u32>),
        ipv6: Some(poptrie::<u128>),
    },
    Descriptor {
        name: "poptrie0",
        summary: "Poptrie without direct pointing (s=0)",
        options: POPTRIE_OPTS,
        id: Id::Poptrie,
        implies: &[("s", "0")],
        alias_of: Some("poptrie"),
        caps: POPTRIE_CAPS,
        ipv4: Some(poptrie::<u32>),
        ipv6: Some(poptrie::<u128>),
    },
    Descriptor {
        name: "poptrie16",
        summary: "Poptrie, direct pointing on the first 16 address bits (s=16)",
        options: POPTRIE_OPTS,
        id: Id::Poptrie,
        implies: &[("s", "16")],
        alias_of: Some("poptrie"),
        caps: POPTRIE_CAPS,
        ipv4: Some(poptrie::<u32>),
        ipv6: Some(poptrie::<u128>),
    },
    Descriptor {
        name: "poptrie18",
        summary: "Poptrie, direct pointing on the first 18 address bits (s=18)",
        options: POPTRIE_OPTS,
        id: Id::Poptrie,
        implies: &[("s", "18")],
        alias_of: Some("poptrie"),
        caps: POPTRIE_CAPS,
        ipv4: Some(poptrie::<u32>),
        ipv6: Some(poptrie::<u128>),
    },
    Descriptor {
        name: "bplus",
        summary: "interval B+-tree (after PlanB, NSDI 2026): predecessor search over the RIB's \
                  ranges in 64-byte SIMD nodes",
        options: &[
            isa_opt("auto|portable|avx2|avx512: the node-rank instructions"),
            Opt {
                key: "delta",
                default: "4096",
                help: "side-table slots for updates, 1 to 1048576",
            },
            Opt { key: "dir", default: "on", help: "on|off: the 16-bit front directory" },
            Opt {
                key: "dhop",
                default: "on",
                help: "on|off: one-interval directory blocks hold their next hop",
            },
            Opt {
                key: "dir2",
                default: "on",
                help: "on|off: 8 more key bits for the directory's populous blocks",
            },
            Opt {
                key: "bgroup",
                default: "off",
                help: "on|off: batch lanes start at their directory node, by level",
            },
            Opt { key: "lanes", default: "16", help: "8|16|32: batch lanes walked in lock step" },
            Opt {
                key: "leaf",
                default: "auto",
                help: "auto|plain|rel|hop: full keys, up to 13 offsets per leaf line, or 9 with \
                       their answers (auto: hop for IPv6, plain for IPv4)",
            },
        ],
        id: Id::BPlus,
        implies: &[],
        alias_of: None,
        caps: Capabilities { updates: Updates::Native, table: true, ..Capabilities::STATIC }
            .replayed(1, ""),
        ipv4: Some(bplus::<u32>),
        ipv6: Some(bplus::<u128>),
    },
    Descriptor {
        name: "dir24_8",
        summary: "DIR-24-8-BASIC (Gupta et al. 1998): 2^24 first-level table + 256-entry chunks",
        options: NONE,
        id: Id::Dir24_8,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed_v4(20),
        ipv4: Some(|_, rib| compiled::<_, algo::dir24_8::Dir24_8>(rib, &())),
        ipv6: None,
    },
    Descriptor {
        name: "dxr16",
        summary: "DXR D16R (Zec, Rizzo, Mikuc 2012): 2^16 direct table + binary-searched range \
                  tables (IPv6: long format, Poptrie paper §4.10)",
        options: DXR16_OPTS,
        id: Id::Dxr,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed(12, ""),
        ipv4: Some(dxr::<u32>),
        ipv6: Some(dxr::<u128>),
    },
    Descriptor {
        name: "dxr18",
        summary: "DXR D18R: 2^18 direct table + binary-searched range tables",
        options: DXR18_OPTS,
        id: Id::Dxr,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed(13, ""),
        ipv4: Some(dxr::<u32>),
        ipv6: Some(dxr::<u128>),
    },
    Descriptor {
        name: "sail_b",
        summary: "SAIL_B (Yang 2014): bitmaps per length 0-24, pivot pushing to /32 chunks",
        options: SAIL_OPTS,
        id: Id::SailB,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed_v4(21),
        ipv4: Some(sail::<algo::sail::SailB>),
        ipv6: None,
    },
    Descriptor {
        name: "sail_u",
        summary: "SAIL_U (Yang 2014): pushed to levels 6/12/18/24, one bitmap word per update",
        options: SAIL_OPTS,
        id: Id::SailU,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed_v4(22),
        ipv4: Some(sail::<algo::sail::SailU>),
        ipv6: None,
    },
    Descriptor {
        name: "sail_l",
        summary: "SAIL_L (Yang 2014): pushed to levels 16/24/32 (IPv6: to /64), chunk ids",
        options: SAIL_OPTS,
        id: Id::SailL,
        implies: &[],
        alias_of: None,
        caps: Capabilities { export: Some(Algorithm::SailL), ..Capabilities::left_right() }
            .replayed_v4(23),
        ipv4: Some(sail_l::<u32>),
        ipv6: Some(sail_l::<u128>),
    },
    Descriptor {
        name: "miht",
        summary: "MIHT (Lin, Hsu, Hsieh 2014): B+ tree on k-bit keys + priority tries",
        options: &[
            Opt { key: "k", default: "16 (IPv4), 32 (IPv6)", help: "key bits" },
            Opt { key: "m", default: "16 (IPv4), 32 (IPv6)", help: "16|32: B+ tree order" },
        ],
        id: Id::Miht,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed(7, ""),
        ipv4: Some(miht::<u32>),
        ipv6: Some(miht::<u128>),
    },
    Descriptor {
        name: "treebitmap4",
        summary: "Tree Bitmap (Eatherton, Varghese, Dittia 2004), stride 4 (16-ary): internal + \
                  external bitmaps, popcount; incremental updates",
        options: NONE,
        id: Id::TreeBitmap4,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed(8, ""),
        ipv4: Some(|_, rib| compiled::<_, algo::treebitmap::TreeBitmap4<u32>>(rib, &())),
        ipv6: Some(|_, rib| compiled::<_, algo::treebitmap::TreeBitmap4<u128>>(rib, &())),
    },
    Descriptor {
        name: "treebitmap6",
        summary: "Tree Bitmap, stride 6 (64-ary, as in the Poptrie paper); incremental updates",
        options: NONE,
        id: Id::TreeBitmap6,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed(9, ""),
        ipv4: Some(|_, rib| compiled::<_, algo::treebitmap::TreeBitmap6<u32>>(rib, &())),
        ipv6: Some(|_, rib| compiled::<_, algo::treebitmap::TreeBitmap6<u128>>(rib, &())),
    },
    Descriptor {
        name: "bsearch",
        summary: "binary search on prefix endpoints with precomputed = and > answers (Lampson, \
                  Srinivasan, Varghese 1998; CPE Table 2)",
        options: &[Opt {
            key: "lanes",
            default: "16",
            help: "1 to 64: batch lookups searched in lock step",
        }],
        id: Id::Bsearch,
        implies: &[],
        alias_of: None,
        caps: Capabilities::STATIC,
        ipv4: Some(bsearch::<u32>),
        ipv6: Some(bsearch::<u128>),
    },
    Descriptor {
        name: "bsl",
        summary: "binary search on prefix lengths with markers (Waldvogel 1997), one cache line \
                  per probe",
        options: &[
            Opt { key: "levels", default: "0", help: "CPE to K lengths (Srinivasan-Varghese §6)" },
            Opt {
                key: "lengths",
                default: "",
                help: "L1/L2/...: CPE to these lengths (Table 11: 16/24/32)",
            },
            Opt {
                key: "first",
                default: "hash",
                help: "hash|array: shortest length as a full array (§6.3, <=20)",
            },
        ],
        id: Id::Bsl,
        implies: &[],
        alias_of: None,
        caps: Capabilities::STATIC,
        ipv4: Some(bsl::<u32>),
        ipv6: Some(bsl::<u128>),
    },
    Descriptor {
        name: "bsl_hybrid",
        summary: "IPv6 hybrid of Srinivasan-Varghese §7: hashing on lengths 32/64/96 (two probes), \
                  then a leaf-pushed trie over the 32 bits left",
        options: &[
            Opt { key: "stride", default: "8", help: "4|8: bits per trie level" },
            Opt { key: "packed", default: "on", help: "on|off: sparse nodes as packed arrays" },
        ],
        id: Id::BslHybrid,
        implies: &[],
        alias_of: None,
        caps: Capabilities::STATIC,
        ipv4: None,
        ipv6: Some(|spec, rib| {
            let cfg = algo::bsl::hybrid::Config::from_spec(spec)?;
            compiled::<_, algo::bsl::hybrid::BslHybrid>(rib, &cfg)
        }),
    },
    Descriptor {
        name: "sail_m",
        summary: "SAIL_M (Yang 2014): SAIL_L over the merged trie of many tables (IPv6: to /64); \
                  one table here, many via `verify DIR` and `bench --multi DIR`",
        options: SAIL_OPTS,
        id: Id::SailM,
        implies: &[],
        alias_of: None,
        caps: Capabilities { many_tables: true, ..Capabilities::left_right() }.replayed_v4(24),
        ipv4: Some(sail_m::<u32>),
        ipv6: Some(sail_m::<u128>),
    },
    Descriptor {
        name: "cpe_fixed",
        summary: "fixed-stride multibit trie, strides by dynamic programming (Srinivasan-Varghese 1998)",
        options: CPE_OPTS,
        id: Id::Cpe,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed(10, "leafpush=off"),
        ipv4: Some(cpe::<u32>),
        ipv6: Some(cpe::<u128>),
    },
    Descriptor {
        name: "cpe_var",
        summary: "variable-stride multibit trie, per-node strides by dynamic programming \
                  (Srinivasan-Varghese 1998)",
        options: CPE_OPTS,
        id: Id::Cpe,
        implies: &[],
        alias_of: None,
        caps: Capabilities::left_right().replayed(11, "leafpush=off"),
        ipv4: Some(cpe::<u32>),
        ipv6: Some(cpe::<u128>),
    },
    Descriptor {
        name: "lctrie",
        summary: "LC-trie (Nilsson & Karlsson 1999; Linux fib_trie's family): level- and \
                  path-compressed trie, base and prefix vectors",
        options: &[
            Opt { key: "fill", default: "0.5", help: "fill factor, 0.1 to 1" },
            Opt { key: "root", default: "16", help: "root branching bits, 0 to 20 (0: by fill)" },
        ],
        id: Id::LcTrie,
        implies: &[],
        alias_of: None,
        caps: Capabilities::STATIC,
        ipv4: Some(lctrie::<u32>),
        ipv6: Some(lctrie::<u128>),
    },
    Descriptor {
        name: "lulea",
        summary: "Lulea (Degermark et al. 1997): 16/8/8 levels of bit vectors as codewords, \
                  base indexes and a 678-row maptable; sparse/dense/very dense chunks",
        options: NONE,
        id: Id::Lulea,
        implies: &[],
        alias_of: None,
        caps: Capabilities::STATIC,
        ipv4: Some(|spec, rib| {
            let cfg = algo::lulea::Config::from_spec(spec)?;
            compiled::<_, algo::lulea::Lulea>(rib, &cfg)
        }),
        ipv6: None,
    },
];

/// Compiles `rib` into `F` with `cfg`, behind the registry's trait object.
fn compiled<A: Address, F: Compile<A> + 'static>(rib: &Rib<A>, cfg: &F::Config) -> Built<A> {
    Ok(Box::new(F::compile(rib, cfg)?))
}

fn radix<A: Address>(_: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    compiled::<A, algo::radix::Radix<A>>(rib, &())
}

fn loop_<A: Address>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = multi::loop_::Config::from_spec(spec)?;
    compiled::<A, multi::loop_::LoopFib<A>>(rib, &cfg)
}

fn bloom<A: algo::bloom::BloomKey>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::bloom::Config::from_spec(spec)?;
    compiled::<A, algo::bloom::BloomFib<A>>(rib, &cfg)
}

fn poptrie<A: algo::poptrie::Key>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::poptrie::Config::from_spec::<A>(spec)?;
    compiled::<A, algo::poptrie::Poptrie<A>>(rib, &cfg)
}

fn bplus<A: algo::bplus::Key>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::bplus::Config::from_spec(spec)?;
    compiled::<A, algo::bplus::BPlus<A>>(rib, &cfg)
}

fn dxr<A: Address>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::dxr::Config::from_spec(spec)?;
    compiled::<A, algo::dxr::Dxr<A>>(rib, &cfg)
}

fn sail<F: Compile<u32, Config = algo::sail::Config> + 'static>(
    spec: &AlgoSpec,
    rib: &Rib<u32>,
) -> Built<u32> {
    compiled::<u32, F>(rib, &algo::sail::Config::from_spec(spec)?)
}

fn sail_l<A: Address>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::sail::Config::from_spec(spec)?;
    compiled::<A, algo::sail::SailL<A>>(rib, &cfg)
}

fn sail_m<A: Address>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::sail::Config::from_spec(spec)?;
    Ok(Box::new(multi::sail_m::SailMFib::build(rib, &cfg)?) as Box<dyn Lookup<A>>)
}

fn miht<A: Address>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::miht::Config::from_spec(spec)?;
    compiled::<A, algo::miht::Miht<A>>(rib, &cfg)
}

fn bsl<A: Address>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::bsl::Config::from_spec(spec)?;
    compiled::<A, algo::bsl::Bsl<A>>(rib, &cfg)
}

fn cpe<A: Address>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::multibit::Config::from_spec(spec)?;
    if cfg.leaf_pushed {
        compiled::<A, algo::multibit::LeafPushedTrie<A>>(rib, &cfg)
    } else {
        compiled::<A, algo::multibit::UpdatableTrie<A>>(rib, &cfg)
    }
}

fn lctrie<A: Address>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::lctrie::Config::from_spec(spec)?;
    compiled::<A, algo::lctrie::LcTrie<A>>(rib, &cfg)
}

fn bsearch<A: Address>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let cfg = algo::bsearch::Config::from_spec(spec)?;
    compiled::<A, algo::bsearch::Bsearch<A>>(rib, &cfg)
}
