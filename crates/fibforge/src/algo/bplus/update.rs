//! Updates: repaint the intervals a changed prefix touches, in place or through a new side
//! table; rebuild when side slots run out (see the module doc of `bplus`).

use super::key::Key;
use super::side::Side;
use super::view::Fib;
use super::{BPlus, Compile};
use crate::fib::BuildError;
use crate::prefix::Prefix;
use crate::rib::{Range, Rib};
use std::sync::Arc;

/// The repaint needs a rebuild (no side slot left, or a word that does not fit).
pub(super) struct NeedRebuild;

/// How a repaint changed the view.
pub(super) enum Repaint {
    /// The interval words were rewritten (no boundary moved).
    InPlace,
    /// A side table now answers the intervals touched.
    SideTable,
}

impl<A: Key> BPlus<A> {
    /// Makes the intervals under `prefix` answer like `rib`.
    pub(super) fn repaint(
        &mut self,
        rib: &Rib<A>,
        prefix: &Prefix<A>,
    ) -> Result<Repaint, NeedRebuild> {
        let view = &*self.view;
        let (lo, hi) = self.span_of(view, prefix);
        let ranges = rib.ranges_between(view.first_addr(lo), view.last_addr(hi));
        let retired = self.slots_in(view, lo, hi);
        let how = if let Some(words) = in_place_words(view, lo, hi, &ranges) {
            for (k, w) in words.into_iter().enumerate() {
                view.set_word(lo + k, w);
            }
            Repaint::InPlace
        } else {
            let slot = self.next_slot;
            let too_big = self.side_ranges + ranges.len() > (1 << 16).max(view.intervals());
            if slot >= view.sides.capacity() || too_big {
                return Err(NeedRebuild);
            }
            view.sides.publish(slot, Side::new(&ranges));
            let word = view.hops.tag() | slot as u32;
            for pos in lo..=hi {
                view.set_word(pos, word);
            }
            self.spans[slot] = Some((lo, hi));
            self.next_slot += 1;
            self.side_ranges += ranges.len();
            Repaint::SideTable
        };
        for slot in retired {
            self.spans[slot] = None;
            self.retire(slot);
        }
        Ok(how)
    }

    /// The positions under `prefix`, widened until every side table met lies inside.
    fn span_of(&self, view: &Fib<A>, prefix: &Prefix<A>) -> (usize, usize) {
        let mut span = (view.position(prefix.addr().top()), view.position(prefix.last().top()));
        loop {
            let wider = self.slots_in(view, span.0, span.1).into_iter().fold(span, |s, slot| {
                let (a, b) = self.spans[slot].expect("a tagged interval's slot is in use");
                (s.0.min(a), s.1.max(b))
            });
            if wider == span {
                return span;
            }
            span = wider;
        }
    }

    /// The side slots named by the words of positions `lo..=hi`, each once.
    fn slots_in(&self, view: &Fib<A>, lo: usize, hi: usize) -> Vec<usize> {
        let tag = view.hops.tag();
        let mut slots: Vec<usize> = (lo..=hi)
            .map(|pos| view.hops.get(pos))
            .filter(|w| w & tag != 0)
            .map(|w| (w & !tag) as usize)
            .collect();
        slots.dedup();
        slots
    }

    /// Frees the side in `slot` once no reader can hold its tag.
    fn retire(&mut self, slot: usize) {
        match &self.grace {
            // The words naming `slot` were rewritten before this ticket was taken.
            Some(grace) => self.retired.push_back((grace.retire(), Arc::clone(&self.view), slot)),
            // SAFETY: no reader shares the view (`defer_reclamation` was not called), and no
            // word names `slot` any more.
            None => unsafe { self.view.sides.free(slot) },
        }
    }

    /// Frees the retired sides whose grace period has passed (oldest first).
    pub(super) fn free_retired(&mut self) {
        let Some(grace) = &self.grace else { return };
        let passed = grace.passed();
        while let Some(&(ticket, _, _)) = self.retired.front() {
            if ticket > passed {
                return;
            }
            let (_, view, slot) = self.retired.pop_front().expect("front exists");
            // SAFETY: no word of `view` names `slot` since before `ticket` was taken, and every
            // reader online then has reported a quiescent state since: none can hold the tag.
            unsafe { view.sides.free(slot) };
        }
    }

    /// Compiles `rib` afresh; readers move to the new view when `sync::Table` publishes it.
    pub(super) fn rebuild(&mut self, rib: &Rib<A>) -> Result<(), BuildError> {
        let fresh = BPlus::compile(rib, &self.cfg)?;
        self.view = fresh.view;
        self.spans = fresh.spans;
        self.next_slot = fresh.next_slot;
        self.side_ranges = 0;
        self.rebuilds += 1;
        Ok(())
    }
}

/// The words of positions `lo..=hi` when `ranges` start exactly at those intervals and every
/// answer fits a word; `None` when boundaries moved.
fn in_place_words<A: Key>(
    view: &Fib<A>,
    lo: usize,
    hi: usize,
    ranges: &[Range<A>],
) -> Option<Vec<u32>> {
    if ranges.len() != hi - lo + 1 {
        return None;
    }
    let tag = view.hops.tag();
    ranges
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let raw = r.hop.map_or(0, |h| h.raw());
            (r.start == view.first_addr(lo + k) && raw < tag).then_some(raw)
        })
        .collect()
}
