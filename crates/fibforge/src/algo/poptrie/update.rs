//! Incremental updates (§3.5): rebuild only what a route change touches, publish atomically.
//!
//! For each changed prefix `p` (already applied to the RIB):
//!
//! - `p` no longer than `s`: every direct-pointing entry inside `p` is rebuilt from the RIB
//!   segments of its `/s` region (the paper's "update the direct-pointing entries").
//! - `p` longer than `s`: walk down from the entry's root node while `p` lies strictly inside
//!   an internal slot. At the node reached, the slots that intersect `p` are rebuilt from the
//!   RIB; every other slot keeps its old leaf or child record, whose subtree is reused as is.
//!   The node is then re-emitted (new children block, new leaf block), and so is each
//!   ancestor on the way back up with one child record replaced (path copying, since a node's
//!   children are one contiguous block). Finally one atomic store of the direct-pointing entry
//!   publishes the new path.
//!
//! A rebuilt node whose answer became constant collapses into a leaf of its parent (as a fresh
//! compile would make it), so after every update the structure has exactly the nodes and
//! leaves of a fresh compile, only placed elsewhere.
//!
//! # Invariants
//!
//! - New blocks come from the allocators (`alloc.rs`): never-used slots or slots retired past a grace
//!   period (`reclaim.rs`), so readers can never reach a slot being written.
//! - The only store a reader can observe is the final `Release` store of a direct-pointing
//!   entry, after every block it leads to is written; readers load entries with `Acquire`.
//! - Unlinked blocks are retired only after that store.
//! - When an arena is full, the partial work of the current prefix is undone (its blocks were
//!   never published); the writer waits briefly for retired blocks to come back, else the
//!   whole [`Core`] is copied into larger arrays (a new `Fib` that [`crate::sync::Table`]
//!   publishes). A next hop or a root that a 16-bit `dir` cannot hold makes `dir` 32 bits
//!   wide the same way (`dir.rs`). When free-listed slots exceed the live ones, the table is
//!   recompiled (compacted).

use super::alloc::{BlockAlloc, NodeAlloc};
use super::build::{
    Seg, SegScratch, Sink, Slot, build_region, direct_entry, emit, hop_limit, leaf_run_end, limit,
    low_ones, segments, slot_segs,
};
use super::fanout;
use super::layout::{
    Core, DIRECT_LEAF, Key, Leaf, MAX_DIRECT_RAW, MAX_NODES, Record, STRIDE, upto,
};
use super::reclaim::Block;
use super::{Cores, Fib, Poptrie, UpdateCounts, map_core, with_core};
use crate::addr::Address;
use crate::fib::{BuildError, Compile, Incremental};
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl<A: Key> Incremental<A> for Poptrie<A> {
    /// Rebuilds the parts of the structure that `changed` touches. On error (a next hop above
    /// the structural limit) the structure is left as it was for the prefixes not yet done.
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        if changed.is_empty() {
            return Ok(());
        }
        self.reclaim.collect(&mut self.node_alloc, &mut self.leaf_alloc);
        let mut retired = Vec::new();
        let todo = if changed.len() == 1 { changed.to_vec() } else { disjoint(changed) };
        let mut result = Ok(());
        for p in &todo {
            if let Err(e) = self.patch_prefix(rib, p, &mut retired) {
                result = Err(e);
                break;
            }
        }
        self.reclaim.retire(retired, &mut self.node_alloc, &mut self.leaf_alloc);
        // Again after retiring: with no reader online the batch goes at once.
        self.reclaim.collect(&mut self.node_alloc, &mut self.leaf_alloc);
        result?;
        self.compact_if_sparse(rib)
    }
}

/// The changed prefixes, sorted, without duplicates or prefixes inside another one (a
/// covering prefix rebuilds everything it covers).
fn disjoint<A: Address>(changed: &[Prefix<A>]) -> Vec<Prefix<A>> {
    let mut v = changed.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut kept: Vec<Prefix<A>> = Vec::with_capacity(v.len());
    for p in v {
        if !kept.last().is_some_and(|k| k.covers(&p)) {
            kept.push(p);
        }
    }
    kept
}

/// How long a full arena waits for retired blocks before the arrays are copied into larger
/// ones.
const ARENA_WAIT: Duration = Duration::from_millis(2);

/// How long a full root region waits for retired roots before `dir` is widened. Widening is
/// for good and drops the root fan-out, for a shortage that lasts only until a descheduled
/// reader runs again; 2 ms was too short on a loaded two-core machine and 100 ms was not
/// (`docs/lab/poptrie.md`).
const ROOTS_WAIT: Duration = Duration::from_millis(100);

impl<A: Key> Poptrie<A> {
    /// Widens the leaves one step (a next hop above the width's largest value arrived).
    fn widen(&mut self) {
        let wider = match &self.fib.cores {
            Cores::Tiny(c) => Cores::Narrow(c.rewidened::<u16>()),
            Cores::Narrow(c) => Cores::Wide(c.rewidened::<u32>()),
            Cores::BasicTiny(c) => Cores::BasicNarrow(c.rewidened::<u16>()),
            Cores::BasicNarrow(c) => Cores::BasicWide(c.rewidened::<u32>()),
            Cores::Wide(_) | Cores::BasicWide(_) => return,
        };
        self.replace_fib(wider);
    }

    /// Makes the direct-pointing entries 32 bits wide (a root or a next hop does not fit the
    /// narrow ones); node indices stay, so only `dir` changes.
    fn widen_dir(&mut self) {
        self.replace_fib(map_core!(&self.fib.cores, c => c.with_wide_dir()));
        self.node_alloc.release_root_region();
    }

    /// Switches to new arrays (readers of the old ones keep them alive through their `Arc`).
    fn replace_fib(&mut self, cores: Cores<A>) {
        let isa = self.fib.isa;
        self.fib = Arc::new(Fib { cores, isa });
        self.scratch.counts.array_copies += 1;
    }

    /// Patches one prefix; when a patch stops for a [`Retry`], changes the arrays as it asks
    /// (reclaim, grow, widen) and patches the prefix again.
    fn patch_prefix(
        &mut self,
        rib: &Rib<A>,
        p: &Prefix<A>,
        retired: &mut Vec<Block>,
    ) -> Result<(), BuildError> {
        loop {
            let fib = self.fib.clone();
            let (na, la) = (&mut self.node_alloc, &mut self.leaf_alloc);
            let (agg, sc) = (self.cfg.aggregate, &mut self.scratch);
            let outcome =
                with_core!(&fib.cores, c => Patcher::new(c, na, la, rib, agg, sc).run(p, retired));
            match outcome {
                Ok(()) => return Ok(()),
                Err(Stopped::Retry(Retry::Full)) if self.await_reclaim(ARENA_WAIT) => {}
                Err(Stopped::Retry(Retry::RootsFull)) if self.await_reclaim(ROOTS_WAIT) => {}
                Err(Stopped::Retry(Retry::Full)) => self.grow()?,
                Err(Stopped::Retry(Retry::WidenLeaves)) => self.widen(),
                Err(Stopped::Retry(Retry::RootsFull | Retry::WidenDir)) => self.widen_dir(),
                Err(Stopped::Failed(e)) => return Err(e),
            }
        }
    }

    /// Waits up to `budget` for retired blocks to pass their grace period; true when some
    /// were freed. A burst of updates while a reader has not reported (descheduled, say)
    /// retires blocks faster than they come back; waiting is cheaper than copying the
    /// arenas or widening `dir`, and only the writer waits.
    fn await_reclaim(&mut self, budget: Duration) -> bool {
        let before = self.reclaim.pending_slots();
        if before == (0, 0) {
            return false;
        }
        let deadline = Instant::now() + budget;
        loop {
            self.reclaim.collect(&mut self.node_alloc, &mut self.leaf_alloc);
            if self.reclaim.pending_slots() != before {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::yield_now();
        }
    }

    /// Copies the arrays into arenas half as large again.
    fn grow(&mut self) -> Result<(), BuildError> {
        let ncap = grown_capacity(self.node_alloc.capacity(), MAX_NODES)?;
        let lcap = grown_capacity(self.leaf_alloc.capacity(), u32::MAX)?;
        self.resize(ncap, lcap);
        Ok(())
    }

    /// Gives both arenas `1/HEADROOM` spare slots (at least 4096), so that a stream of
    /// updates rarely has to copy the arrays (a copy is a latency spike for the writer and a
    /// burst of cold misses for readers). Done once when readers start sharing the table.
    pub(crate) fn reserve_headroom(&mut self) {
        const HEADROOM: u64 = 8;
        let spare = |live: u64, cap: u32, max: u32| {
            (live + live / HEADROOM + 4096).clamp(cap as u64, max as u64) as u32
        };
        let ncap = spare(self.node_alloc.live(), self.node_alloc.capacity(), MAX_NODES);
        let lcap = spare(self.leaf_alloc.live(), self.leaf_alloc.capacity(), u32::MAX);
        if ncap > self.node_alloc.capacity() || lcap > self.leaf_alloc.capacity() {
            self.resize(ncap, lcap);
        }
    }

    /// Copies the arrays into arenas of these capacities (same indices).
    fn resize(&mut self, ncap: u32, lcap: u32) {
        let (n, l) = (ncap as usize, lcap as usize);
        let cores = map_core!(&self.fib.cores, c => c.grown(n, l));
        self.replace_fib(cores);
        self.node_alloc.set_capacity(ncap);
        self.leaf_alloc.set_capacity(lcap);
    }

    /// Recompiles when more than half of an arena is free-listed (fragmentation).
    fn compact_if_sparse(&mut self, rib: &Rib<A>) -> Result<(), BuildError> {
        let sparse = |free: u64, live: u64| free > 4096 && free > live;
        let (nodes, leaves) = (&self.node_alloc, &self.leaf_alloc);
        if !sparse(nodes.free_slots(), nodes.live()) && !sparse(leaves.free_slots(), leaves.live())
        {
            return Ok(());
        }
        let fresh = Poptrie::compile(rib, &self.cfg)?;
        let isa = self.fib.isa;
        self.fib = fresh.fib;
        Arc::get_mut(&mut self.fib).expect("a fresh compile is not shared").isa = isa;
        self.node_alloc = fresh.node_alloc;
        self.leaf_alloc = fresh.leaf_alloc;
        self.reclaim.forget();
        self.scratch.counts.array_copies += 1;
        if self.reclaim.is_shared() {
            self.reserve_headroom();
        }
        Ok(())
    }
}

fn grown_capacity(cap: u32, max: u32) -> Result<u32, BuildError> {
    if cap >= max {
        return Err(limit("arena slots", max as u64, cap as usize + 1));
    }
    Ok((cap as u64 + cap as u64 / 2 + 4096).min(max as u64) as u32)
}

/// Why a prefix's patch stopped: nothing of it was published.
enum Stopped {
    /// The arrays must change first (the caller does, then retries the prefix).
    Retry(Retry),
    Failed(BuildError),
}

/// What a patch needs before it can be retried.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Retry {
    /// An arena is full: reclaim retired blocks or grow it.
    Full,
    /// A next hop does not fit the leaf width: widen the leaves.
    WidenLeaves,
    /// A next hop does not fit the narrow `dir`: make it wide.
    WidenDir,
    /// The root region of a narrow `dir` is full: reclaim retired roots or make `dir` wide.
    RootsFull,
}

/// A node on the way down, to be re-emitted on the way up: its index in the node arena (a
/// published record, which no patch writes, so it reads the same on the way up).
struct Step {
    at: u32,
    off: u32,
    start: u128,
    slot: usize,
}

/// Buffers kept between updates (no allocation on the common path).
pub(crate) struct Scratch<A> {
    /// Blocks allocated by this patch (freed again if it is abandoned).
    fresh: Vec<Block>,
    /// Blocks the current entry's rebuild unlinks (retired once it is published).
    unlinked: Vec<Block>,
    /// Blocks unlinked by entries already published.
    committed: Vec<Block>,
    segs: Vec<Seg<A>>,
    walk: SegScratch,
    path: Vec<Step>,
    /// What the published patches replaced ([`Poptrie::update_counts`]).
    pub(crate) counts: UpdateCounts,
}

impl<A> Default for Scratch<A> {
    fn default() -> Self {
        let (fresh, unlinked, committed) = (Vec::new(), Vec::new(), Vec::new());
        let (segs, walk, path) = (Vec::new(), SegScratch::default(), Vec::new());
        Scratch { fresh, unlinked, committed, segs, walk, path, counts: UpdateCounts::default() }
    }
}

/// The writer's state while patching one prefix into one [`Core`].
struct Patcher<'a, A: Key, L: Leaf, N: Record> {
    core: &'a Core<A, L, N>,
    nodes: &'a mut NodeAlloc,
    leaves: &'a mut BlockAlloc,
    rib: &'a Rib<A>,
    aggregate: bool,
    sc: &'a mut Scratch<A>,
    /// Set when the patch stops for a [`Retry`] (its error only unwinds the patch).
    retry: Option<Retry>,
}

impl<'a, A: Key, L: Leaf, N: Record> Patcher<'a, A, L, N> {
    fn new(
        core: &'a Core<A, L, N>,
        nodes: &'a mut NodeAlloc,
        leaves: &'a mut BlockAlloc,
        rib: &'a Rib<A>,
        aggregate: bool,
        sc: &'a mut Scratch<A>,
    ) -> Self {
        sc.fresh.clear();
        sc.unlinked.clear();
        sc.committed.clear();
        Patcher { core, nodes, leaves, rib, aggregate, sc, retry: None }
    }

    fn run(mut self, p: &Prefix<A>, retired: &mut Vec<Block>) -> Result<(), Stopped> {
        let s = self.core.s;
        let result = if p.len() <= s { self.patch_entries(p) } else { self.patch_path(p) };
        if result.is_ok() {
            self.sc.counts.patched(p.len() <= s);
        }
        retired.append(&mut self.sc.committed);
        result.map_err(|e| {
            for &b in &self.sc.fresh {
                b.free(self.nodes, self.leaves);
            }
            self.retry.map_or(Stopped::Failed(e), Stopped::Retry)
        })
    }

    /// The first address of direct-pointing entry `i`.
    fn entry_start(&self, i: usize) -> u128 {
        let width = A::BITS - self.core.s;
        if width >= 128 { 0 } else { (i as u128) << width }
    }

    /// Rebuilds every direct-pointing entry inside `p` (`p.len() <= s`) from one pass over
    /// the RIB segments of `p`, publishing each.
    fn patch_entries(&mut self, p: &Prefix<A>) -> Result<(), BuildError> {
        let mut segs = std::mem::take(&mut self.sc.segs);
        segs.clear();
        segments(self.rib, p, self.aggregate, &mut self.sc.walk, &mut segs);
        if let Err(e) = self.check_hops(&segs) {
            self.sc.segs = segs;
            return Err(e);
        }
        let first = p.addr().top(self.core.s);
        let end = first + (1usize << (self.core.s - p.len()));
        let width = A::BITS - self.core.s;
        let (mut i, mut j) = (first, 0);
        let mut result = Ok(());
        while i < end {
            let start = self.entry_start(i);
            let mine = slot_segs(&segs, &mut j, start, start + low_ones(width));
            if let [seg] = mine {
                // Every entry before the one holding the next segment's start lies in this
                // segment too: one leaf for the run, without a segment search per entry.
                let run = i..leaf_run_end(&segs, j, i, width, end);
                i = run.end;
                self.put_leaf_run(run, DIRECT_LEAF | seg.raw);
                continue;
            }
            result = self.replace_entry(i, |me| build_region(me.core.s, start, mine, me));
            if result.is_err() {
                break;
            }
            i += 1;
        }
        self.sc.segs = segs;
        result
    }

    /// Publishes the direct leaf `entry` (whose next hop `check_hops` accepted) at every
    /// entry of `run` that does not already hold it, retiring the subtrees it replaces.
    fn put_leaf_run(&mut self, run: std::ops::Range<usize>, entry: u32) {
        debug_assert!(self.core.dir.fits(entry), "checked by check_hops");
        debug_assert!(self.sc.fresh.is_empty(), "a leaf run makes no new blocks");
        let core = self.core;
        let written = core.dir.publish_leaf_run(run, entry, |old| {
            self.retire_subtree(&core.nodes.get(old));
            self.sc.unlinked.push(Block::Nodes(old, 1));
        });
        self.sc.counts.dir_entries += written;
        self.sc.committed.append(&mut self.sc.unlinked);
    }

    /// Replaces entry `i` with the slot `build` makes, retiring the old subtree.
    fn replace_entry(
        &mut self,
        i: usize,
        build: impl FnOnce(&mut Self) -> Result<Slot<N>, BuildError>,
    ) -> Result<(), BuildError> {
        let slot = build(self)?;
        let entry = direct_entry(slot, self)?;
        self.install(i, entry);
        Ok(())
    }

    /// Publishes `entry` at direct entry `i`, retiring the subtree it replaces.
    fn install(&mut self, i: usize, entry: u32) {
        let old = self.core.dir.entry_relaxed(i);
        if old & DIRECT_LEAF == 0 {
            self.retire_subtree(&self.core.nodes.get(old));
            self.sc.unlinked.push(Block::Nodes(old, 1));
        }
        self.publish(i, entry);
    }

    /// Rebuilds direct-pointing entry `i` from the RIB and publishes it.
    fn patch_entry(&mut self, i: usize) -> Result<(), BuildError> {
        let (s, start) = (self.core.s, self.entry_start(i));
        let region = Prefix::new(A::from_u128(start), s).expect("aligned entry region");
        self.replace_entry(i, |me| me.build_from_rib(s, &region))
    }

    /// Rebuilds the slots of the deepest node that `p` touches, re-emits its ancestors and
    /// publishes the entry.
    fn patch_path(&mut self, p: &Prefix<A>) -> Result<(), BuildError> {
        let i = p.addr().top(self.core.s);
        let root = self.core.dir.entry_relaxed(i);
        if root & DIRECT_LEAF != 0 {
            return self.patch_entry(i);
        }
        let deepest = self.descend(root, i, p);
        let mut slot = self.rebuild_touched(&deepest, p)?;
        while let Some(step) = self.sc.path.pop() {
            let node = self.core.nodes.get(step.at);
            let mut slots = self.old_slots(&node);
            slots[step.slot] = slot;
            self.retire_own_blocks(&node);
            slot = self.remake(&slots, step.off, step.start)?;
        }
        let entry = direct_entry(slot, self)?;
        self.sc.unlinked.push(Block::Nodes(root, 1));
        self.publish(i, entry);
        Ok(())
    }

    /// Walks from the entry's root node while `p` lies strictly inside an internal slot;
    /// leaves the nodes passed in `sc.path` and returns the node where `p` covers whole
    /// slots or meets a leaf.
    fn descend(&mut self, root: u32, i: usize, p: &Prefix<A>) -> Step {
        self.sc.path.clear();
        let mut cur = Step { at: root, off: self.core.s, start: self.entry_start(i), slot: 0 };
        loop {
            let real = STRIDE.min(A::BITS - cur.off);
            if p.len() <= cur.off + real {
                return cur;
            }
            let n = p.addr().chunk(cur.off);
            let node = self.core.nodes.get(cur.at);
            if node.vector() >> n & 1 == 0 {
                return cur;
            }
            let rank = (node.vector() & upto(n)).count_ones();
            let child = node.base1() + rank - 1;
            let start = cur.start + ((n as u128) << (A::BITS - cur.off - STRIDE));
            cur.slot = n as usize;
            let next = Step { at: child, off: cur.off + STRIDE, start, slot: 0 };
            self.sc.path.push(std::mem::replace(&mut cur, next));
        }
    }

    /// Rebuilds the slots of `at` that intersect `p` from the RIB (one pass over the
    /// segments of the region they tile), keeping the others.
    fn rebuild_touched(&mut self, at: &Step, p: &Prefix<A>) -> Result<Slot<N>, BuildError> {
        let real = STRIDE.min(A::BITS - at.off);
        let (pad, width) = (STRIDE - real, A::BITS - at.off - real);
        let first_r = ((p.addr().to_u128() - at.start) >> width) as usize;
        let count = 1usize << (at.off + real).saturating_sub(p.len());
        let touched = p.truncated(p.len().min(at.off + real));
        let node = self.core.nodes.get(at.at);
        let mut slots = self.old_slots(&node);
        let mut segs = std::mem::take(&mut self.sc.segs);
        segs.clear();
        segments(self.rib, &touched, self.aggregate, &mut self.sc.walk, &mut segs);
        let mut rebuild = |me: &mut Self| -> Result<(), BuildError> {
            me.check_hops(&segs)?;
            let mut j = 0;
            for r in first_r..first_r + count {
                let first = at.start + ((r as u128) << width);
                if let Slot::Child(old) = slots[r << pad] {
                    me.retire_subtree(&old);
                }
                let mine = slot_segs(&segs, &mut j, first, first + low_ones(width));
                let slot = build_region(at.off + STRIDE, first, mine, me)?;
                slots[r << pad..(r + 1) << pad].fill(slot);
            }
            Ok(())
        };
        let result = rebuild(self);
        self.sc.segs = segs;
        result?;
        self.retire_own_blocks(&node);
        self.remake(&slots, at.off, at.start)
    }

    /// Compiles `region` (whose slots start at bit `off`) from the RIB, as a fresh compile.
    fn build_from_rib(&mut self, off: u32, region: &Prefix<A>) -> Result<Slot<N>, BuildError> {
        let mut segs = std::mem::take(&mut self.sc.segs);
        segs.clear();
        segments(self.rib, region, self.aggregate, &mut self.sc.walk, &mut segs);
        let slot = match self.check_hops(&segs) {
            Ok(()) => build_region(off, region.addr().to_u128(), &segs, self),
            Err(e) => Err(e),
        };
        self.sc.segs = segs;
        slot
    }

    /// Fails on next hops beyond the direct-pointing limit, and stops (to widen the leaves
    /// and retry) on next hops too large for this leaf width.
    fn check_hops(&mut self, segs: &[Seg<A>]) -> Result<(), BuildError> {
        let max_raw = segs.iter().map(|s| s.raw).max().unwrap_or(0);
        if max_raw > MAX_DIRECT_RAW {
            return Err(hop_limit(max_raw));
        }
        if max_raw > L::MAX_RAW {
            return Err(self.stop_for(Retry::WidenLeaves));
        }
        if max_raw > self.core.dir.max_leaf_raw() {
            return Err(self.stop_for(Retry::WidenDir));
        }
        Ok(())
    }

    /// The node (or, when its answer is constant, the leaf) for `slots` at offset `off`.
    fn remake(
        &mut self,
        slots: &[Slot<N>; 64],
        off: u32,
        start: u128,
    ) -> Result<Slot<N>, BuildError> {
        if let Slot::Leaf(raw) = slots[0]
            && slots.iter().all(|s| *s == Slot::Leaf(raw))
        {
            if self.aggregate {
                return Ok(Slot::Leaf(raw));
            }
            // Without aggregation a node exists where a route lies strictly inside: let the
            // RIB decide (cheap: no route lies strictly inside any of its slots).
            let region = Prefix::new(A::from_u128(start), off).expect("aligned node");
            return self.build_from_rib(off, &region);
        }
        emit(slots, self).map(Slot::Child)
    }

    /// The 64 slots of a published node: leaves decoded from `leafvec` (or, in the basic
    /// layout, one per leaf slot), child records.
    fn old_slots(&self, node: &N) -> [Slot<N>; 64] {
        let mut slots = [Slot::Leaf(0); 64];
        let (mut child, mut leaf, mut raw) = (node.base1(), node.base0(), 0);
        let (vector, starts) = (node.vector(), node.leaf_starts());
        for (n, slot) in slots.iter_mut().enumerate() {
            if vector >> n & 1 != 0 {
                *slot = Slot::Child(self.core.nodes.get(child));
                child += 1;
                continue;
            }
            if starts >> n & 1 != 0 {
                raw = self.core.leaves.get(leaf).raw();
                leaf += 1;
            }
            *slot = Slot::Leaf(raw);
        }
        slots
    }

    /// Unlinks the children block and the leaf block of `node` (not its children's blocks).
    fn retire_own_blocks(&mut self, node: &N) {
        if node.children() > 0 {
            self.sc.unlinked.push(Block::Nodes(node.base1(), node.children()));
        }
        if node.leaf_count() > 0 {
            self.sc.unlinked.push(Block::Leaves(node.base0(), node.leaf_count()));
        }
    }

    /// Unlinks every block below `node`.
    fn retire_subtree(&mut self, node: &N) {
        for c in 0..node.children() {
            self.retire_subtree(&self.core.nodes.get(node.base1() + c));
        }
        self.retire_own_blocks(node);
    }

    /// Publishes entry `i`: its new blocks become reachable, its unlinked ones retirable.
    fn publish(&mut self, i: usize, entry: u32) {
        debug_assert!(self.core.dir.fits(entry), "checked by check_hops and put_root");
        self.core.dir.publish(i, entry);
        let sizes = (std::mem::size_of::<N>(), std::mem::size_of::<L>());
        self.sc.counts.published(&self.sc.fresh, sizes.0, sizes.1);
        self.sc.fresh.clear();
        self.sc.committed.append(&mut self.sc.unlinked);
    }

    /// Records why the patch stops and returns the error that unwinds it (never shown: the
    /// caller turns it into a retry).
    fn stop_for(&mut self, retry: Retry) -> BuildError {
        self.retry = Some(retry);
        limit("internal: retry after changing the arrays", 0, 0)
    }
}

impl<A: Key, L: Leaf, N: Record> Sink<L, N> for Patcher<'_, A, L, N> {
    fn put_nodes(&mut self, nodes: &[N]) -> Result<u32, BuildError> {
        let len = nodes.len() as u32;
        let Some(start) = self.nodes.alloc(len) else {
            return Err(self.stop_for(Retry::Full));
        };
        self.sc.fresh.push(Block::Nodes(start, len));
        for (k, n) in nodes.iter().enumerate() {
            // SAFETY: the block was just allocated: never handed out before, or retired past
            // its grace period, so no reader can reach it until a later publish.
            unsafe { self.core.nodes.set(start + k as u32, *n) };
        }
        Ok(start)
    }

    fn put_root(&mut self, node: N) -> Result<u32, BuildError> {
        let Some(at) = self.nodes.alloc_root() else {
            let why = if self.nodes.has_root_limit() { Retry::RootsFull } else { Retry::Full };
            return Err(self.stop_for(why));
        };
        self.sc.fresh.push(Block::Nodes(at, 1));
        // SAFETY: as in `put_nodes`: a freshly allocated slot no reader can reach.
        unsafe { self.core.nodes.set(at, node) };
        if let Some(f) = &self.core.fanout {
            // SAFETY: root slot `at` was free, so no reader reaches its block either; a
            // fan-out exists only with a narrow `dir`, whose roots lie below the root limit,
            // and the arena has 64 records for each slot of that region.
            unsafe { fanout::write(f, &self.core.nodes, at) };
        }
        Ok(at)
    }

    fn put_leaves(&mut self, leaves: &[L]) -> Result<u32, BuildError> {
        let len = leaves.len() as u32;
        let Some(start) = self.leaves.alloc(len) else {
            return Err(self.stop_for(Retry::Full));
        };
        self.sc.fresh.push(Block::Leaves(start, len));
        for (k, l) in leaves.iter().enumerate() {
            // SAFETY: as in `put_nodes`: a freshly allocated block no reader can reach.
            unsafe { self.core.leaves.set(start + k as u32, *l) };
        }
        Ok(start)
    }
}
