//! Lookups: one descent per address, and batches walked level by level in lock step.
//!
//! Every lookup is instantiated per instruction set (`node::Isa`) inside a function that
//! enables it, and per width of the interval words, so the inner loops carry no branch on
//! either; a batch's lock steps are a second such function (`Walk`), and each descent
//! prepares its probe (`TreeKey::probe`) once for all its levels. A lookup starts at the
//! directory (`dir.rs`): most addresses of uniform IPv6 traffic end there (once the first
//! few addresses of a batch show such traffic, a batch reads the block words of 16 addresses
//! at once, with one gather under AVX-512 or 16 branch-free loads otherwise); single lookups
//! of the others descend from the node it names. A batch gathers the others into groups of
//! `lanes` (8, 16 or 32) that walk the tree from the root in lock step (option `bgroup`:
//! groups of one start level each, from their directory nodes): each lane's next node is
//! prefetched as soon as its rank is known, and the other lanes' work at that level hides
//! the fetch. The tree's height is a constant of each instantiation, so the level loop
//! unrolls; a group walks all its lanes, stale ones included, so the lane loops have a
//! constant trip count too, unless it is less than a quarter full (the tail of a batch of
//! mostly directory-answered traffic), when its lanes descend one by one. Every descent ends
//! with its interval's word: read in the hop leaf itself (`hopleaf.rs`), or from the answer
//! array at the position a relative or plain leaf gives.

use super::dir::{Dir, Entry};
use super::hops::{HopSlots, Hops};
use super::key::Key;
use super::node::{Isa, Portable, TreeKey};
use super::tree::{Leaves, Tree};
use super::view::Fib;
use crate::algo::prefetch;
use crate::cpu;
use crate::nexthop::{NextHop, as_raw_slots};

/// Addresses walked in lock step by a batch unless the `lanes` option says otherwise.
#[doc(hidden)]
pub const LANES: usize = 16;
/// Addresses a batch takes through the scalar directory step before it decides whether the
/// rest go 16 at a time (`front_by_16`): enough to tell uniform traffic (nearly every block
/// word holds a hop) from traffic inside prefixes (nearly none does), few enough that uniform
/// batches spend little on the scalar step (`docs/lab/bplus.md`).
const PROBE: usize = 4;

impl<A: Key> Fib<A> {
    /// The interval of key `k` (below `K::MAX`), searched with this view's instruction set.
    pub(super) fn search(&self, k: A::T) -> usize {
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `isa` is AVX-512 only when the CPU has it (`cpu::Isa::resolve`).
            cpu::Isa::Avx512 => unsafe { x86::search_avx512(&self.tree, k) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, for AVX2.
            cpu::Isa::Avx2 => unsafe { x86::search_avx2(&self.tree, k) },
            _ => self.tree.search::<Portable>(k),
        }
    }

    /// One lookup. The block word is tested for a hop here, before the dispatch on the
    /// instruction set: that dispatch is a call into a function with the set's features,
    /// which most uniform traffic (answered by the word) does not need. The descent reads
    /// the word again, an L1 hit, rather than taking it as an argument (measured faster:
    /// `docs/lab/bplus.md`).
    #[inline]
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        if let Some(hop) = self.dir.word(addr.top()).and_then(Dir::hop_in) {
            return NextHop::from_raw(hop);
        }
        match (&self.hops, self.isa) {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `isa` names an instruction set this CPU has (see `search`).
            (Hops::Narrow(h), cpu::Isa::Avx512) => unsafe { x86::one_avx512(self, &**h, addr) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Wide(h), cpu::Isa::Avx512) => unsafe { x86::one_avx512(self, &**h, addr) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Narrow(h), cpu::Isa::Avx2) => unsafe { x86::one_avx2(self, &**h, addr) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Wide(h), cpu::Isa::Avx2) => unsafe { x86::one_avx2(self, &**h, addr) },
            (Hops::Narrow(h), _) => one::<Portable, _, _>(self, &**h, addr),
            (Hops::Wide(h), _) => one::<Portable, _, _>(self, &**h, addr),
        }
    }

    /// Looks up `addrs` into `out` (at least as long).
    pub fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let out = &mut as_raw_slots(out)[..addrs.len()];
        match self.lanes {
            8 => self.batch_in::<8>(addrs, out),
            32 => self.batch_in::<32>(addrs, out),
            _ => self.batch_in::<LANES>(addrs, out),
        }
    }

    /// A batch in groups of `L` lanes.
    fn batch_in<const L: usize>(&self, addrs: &[A], out: &mut [u32]) {
        match (&self.hops, self.isa) {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `isa` names an instruction set this CPU has (see `search`).
            (Hops::Narrow(h), cpu::Isa::Avx512) => unsafe {
                x86::batch_avx512::<_, _, L>(self, &**h, addrs, out)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Wide(h), cpu::Isa::Avx512) => unsafe {
                x86::batch_avx512::<_, _, L>(self, &**h, addrs, out)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Narrow(h), cpu::Isa::Avx2) => unsafe {
                x86::batch_avx2::<_, _, L>(self, &**h, addrs, out)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            (Hops::Wide(h), cpu::Isa::Avx2) => unsafe {
                x86::batch_avx2::<_, _, L>(self, &**h, addrs, out)
            },
            (Hops::Narrow(h), _) => batch::<Portable, _, _, L>(self, &**h, addrs, out),
            (Hops::Wide(h), _) => batch::<Portable, _, _, L>(self, &**h, addrs, out),
        }
    }

    /// The answer of an interval word (a raw next hop, or a tag naming a side).
    #[inline(always)]
    fn answer<S: HopSlots + ?Sized>(&self, word: u32, addr: A) -> u32 {
        if word & S::TAG == 0 { word } else { self.side_answer(word & !S::TAG, addr) }
    }

    #[cold]
    #[inline(never)]
    fn side_answer(&self, slot: u32, addr: A) -> u32 {
        self.sides.get(slot as usize).lookup(addr).map_or(0, |h| h.raw())
    }
}

/// One lookup: the directory, then the tree below the node it names.
#[inline(always)]
fn one<I: Isa, S: HopSlots + ?Sized, A: Key>(fib: &Fib<A>, hops: &S, addr: A) -> Option<NextHop> {
    let k = addr.top();
    let word = fib.dir.word(k);
    // As in a batch's `front`: a block word holding its hop first.
    if let Some(hop) = word.and_then(Dir::hop_in) {
        return NextHop::from_raw(hop);
    }
    let word = match fib.dir.entry_of(k, word) {
        _ if k == A::T::MAX => hops.get(fib.max_pos),
        Entry::Hop(hop) => return NextHop::from_raw(hop),
        Entry::Direct(pos) => hops.get(pos),
        Entry::Descend { level, node } => word_from::<I, S, A>(fib, hops, level, node, k),
    };
    NextHop::from_raw(fib.answer::<S>(word, addr))
}

/// The interval word of key `k`, descending from `node` of `level`: read in the leaf with
/// hop leaves, else from the answer array at the position the leaf gives.
#[inline(always)]
fn word_from<I: Isa, S: HopSlots + ?Sized, A: Key>(
    fib: &Fib<A>,
    hops: &S,
    level: usize,
    node: usize,
    k: A::T,
) -> u32 {
    let tree = &fib.tree;
    let (leaf, x) = tree.leaf_from::<I>(level, node, k);
    match tree.leaves() {
        Leaves::Hop(leaves) => leaves.word::<I>(leaf, x.to_u128() as u64),
        _ => hops.get(tree.leaf_position::<I>(leaf, x)),
    }
}

/// A batch: addresses the directory answers are done at once; the others gather in groups
/// of `L` that walk the tree in lock step from the root (the last group of a batch may be
/// smaller), or with option `bgroup` from their directory nodes (`batch_by_start`). When the
/// directory answered most of the first `PROBE` addresses (uniform traffic), the block words
/// of the others come 16 at a time (`front_by_16`).
#[inline(always)]
fn batch<I: Walk, S: HopSlots + ?Sized, A: Key, const L: usize>(
    fib: &Fib<A>,
    hops: &S,
    addrs: &[A],
    out: &mut [u32],
) {
    if fib.group_starts {
        return batch_by_start::<I, S, A, L>(fib, hops, addrs, out);
    }
    let mut lanes = Lanes::<A::T, L>::new();
    // The count of gathered lanes, apart from `lanes` (whose address the lock step takes)
    // so that it stays in a register between addresses.
    let mut filled = 0;
    let probe = addrs.len().min(PROBE);
    let answered: usize = (0..probe)
        .map(|i| {
            usize::from(admit::<I, S, A, L>(fib, hops, addrs, out, &mut lanes, &mut filled, i))
        })
        .sum();
    let mut next = probe;
    if 2 * answered > probe {
        next = front_by_16::<I, S, A, L>(fib, hops, addrs, out, &mut lanes, &mut filled, probe);
    }
    for i in next..addrs.len() {
        admit::<I, S, A, L>(fib, hops, addrs, out, &mut lanes, &mut filled, i);
    }
    if filled > 0 {
        I::lock_step::<S, A, L>(&mut Job { fib, hops, addrs, out }, &lanes, filled, 0);
    }
}

/// The directory step of a batch's addresses from `from`, 16 at a time: one AVX-512 gather
/// (`Dir::hops16`) or 16 branch-free scalar loads (`Dir::hops16_scalar`: faster than the
/// one-by-one step without AVX-512, slower than the gather with it). Lanes whose block holds
/// a hop are answered by the chunk's store, the others admitted one by one; the chunk
/// holding `from` starts at its first 16-address boundary, and its lanes before `from` (taken
/// by the scalar step) keep their outputs and are not admitted again. Chunks go `ROUND` at a
/// time, all their loads issued before any result is branched on, so that they are in
/// flight together. Stops after a round the directory answered nothing of (or at once when
/// no block word holds a hop) and returns the first address not yet seen.
#[inline(always)]
fn front_by_16<I: Walk, S: HopSlots + ?Sized, A: Key, const L: usize>(
    fib: &Fib<A>,
    hops: &S,
    addrs: &[A],
    out: &mut [u32],
    lanes: &mut Lanes<A::T, L>,
    filled: &mut usize,
    from: usize,
) -> usize {
    const ROUND: usize = 4;
    let (chunks, mut done) = (addrs.len() / 16, from / 16);
    // The first chunk's lanes before `from`: answered or admitted by the scalar step, so
    // the chunk's store leaves their outputs alone and they are not admitted again.
    let mut skip = from % 16;
    while done < chunks {
        let n = ROUND.min(chunks - done);
        // Per chunk, the lanes its block words did not answer.
        let mut pending = [0u16; ROUND];
        let mut answered_none = true;
        for (j, mask) in pending[..n].iter_mut().enumerate() {
            let at = (done + j) * 16;
            let (a, o): (&[A; 16], &mut [u32; 16]) = (
                addrs[at..at + 16].try_into().expect("16 addresses"),
                (&mut out[at..at + 16]).try_into().expect("16 outputs"),
            );
            let skip = std::mem::take(&mut skip);
            let left = if I::GATHER {
                // SAFETY: `GATHER` is set only for the AVX-512 walk, whose batches run inside
                // `batch_avx512`, entered after runtime detection of AVX-512F.
                unsafe { fib.dir.hops16(a, o, skip) }
            } else {
                fib.dir.hops16_scalar(a, o, skip)
            };
            let Some(left) = left else { return (done * 16).max(from) };
            answered_none &= left == u16::MAX;
            *mask = left >> skip << skip;
        }
        for (j, &mask) in pending[..n].iter().enumerate() {
            let mut mask = mask;
            while mask != 0 {
                let i = (done + j) * 16 + mask.trailing_zeros() as usize;
                admit::<I, S, A, L>(fib, hops, addrs, out, lanes, filled, i);
                mask &= mask - 1;
            }
        }
        done += n;
        if answered_none {
            break;
        }
    }
    (done * 16).max(from)
}

/// Address `i` of a batch: answered by the directory (true), or gathered into `lanes` (of
/// which `filled` are gathered), which walk in lock step once `L` are gathered.
#[inline(always)]
fn admit<I: Walk, S: HopSlots + ?Sized, A: Key, const L: usize>(
    fib: &Fib<A>,
    hops: &S,
    addrs: &[A],
    out: &mut [u32],
    lanes: &mut Lanes<A::T, L>,
    filled: &mut usize,
    i: usize,
) -> bool {
    let (addr, k) = (addrs[i], addrs[i].top());
    // Lock steps start at the root here: moving lanes to a shared level cost more than the
    // cached upper levels it skipped (`batch_by_start` sorts them by level instead).
    if let Some(hop) = answered_at_root::<S, A>(fib, hops, addr, k) {
        out[i] = hop;
        return true;
    }
    let g = *filled;
    (lanes.index[g], lanes.key[g]) = (i, k.min(A::T::MAX_BELOW));
    *filled += 1;
    if *filled == L {
        I::lock_step::<S, A, L>(&mut Job { fib, hops, addrs, out }, lanes, L, 0);
        *filled = 0;
    }
    false
}

/// The directory step of an address whose lane would walk from the root: its answer when
/// the block word gives it. Only the block word is read: a second-level word mostly names a
/// deeper start node, which such lanes do not use (`front` reads both).
#[inline(always)]
fn answered_at_root<S: HopSlots + ?Sized, A: Key>(
    fib: &Fib<A>,
    hops: &S,
    addr: A,
    k: A::T,
) -> Option<u32> {
    let word = fib.dir.word(k);
    // Most uniform traffic ends at a block word holding its hop: exact for the last key too
    // (see `front`).
    if let Some(hop) = word.and_then(Dir::hop_in) {
        return Some(hop);
    }
    if k == A::T::MAX {
        return Some(fib.answer::<S>(hops.get(fib.max_pos), addr));
    }
    word.and_then(Dir::position_in).map(|pos| fib.answer::<S>(hops.get(pos), addr))
}

/// What a batch does with one address after the directory.
enum Front {
    /// The raw answer (the directory, the last key's interval, or a directly answered block).
    Answered(u32),
    /// The tree walk starts at this node of this level.
    Descend { level: usize, node: usize },
}

/// The directory step of a batch lane: answered at once, or where its descent starts.
#[inline(always)]
fn front<S: HopSlots + ?Sized, A: Key>(fib: &Fib<A>, hops: &S, addr: A, k: A::T) -> Front {
    let word = fib.dir.word(k);
    // Most uniform traffic ends at a block word holding its hop: tested before anything
    // else is decoded. Exact for the last key too: the last block holds a hop only when it
    // lies inside the last key's interval (`max_pos`), whose word it then mirrors.
    if let Some(hop) = word.and_then(Dir::hop_in) {
        return Front::Answered(hop);
    }
    match fib.dir.entry_of(k, word) {
        _ if k == A::T::MAX => Front::Answered(fib.answer::<S>(hops.get(fib.max_pos), addr)),
        Entry::Hop(hop) => Front::Answered(hop),
        Entry::Direct(pos) => Front::Answered(fib.answer::<S>(hops.get(pos), addr)),
        Entry::Descend { level, node } => Front::Descend { level, node },
    }
}

/// Start levels a batch sorts its lanes into (directory node words have 3 level bits).
const CLASSES: usize = 8;

/// A batch whose lanes start at the node the directory names: lanes are sorted into one
/// class per start level as they come (a counting sort in a stream), and each full class
/// walks in lock step from its level, so no lane waits for levels it does not need.
#[inline(always)]
fn batch_by_start<I: Walk, S: HopSlots + ?Sized, A: Key, const L: usize>(
    fib: &Fib<A>,
    hops: &S,
    addrs: &[A],
    out: &mut [u32],
) {
    let mut classes: [Lanes<A::T, L>; CLASSES] = std::array::from_fn(|_| Lanes::new());
    let mut filled = [0usize; CLASSES];
    for (i, &addr) in addrs.iter().enumerate() {
        let k = addr.top();
        let (level, node) = match front::<S, A>(fib, hops, addr, k) {
            Front::Answered(hop) => {
                out[i] = hop;
                continue;
            }
            Front::Descend { level, node } => (level, node),
        };
        let (lanes, g) = (&mut classes[level], &mut filled[level]);
        (lanes.index[*g], lanes.key[*g], lanes.node[*g]) = (i, k.min(A::T::MAX_BELOW), node);
        *g += 1;
        if *g == L {
            I::lock_step::<S, A, L>(&mut Job { fib, hops, addrs, out }, lanes, L, level);
            *g = 0;
        }
    }
    for (level, (lanes, &n)) in classes.iter().zip(&filled).enumerate() {
        if n > 0 {
            I::lock_step::<S, A, L>(&mut Job { fib, hops, addrs, out }, lanes, n, level);
        }
    }
}

/// One batch call as its lock steps see it: the view, its answer words, the addresses and
/// their outputs.
struct Job<'a, S: ?Sized, A: Key> {
    fib: &'a Fib<A>,
    hops: &'a S,
    addrs: &'a [A],
    out: &'a mut [u32],
}

/// Lanes gathered for one lock step: the address's index in the batch, its key (clamped
/// below `K::MAX`) and, for lanes that start below the root, their start node. The count
/// gathered is kept by the caller (a lock step walks the first `n`).
struct Lanes<K, const L: usize> {
    index: [usize; L],
    key: [K; L],
    node: [usize; L],
}

impl<K: Default + Copy, const L: usize> Lanes<K, L> {
    fn new() -> Self {
        Lanes { index: [0; L], key: [K::default(); L], node: [0; L] }
    }
}

/// A node search whose lock steps run in a function of their own, compiled with the set's
/// features: inlined into the batch loop, the walk's registers crowded out the directory
/// loop's, which then spilled its state on every address.
trait Walk: Isa {
    /// Batches take their block words 16 at a time with an AVX-512 gather (`Dir::hops16`),
    /// not with scalar loads.
    const GATHER: bool = false;
    /// [`lock_step`] with this set's ranks, not inlined.
    fn lock_step<S: HopSlots + ?Sized, A: Key, const L: usize>(
        job: &mut Job<'_, S, A>,
        lanes: &Lanes<A::T, L>,
        n: usize,
        start: usize,
    );
}

impl Walk for Portable {
    #[inline(never)]
    fn lock_step<S: HopSlots + ?Sized, A: Key, const L: usize>(
        job: &mut Job<'_, S, A>,
        lanes: &Lanes<A::T, L>,
        n: usize,
        start: usize,
    ) {
        lock_step::<Portable, S, A, L>(job, lanes, n, start)
    }
}

/// Walks the first `n` gathered lanes in lock step from level `start` (the root, or the
/// level of every lane's start node), dispatched on the tree height.
#[inline(always)]
fn lock_step<I: Isa, S: HopSlots + ?Sized, A: Key, const L: usize>(
    job: &mut Job<'_, S, A>,
    lanes: &Lanes<A::T, L>,
    n: usize,
    start: usize,
) {
    match job.fib.tree.height() {
        0 => group::<I, S, A, 0, L>(job, lanes, n, start),
        1 => group::<I, S, A, 1, L>(job, lanes, n, start),
        2 => group::<I, S, A, 2, L>(job, lanes, n, start),
        3 => group::<I, S, A, 3, L>(job, lanes, n, start),
        4 => group::<I, S, A, 4, L>(job, lanes, n, start),
        5 => group::<I, S, A, 5, L>(job, lanes, n, start),
        6 => group::<I, S, A, 6, L>(job, lanes, n, start),
        7 => group::<I, S, A, 7, L>(job, lanes, n, start),
        _ => one_by_one::<I, S, A, L>(job, lanes, n, start),
    }
}

/// Lanes a group needs, as a share of `L` (`n * FEW_LANES >= L`), to walk in lock step: fewer
/// go one by one, each from its directory node, which is cheaper than a mostly empty walk.
const FEW_LANES: usize = 2;

/// The first `n` lanes of a group each descending alone, from level `start`.
#[inline(always)]
fn one_by_one<I: Isa, S: HopSlots + ?Sized, A: Key, const L: usize>(
    job: &mut Job<'_, S, A>,
    lanes: &Lanes<A::T, L>,
    n: usize,
    start: usize,
) {
    let Job { fib, hops, addrs, out } = job;
    for g in 0..n {
        let i = lanes.index[g];
        let (level, node) = if start > 0 {
            (start, lanes.node[g])
        } else {
            // A lane gathered at the root descends alone from its directory node instead
            // (a chain of dependent reads: every level skipped counts), or is answered there.
            match front::<S, A>(fib, hops, addrs[i], addrs[i].top()) {
                Front::Answered(raw) => {
                    out[i] = raw;
                    continue;
                }
                Front::Descend { level, node } => (level, node),
            }
        };
        let word = word_from::<I, S, A>(fib, hops, level, node, lanes.key[g]);
        out[i] = fib.answer::<S>(word, addrs[i]);
    }
}

/// The lookups of the first `n` lanes in lock step from level `start` (the root when 0)
/// through the `D` inner levels and the leaves.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // lane `g` indexes several parallel arrays
fn group<I: Isa, S: HopSlots + ?Sized, A: Key, const D: usize, const L: usize>(
    job: &mut Job<'_, S, A>,
    lanes: &Lanes<A::T, L>,
    n: usize,
    start: usize,
) {
    let Job { fib, hops, addrs, out } = job;
    let tree = &fib.tree;
    if n * FEW_LANES < L {
        // Too few lanes to pay for a walk of all `L`: most groups of uniform traffic, where
        // few addresses reach the tree, are the last of their batch and nearly empty.
        return one_by_one::<I, S, A, L>(job, lanes, n, start);
    }
    let mut node = [0usize; L];
    if start > 0 {
        node = lanes.node;
    }
    // Every lane's key is a valid probe (clamped; stale lanes keep an earlier group's key).
    let probes: [<A::T as TreeKey>::Probe<I>; L] =
        std::array::from_fn(|g| lanes.key[g].probe::<I>());
    // Every lane walks, stale ones too (a valid probe from any valid node stays in bounds),
    // so the lane loops have a constant trip count and unroll. The unrolled levels above
    // `start` are skipped by one predictable branch each.
    for level in 0..D {
        if level < start {
            continue;
        }
        let (node, probes) = (&mut node, &probes);
        match tree.leaves() {
            Leaves::Rel(rel) if level + 1 == D => {
                descend_into::<I, _, _, L>(tree, level, node, probes, rel.lines())
            }
            Leaves::Hop(leaves) if level + 1 == D => {
                descend_into::<I, _, _, L>(tree, level, node, probes, leaves.lines())
            }
            _ => descend_into::<I, _, _, L>(tree, level, node, probes, tree.level(level + 1)),
        }
    }
    let mut word = [0u32; L];
    let mut pos = [0usize; L];
    // A hop leaf holds the words; the other layouts give positions in the answer array,
    // prefetched as they come and read once all are known.
    let in_array = match tree.leaves() {
        Leaves::Hop(leaves) => {
            for g in 0..n {
                word[g] = leaves.word::<I>(node[g], lanes.key[g].to_u128() as u64);
            }
            false
        }
        Leaves::Rel(rel) => {
            for g in 0..n {
                pos[g] = rel.position::<I>(node[g], lanes.key[g].to_u128() as u64);
                hops.prefetch(pos[g]);
            }
            true
        }
        Leaves::Plain => {
            let leaves = tree.level(D);
            for g in 0..n {
                let rank = A::T::rank::<I>(tree.line_in(leaves, node[g]), probes[g]);
                pos[g] = node[g] * A::T::PER_NODE + rank - 1;
                hops.prefetch(pos[g]);
            }
            true
        }
    };
    if in_array {
        for g in 0..n {
            word[g] = hops.get(pos[g]);
        }
    }
    for g in 0..n {
        let i = lanes.index[g];
        out[i] = fib.answer::<S>(word[g], addrs[i]);
    }
}

/// One level of a lock step into the lines `below`, prefetched when that level is too large
/// to stay in L1 (the test is made once per level, not per lane).
#[inline(always)]
fn descend_into<I: Isa, K: TreeKey, T, const L: usize>(
    tree: &Tree<K>,
    level: usize,
    node: &mut [usize; L],
    probes: &[K::Probe<I>],
    below: &[T],
) {
    if below.len() > PREFETCH_FROM_LINES {
        descend::<I, K, L>(tree, level, node, probes, |i| prefetch::read(below, i))
    } else {
        descend::<I, K, L>(tree, level, node, probes, |_| ())
    }
}

/// One level of a lock step: each lane moves to its child in the level below, which
/// `prefetch` is asked to fetch.
#[inline(always)]
fn descend<I: Isa, K: TreeKey, const L: usize>(
    tree: &Tree<K>,
    level: usize,
    node: &mut [usize; L],
    probes: &[K::Probe<I>],
    prefetch: impl Fn(usize),
) {
    let lines = tree.level(level);
    let step = |node: &mut usize, probe: K::Probe<I>| {
        *node = *node * Tree::<K>::FANOUT + K::rank::<I>(tree.line_in(lines, *node), probe);
        prefetch(*node);
    };
    // Two lanes per iteration: half the loop's own instructions, two chains in the body.
    let mut nodes = node[..probes.len()].chunks_exact_mut(2);
    let mut pairs = probes.chunks_exact(2);
    for (node, probe) in (&mut nodes).zip(&mut pairs) {
        step(&mut node[0], probe[0]);
        step(&mut node[1], probe[1]);
    }
    for (node, &probe) in nodes.into_remainder().iter_mut().zip(pairs.remainder()) {
        step(node, probe);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::node::{Avx2, Avx512};
    use super::*;

    /// The `Walk` of an x86 set: an entry enabling its features, not inlined.
    macro_rules! walk {
        ($isa:ty, $entry:ident, $features:literal, $gather:literal) => {
            impl Walk for $isa {
                const GATHER: bool = $gather;
                #[inline(always)]
                fn lock_step<S: HopSlots + ?Sized, A: Key, const L: usize>(
                    job: &mut Job<'_, S, A>,
                    lanes: &Lanes<A::T, L>,
                    n: usize,
                    start: usize,
                ) {
                    // SAFETY: this set's ranks are only instantiated in functions entered
                    // after runtime detection of its features (see `node::Isa`).
                    unsafe { $entry::<S, A, L>(job, lanes, n, start) }
                }
            }

            #[target_feature(enable = $features)]
            #[inline(never)]
            unsafe fn $entry<S: HopSlots + ?Sized, A: Key, const L: usize>(
                job: &mut Job<'_, S, A>,
                lanes: &Lanes<A::T, L>,
                n: usize,
                start: usize,
            ) {
                lock_step::<$isa, S, A, L>(job, lanes, n, start)
            }
        };
    }
    walk!(Avx2, lock_step_avx2, "avx2,popcnt", false);
    // AVX512DQ (which `cpu::Isa::Avx512` requires) moves an 8-key compare mask with
    // `kmovb`, already zero-extended: one instruction fewer per node step. Only the lock
    // step has it: the other entries with it measured no better, IPv4 batches slower.
    walk!(Avx512, lock_step_avx512, "avx512f,avx512dq,popcnt", true);

    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) unsafe fn search_avx512<K: TreeKey>(tree: &Tree<K>, k: K) -> usize {
        tree.search::<Avx512>(k)
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn search_avx2<K: TreeKey>(tree: &Tree<K>, k: K) -> usize {
        tree.search::<Avx2>(k)
    }

    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) unsafe fn one_avx512<S: HopSlots + ?Sized, A: Key>(
        fib: &Fib<A>,
        hops: &S,
        addr: A,
    ) -> Option<NextHop> {
        one::<Avx512, S, A>(fib, hops, addr)
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn one_avx2<S: HopSlots + ?Sized, A: Key>(
        fib: &Fib<A>,
        hops: &S,
        addr: A,
    ) -> Option<NextHop> {
        one::<Avx2, S, A>(fib, hops, addr)
    }

    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) unsafe fn batch_avx512<S: HopSlots + ?Sized, A: Key, const L: usize>(
        fib: &Fib<A>,
        hops: &S,
        addrs: &[A],
        out: &mut [u32],
    ) {
        batch::<Avx512, S, A, L>(fib, hops, addrs, out)
    }

    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn batch_avx2<S: HopSlots + ?Sized, A: Key, const L: usize>(
        fib: &Fib<A>,
        hops: &S,
        addrs: &[A],
        out: &mut [u32],
    ) {
        batch::<Avx2, S, A, L>(fib, hops, addrs, out)
    }
}

/// Levels of more lines than this get their lines prefetched (512 lines: 32 KiB, in L1).
const PREFETCH_FROM_LINES: usize = 512;
