//! SAIL_M route updates in place: the slots one route of one table covers, and nothing else.
//!
//! A change of route `p` in table `v` (already applied to `v`'s RIB) walks the merged levels
//! from `top` through the slots `p` touches, as SAIL_L's update does (`sail_l_update.rs`),
//! with the merged trie's rule for chunks and the composites in place of next hops:
//! - a slot that `p` covers keeps its kind (chunk or leaf: `p` is not longer than the slot, so
//!   no table gains or loses a route inside it). It is left alone when a route of table `v`
//!   longer than `p` covers it (`p` answers none of its addresses, before or after). A leaf
//!   gets the composite of its old one with column `v` replaced by `v`'s new answer; a chunk
//!   is rewritten child by child the same way (leaves from `v`'s expansion of the slot,
//!   chunks recursively);
//! - a slot strictly containing `p` is a chunk exactly when some table has a longer route
//!   inside it: a leaf that must become a chunk gets a new one built from every table's RIB
//!   (answers from its old composite); a chunk that no longer must is freed and replaced by
//!   the leaf of every table's answer; a chunk that stays is walked into the children `p`
//!   touches only.
//!
//! Composites are reference counted ([`Book`]): every leaf word holds one reference, a freed
//! composite's id is reused by the next new one, so the composite table does not grow with
//! the number of updates. Freed chunks are kept on their level's free list and reused.
//!
//! After each update the structure answers every lookup exactly as a fresh build, and which
//! slots are chunks is a fresh build's; chunk and composite ids (and so the words' bits)
//! depend on the order of allocation. A new chunk id or composite id that the word width
//! cannot hold is an [`Overflow`]: the writer then rebuilds (`writer.rs`).

use super::Core;
use super::build::{STRIDE, TOP, child, leaf};
use crate::addr::Address;
use crate::algo::sail::entry::{Entry, Overflow, alloc_chunk};
use crate::algo::sail::push;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::collections::HashMap;
use std::ops::Range;

/// The writer's bookkeeping beside the lookup arrays: the composite index with reference
/// counts, and the free chunk ids of every level.
#[derive(Clone, Debug, Default)]
pub(super) struct Book {
    /// Live composites (one raw next hop per table) and their ids.
    index: HashMap<Box<[u32]>, u32>,
    /// Leaf words naming each composite id (0: free).
    refs: Vec<u32>,
    /// Composite ids with no reference, reused first.
    free: Vec<u32>,
    /// Free chunk ids per level (level 24 first), zeroed.
    free_chunks: Vec<Vec<u32>>,
}

impl Book {
    /// The book of a freshly built structure: every composite it holds, counted over the
    /// leaf words reachable from `top`.
    pub(super) fn of<E: Entry>(core: &Core<E>) -> Book {
        // With no tables every leaf names the one empty composite.
        let n = core.vrfs;
        let count = core.hops.len().checked_div(n).unwrap_or(usize::from(!core.top.is_empty()));
        let mut book = Book {
            index: HashMap::with_capacity(count),
            refs: vec![0; count],
            free: Vec::new(),
            free_chunks: vec![Vec::new(); core.levels.len()],
        };
        for id in 0..count {
            book.index.insert(core.hops[id * n..][..n].into(), id as u32);
        }
        for &w in &core.top {
            book.count(core, w, 0);
        }
        book
    }

    fn count<E: Entry>(&mut self, core: &Core<E>, w: E, depth: usize) {
        if !w.is_chunk() {
            self.refs[w.payload() as usize] += 1;
            return;
        }
        let at = (w.payload() as usize) << STRIDE;
        for j in 0..1 << STRIDE {
            self.count(core, core.levels[depth][at + j], depth + 1);
        }
    }

    /// Live composites.
    pub(super) fn live(&self) -> usize {
        self.index.len()
    }
}

/// The indices of the `stride`-bit sub-slots of a region of length `base` that `p` touches
/// (`p` lies in or covers the region).
fn touched<A: Address>(p: &Prefix<A>, base: u32, stride: u32) -> Range<usize> {
    if p.len() <= base {
        return 0..1 << stride;
    }
    let first = p.addr().bits(base, stride) as usize;
    first..first + (1 << (base + stride).saturating_sub(p.len()))
}

fn raw(h: Option<NextHop>) -> u32 {
    h.map_or(0, NextHop::raw)
}

impl<E: Entry> Core<E> {
    /// Brings the words up to date after route `p` of table `v` changed in `ribs[v]`. On
    /// [`Overflow`] the words are left half-updated: the caller rebuilds.
    pub(super) fn apply<A: Address>(
        &mut self,
        book: &mut Book,
        ribs: &[Rib<A>],
        v: usize,
        p: &Prefix<A>,
    ) -> Result<(), Overflow> {
        let mut up = Update { core: self, book, ribs, v, p };
        for i in touched(p, 0, TOP) {
            let slot = child(&Prefix::DEFAULT_ROUTE, TOP, i);
            let old = up.core.top[i];
            up.core.top[i] = up.slot(slot, 0, old)?;
        }
        Ok(())
    }

    /// The composite row of `id`.
    fn row(&self, id: u32) -> &[u32] {
        &self.hops[id as usize * self.vrfs..][..self.vrfs]
    }
}

/// One route change being applied.
struct Update<'a, A: Address, E> {
    core: &'a mut Core<E>,
    book: &'a mut Book,
    ribs: &'a [Rib<A>],
    v: usize,
    p: &'a Prefix<A>,
}

impl<A: Address, E: Entry> Update<'_, A, E> {
    /// The new word of `slot` (its chunk, if any, at `levels[depth]`), whose word was `old`.
    fn slot(&mut self, slot: Prefix<A>, depth: usize, old: E) -> Result<E, Overflow> {
        let ribs = self.ribs;
        let rib = &ribs[self.v];
        let covers = self.p.len() <= slot.len();
        if covers && rib.covering(&slot).any(|(r, _)| r.len() > self.p.len()) {
            return Ok(old); // shadowed: `p` answers nothing here
        }
        let chunk =
            if covers { old.is_chunk() } else { ribs.iter().any(|r| push::has_deeper(r, &slot)) };
        match (old.is_chunk(), chunk) {
            (false, false) => self.relabel(old, push::inherited(rib, &slot)),
            (true, false) => {
                let row: Vec<u32> = ribs.iter().map(|r| raw(push::inherited(r, &slot))).collect();
                let new = leaf(self.intern(&row)?);
                self.release(old, depth);
                Ok(new)
            }
            (false, true) => {
                let mut answers: Vec<Option<NextHop>> =
                    self.core.row(old.payload()).iter().map(|&h| NextHop::from_raw(h)).collect();
                answers[self.v] = push::inherited(rib, &slot);
                let new = self.build(slot, depth, &answers)?;
                self.release(old, depth);
                Ok(new)
            }
            (true, true) => {
                self.descend(slot, depth, old.payload() as usize, covers)?;
                Ok(old)
            }
        }
    }

    /// Rewrites the children of chunk `id` (slot `slot`) that `p` touches.
    fn descend(
        &mut self,
        slot: Prefix<A>,
        depth: usize,
        id: usize,
        covers: bool,
    ) -> Result<(), Overflow> {
        let at = id << STRIDE;
        if !covers {
            for j in touched(self.p, slot.len(), STRIDE) {
                let old = self.core.levels[depth][at + j];
                self.core.levels[depth][at + j] =
                    self.slot(child(&slot, STRIDE, j), depth + 1, old)?;
            }
            return Ok(());
        }
        let rib = &self.ribs[self.v];
        let exp = push::expand(rib, slot, STRIDE, push::inherited(rib, &slot));
        for (j, &hop) in exp.hops.iter().enumerate() {
            let old = self.core.levels[depth][at + j];
            self.core.levels[depth][at + j] = if old.is_chunk() {
                self.slot(child(&slot, STRIDE, j), depth + 1, old)?
            } else {
                self.relabel(old, hop)?
            };
        }
        Ok(())
    }

    /// The leaf word of leaf `old`'s composite with column `v` set to `hop`.
    fn relabel(&mut self, old: E, hop: Option<NextHop>) -> Result<E, Overflow> {
        let row = self.core.row(old.payload());
        if row[self.v] == raw(hop) {
            return Ok(old);
        }
        let mut row = row.to_vec();
        row[self.v] = raw(hop);
        let new = leaf(self.intern(&row)?);
        self.release(old, 0);
        Ok(new)
    }

    /// The chunk word of `slot` built from every table's RIB (`answers`: each table's answer
    /// for the whole slot), with new chunks below it.
    fn build(
        &mut self,
        slot: Prefix<A>,
        depth: usize,
        answers: &[Option<NextHop>],
    ) -> Result<E, Overflow> {
        let id = self.alloc(depth)?;
        let exps: Vec<push::Expansion> =
            self.ribs.iter().zip(answers).map(|(r, &a)| push::expand(r, slot, STRIDE, a)).collect();
        let mut row = vec![0u32; self.ribs.len()];
        for j in 0..1usize << STRIDE {
            let word = if exps.iter().any(|e| e.deeper[j]) {
                let below: Vec<Option<NextHop>> = exps.iter().map(|e| e.hops[j]).collect();
                self.build(child(&slot, STRIDE, j), depth + 1, &below)?
            } else {
                for (r, e) in row.iter_mut().zip(&exps) {
                    *r = raw(e.hops[j]);
                }
                leaf(self.intern(&row)?)
            };
            self.core.levels[depth][(id as usize) << STRIDE | j] = word;
        }
        Ok(E::chunk(id))
    }

    /// A zeroed chunk at `levels[depth]`: a freed one, or a new one at the end.
    fn alloc(&mut self, depth: usize) -> Result<u32, Overflow> {
        alloc_chunk(&mut self.book.free_chunks[depth], &mut self.core.levels[depth], STRIDE)
    }

    /// Drops the reference `word` holds: a leaf's composite, or every leaf below a chunk at
    /// `levels[depth]` (the chunks freed and zeroed).
    fn release(&mut self, word: E, depth: usize) {
        if !word.is_chunk() {
            let id = word.payload();
            let refs = &mut self.book.refs[id as usize];
            *refs -= 1;
            if *refs == 0 {
                self.book.index.remove(self.core.row(id));
                self.book.free.push(id);
            }
            return;
        }
        let id = word.payload() as usize;
        for j in 0..1usize << STRIDE {
            let below = self.core.levels[depth][id << STRIDE | j];
            self.release(below, depth + 1);
        }
        self.core.levels[depth][id << STRIDE..][..1 << STRIDE].fill(E::default());
        self.book.free_chunks[depth].push(id as u32);
    }

    /// The id of composite `row` with one more reference (a free id, or a new one).
    fn intern(&mut self, row: &[u32]) -> Result<u32, Overflow> {
        if let Some(&id) = self.book.index.get(row) {
            self.book.refs[id as usize] += 1;
            return Ok(id);
        }
        let id = match self.book.free.pop() {
            Some(id) => {
                let n = self.core.vrfs;
                self.core.hops[id as usize * n..][..n].copy_from_slice(row);
                id
            }
            None => {
                let id = self.book.refs.len() as u32;
                if id > E::MAX_PAYLOAD {
                    return Err(Overflow { what: super::build::COMPOSITES, found: id as u64 + 1 });
                }
                self.core.hops.extend_from_slice(row);
                self.book.refs.push(0);
                id
            }
        };
        self.book.refs[id as usize] = 1;
        self.book.index.insert(row.into(), id);
        Ok(id)
    }
}

#[cfg(test)]
impl Book {
    /// True when the reference counts and the index are those a fresh count of `core` gives
    /// (free ids excepted).
    pub(super) fn consistent<E: Entry>(&self, core: &Core<E>) -> bool {
        let mut fresh = Book { refs: vec![0; self.refs.len()], ..Book::default() };
        for &w in &core.top {
            fresh.count(core, w, 0);
        }
        let indexed = self.index.iter().all(|(row, &id)| core.row(id) == &**row);
        let live = self.refs.iter().filter(|&&r| r > 0).count();
        fresh.refs == self.refs && indexed && live == self.index.len()
    }

    /// Free chunks per level.
    pub(super) fn free_chunks(&self) -> Vec<usize> {
        self.free_chunks.iter().map(Vec::len).collect()
    }
}
