//! The RIB as a partition of the address space into ranges with one answer each.
//!
//! Sweeping the routes in (address, length) order with a stack of enclosing routes yields, for
//! every maximal run of addresses with the same longest match, its first address and next hop.
//! This is an independent second form of the oracle: exhaustive verification walks these ranges
//! instead of calling `longest_match` 2^32 times, and range-based algorithms (DXR) build on it.

use super::query::Iter;
use super::{NIL, NodeId, Rib};
use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;

/// A run of addresses starting at `start` (up to the next range's start) and its answer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct Range<A: Address> {
    /// First address of the run.
    pub start: A,
    /// The next hop for every address of the run (`None`: no route).
    pub hop: Option<NextHop>,
}

impl<A: Address> Rib<A> {
    /// The address space as consecutive ranges, first starting at address 0; adjacent ranges
    /// have different answers.
    #[doc(hidden)]
    pub fn ranges(&self) -> Vec<Range<A>> {
        self.ranges_within(&Prefix::DEFAULT_ROUTE)
    }

    /// The addresses of `region` as consecutive ranges, the first starting at
    /// `region.addr()` and the last running to `region.last()`; adjacent ranges have different
    /// answers. Routes covering `region` from outside count, so every range's answer is what
    /// `lookup` returns for each of its addresses. Incremental builders use it to repaint the
    /// part of their structure a changed route touches.
    #[doc(hidden)]
    pub fn ranges_within(&self, region: &Prefix<A>) -> Vec<Range<A>> {
        let (outer, root) = self.region_root(region);
        self.sweep(region, outer, root)
    }

    /// [`Rib::ranges_within`] after its descent: `outer` is the answer of the longest route
    /// strictly covering `region`, `root` the subtree of the routes inside it.
    fn sweep(&self, region: &Prefix<A>, outer: Option<NextHop>, root: NodeId) -> Vec<Range<A>> {
        let whole = region.len() == 0;
        let mut out: Vec<Range<A>> = Vec::with_capacity(if whole { self.len() * 2 + 1 } else { 4 });
        let mut push = |start: A, hop: Option<NextHop>| match out.last_mut() {
            Some(last) if last.start == start => {
                last.hop = hop;
                if out.len() >= 2 && out[out.len() - 2].hop == hop {
                    out.pop();
                }
            }
            Some(last) if last.hop == hop => {}
            _ => out.push(Range { start, hop }),
        };
        push(region.addr(), outer);
        // Stack of enclosing routes; each pops when the sweep passes its last address.
        let mut stack: Vec<(Prefix<A>, NextHop)> = Vec::with_capacity(A::BITS as usize + 1);
        let sweep = Sweep { outer, end: region.last() };
        for (p, h) in Iter::from_root(self, root) {
            sweep.close_until(&mut stack, Some(p.addr()), &mut push);
            push(p.addr(), Some(h));
            stack.push((p, h));
        }
        sweep.close_until(&mut stack, None, &mut push);
        out
    }
}

impl<A: Address> Rib<A> {
    /// The addresses `first..=last` as consecutive ranges, the first starting at `first`;
    /// adjacent ranges have different answers. The span is cut into aligned prefixes
    /// (at most two per length), each found by one descent and swept as in
    /// [`Rib::ranges_within`]; a region holding no route, the common case in a span, is one
    /// range of its covering route's answer, without a sweep or an allocation.
    #[doc(hidden)]
    pub fn ranges_between(&self, first: A, last: A) -> Vec<Range<A>> {
        assert!(first <= last, "ranges_between: {first:?} > {last:?}");
        let mut out: Vec<Range<A>> = Vec::new();
        let mut push = |r: Range<A>| {
            if out.last().is_none_or(|l| l.hop != r.hop) {
                out.push(r);
            }
        };
        for region in aligned_prefixes(first, last) {
            match self.region_root(&region) {
                (outer, NIL) => push(Range { start: region.addr(), hop: outer }),
                (outer, root) => self.sweep(&region, outer, root).into_iter().for_each(&mut push),
            }
        }
        out
    }
}

/// The fewest prefixes covering exactly `first..=last`, in address order.
fn aligned_prefixes<A: Address>(first: A, last: A) -> Vec<Prefix<A>> {
    let (mut at, end) = (first.to_u128(), last.to_u128());
    let mut out = Vec::new();
    loop {
        // The largest block starting at `at` that is aligned and ends by `end`.
        let mut host_bits = if at == 0 { A::BITS } else { at.trailing_zeros().min(A::BITS) };
        while host_bits > 0 && at + (u128::MAX >> (128 - host_bits)) > end {
            host_bits -= 1;
        }
        out.push(Prefix::from_parts_unchecked(A::from_u128(at), A::BITS - host_bits));
        let block_last = at + if host_bits == 0 { 0 } else { u128::MAX >> (128 - host_bits) };
        if block_last >= end {
            return out;
        }
        at = block_last + 1;
    }
}

/// The bounds of a sweep: the answer outside every route of the region, and its last address.
struct Sweep<A: Address> {
    outer: Option<NextHop>,
    end: A,
}

impl<A: Address> Sweep<A> {
    /// Pops the routes that end before `next` (all of them when `None`), emitting the range
    /// that resumes after each one.
    fn close_until(
        &self,
        stack: &mut Vec<(Prefix<A>, NextHop)>,
        next: Option<A>,
        push: &mut impl FnMut(A, Option<NextHop>),
    ) {
        while let Some(&(top, _)) = stack.last() {
            if next.is_some_and(|n| top.contains(n)) {
                return;
            }
            stack.pop();
            let end = top.last();
            if end == self.end {
                continue; // nothing after the end of the region
            }
            let resume = A::from_u128(end.to_u128() + 1);
            push(resume, stack.last().map(|&(_, h)| h).or(self.outer));
        }
    }
}
