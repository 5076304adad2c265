//! SAIL_L incremental updates (Yang et al. 2014, §4.3 and §5: an update rewrites the pushed
//! copies of the changed route, and creates or frees the chunks whose slots gain or lose
//! longer routes).
//!
//! A changed route `p` of length `l` is pushed to the first level `L >= l` (16, 24, 32, ...).
//! The walk starts at `top` and visits only slots that `p` touches:
//! - a slot strictly containing `p` keeps its own answer; it becomes (or stays) a chunk
//!   exactly when a longer route lies inside it, and the walk descends only into the children
//!   of its chunk that `p` touches (one, or the `2^(L - l)` ones `p` covers one level above
//!   `L`);
//! - a slot inside `p` is left alone when a route longer than `p` (and not longer than the
//!   slot) covers it: `p` answers none of its addresses, before or after the change. Otherwise
//!   its word is rewritten, and if it is a chunk, the chunk's words are recomputed and the walk
//!   goes on into its deeper children by the same rule.
//!
//! A slot that gains its first longer route gets a new chunk (a free one if any), built from
//! the RIB; a chunk whose slot no longer holds a longer route is **freed**: zeroed, its id
//! put on its level's free list (its children's chunks too), reused by the next allocation.
//! So the structure answers exactly as a fresh compile, and the chunk *shape* (which slots are
//! chunks, and every word by content) is a fresh compile's; only chunk ids differ.
//!
//! The cost is bounded by the slots of `p` not shadowed by longer routes: one word and one
//! chunk path for a /25–/32 route, 2^(24 − l) words plus their chunks for a /17–/24, and up to
//! the whole table for a short route (the paper's "unbounded" SAIL_L update).
//!
//! An update that needs a chunk id or a next hop that 16-bit words cannot hold returns
//! [`Overflow`]; [`super::SailL`] then rebuilds itself in 32-bit words (as SAIL_B and SAIL_U
//! do), whatever the configured width.

use super::dispatch;
use super::entry::{Entry, HOPS, Overflow, alloc_chunk};
use super::push;
use super::sail_l::{Core, NAME, STRIDE, SailL, TOP, Tables, check_lengths, child, max_len};
use crate::addr::Address;
use crate::fib::{BuildError, Incremental};
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::ops::Range;

/// The indices of the `stride`-bit sub-slots of a region of length `base` that `p` touches
/// (`p` lies in or covers the region).
fn touched<A: Address>(p: &Prefix<A>, base: u32, stride: u32) -> Range<usize> {
    if p.len() <= base {
        return 0..1 << stride;
    }
    let first = p.addr().bits(base, stride) as usize;
    first..first + (1 << (base + stride).saturating_sub(p.len()))
}

impl<A: Address, E: Entry> Core<A, E> {
    /// Brings the words up to date after the routes `changed` changed in `rib` (already
    /// applied; every route of `rib` at most [`super::max_len`] long). On [`Overflow`] the
    /// words are left half-updated: the caller rebuilds.
    pub(super) fn apply(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), Overflow> {
        let max_hop = push::max_changed_hop(rib, changed);
        if max_hop > E::MAX_PAYLOAD {
            return Err(Overflow { what: HOPS, found: max_hop as u64 });
        }
        for p in changed {
            for i in touched(p, 0, TOP) {
                let slot = child(&Prefix::DEFAULT_ROUTE, TOP, i);
                self.top[i] = self.update_slot(rib, slot, 0, self.top[i], p)?;
            }
        }
        Ok(())
    }

    /// The new word of `slot` (its chunk, if any, in `levels[depth]`), whose word was `old`,
    /// after `p` changed.
    fn update_slot(
        &mut self,
        rib: &Rib<A>,
        slot: Prefix<A>,
        depth: usize,
        old: E,
        p: &Prefix<A>,
    ) -> Result<E, Overflow> {
        let covers = p.len() <= slot.len();
        if covers && rib.covering(&slot).any(|(r, _)| r.len() > p.len()) {
            return Ok(old); // shadowed: `p` answers nothing here
        }
        if depth == self.levels.len() || !push::has_deeper(rib, &slot) {
            self.release(old, depth);
            return Ok(E::hop(push::inherited(rib, &slot)));
        }
        if !old.is_chunk() {
            return self.build_slot(rib, slot, depth, push::inherited(rib, &slot));
        }
        let id = old.payload() as usize;
        if covers {
            let exp = push::expand(rib, slot, STRIDE, push::inherited(rib, &slot));
            for (j, (&hop, &deeper)) in exp.hops.iter().zip(&exp.deeper).enumerate() {
                let old_child = self.levels[depth][id << STRIDE | j];
                let word = if deeper {
                    self.update_slot(rib, child(&slot, STRIDE, j), depth + 1, old_child, p)?
                } else {
                    self.release(old_child, depth + 1);
                    E::hop(hop)
                };
                self.levels[depth][id << STRIDE | j] = word;
            }
        } else {
            for j in touched(p, slot.len(), STRIDE) {
                let old_child = self.levels[depth][id << STRIDE | j];
                let c = child(&slot, STRIDE, j);
                self.levels[depth][id << STRIDE | j] =
                    self.update_slot(rib, c, depth + 1, old_child, p)?;
            }
        }
        Ok(old)
    }

    /// The word of `slot` (answer `answer`) built from the RIB, with new chunks below it.
    fn build_slot(
        &mut self,
        rib: &Rib<A>,
        slot: Prefix<A>,
        depth: usize,
        answer: Option<crate::nexthop::NextHop>,
    ) -> Result<E, Overflow> {
        if depth == self.levels.len() || !push::has_deeper(rib, &slot) {
            return Ok(E::hop(answer));
        }
        let id = self.alloc(depth)?;
        let exp = push::expand(rib, slot, STRIDE, answer);
        for (j, (&hop, &deeper)) in exp.hops.iter().zip(&exp.deeper).enumerate() {
            let word = match deeper {
                true => self.build_slot(rib, child(&slot, STRIDE, j), depth + 1, hop)?,
                false => E::hop(hop),
            };
            self.levels[depth][(id as usize) << STRIDE | j] = word;
        }
        Ok(E::chunk(id))
    }

    /// A zeroed chunk at `levels[depth]`: a freed one, or a new one at the end.
    fn alloc(&mut self, depth: usize) -> Result<u32, Overflow> {
        alloc_chunk(&mut self.free[depth], &mut self.levels[depth], STRIDE)
    }

    /// Frees the chunk `word` names at `levels[depth]` (if it names one) and those below it.
    fn release(&mut self, word: E, depth: usize) {
        if !word.is_chunk() {
            return;
        }
        let id = word.payload() as usize;
        for j in 0..1usize << STRIDE {
            let below = self.levels[depth][id << STRIDE | j];
            self.release(below, depth + 1);
        }
        self.levels[depth][id << STRIDE..][..1 << STRIDE].fill(E::default());
        self.free[depth].push(id as u32);
    }

    /// True when `self` and `other` hold the same words, chunks compared by content (their
    /// ids depend on the order of allocation).
    #[cfg(test)]
    pub(super) fn same_shape(&self, other: &Self) -> bool {
        self.top.iter().zip(&other.top).all(|(&a, &b)| self.same_word(a, other, b, 0))
    }

    #[cfg(test)]
    fn same_word(&self, a: E, other: &Self, b: E, depth: usize) -> bool {
        if !(a.is_chunk() && b.is_chunk()) {
            return a == b;
        }
        let chunk = |c: &Self, w: E| {
            c.levels[depth][(w.payload() as usize) << STRIDE..][..1 << STRIDE].to_vec()
        };
        let (ca, cb) = (chunk(self, a), chunk(other, b));
        ca.into_iter().zip(cb).all(|(x, y)| self.same_word(x, other, y, depth + 1))
    }
}

impl<A: Address> Incremental<A> for SailL<A> {
    /// Rewrites the words of the changed routes' slots and the chunks below them in place
    /// (path `"in place"`); when 16-bit words overflow, rebuilds in 32-bit words (path
    /// `"rebuild"`). A changed route longer than [`super::max_len`] is refused as by compile.
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        if let Some(p) = changed.iter().find(|p| p.len() > max_len::<A>() && rib.get(p).is_some()) {
            let one: Rib<A> = rib.get(p).map(|h| (*p, h)).into_iter().collect();
            return check_lengths(&one);
        }
        let done = dispatch!(&mut self.tables, t => t.apply(rib, changed));
        self.last_path = "in place";
        if let Err(overflow) = done {
            if let Tables::Wide(_) = self.tables {
                return Err(overflow.into_error::<u32>(NAME));
            }
            let wide = Core::build(rib).map_err(|o| o.into_error::<u32>(NAME))?;
            self.tables = Tables::Wide(wide);
            self.last_path = "rebuild";
        }
        Ok(())
    }

    fn last_update_path(&self) -> Option<&'static str> {
        Some(self.last_path)
    }
}

#[cfg(test)]
impl<A: Address> SailL<A> {
    /// True when both have the same width and the same words, chunks by content.
    pub(crate) fn same_shape(&self, other: &Self) -> bool {
        match (&self.tables, &other.tables) {
            (Tables::Narrow(a), Tables::Narrow(b)) => a.same_shape(b),
            (Tables::Wide(a), Tables::Wide(b)) => a.same_shape(b),
            _ => false,
        }
    }
}
