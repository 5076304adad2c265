//! The RIB as a partition of the address space into ranges with one answer each.
//!
//! Sweeping the routes in (address, length) order with a stack of enclosing routes yields, for
//! every maximal run of addresses with the same longest match, its first address and next hop.
//! This is an independent second form of the oracle: exhaustive verification walks these ranges
//! instead of calling `longest_match` 2^32 times, and range-based algorithms (DXR) build on it.

use super::Rib;
use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;

/// A run of addresses starting at `start` (up to the next range's start) and its answer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Range<A: Address> {
    /// First address of the run.
    pub start: A,
    /// The next hop for every address of the run (`None`: no route).
    pub hop: Option<NextHop>,
}

impl<A: Address> Rib<A> {
    /// The address space as consecutive ranges, first starting at address 0; adjacent ranges
    /// have different answers.
    pub fn ranges(&self) -> Vec<Range<A>> {
        let mut out: Vec<Range<A>> = Vec::with_capacity(self.len() * 2 + 1);
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
        push(A::ZERO, None);
        // Stack of enclosing routes; each pops when the sweep passes its last address.
        let mut stack: Vec<(Prefix<A>, NextHop)> = Vec::with_capacity(A::BITS as usize + 1);
        for (p, h) in self.iter() {
            close_until(&mut stack, Some(p.addr()), &mut push);
            push(p.addr(), Some(h));
            stack.push((p, h));
        }
        close_until(&mut stack, None, &mut push);
        out
    }
}

/// Pops the routes that end before `next` (all of them when `None`), emitting the range that
/// resumes after each one.
fn close_until<A: Address>(
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
        if end == A::from_u128(u128::MAX) {
            continue; // nothing after the top of the address space
        }
        let resume = A::from_u128(end.to_u128() + 1);
        push(resume, stack.last().map(|&(_, h)| h));
    }
}
