//! The lookup (§3.2 Algorithm 1 with §3.3 Algorithm 2 and §3.4 Algorithm 3), specialised per
//! address family, leaf width and instruction set.
//!
//! The walk keeps the address in a *cursor*: the not-yet-consumed bits at the top of a
//! register. The chunk value `v` is the cursor's top 6 bits, and `63 - v` is the top 6 bits of
//! its complement, so `vector << (63 - v)` moves slot `v`'s bit to the sign bit (is it an
//! internal child?) and leaves exactly bits `0..=v` for the population count — one shift
//! replaces the paper's mask `(2 << v) - 1`.
//!
//! `count_ones` is a single instruction only where the compiler may assume `popcnt`; the
//! crate is built for baseline x86-64, so the walk is compiled twice: a portable copy, and one
//! with `popcnt` and BMI enabled, chosen once at build time (the [`Isa`] level from
//! [`crate::cpu`]: `Avx2` runs the `popcnt`/BMI walk, `Avx512` adds AVX-512 `dir` gathers).

use super::fanout::FANOUT;
use super::layout::{Arena, Core, DIRECT_LEAF, Key, Leaf, Record, STRIDE};
use crate::cpu::Isa;

impl<A: Key, L: Leaf, N: Record> Core<A, L, N> {
    /// The node record at `i`.
    ///
    /// # Safety
    /// `i` is a node index reached from a published entry (always in bounds: every `base1`
    /// and direct-pointing node index points into the arena the writer allocated it from).
    #[inline(always)]
    unsafe fn node_at(&self, i: u32) -> N {
        // SAFETY: in bounds by the caller's contract.
        unsafe { self.nodes.get_unchecked(i) }
    }

    /// Where walks below a node entry of `dir` start: with fan-out (only where the family
    /// supports it, [`Key::FANOUT`], and the layout has `leafvec`, [`Record::LEAFVEC`]) at
    /// the root's record for the address's slot, one level down; else at the root.
    #[inline(always)]
    fn start(&self) -> Start<'_, N> {
        match self.fanout.as_ref().filter(|_| A::FANOUT && N::LEAFVEC) {
            Some(records) => Start { records, off: self.s + STRIDE, fanned: true },
            None => Start { records: &self.nodes, off: self.s, fanned: false },
        }
    }

    /// The walk from node `d` with cursor `k` (the address bits below that node's offset).
    ///
    /// The loop branches on every level: predicted branches let the next lookups' loads start
    /// early, which made it faster than a branch-free walk (`docs/lab/poptrie.md`).
    ///
    /// # Safety
    /// `d` is a node index reached from a published entry.
    #[inline(always)]
    unsafe fn walk_from(&self, d: u32, k: A::Cursor) -> u32 {
        // SAFETY: the caller's contract; the leaf index is in the last node's leaf block.
        unsafe { self.leaves.get_unchecked(self.walk_to_leaf(self.node_at(d), k)).raw() }
    }

    /// The index of the leaf that the walk from node record `node` with cursor `k` ends in.
    ///
    /// # Safety
    /// `node` is a published node record (or a fan-out copy of one).
    #[inline(always)]
    unsafe fn walk_to_leaf(&self, mut node: N, mut k: A::Cursor) -> u32 {
        // SAFETY: for the whole walk, indices come from the structure's invariants — a set
        // vector bit has a child at base1 + rank - 1 < base1 + popcount(vector), and a leaf
        // slot's rank in `leaf_starts` is at least 1 (the first leaf slot always sets its
        // bit), so base0 + rank - 1 lies in the node's leaf block.
        unsafe {
            loop {
                let t = node.vector() << A::inv_chunk(k);
                if (t as i64) >= 0 {
                    break;
                }
                node = self.node_at(node.base1() + t.count_ones() - 1);
                k = A::advance(k);
            }
            node.base0() + (node.leaf_starts() << A::inv_chunk(k)).count_ones() - 1
        }
    }

    /// The raw next hop of `a` (0 = no route), in whatever instruction set the caller has.
    #[inline(always)]
    pub(crate) fn lookup_inline(&self, a: A) -> u32 {
        // SAFETY: `top(s)` has `s` bits, and `dir` has `2^s` entries.
        let d = unsafe { self.dir.entry_unchecked(a.top(self.s)) };
        if d & DIRECT_LEAF != 0 {
            return d & !DIRECT_LEAF;
        }
        let start = self.start();
        // SAFETY: `d` is a node index from `dir`, so `start.index` is a record of
        // `start.records` (`Start::index`); the walk's leaf is in its last node's leaf block.
        unsafe {
            let record = start.records.get_unchecked(start.index(d, a, self.s));
            self.leaves.get_unchecked(self.walk_to_leaf(record, a.cursor(start.off))).raw()
        }
    }

    /// Looks up every address of `addrs` into `out`, overlapping the memory accesses of a
    /// group of lookups: the direct-pointing entries of the whole group are prefetched, then
    /// the walks that continue below them proceed in lock step (see `group`).
    ///
    /// The lock step pays for IPv6's deep /48 walks, whose loads overlap, but not for IPv4's
    /// walks of one or two levels, so IPv4 takes one level of every walking lane, then the
    /// leaves, then the deeper walks lane after lane ([`Key::LOCKSTEP_WALK`],
    /// `first_level_then_lanes`; figures in `docs/lab/poptrie.md`).
    ///
    /// With `GATHER` (only when the CPU has AVX-512F) the direct-pointing step of each 16
    /// lanes is one gather, and all the group's gathers are issued before any of their
    /// results is branched on, so their latencies overlap; groups are 64 lanes, the fastest
    /// size measured.
    #[inline(always)]
    pub(crate) fn lookup_batch_inline<const GATHER: bool>(&self, addrs: &[A], out: &mut [u32]) {
        const GROUP: usize = 64;
        let n = addrs.len().min(out.len());
        let (addrs, out) = (&addrs[..n], &mut out[..n]);
        let mut chunks = addrs.chunks_exact(GROUP);
        let mut outs = out.chunks_exact_mut(GROUP);
        for (a, o) in (&mut chunks).zip(&mut outs) {
            let (a, o): (&[A; GROUP], &mut [u32; GROUP]) =
                (a.try_into().expect("GROUP addresses"), o.try_into().expect("GROUP outputs"));
            self.group::<GROUP, GATHER>(a, o);
        }
        for (a, o) in chunks.remainder().iter().zip(outs.into_remainder()) {
            *o = self.lookup_inline(*a);
        }
    }

    /// One group: the `dir` step of every lane (prefetched, or gathered), then the walks of
    /// the lanes that continue in a node. With [`Key::LOCKSTEP_WALK`] every walking lane
    /// descends one level per round and its next node (or leaf) is prefetched as soon as its
    /// index is known, so the group's dependent loads overlap; lanes that reach their leaf
    /// leave the round-robin (`live` holds the lanes still walking, `walking` all of them).
    ///
    /// The per-lane arrays are zero-filled at every group: compact lists of the walking
    /// lanes (no fill, fewer bytes) measured slower (`docs/lab/poptrie.md`).
    #[inline(always)]
    fn group<const G: usize, const GATHER: bool>(&self, a: &[A; G], out: &mut [u32; G]) {
        let mut node = [0u32; G];
        let mut k = [A::ZERO.cursor(self.s); G];
        let mut live = [0u8; G];
        let mut n_live = 0;
        let start = self.start();
        let mut enter = |i: usize, d: u32| {
            let at = start.index(d, a[i], self.s);
            prefetch(start.records.as_ptr().wrapping_add(at as usize) as *const u8);
            node[i] = at;
            if !A::LOCKSTEP_WALK {
                k[i] = a[i].cursor(start.off);
            }
            live[n_live] = i as u8;
            n_live += 1;
        };
        if !(GATHER && self.gather_direct(a, out, &mut enter)) {
            for x in a {
                prefetch(self.dir.entry_ptr(x.top(self.s)));
            }
            for i in 0..G {
                // SAFETY: `top(s) < 2^s = dir.len()`.
                let d = unsafe { self.dir.entry_unchecked(a[i].top(self.s)) };
                out[i] = d & !DIRECT_LEAF;
                if d & DIRECT_LEAF == 0 {
                    enter(i, d);
                }
            }
        }
        if !A::LOCKSTEP_WALK {
            self.first_level_then_lanes(start.records, out, &mut node, &mut k, &live[..n_live]);
            return;
        }
        self.lockstep(start, a, out, &mut node, live, n_live);
    }

    /// The lock-step walks of the lanes in `live[..n_live]` (lane `i` at record `node[i]` of
    /// `start.records`; deeper records are in `nodes`): in round `r` every lane still walking
    /// is at offset `start.off + 6r`, so its chunk comes from the address's top 64 bits
    /// (`Key::window`) with no per-lane cursor; the few lanes still walking past the window
    /// finish with the full cursor.
    ///
    /// The 64-bit window beats per-lane 128-bit cursors; branch-free rounds, bit-mask lane
    /// lists, larger groups, AMAC refills and lane-after-lane walks were all measured and were
    /// no faster (`docs/lab/poptrie.md`).
    #[inline(always)]
    fn lockstep<const G: usize>(
        &self,
        start: Start<'_, N>,
        a: &[A; G],
        out: &mut [u32; G],
        node: &mut [u32; G],
        mut live: [u8; G],
        mut n_live: usize,
    ) {
        let (walking, n_walking) = (live, n_live);
        let mut leaf = [0u32; G];
        let (mut records, mut off) = (start.records, start.off);
        while n_live > 0 && off + STRIDE <= 64 {
            let mut still = 0;
            for j in 0..n_live {
                let i = live[j] as usize % G;
                let inv = (!(a[i].window() << off) >> 58) as u32;
                // SAFETY: `node[i]` is a published record index of `records` (from `dir`, the
                // fan-out, or a parent's `base1` + rank - 1, as in `walk_to_leaf`).
                match unsafe { self.step(records, &mut node[i], inv) } {
                    Some(at) => leaf[i] = at,
                    None => {
                        live[still] = i as u8;
                        still += 1;
                    }
                }
            }
            n_live = still;
            off += STRIDE;
            records = &self.nodes;
        }
        for &i in &live[..n_live] {
            let i = i as usize % G;
            // SAFETY: `node[i]` is a published record index of `records`.
            leaf[i] =
                unsafe { self.walk_to_leaf(records.get_unchecked(node[i]), a[i].cursor(off)) };
        }
        for &i in &walking[..n_walking] {
            let i = i as usize % G;
            // SAFETY: `leaf[i]` is in the leaf block of the lane's last node (`walk_to_leaf`).
            out[i] = unsafe { self.leaves.get_unchecked(leaf[i]) }.raw();
        }
    }

    /// One level of a batch lane's walk from record `node` of `records`, whose chunk is
    /// `63 - inv`: either descends (`node` updated to the child in `nodes`, prefetched;
    /// `None`) or ends with the leaf's index (prefetched).
    ///
    /// # Safety
    /// `node` is a published record index of `records` (ranks as in `walk_to_leaf`).
    #[inline(always)]
    unsafe fn step(&self, records: &Arena<N>, node: &mut u32, inv: u32) -> Option<u32> {
        // SAFETY: the caller's contract.
        let nd = unsafe { records.get_unchecked(*node) };
        let t = nd.vector() << inv;
        if (t as i64) < 0 {
            *node = nd.base1() + t.count_ones() - 1;
            prefetch(self.nodes.as_ptr().wrapping_add(*node as usize) as *const u8);
            None
        } else {
            let at = nd.base0() + (nd.leaf_starts() << inv).count_ones() - 1;
            prefetch(self.leaves.as_ptr().wrapping_add(at as usize) as *const u8);
            Some(at)
        }
    }

    /// The walks of the lanes in `live` (lane `i` at node `node[i]`, cursor `k[i]`): one
    /// level for every lane first, prefetching each lane's leaf (or next node), then the
    /// leaves, then the few deeper walks lane after lane: the leaf loads of the whole group
    /// overlap, which made it faster than walking each lane to its leaf at once (`docs/lab/poptrie.md`).
    #[inline(always)]
    fn first_level_then_lanes<const G: usize>(
        &self,
        first: &Arena<N>,
        out: &mut [u32; G],
        node: &mut [u32; G],
        k: &mut [A::Cursor; G],
        live: &[u8],
    ) {
        let mut leaf_at = [0u32; G];
        let (mut ends, mut n_ends) = ([0u8; G], 0);
        let (mut deeper, mut n_deeper) = ([0u8; G], 0);
        for &i in live {
            let i = i as usize;
            // SAFETY: `node[i]` is a record index of `first` from `dir` (or the fan-out).
            match unsafe { self.step(first, &mut node[i], A::inv_chunk(k[i])) } {
                Some(at) => {
                    leaf_at[i] = at;
                    ends[n_ends] = i as u8;
                    n_ends += 1;
                }
                None => {
                    k[i] = A::advance(k[i]);
                    deeper[n_deeper] = i as u8;
                    n_deeper += 1;
                }
            }
        }
        for &i in &ends[..n_ends] {
            // SAFETY: `leaf_at[i]` is in the lane's node's leaf block (`walk_to_leaf`).
            out[i as usize] = unsafe { self.leaves.get_unchecked(leaf_at[i as usize]) }.raw();
        }
        for &i in &deeper[..n_deeper] {
            let i = i as usize;
            // SAFETY: `node[i]` is a published child node.
            out[i] = unsafe { self.walk_from(node[i], k[i]) };
        }
    }

    /// The `dir` step of a group by AVX-512 gathers, 16 lanes at a time: writes the next hop
    /// of lanes that `dir` answers into `out` and calls `enter(lane, node)` for the others.
    /// Returns false (having done nothing) when the family has no SIMD path.
    #[inline(always)]
    fn gather_direct<const G: usize>(
        &self,
        a: &[A; G],
        out: &mut [u32; G],
        enter: &mut impl FnMut(usize, u32),
    ) -> bool {
        if !G.is_multiple_of(16) {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        {
            // All gathers first, with no branch on their results in between, so that their
            // loads are in flight together; then the lanes that continue in a node.
            // At most 16 chunks: `G <= 256` (lane indices are `u8`).
            let mut masks = [0u16; 16];
            for (c, (a16, o16)) in a.chunks_exact(16).zip(out.chunks_exact_mut(16)).enumerate() {
                let (a16, o16): (&[A; 16], &mut [u32; 16]) =
                    (a16.try_into().expect("16 lanes"), o16.try_into().expect("16 lanes"));
                // SAFETY: only instantiated with `GATHER` under `Isa::Avx512` (AVX-512F
                // detected); `dir` has `2^s` entries and is written only by atomic stores.
                let Some(nodes) = (unsafe { A::gather_direct16(&self.dir, self.s, a16, o16) })
                else {
                    return false;
                };
                masks[c] = nodes;
            }
            for (c, o16) in out.chunks_exact_mut(16).enumerate() {
                let mut nodes = masks[c];
                while nodes != 0 {
                    let i = nodes.trailing_zeros() as usize;
                    enter(c * 16 + i, o16[i]);
                    nodes &= nodes - 1;
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (a, out, enter);
        cfg!(target_arch = "x86_64")
    }

    /// [`Core::lookup_inline`] compiled with `popcnt` and BMI.
    ///
    /// # Safety
    /// The CPU supports `popcnt`, `bmi1` and `bmi2`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,bmi2")]
    pub(crate) unsafe fn lookup_x86(&self, a: A) -> u32 {
        self.lookup_inline(a)
    }

    /// [`Core::lookup_batch_inline`] compiled with `popcnt` and BMI.
    ///
    /// # Safety
    /// The CPU supports `popcnt`, `bmi1` and `bmi2`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,bmi1,bmi2")]
    pub(crate) unsafe fn lookup_batch_x86(&self, addrs: &[A], out: &mut [u32]) {
        self.lookup_batch_inline::<false>(addrs, out)
    }

    /// [`Core::lookup_batch_inline`] with AVX-512 gathers for `dir`, `popcnt` and BMI.
    ///
    /// # Safety
    /// The CPU supports `avx512f`, `popcnt`, `bmi1` and `bmi2`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,popcnt,bmi1,bmi2")]
    pub(crate) unsafe fn lookup_batch_avx512(&self, addrs: &[A], out: &mut [u32]) {
        self.lookup_batch_inline::<true>(addrs, out)
    }

    /// One lookup in the given instruction set.
    #[inline(always)]
    pub(crate) fn lookup_with(&self, isa: Isa, a: A) -> u32 {
        match isa {
            // SAFETY: `Avx2` and `Avx512` are only chosen when the CPU has them
            // (`Isa::resolve`), and both levels include `popcnt`, `bmi1` and `bmi2`.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 | Isa::Avx512 => unsafe { self.lookup_x86(a) },
            _ => self.lookup_inline(a),
        }
    }

    /// A batch in the given instruction set.
    #[inline(always)]
    pub(crate) fn lookup_batch_with(&self, isa: Isa, addrs: &[A], out: &mut [u32]) {
        match isa {
            // SAFETY: each level is only chosen when the CPU has it (`Isa::resolve`); `Avx2`
            // includes `popcnt`, `bmi1` and `bmi2`, `Avx512` adds `avx512f`.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { self.lookup_batch_x86(addrs, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above; `Avx512` is only chosen when the CPU has `avx512f` too.
            Isa::Avx512 => unsafe { self.lookup_batch_avx512(addrs, out) },
            _ => self.lookup_batch_inline::<false>(addrs, out),
        }
    }
}

/// Where walks below `dir` start: the records that `dir` (or the fan-out) leads to, at
/// address offset `off`.
#[derive(Copy, Clone)]
struct Start<'a, N> {
    records: &'a Arena<N>,
    off: u32,
    /// `records` is the fan-out (64 records per root slot).
    fanned: bool,
}

impl<N> Start<'_, N> {
    /// The record of `records` where the walk of `a` below node entry `d` starts (`d` is
    /// below the root limit when fanned, so the fan-out has the record).
    #[inline(always)]
    fn index<A: Key>(&self, d: u32, a: A, s: u32) -> u32 {
        if self.fanned { d * FANOUT + a.chunk(s) } else { d }
    }
}

/// Hints the CPU to load the cache line at `p` (no effect on other architectures).
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
