//! `poptrie`: Asai & Ohara, "Poptrie: A Compressed Trie with Population Count for Fast and
//! Scalable Software IP Routing Table Lookup", SIGCOMM 2015.
//!
//! # What is implemented
//!
//! - §3.1–3.2: a 64-ary multiway trie whose node holds a bit `vector` of internal children
//!   and `base1`; the child of chunk value `n` is found by a population count.
//! - §3.3: `leafvec` + `base0`: runs of equal leaves are stored once; slots that continue in an
//!   internal child are holes that do not break a run ("hole punching"). On by default;
//!   `leafvec=off` gives the basic Poptrie of §3.1 (Table 2's "Poptrie (basic)" rows):
//!   16-byte records `{vector, base0, base1}` and a leaf for every leaf slot (no runs), the
//!   leaf of slot `n` at `base0 + popcount(!vector & mask(n)) - 1`. Both layouts share the
//!   build, the walks, the batches, the dispatch and the updates: the record is a type
//!   parameter (`layout::Record`), so each layout gets its own compiled walk. Incremental
//!   updates work for both (property-tested against a fresh compile). The basic layout has
//!   no root fan-out (no record can stand for a leaf slot), no export file and no raw view
//!   for the C ABI: those refuse it with an error naming `leafvec=off`.
//! - §3.4: direct pointing: the first `s` bits index a `2^s` array whose entry is a next hop
//!   (top bit set) or the node for that `/s`. `s = 0` is plain Poptrie (one entry).
//! - §3 route aggregation (on by default, `aggregate=off` to disable): slots whose answer is
//!   constant are leaves, whatever routes produce that answer (see `build.rs`).
//! - §3.5: incremental updates that rebuild only the changed part and publish it with one
//!   atomic store per direct-pointing entry (see `update.rs`); [`crate::sync::Table`] adds
//!   concurrent readers and memory reclamation.
//!
//! - Export and import of the compiled arrays (`export.rs`, `docs/reference/export-format.md`): a
//!   canonical repacked shape out, every index checked in (`import_check.rs`), placed as a
//!   compile would place it.
//!
//! IPv4 (`u32`) and IPv6 (`u128`) share one implementation: a node at bit offset `off` uses
//! the 6 address bits there, zero-padded past the last bit (an IPv4 node at offset 30 has 2
//! real bits), so host routes (/32, /128) are exact.
//!
//! # Memory layout
//!
//! - `dir`: `2^s` entries: a raw next hop or the index of a node (a *root*). 16 bits wide
//!   when the table allows (`dir.rs`: half the array that random lookups touch most; the
//!   roots then lie in their own region at the start of `nodes`), else 32 bits
//!   (`0x8000_0000 | raw next hop`, or a node index). `dir16=off` always takes 32 bits.
//! - `nodes`: 24-byte records `{vector: u64, leafvec: u64, base0: u32, base1: u32}` (with
//!   `leafvec=off`, 16-byte `{vector: u64, base0: u32, base1: u32}`); a node's children are
//!   one contiguous block, in slot order.
//! - `fanout` (IPv6 only, on by default, `fanout=on|off`; only with a 16-bit `dir`): 64
//!   records per root slot, copies of each root's children and *fillers* for its leaf slots,
//!   so a lookup skips the root (`fanout.rs`); it speeds up IPv6's deep walks for a few
//!   hundred KiB. IPv4 tables have thousands of roots and walks of one or two levels, where
//!   it costs tens of MiB and speed, so IPv4 has none (and no test for it in its lookups:
//!   [`Key::FANOUT`]; figures in `docs/lab/poptrie.md`).
//! - `leaves`: `u8` when every raw next hop (index + 1) is at most 255 (a router's
//!   adjacencies, typically), `u16` up to 65,535, else `u32`; the lookup is compiled
//!   separately for each width. A node's leaves are one block.
//!
//! Blocks are placed by an allocator that keeps both arrays contiguous (`alloc.rs`); a fresh
//! compile packs them without gaps.
//!
//! # Invariants
//!
//! - A slot with its `vector` bit set has a child; its `leafvec` bit is clear.
//! - The first leaf slot of a node has its `leafvec` bit set; a node with 64 internal slots
//!   has `leafvec == 0` and no leaves. In the basic layout a node has `64 - popcount(vector)`
//!   leaves, one per leaf slot in slot order.
//! - With aggregation, no node has a constant answer (it would be a leaf in its parent);
//!   without, a node exists exactly where a route lies strictly inside its parent's slot.
//! - Published blocks are never written; updates write new blocks and switch to them.
//!
//! # IPv6 lookups inside real prefixes
//!
//! A /48 takes `dir`, four records (offsets 24–42, the first from the fan-out) and a leaf: a
//! chain of dependent loads that bounds in-prefix IPv6 rates. Shortening it (a larger `s`, a
//! hash to the deepest node) and other walk schedules were measured and not adopted
//! (`docs/lab/poptrie.md`).
//!
//! # Structural limits
//!
//! - Next hops: raw values up to 2^31 − 1 (the direct-pointing flag bit); beyond that
//!   compile returns [`BuildError::LimitExceeded`].
//! - Nodes: at most 2^31 − 1; leaves: at most 2^32 − 1.
//! - `s` in `0..=24` (a `2^s` array of 4-byte entries).

mod alloc;
mod build;
mod counts;
mod dir;
mod export;
mod fanout;
mod import_check;
mod layout;
mod lookup;
mod mapped;
mod raw;
mod reclaim;
mod record;
mod simd;
mod update;

impl Config {
    /// The configuration of family `A` that `spec`'s options give (`s`, `aggregate`,
    /// `leafvec`, `dir16`, `fanout` and `isa`); the registry resolves the names (`poptrie16`
    /// is `poptrie:s=16`).
    #[doc(hidden)]
    pub fn from_spec<A: Key>(spec: &crate::spec::AlgoSpec) -> Result<Self, BuildError> {
        let default = Config::for_family::<A>();
        let options = ["s", "aggregate", "leafvec", "dir16", "fanout", "isa"];
        spec.check_options("poptrie", &options)?;
        let leafvec = spec.get_bool("poptrie", "leafvec", default.leafvec)?;
        Ok(Config {
            s: spec.get_u32("poptrie", "s", default.s)?,
            aggregate: spec.get_bool("poptrie", "aggregate", default.aggregate)?,
            leafvec,
            narrow_dir: spec.get_bool("poptrie", "dir16", default.narrow_dir)?,
            fanout: fanout_option::<A>(spec, default.fanout && leafvec, leafvec)?,
            isa: Isa::from_option("poptrie", spec)?,
        })
    }
}

/// Poptrie's `fanout=on|off`: IPv6 only (the IPv4 lookup has no fan-out path), and only
/// with `leafvec` (a basic record cannot stand for a leaf slot: `fanout.rs`).
fn fanout_option<A: Key>(
    spec: &crate::spec::AlgoSpec,
    default: bool,
    leafvec: bool,
) -> Result<bool, BuildError> {
    let on = spec.get_bool("poptrie", "fanout", default)?;
    let refuse = |reason: &str| BuildError::BadOption {
        algo: "poptrie",
        option: "fanout=on".into(),
        reason: reason.into(),
    };
    if on && !A::FANOUT {
        return Err(refuse("root fan-out is for IPv6 tables only"));
    }
    if on && !leafvec {
        return Err(refuse("root fan-out needs leafvec (the basic layout, leafvec=off, has none)"));
    }
    Ok(on)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_basic;
#[cfg(test)]
mod tests_export;
#[cfg(test)]
mod tests_export_hostile;
#[cfg(test)]
mod tests_update;

use crate::cpu::Isa;
use crate::fib::{BuildError, Compile, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use alloc::{BlockAlloc, NodeAlloc};
use build::{Seg, VecSink};
pub use counts::UpdateCounts;
use dir::DirTable;
use layout::{Arena, Basic, Core, MAX_DIRECT_RAW, Node, Record};
pub use layout::{Key, Leaf};
pub(crate) use mapped::{AcceptHop, MappedArrays};
pub use raw::{RAW_LAYOUT_VERSION, RawArrays};
use reclaim::Reclaim;
use std::sync::Arc;

/// Build options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Direct-pointing bits (0 = none), `0..=24`.
    pub s: u32,
    /// Route aggregation (§3): store only what changes the answer.
    pub aggregate: bool,
    /// `leafvec` (§3.3): 24-byte records, runs of equal leaves stored once. Off: the basic
    /// Poptrie (§3.1), 16-byte records and a leaf for every leaf slot, without root fan-out
    /// (ignored then, as [`Stats::fanout`] says), export or raw view.
    pub leafvec: bool,
    /// 16-bit direct-pointing entries when the table allows (half the array; see `dir.rs`),
    /// else 32-bit ones.
    pub narrow_dir: bool,
    /// Root fan-out (`fanout.rs`): lookups skip the root, one load fewer, for 1.5 KiB per
    /// root; IPv6 only (ignored for IPv4: [`Stats::fanout`] says whether it is in use), and
    /// only with 16-bit `dir` entries.
    pub fanout: bool,
    /// The lookup's instruction set; `None` detects it ([`Isa::detect`]).
    pub isa: Option<Isa>,
}

/// The same for both families, so without root fan-out (IPv6 only); `Config::for_family`
/// is the recommended configuration (what `Table::new` and the command line use).
impl Default for Config {
    fn default() -> Self {
        Config { s: 18, aggregate: true, leafvec: true, narrow_dir: true, fanout: false, isa: None }
    }
}

impl Config {
    /// The recommended configuration for an address family: IPv6 with root fan-out (its
    /// walks are deep and its roots few), IPv4 without (thousands of roots, walks of one or
    /// two levels; figures in `docs/lab/poptrie.md`).
    #[doc(hidden)]
    pub fn for_family<A: Key>() -> Self {
        Config { fanout: A::FANOUT, ..Config::default() }
    }
}

/// Largest supported `s`.
#[doc(hidden)]
pub const MAX_S: u32 = 24;

/// Sizes of a compiled Poptrie (the paper's Table 2 columns).
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct Stats {
    /// Direct-pointing bits.
    pub s: u32,
    /// Route aggregation on.
    pub aggregate: bool,
    /// The `leafvec` layout (24-byte records, runs of leaves); false: the basic one.
    pub leafvec: bool,
    /// Leaf width in bits (8, 16 or 32).
    pub leaf_bits: u32,
    /// Direct-pointing entry width in bits (16 or 32).
    pub dir_bits: u32,
    /// Root fan-out in use (asked for, and `dir` is 16 bits wide).
    pub fanout: bool,
    /// Internal nodes in use.
    pub inodes: u64,
    /// Leaves in use.
    pub leaves: u64,
    /// Direct-pointing entries that are next hops (not nodes).
    pub direct_leaves: u64,
    /// Bytes of every array (as [`Lookup::memory_bytes`]).
    pub memory_bytes: usize,
}

/// The published arrays of a [`Poptrie`] (one leaf width) and the instruction set to walk
/// them with: what concurrent readers of a [`crate::sync::Table`] look up in.
#[doc(hidden)]
pub struct Fib<A: Key> {
    cores: Cores<A>,
    isa: Isa,
}

/// The arrays in the narrowest leaf width that holds every next hop, in the `leafvec` layout
/// or (`Basic*`, `leafvec=off`) the basic one.
pub(crate) enum Cores<A: Key> {
    /// At most 255 next hops (a router's adjacencies, usually).
    Tiny(Core<A, u8>),
    Narrow(Core<A, u16>),
    Wide(Core<A, u32>),
    BasicTiny(Core<A, u8, Basic>),
    BasicNarrow(Core<A, u16, Basic>),
    BasicWide(Core<A, u32, Basic>),
}

/// Evaluates `$body` with `$c` bound to the [`Core`] of whatever leaf width `$cores` holds.
macro_rules! with_core {
    ($cores:expr, $c:ident => $body:expr) => {
        match $cores {
            Cores::Tiny($c) => $body,
            Cores::Narrow($c) => $body,
            Cores::Wide($c) => $body,
            Cores::BasicTiny($c) => $body,
            Cores::BasicNarrow($c) => $body,
            Cores::BasicWide($c) => $body,
        }
    };
}
pub(crate) use with_core;

/// Evaluates `$body` with `$c` bound to the [`Core`] of the `leafvec` layout that `$cores`
/// holds, or `$basic` for the basic layout (for what only takes 24-byte records: export,
/// raw view).
macro_rules! with_leafvec_core {
    ($cores:expr, $c:ident => $body:expr, basic => $basic:expr) => {
        match $cores {
            Cores::Tiny($c) => $body,
            Cores::Narrow($c) => $body,
            Cores::Wide($c) => $body,
            Cores::BasicTiny(_) | Cores::BasicNarrow(_) | Cores::BasicWide(_) => $basic,
        }
    };
}
pub(crate) use with_leafvec_core;

/// The [`Cores`] of the same leaf width with `$body` (a `Core` built from `$c`) inside.
macro_rules! map_core {
    ($cores:expr, $c:ident => $body:expr) => {
        match $cores {
            Cores::Tiny($c) => Cores::Tiny($body),
            Cores::Narrow($c) => Cores::Narrow($body),
            Cores::Wide($c) => Cores::Wide($body),
            Cores::BasicTiny($c) => Cores::BasicTiny($body),
            Cores::BasicNarrow($c) => Cores::BasicNarrow($body),
            Cores::BasicWide($c) => Cores::BasicWide($body),
        }
    };
}
pub(crate) use map_core;

impl<A: Key> Fib<A> {
    pub(crate) fn new(cores: Cores<A>, isa: Isa) -> Self {
        Fib { cores, isa }
    }

    #[inline(always)]
    pub(crate) fn lookup(&self, a: A) -> Option<NextHop> {
        // The basic layout's walks stay out of line: inlined beside the default layout's three
        // they slowed the default's single lookups (docs/lab/poptrie.md).
        let raw = match &self.cores {
            Cores::Tiny(c) => c.lookup_with(self.isa, a),
            Cores::Narrow(c) => c.lookup_with(self.isa, a),
            Cores::Wide(c) => c.lookup_with(self.isa, a),
            basic => Self::lookup_basic(basic, self.isa, a),
        };
        NextHop::from_raw(raw)
    }

    /// A single lookup in the basic layout (`leafvec=off`).
    #[cold]
    #[inline(never)]
    fn lookup_basic(cores: &Cores<A>, isa: Isa, a: A) -> u32 {
        with_core!(cores, c => c.lookup_with(isa, a))
    }

    /// Looks up `addrs` into `out` (raw next hops written as `Option<NextHop>`).
    pub(crate) fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let raw = crate::nexthop::as_raw_slots(&mut out[..addrs.len()]);
        with_core!(&self.cores, c => c.lookup_batch_with(self.isa, addrs, raw));
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        with_core!(&self.cores, c => c.memory_bytes())
    }
}

impl<A: Key> Lookup<A> for Fib<A> {
    // Always: the C ABI's reader lookup is this walk behind one call, not two.
    #[inline(always)]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        Fib::lookup(self, addr)
    }

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        Fib::lookup_batch(self, addrs, out)
    }

    fn memory_bytes(&self) -> usize {
        Fib::memory_bytes(self)
    }
}

/// A compiled Poptrie for one address family.
pub struct Poptrie<A: Key> {
    fib: Arc<Fib<A>>,
    cfg: Config,
    node_alloc: NodeAlloc,
    leaf_alloc: BlockAlloc,
    reclaim: Reclaim,
    scratch: update::Scratch<A>,
}

impl<A: Key> Poptrie<A> {
    /// Node and leaf counts, leaf width and memory.
    #[doc(hidden)]
    pub fn stats(&self) -> Stats {
        let (leaf_bits, direct_leaves) =
            with_core!(&self.fib.cores, c => leaf_bits_and_direct_leaves(c));
        Stats {
            s: self.cfg.s,
            aggregate: self.cfg.aggregate,
            leafvec: with_core!(&self.fib.cores, c => layout_leafvec(c)),
            leaf_bits,
            dir_bits: with_core!(&self.fib.cores, c => c.dir.bits()),
            fanout: with_core!(&self.fib.cores, c => c.fanout.is_some()),
            inodes: self.node_alloc.live() - self.reclaim.pending_slots().0,
            leaves: self.leaf_alloc.live() - self.reclaim.pending_slots().1,
            direct_leaves,
            memory_bytes: self.memory_bytes(),
        }
    }

    /// What incremental updates have replaced since compile (§4.9's counts); kept by the
    /// writer only, at no cost to lookups.
    #[doc(hidden)]
    pub fn update_counts(&self) -> UpdateCounts {
        self.scratch.counts
    }

    /// Shares the arrays with the readers of `grace` on other threads: from now on, blocks an
    /// update unlinks are reused only after a grace period of that domain (readers are online
    /// or pinned around their lookups, as [`crate::sync::Table`]'s readers are). The arenas
    /// get 1/8 spare capacity, so updates rarely have to copy them.
    #[doc(hidden)]
    pub fn defer_reclamation(&mut self, grace: crate::qsbr::Grace) {
        self.reclaim.share(grace);
        self.reserve_headroom();
    }

    /// Batches of retired blocks still waiting for their grace period (each update that
    /// unlinks blocks adds one; they go once every online reader has reported since).
    #[doc(hidden)]
    pub fn pending_retirements(&self) -> usize {
        self.reclaim.pending_batches()
    }

    /// Retired batches waiting for their grace period, and the bytes of their node and leaf
    /// slots (which stay in the arenas, unusable, until then).
    pub(crate) fn retired_bytes(&self) -> (usize, usize) {
        let (nodes, leaves) = self.reclaim.pending_slots();
        let (node, leaf) = with_core!(&self.fib.cores, c => slot_sizes(c));
        (self.reclaim.pending_batches(), nodes as usize * node + leaves as usize * leaf)
    }

    /// The published arrays (what concurrent readers look up in); replaced by a new `Arc`
    /// when an update grows, widens or compacts the arrays.
    #[doc(hidden)]
    pub fn view(&self) -> &Arc<Fib<A>> {
        &self.fib
    }

    /// The configuration it was built with.
    #[doc(hidden)]
    pub fn config(&self) -> &Config {
        &self.cfg
    }
}

/// The layout of `c` has `leafvec`.
fn layout_leafvec<A: Key, L: Leaf, N: Record>(_: &Core<A, L, N>) -> bool {
    N::LEAFVEC
}

/// Bytes of one node record and of one leaf of `c`'s layout.
fn slot_sizes<A: Key, L: Leaf, N: Record>(_: &Core<A, L, N>) -> (usize, usize) {
    (std::mem::size_of::<N>(), std::mem::size_of::<L>())
}

/// The leaf width and the number of direct-pointing entries that hold next hops.
fn leaf_bits_and_direct_leaves<A: Key, L: Leaf, N: Record>(c: &Core<A, L, N>) -> (u32, u64) {
    let direct = (0..c.dir.len()).filter(|&i| c.direct(i) & layout::DIRECT_LEAF != 0).count();
    (L::BITS, direct as u64)
}

impl<A: Key> Lookup<A> for Poptrie<A> {
    // Always: `IpTable` and `Table` look up through this, and left out of line it cost
    // `IpTable` a call per lookup (docs/lab/iptable.md).
    #[inline(always)]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        self.fib.lookup(addr)
    }

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.fib.lookup_batch(addrs, out)
    }

    fn memory_bytes(&self) -> usize {
        self.fib.memory_bytes()
            + self.node_alloc.memory_bytes()
            + self.leaf_alloc.memory_bytes()
            + std::mem::size_of::<Self>()
    }
}

impl<A: Key> Compile<A> for Poptrie<A> {
    type Config = Config;

    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        check_config(cfg)?;
        let mut segs = Vec::with_capacity(rib.len() * 2 + 1);
        let mut scratch = build::SegScratch::default();
        build::segments(rib, &Prefix::DEFAULT_ROUTE, cfg.aggregate, &mut scratch, &mut segs);
        let max_raw = segs.iter().map(|s| s.raw).max().unwrap_or(0);
        if max_raw > MAX_DIRECT_RAW {
            return Err(build::hop_limit(max_raw));
        }
        let (tiny, narrow) = (max_raw <= u8::MAX_RAW, max_raw <= u16::MAX_RAW);
        let (segs, m) = (&segs[..], max_raw);
        let (fib, node_alloc, leaves) = match (cfg.leafvec, tiny, narrow) {
            (true, true, _) => wrap(compile_core::<A, u8, Node>(cfg, segs, m), Cores::Tiny),
            (true, false, true) => wrap(compile_core::<A, u16, Node>(cfg, segs, m), Cores::Narrow),
            (true, false, false) => wrap(compile_core::<A, u32, Node>(cfg, segs, m), Cores::Wide),
            (false, true, _) => wrap(compile_core::<A, u8, Basic>(cfg, segs, m), Cores::BasicTiny),
            (false, false, true) => {
                wrap(compile_core::<A, u16, Basic>(cfg, segs, m), Cores::BasicNarrow)
            }
            (false, false, false) => {
                wrap(compile_core::<A, u32, Basic>(cfg, segs, m), Cores::BasicWide)
            }
        }?;
        Self::assemble(cfg, fib, node_alloc, leaves)
    }
}

impl<A: Key> Poptrie<A> {
    /// The structure around freshly placed arrays (a compile's, or an import's) whose first
    /// `leaves` leaf slots are taken.
    fn assemble(
        cfg: &Config,
        cores: Cores<A>,
        node_alloc: NodeAlloc,
        leaves: u32,
    ) -> Result<Self, BuildError> {
        Ok(Poptrie {
            fib: Arc::new(Fib::new(cores, Isa::resolve("poptrie", cfg.isa)?)),
            cfg: cfg.clone(),
            node_alloc,
            leaf_alloc: BlockAlloc::new(leaves, leaves),
            reclaim: Reclaim::new(),
            scratch: Default::default(),
        })
    }
}

/// The compiled arrays of one leaf width and layout as [`Cores`] (by `wrap`), with the node
/// allocator and the leaf count.
type Compiled<C> = Result<(C, NodeAlloc, u32), BuildError>;

fn wrap<A: Key, C>(compiled: Compiled<C>, wrap: fn(C) -> Cores<A>) -> Compiled<Cores<A>> {
    compiled.map(|(c, n, l)| (wrap(c), n, l))
}

/// Builds the arrays of one leaf width and record layout; returns them with the node
/// allocator and the leaf count. The roots (nodes that `dir` entries name) come first in the node arena; with a
/// narrow `dir` they get a region of their own below its root limit, with room for the
/// roots that updates add (when it runs out, an update makes `dir` wide: `update.rs`).
fn compile_core<A: Key, L: Leaf, N: Record>(
    cfg: &Config,
    segs: &[Seg<A>],
    max_raw: u32,
) -> Compiled<Core<A, L, N>> {
    let mut sink = VecSink::<L, N>::new();
    let entries = build::build_direct(cfg.s, segs, &mut sink)?;
    place_core(cfg, &entries, sink, max_raw)
}

/// Places what [`build::build_direct`] (or an import, in the same order) put in `sink`, with
/// `entries` the direct-pointing entries (roots numbered in `sink.roots`): the `dir` width,
/// the root region and the fan-out (`leafvec` layout only), decided for next hops up to
/// `max_raw`.
fn place_core<A: Key, L: Leaf, N: Record>(
    cfg: &Config,
    entries: &[u32],
    mut sink: VecSink<L, N>,
    max_raw: u32,
) -> Compiled<Core<A, L, N>> {
    let roots = sink.roots.len() as u32;
    // Room for the roots updates add (retired roots wait a grace period before reuse): an
    // eighth more, plus 1024 — or 64 with fan-out, where each root slot takes 64 records more.
    let with_fanout = cfg.fanout && A::FANOUT && N::LEAFVEC;
    let region = roots + roots / 8 + if with_fanout { 64 } else { 1024 };
    let limit = if cfg.narrow_dir { narrow_root_limit(region, max_raw) } else { None };
    let region = if limit.is_some() { region } else { roots };
    let n = region as usize + sink.nodes.len();
    if n > layout::MAX_NODES as usize {
        return Err(build::limit("internal nodes", layout::MAX_NODES as u64, n));
    }
    let leaves = std::mem::take(&mut sink.leaves);
    let nodes = sink.into_nodes(region);
    let dir = match limit {
        Some(r) => DirTable::narrow(entries, r).expect("roots and next hops below the limit"),
        None => DirTable::wide(entries),
    };
    let fanout = (with_fanout && limit.is_some()).then(|| fanout::compile(&nodes, roots, region));
    let l = leaves.len() as u32;
    let core = Core::new(cfg.s, dir, Arena::from_vec(nodes), Arena::from_vec(leaves), fanout);
    let node_alloc = NodeAlloc::new(
        BlockAlloc::new(n as u32, n as u32),
        limit.map(|_| BlockAlloc::new(roots, region)),
    );
    Ok((core, node_alloc, l))
}

/// The root limit of a narrow `dir` whose root region has `region` slots, for next hops up
/// to `max_raw`, when both fit: next hops up to twice the largest (at least 4095) leave
/// room for updates.
fn narrow_root_limit(region: u32, max_raw: u32) -> Option<u32> {
    let hop_room = (2 * (max_raw as u64 + 1)).max(4096).next_power_of_two();
    let limit = u32::try_from((u16::MAX as u64 + 1).checked_sub(hop_room)?).ok()?;
    (region <= limit).then_some(limit)
}

fn check_config(cfg: &Config) -> Result<(), BuildError> {
    if cfg.s > MAX_S {
        return Err(BuildError::BadOption {
            algo: "poptrie",
            option: format!("s={}", cfg.s),
            reason: format!("direct-pointing bits must be in 0..={MAX_S}"),
        });
    }
    Ok(())
}
