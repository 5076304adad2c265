//! `radix`: the RIB's own binary radix (Patricia) tree used as a lookup structure.
//!
//! This is the baseline of the papers' comparisons (the "Radix" row of Poptrie's Table 3) and
//! the oracle itself: a lookup walks the path-compressed tree from the root, remembering the
//! last node with a next hop. It has no structural limits; memory is the RIB arena.

use crate::addr::Address;
use crate::fib::{BuildError, Compile, Incremental, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// A copy of the RIB answering lookups.
#[derive(Clone, Debug)]
pub struct Radix<A: Address> {
    rib: Rib<A>,
}

impl<A: Address> Lookup<A> for Radix<A> {
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        self.rib.lookup(addr)
    }
    fn memory_bytes(&self) -> usize {
        self.rib.memory_bytes()
    }
}

impl<A: Address> Compile<A> for Radix<A> {
    type Config = ();
    fn compile(rib: &Rib<A>, _: &()) -> Result<Self, BuildError> {
        let mut copy = Rib::with_capacity(rib.len());
        for (p, h) in rib.iter() {
            copy.insert(p, h);
        }
        let end = copy.change_mark();
        copy.trim_changes(end);
        Ok(Radix { rib: copy })
    }
}

impl<A: Address> Incremental<A> for Radix<A> {
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        for p in changed {
            match rib.get(p) {
                Some(h) => self.rib.insert(*p, h),
                None => self.rib.remove(p),
            };
        }
        let end = self.rib.change_mark();
        self.rib.trim_changes(end);
        Ok(())
    }
}
