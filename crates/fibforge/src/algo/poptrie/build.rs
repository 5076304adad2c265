//! Compiling a region of the RIB into Poptrie nodes and leaves.
//!
//! The RIB is first turned into *segments*: the address range as consecutive runs, each with
//! one answer (raw next hop, 0 = none). With route aggregation, adjacent runs always differ,
//! so a slot is a leaf exactly when its answer is constant — redundant more-specific routes
//! (same next hop as their cover) leave no trace. Without aggregation every route start and
//! end is a segment boundary even when the answer does not change, so a slot becomes an
//! internal node exactly when a route lies strictly inside it (the paper's Table 2 rows
//! "without route aggregation").
//!
//! A region is built bottom-up: the 64 slots of a node are classified by walking the
//! segments once; slots with more than one segment recurse one level deeper; then the node is
//! emitted — its children block and its leaf block (runs of equal leaves compressed with
//! `leafvec`, holes under internal children ignored; in the basic layout one leaf per leaf
//! slot) are written through a [`Sink`], and the node record (of the layout `N`,
//! [`Record`]) is returned to the caller, which places it in its own children block.

use super::layout::{DIRECT_LEAF, Key, Leaf, MAX_DIRECT_RAW, Record, STRIDE};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::prefix::Prefix;
use crate::rib::{NodeId, Rib};

/// A run of addresses from `start` to the next segment's start with one answer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Seg<A> {
    pub start: A,
    pub raw: u32,
}

/// What one slot (or one region) compiles to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Slot<N> {
    /// Every address has this answer (raw next hop).
    Leaf(u32),
    /// An internal node.
    Child(N),
}

/// Where emitted blocks go: plain vectors when compiling, the arenas when updating.
pub(crate) trait Sink<L: Leaf, N: Record> {
    /// Stores a block of node records; returns the index of the first.
    fn put_nodes(&mut self, nodes: &[N]) -> Result<u32, BuildError>;
    /// Stores a block of leaves; returns the index of the first.
    fn put_leaves(&mut self, leaves: &[L]) -> Result<u32, BuildError>;
    /// Stores the node a direct-pointing entry names (a *root*); returns its index.
    fn put_root(&mut self, node: N) -> Result<u32, BuildError>;
}

/// All ones in the low `w` bits (`w <= 128`).
#[inline]
pub(crate) fn low_ones(w: u32) -> u128 {
    if w >= 128 { u128::MAX } else { (1u128 << w) - 1 }
}

/// Buffers of [`segments`] kept between calls, so that an update allocates nothing.
#[derive(Default)]
pub(crate) struct SegScratch {
    /// The RIB walk's stack.
    walk: Vec<NodeId>,
    /// Enclosing routes inside the region: (last address, raw), innermost on top.
    open: Vec<(u128, u32)>,
}

/// Appends the segments of `region` to `out`: the first starts at `region.addr()`.
pub(crate) fn segments<A: Address>(
    rib: &Rib<A>,
    region: &Prefix<A>,
    merge: bool,
    scratch: &mut SegScratch,
    out: &mut Vec<Seg<A>>,
) {
    let (outer, root) = rib.region_root(region);
    let outer_raw = outer.map_or(0, |h| h.raw());
    let base = out.len();
    let mut sweep = Sweep { out, base, merge, region_last: region.last().to_u128(), outer_raw };
    sweep.push(region.addr().to_u128(), outer_raw);
    let open = &mut scratch.open;
    open.clear();
    rib.visit_subtree(root, &mut scratch.walk, |p, h| {
        let start = p.addr().to_u128();
        sweep.close_before(open, start);
        sweep.push(start, h.raw());
        open.push((p.last().to_u128(), h.raw()));
    });
    // Routes ending at the very last address (u128::MAX) need no closing: nothing follows.
    sweep.close_before(open, u128::MAX);
}

/// State of the segment sweep over one region.
struct Sweep<'a, A> {
    out: &'a mut Vec<Seg<A>>,
    base: usize,
    merge: bool,
    region_last: u128,
    outer_raw: u32,
}

impl<A: Address> Sweep<'_, A> {
    /// Starts a segment; a second start at the same address replaces the first.
    fn push(&mut self, start: u128, raw: u32) {
        let start = A::from_u128(start);
        let n = self.out.len();
        match self.out[self.base..].last_mut() {
            Some(last) if last.start == start => {
                last.raw = raw;
                if self.merge && n >= self.base + 2 && self.out[n - 2].raw == raw {
                    self.out.pop();
                }
            }
            Some(last) if self.merge && last.raw == raw => {}
            _ => self.out.push(Seg { start, raw }),
        }
    }

    /// Pops the routes ending before `next`, starting the segment that resumes after each.
    fn close_before(&mut self, stack: &mut Vec<(u128, u32)>, next: u128) {
        while let Some(&(last, _)) = stack.last() {
            if last >= next {
                return;
            }
            stack.pop();
            if last < self.region_last {
                let raw = stack.last().map_or(self.outer_raw, |&(_, r)| r);
                self.push(last + 1, raw);
            }
        }
    }
}

/// The segments of the slot `first..=last` within `segs` (sorted, covering it), starting the
/// search at `*from` and leaving it at the slot's last segment for the next slot.
#[inline]
pub(crate) fn slot_segs<'s, A: Address>(
    segs: &'s [Seg<A>],
    from: &mut usize,
    first: u128,
    last: u128,
) -> &'s [Seg<A>] {
    let mut j = *from;
    while j + 1 < segs.len() && segs[j + 1].start.to_u128() <= first {
        j += 1;
    }
    let mut k = j;
    while k + 1 < segs.len() && segs[k + 1].start.to_u128() <= last {
        k += 1;
    }
    *from = k;
    &segs[j..=k]
}

/// Builds the node for the region starting at `start` at bit offset `off`, whose segments are
/// `segs` (the first may begin before `start`), or a leaf when they are a single segment.
pub(crate) fn build_region<A: Key, L: Leaf, N: Record, S: Sink<L, N>>(
    off: u32,
    start: u128,
    segs: &[Seg<A>],
    sink: &mut S,
) -> Result<Slot<N>, BuildError> {
    if segs.len() == 1 {
        return Ok(Slot::Leaf(segs[0].raw));
    }
    let mut slots = [Slot::Leaf(0); 64];
    fill_slots(off, start, segs, &mut slots, sink)?;
    emit(&slots, sink).map(Slot::Child)
}

/// Classifies (and for internal slots, builds) the 64 slots of a node.
fn fill_slots<A: Key, L: Leaf, N: Record, S: Sink<L, N>>(
    off: u32,
    start: u128,
    segs: &[Seg<A>],
    slots: &mut [Slot<N>; 64],
    sink: &mut S,
) -> Result<(), BuildError> {
    let real = STRIDE.min(A::BITS - off);
    let pad = STRIDE - real;
    let width = A::BITS - off - real; // host bits per slot
    let mut j = 0;
    for r in 0..1u32 << real {
        let first = start + ((r as u128) << width);
        let mine = slot_segs(segs, &mut j, first, first + low_ones(width));
        let slot = build_region(off + STRIDE, first, mine, sink)?;
        for p in 0..1usize << pad {
            slots[((r as usize) << pad) | p] = slot;
        }
    }
    Ok(())
}

/// Writes a node's children and leaves through `sink` and returns its record.
pub(crate) fn emit<L: Leaf, N: Record, S: Sink<L, N>>(
    slots: &[Slot<N>; 64],
    sink: &mut S,
) -> Result<N, BuildError> {
    let lay = Layout::<L, N>::of(slots);
    let base1 = if lay.nc == 0 { 0 } else { sink.put_nodes(lay.children())? };
    let base0 = if lay.nl == 0 { 0 } else { sink.put_leaves(lay.leaves())? };
    Ok(N::new(lay.vector, lay.leafvec, base0, base1))
}

/// A node laid out from its slots: vectors, children records, leaves (runs compressed in the
/// `leafvec` layout, one per leaf slot in the basic one).
pub(crate) struct Layout<L, N> {
    vector: u64,
    leafvec: u64,
    children: [N; 64],
    nc: usize,
    leaves: [L; 64],
    nl: usize,
}

impl<L: Leaf, N: Record> Layout<L, N> {
    pub(crate) fn of(slots: &[Slot<N>; 64]) -> Self {
        let mut lay = Layout {
            vector: 0,
            leafvec: 0,
            children: [N::default(); 64],
            nc: 0,
            leaves: [L::default(); 64],
            nl: 0,
        };
        let mut prev: Option<u32> = None;
        for (n, slot) in slots.iter().enumerate() {
            match *slot {
                Slot::Child(c) => {
                    lay.vector |= 1 << n;
                    lay.children[lay.nc] = c;
                    lay.nc += 1;
                }
                Slot::Leaf(raw) if !N::LEAFVEC || prev != Some(raw) => {
                    lay.leafvec |= 1 << n;
                    lay.leaves[lay.nl] = L::from_raw(raw);
                    lay.nl += 1;
                    prev = Some(raw);
                }
                Slot::Leaf(_) => {}
            }
        }
        lay
    }

    pub(crate) fn children(&self) -> &[N] {
        &self.children[..self.nc]
    }

    pub(crate) fn leaves(&self) -> &[L] {
        &self.leaves[..self.nl]
    }
}

/// Builds the direct-pointing array for `s` bits over whole-table segments.
pub(crate) fn build_direct<A: Key, L: Leaf, N: Record, S: Sink<L, N>>(
    s: u32,
    segs: &[Seg<A>],
    sink: &mut S,
) -> Result<Vec<u32>, BuildError> {
    let (width, end) = (A::BITS - s, 1usize << s);
    let mut dir = Vec::with_capacity(end);
    let (mut i, mut j) = (0, 0);
    while i < end {
        let first = if width >= 128 { 0 } else { (i as u128) << width };
        let mine = slot_segs(segs, &mut j, first, first + low_ones(width));
        if let [seg] = mine {
            // A sparse table leaves most entries inside one segment: fill the run at once.
            let run_end = leaf_run_end(segs, j, i, width, end);
            dir.resize(run_end, DIRECT_LEAF | seg.raw);
            i = run_end;
            continue;
        }
        dir.push(direct_entry(build_region(s, first, mine, sink)?, sink)?);
        i += 1;
    }
    Ok(dir)
}

/// The end of the run of direct entries from `i` (below `end`, entries `width` bits wide)
/// that lie wholly in segment `j`, given that entry `i` does: every entry before the one
/// holding the next segment's start.
pub(crate) fn leaf_run_end<A: Address>(
    segs: &[Seg<A>],
    j: usize,
    i: usize,
    width: u32,
    end: usize,
) -> usize {
    let next_entry = |n: &Seg<A>| n.start.to_u128().checked_shr(width).unwrap_or(0);
    let next = segs.get(j + 1).map_or(end, |n| next_entry(n) as usize);
    next.clamp(i + 1, end)
}

/// The direct-pointing encoding of a region's slot.
pub(crate) fn direct_entry<L: Leaf, N: Record, S: Sink<L, N>>(
    slot: Slot<N>,
    sink: &mut S,
) -> Result<u32, BuildError> {
    match slot {
        Slot::Leaf(raw) => Ok(DIRECT_LEAF | raw),
        Slot::Child(node) => sink.put_root(node),
    }
}

/// A sink that appends to vectors (a fresh compile: blocks packed without gaps). Roots go to
/// their own vector and are numbered from 0 there; [`VecSink::into_nodes`] places them first.
pub(crate) struct VecSink<L, N> {
    pub nodes: Vec<N>,
    pub leaves: Vec<L>,
    pub roots: Vec<N>,
}

impl<L, N: Record> VecSink<L, N> {
    pub(crate) fn new() -> Self {
        VecSink { nodes: Vec::new(), leaves: Vec::new(), roots: Vec::new() }
    }

    /// The node arena: the roots at `0..`, then the other nodes from `first_other`
    /// (`>= roots.len()`; the gap is unused slots), every `base1` relocated accordingly
    /// (children blocks are never roots). Root indices handed out stay valid.
    pub(crate) fn into_nodes(self, first_other: u32) -> Vec<N> {
        debug_assert!(first_other as usize >= self.roots.len());
        let mut out = self.roots;
        out.resize(first_other as usize, N::default());
        out.extend(self.nodes);
        for n in &mut out {
            if n.vector() != 0 {
                *n = n.with_base1(n.base1() + first_other);
            }
        }
        out
    }
}

impl<L: Leaf, N: Record> Sink<L, N> for VecSink<L, N> {
    fn put_nodes(&mut self, nodes: &[N]) -> Result<u32, BuildError> {
        let base = self.nodes.len();
        if base + nodes.len() > super::layout::MAX_NODES as usize {
            return Err(limit(
                "internal nodes",
                super::layout::MAX_NODES as u64,
                base + nodes.len(),
            ));
        }
        self.nodes.extend_from_slice(nodes);
        Ok(base as u32)
    }
    fn put_root(&mut self, node: N) -> Result<u32, BuildError> {
        self.roots.push(node);
        Ok(self.roots.len() as u32 - 1)
    }
    fn put_leaves(&mut self, leaves: &[L]) -> Result<u32, BuildError> {
        let base = self.leaves.len();
        if base + leaves.len() > u32::MAX as usize {
            return Err(limit("leaves", u32::MAX as u64, base + leaves.len()));
        }
        self.leaves.extend_from_slice(leaves);
        Ok(base as u32)
    }
}

/// The error for a next hop beyond the direct-pointing limit, in the next-hop indexes users
/// give (raw values are index + 1, which would make the message off by one).
pub(crate) fn hop_limit(max_raw: u32) -> BuildError {
    let (limit, found) = (MAX_DIRECT_RAW - 1, max_raw - 1);
    BuildError::LimitExceeded {
        algo: "poptrie",
        what: "next hop",
        limit: limit.into(),
        found: found.into(),
    }
}

pub(crate) fn limit(what: &'static str, limit: u64, found: usize) -> BuildError {
    BuildError::LimitExceeded { algo: "poptrie", what, limit, found: found as u64 }
}
