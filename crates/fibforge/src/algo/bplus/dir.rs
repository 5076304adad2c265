//! The front directory: one word per block of the top 16 key bits, so that most lookups
//! skip the tree's upper levels and many skip the tree altogether.
//!
//! A block whose keys all fall in one interval is answered directly: uniform random IPv6
//! traffic mostly lands in such blocks (the /16s without routes). Its word holds the
//! interval's raw next hop itself (`DIRECT | HOP | hop`, option `dhop`, when the interval's
//! word is a raw next hop below 2^30), so such a lookup reads one word; otherwise
//! (`DIRECT | position`) the lookup reads the interval's word. For other blocks the word names
//! the deepest node through which every key of the block descends.
//!
//! Second level (option `dir2`): a populous block, whose node is more than one inner level
//! above the leaves, gets a table of `2^SUB_BITS` words of the same kinds for the next key
//! bits (`SUB | table`), so that lookups in it start deeper (at most `MAX_SUBS` tables, kept
//! only where they start some key deeper than the block's own node).
//!
//! Invariants: positions and nodes only change with a rebuild. A direct block's interval
//! (the one holding all its keys) is fixed between rebuilds too, but its word is not: every
//! write of an interval word is followed by [`Dir::refresh`] of the blocks (and second-level
//! blocks) inside that interval, so a `HOP` word always equals its interval's word (a reader
//! may see the old word or the new one, as with the interval word itself). Words are
//! atomics for that writer. With `dhop`, a narrow copy holds each block's hop in 16 bits
//! (`NO_HOP16` where its word holds none, or a wider one), written with the word.

use super::Config;
use super::node::TreeKey;
use super::tree::Tree;
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};

/// Top key bits indexing the directory.
pub(super) const DIR_BITS: u32 = 16;
/// Blocks (top-level words) of a directory.
const BLOCKS: usize = 1 << DIR_BITS;
/// Key bits below the top ones indexing a second-level table.
pub(super) const SUB_BITS: u32 = 8;
/// Second-level tables at most (1 KiB each).
const MAX_SUBS: usize = 256;
/// A word answered by one interval: the low bits are its position, or with `HOP` its hop.
pub(super) const DIRECT: u32 = 1 << 31;
/// With `DIRECT`: the low bits are the interval's raw next hop (below `HOP`).
const HOP: u32 = 1 << 30;
/// Without `DIRECT`: the low bits name a second-level table (node words have levels below 8,
/// so this bit is free in them).
const SUB: u32 = 1 << 30;
const LEVEL_SHIFT: u32 = 27;
const NODE_MASK: u32 = (1 << LEVEL_SHIFT) - 1;

/// The directory of a tree.
pub(super) struct Dir {
    /// `None`: no directory (option `dir=off`): every lookup descends from the root.
    words: Option<Box<[AtomicU32; BLOCKS]>>,
    /// The second-level tables, `2^SUB_BITS` words each, one after the other.
    sub: Box<[AtomicU32]>,
    /// Direct blocks hold raw next hops (option `dhop`), not only positions.
    hops: bool,
    /// With `hops`: per block, the raw next hop its word holds when below `NO_HOP16`, else
    /// `NO_HOP16`, and one `NO_HOP16` after the last block (a gather reads 4 bytes per
    /// entry). AVX-512 batches gather it rather than the words: half the bytes in the L1.
    narrow: Box<[AtomicU16]>,
}

/// A narrow entry whose block word holds no hop (or one that does not fit 16 bits).
const NO_HOP16: u16 = u16::MAX;

/// The narrow entry of a block word.
fn narrow_of(word: u32) -> u16 {
    match Dir::hop_in(word) {
        Some(hop) if hop < u32::from(NO_HOP16) => hop as u16,
        _ => NO_HOP16,
    }
}

/// Where a lookup goes after the directory.
pub(super) enum Entry {
    /// This raw next hop (the word of the interval holding the whole block).
    Hop(u32),
    /// The interval at this position.
    Direct(usize),
    /// Descend from this node of this level.
    Descend { level: usize, node: usize },
}

/// The positions of the greatest keys `<=` each of a rising sequence of probes: one pass
/// over the sorted keys for all the blocks of a directory (or of one second-level table),
/// instead of a tree search per block end.
struct Sweep<'a, K> {
    keys: &'a [K],
    at: usize,
}

impl<K: TreeKey> Sweep<'_, K> {
    /// Position of the greatest key `<= x` (clamped below `K::MAX`); `x` is not below the
    /// previous probe, nor below the key the sweep started at.
    fn to(&mut self, x: K) -> usize {
        let x = x.min(K::MAX_BELOW);
        while self.keys.get(self.at + 1).is_some_and(|&k| k <= x) {
            self.at += 1;
        }
        self.at
    }
}

/// What the words of a tree's blocks are built from.
struct Builder<'a, K: TreeKey, W> {
    tree: &'a Tree<K>,
    /// The tree's keys, ascending (the first is 0).
    keys: &'a [K],
    max_pos: usize,
    word: W,
    tag: u32,
    hops: bool,
}

impl<K: TreeKey, W: Fn(usize) -> u32> Builder<'_, K, W> {
    /// The word of the keys `first..=last` (one block, above the previous block `sweep`
    /// saw), and the position of `first`.
    fn block(&self, sweep: &mut Sweep<'_, K>, first: u128, last: u128) -> (u32, usize) {
        let (first, last) = (K::from_u128_lossy(first), K::from_u128_lossy(last));
        // Keys below K::MAX descend; the last key itself is answered apart.
        let (lo, hi) = (sweep.to(first), sweep.to(last));
        let hi_pos = if last == K::MAX { self.max_pos } else { hi };
        if lo == hi_pos {
            return (direct_word(lo, (self.word)(lo), self.tag, self.hops), lo);
        }
        let (level, node) = shared_ancestor(self.tree, lo, hi);
        (((level as u32) << LEVEL_SHIFT) | node as u32, lo)
    }

    /// The second-level words of block `block` (whose word is `top`, whose first key is at
    /// position `lo`), when they start some key deeper than `top` does.
    fn sub(&self, block: u128, top: u32, lo: usize) -> Option<Vec<u32>> {
        let level = (top >> LEVEL_SHIFT) as usize;
        if top & DIRECT != 0 || level + 1 >= self.tree.height() {
            return None;
        }
        let shift = key_bits::<K>() - DIR_BITS - SUB_BITS;
        let base = block << SUB_BITS;
        let mut sweep = Sweep { keys: self.keys, at: lo };
        let words: Vec<u32> = (base..base + (1 << SUB_BITS))
            .map(|b| self.block(&mut sweep, b << shift, ((b + 1) << shift) - 1).0)
            .collect();
        words
            .iter()
            .any(|&w| w & DIRECT != 0 || (w >> LEVEL_SHIFT) as usize > level)
            .then_some(words)
    }
}

impl Dir {
    /// The directory `cfg` asks for (`dir`, `dhop`, `dir2`) of `tree`, whose keys are `keys`
    /// and whose last-key interval is `max_pos`; `word` gives each interval's word, whose
    /// side-table tag is `tag`.
    pub(super) fn build<K: TreeKey>(
        tree: &Tree<K>,
        keys: &[K],
        max_pos: usize,
        cfg: &Config,
        word: impl Fn(usize) -> u32,
        tag: u32,
    ) -> Dir {
        let hops = cfg.dir_hops;
        if !cfg.dir {
            return Dir { words: None, sub: Box::new([]), hops, narrow: Box::new([]) };
        }
        assert!(max_pos < HOP as usize, "positions must fit 30 bits");
        let b = Builder { tree, keys, max_pos, word, tag, hops };
        let shift = key_bits::<K>() - DIR_BITS;
        let mut sweep = Sweep { keys, at: 0 };
        let mut sub = Vec::new();
        let mut words = Vec::with_capacity(BLOCKS);
        while words.len() < BLOCKS {
            let block = words.len() as u128;
            let (top, lo) = b.block(&mut sweep, block << shift, ((block + 1) << shift) - 1);
            let room = cfg.dir2 && sub.len() < MAX_SUBS << SUB_BITS;
            let table_words = if room { b.sub(block, top, lo) } else { None };
            words.push(AtomicU32::new(match table_words {
                Some(table_words) => {
                    let table = (sub.len() >> SUB_BITS) as u32;
                    sub.extend(table_words);
                    SUB | table
                }
                None => top,
            }));
            if top & DIRECT != 0 {
                // The blocks before the next key's lie in the same interval: one run, not a
                // sweep per block (a sparse table's directory is mostly such runs). The last
                // block, which holds `K::MAX`, is left to `block`.
                let next = keys.get(lo + 1).map_or(BLOCKS, |&k| (k.to_u128() >> shift) as usize);
                words.resize_with(next.min(BLOCKS - 1).max(words.len()), || AtomicU32::new(top));
            }
        }
        let words: Box<[AtomicU32; BLOCKS]> =
            words.into_boxed_slice().try_into().expect("one word per block");
        let sub = sub.into_iter().map(AtomicU32::new).collect();
        let narrow: Box<[AtomicU16]> = if hops {
            let entries = words.iter().map(|w| narrow_of(w.load(Ordering::Relaxed)));
            entries.chain([NO_HOP16]).map(AtomicU16::new).collect()
        } else {
            Box::new([])
        };
        Dir { words: Some(words), sub, hops, narrow }
    }

    /// Rewrites the words of the blocks lying wholly inside the interval at `pos`, keys
    /// `first..=last`, after its word changed to `word` (side-table tag `tag`).
    pub(super) fn refresh<K: TreeKey>(&self, pos: usize, first: K, last: K, word: u32, tag: u32) {
        let Some(words) = self.words.as_ref().filter(|_| self.hops) else { return };
        let (first, last) = (first.to_u128(), last.to_u128());
        let new = direct_word(pos, word, tag, true);
        let shift = key_bits::<K>() - DIR_BITS;
        // usize bounds (blocks fit 16 bits): the loop is a plain store per block. The range
        // is empty (start past end) for an interval inside one block.
        let r = inside(first, last, shift);
        let (start, end) = (r.start as usize, r.end as usize);
        for word in &words[start..end.max(start)] {
            word.store(new, Ordering::Release);
        }
        for entry in &self.narrow[start..end.max(start)] {
            entry.store(narrow_of(new), Ordering::Release);
        }
        // The blocks holding the interval's ends may have second-level blocks inside it.
        for block in [first >> shift, last >> shift] {
            let top = words[block as usize].load(Ordering::Relaxed);
            if top & (DIRECT | SUB) != SUB {
                continue;
            }
            let table = ((top & !SUB) as usize) << SUB_BITS;
            let base = block << SUB_BITS;
            let r = inside(first, last, shift - SUB_BITS);
            for b in r.start.max(base)..r.end.min(base + (1 << SUB_BITS)) {
                self.sub[table + (b - base) as usize].store(new, Ordering::Release);
            }
        }
    }

    /// The top-level word of key `k`'s block, or `None` without a directory.
    #[inline(always)]
    pub(super) fn word<K: TreeKey>(&self, k: K) -> Option<u32> {
        let words = self.words.as_deref()?;
        // The index has `DIR_BITS` bits, so it is within the array (no bounds check).
        Some(words[(k.to_u128() >> (key_bits::<K>() - DIR_BITS)) as usize].load(Ordering::Relaxed))
    }

    /// The raw next hops of the blocks of 16 addresses into `out`, for the lanes whose block
    /// word holds one below `NO_HOP16`, read from the narrow copy; the other lanes get a
    /// value their lookup overwrites, and lanes before `first` (done by the caller) keep
    /// theirs. Returns the mask of the lanes without a hop: a batch's directory step with
    /// one gather, where most uniform IPv6 traffic ends. `None` when no block word holds a
    /// hop (no directory, or no `dhop`).
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn hops16<A: super::Key>(
        &self,
        addrs: &[A; 16],
        out: &mut [u32; 16],
        first: usize,
    ) -> Option<u16> {
        use std::arch::x86_64::*;
        if self.narrow.is_empty() {
            return None;
        }
        // SAFETY: the caller's contract (AVX-512F); every index has `DIR_BITS` bits, so each
        // lane reads bytes `2i .. 2i + 4` of the `BLOCKS + 1` entries; the entry it keeps is
        // 2-byte aligned inside them, so it never straddles a cache line and is read whole,
        // before or after a concurrent 16-bit store (the other half, the next entry, is
        // dropped; a hop leads to no further read); `out` is 16 u32 (unaligned masked store).
        unsafe {
            let index = A::top16(addrs, DIR_BITS);
            let pairs = _mm512_i32gather_epi32::<2>(index, self.narrow.as_ptr().cast());
            let none = _mm512_set1_epi32(i32::from(NO_HOP16));
            let hop = _mm512_and_si512(pairs, none);
            // Lanes `first..16` only (`first < 16`): the caller's lanes keep their outputs.
            _mm512_mask_storeu_epi32(out.as_mut_ptr().cast(), u16::MAX << first, hop);
            Some(_mm512_cmpeq_epi32_mask(hop, none))
        }
    }

    /// [`Dir::hops16`] with one scalar load of the block word per lane and no branch, for
    /// instruction sets without a gather that pays: the same answers, and lanes whose hop
    /// does not fit 16 bits are answered here too rather than left to their own step.
    #[inline(always)]
    pub(super) fn hops16_scalar<A: super::Key>(
        &self,
        addrs: &[A; 16],
        out: &mut [u32; 16],
        first: usize,
    ) -> Option<u16> {
        let words = self.words.as_deref().filter(|_| self.hops)?;
        let mut left = 0u16;
        for (i, (o, a)) in out.iter_mut().zip(addrs).enumerate() {
            let index = (a.top().to_u128() >> (key_bits::<A::T>() - DIR_BITS)) as usize;
            let w = words[index].load(Ordering::Relaxed);
            *o = if i < first { *o } else { w & !(DIRECT | HOP) };
            left |= u16::from(w < DIRECT | HOP) << i;
        }
        Some(left)
    }

    /// Without x86 gathers, no directory step of 16 lanes at once (`None`).
    ///
    /// # Safety
    /// None needed; `unsafe` as its x86 twin.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub(super) unsafe fn hops16<A: super::Key>(
        &self,
        _addrs: &[A; 16],
        _out: &mut [u32; 16],
        _first: usize,
    ) -> Option<u16> {
        None
    }

    /// The raw next hop a block word holds (`DIRECT | HOP`), if it holds one: the test a
    /// batch makes first, where most uniform IPv6 traffic ends.
    #[inline(always)]
    pub(super) fn hop_in(word: u32) -> Option<u32> {
        (word & (DIRECT | HOP) == DIRECT | HOP).then_some(word & !(DIRECT | HOP))
    }

    /// The interval a block word answers by position (`DIRECT`, without `HOP`), if any.
    #[inline(always)]
    pub(super) fn position_in(word: u32) -> Option<usize> {
        (word & (DIRECT | HOP) == DIRECT).then_some((word & !DIRECT) as usize)
    }

    /// The entry of key `k`.
    #[inline(always)]
    pub(super) fn entry<K: TreeKey>(&self, k: K) -> Entry {
        self.entry_of(k, self.word(k))
    }

    /// The entry of key `k`, whose block word is `word` (from [`Dir::word`]; `None` without
    /// a directory: descend from the root).
    #[inline(always)]
    pub(super) fn entry_of<K: TreeKey>(&self, k: K, word: Option<u32>) -> Entry {
        let Some(mut word) = word else {
            return Entry::Descend { level: 0, node: 0 };
        };
        if word & (DIRECT | SUB) == SUB {
            let below = (k.to_u128() >> (key_bits::<K>() - DIR_BITS - SUB_BITS)) as usize;
            let i = (((word & !SUB) as usize) << SUB_BITS) | (below & ((1 << SUB_BITS) - 1));
            word = self.sub[i].load(Ordering::Relaxed);
        }
        if word & DIRECT != 0 {
            if word & HOP != 0 {
                Entry::Hop(word & !(DIRECT | HOP))
            } else {
                Entry::Direct((word & !DIRECT) as usize)
            }
        } else {
            Entry::Descend {
                level: (word >> LEVEL_SHIFT) as usize,
                node: (word & NODE_MASK) as usize,
            }
        }
    }

    /// The share of blocks answered directly, or `None` without a directory.
    pub(super) fn direct_share(&self) -> Option<f64> {
        let words = self.words.as_ref()?;
        let direct = words.iter().filter(|w| w.load(Ordering::Relaxed) & DIRECT != 0).count();
        Some(direct as f64 / words.len() as f64)
    }

    /// Second-level tables.
    pub(super) fn sub_tables(&self) -> usize {
        self.sub.len() >> SUB_BITS
    }

    /// Bytes of the directory.
    pub(super) fn memory_bytes(&self) -> usize {
        self.words.as_ref().map_or(0, |w| std::mem::size_of_val(&**w))
            + std::mem::size_of_val(&*self.sub)
            + std::mem::size_of_val(&*self.narrow)
    }
}

/// The blocks of `2^shift` keys lying wholly inside `first..=last`.
fn inside(first: u128, last: u128, shift: u32) -> std::ops::Range<u128> {
    // A block partly outside holds keys of other intervals.
    first.div_ceil(1 << shift)..(last + 1) >> shift
}

/// The word of a block answered by the interval at `pos`, whose word is `word`.
fn direct_word(pos: usize, word: u32, tag: u32, hops: bool) -> u32 {
    if hops && word & tag == 0 && word < HOP { DIRECT | HOP | word } else { DIRECT | pos as u32 }
}

/// Bits of a key.
fn key_bits<K: TreeKey>() -> u32 {
    (std::mem::size_of::<K>() * 8) as u32
}
/// The deepest level whose node is an ancestor of the leaves of both positions, and that
/// node.
fn shared_ancestor<K: TreeKey>(tree: &Tree<K>, lo: usize, hi: usize) -> (usize, usize) {
    let (height, fanout) = (tree.height(), Tree::<K>::FANOUT);
    let (leaf_lo, leaf_hi) = (tree.leaf_of(lo), tree.leaf_of(hi));
    (0..=height)
        .rev()
        .map(|level| {
            let span = fanout.pow((height - level) as u32);
            (level, leaf_lo / span, leaf_hi / span)
        })
        .find(|&(_, a, b)| a == b)
        .map(|(level, node, _)| (level, node))
        .expect("the root is an ancestor of every leaf")
}
