//! [`LeftRight`]: makes any [`Incremental`] structure [`Concurrent`] by keeping two copies,
//! so that readers keep looking up in one while the writer updates the other (the left-right
//! technique, with the table's QSBR grace periods in place of per-reader counters).
//!
//! # Layout
//!
//! - `current: Arc<F>`: the published copy, up to date; readers walk it.
//! - `spare: Arc<F>`: the copy published before, behind by the prefixes in `behind` (the
//!   changes of the last update).
//!
//! An update brings the spare up to date (`behind` plus the new changes, one
//! [`Incremental::apply_changes`] call against the current RIB), then swaps the two: the
//! table publishes the new current copy and retires the old one. The old one becomes the
//! spare, written again at the next update.
//!
//! # Invariants
//!
//! - The spare is written only through [`Arc::get_mut`], i.e. when this struct holds its only
//!   reference: the table's publication holds a retired view until its grace period has
//!   passed (no reader can still be walking it), and [`Concurrent::settle_before_update`]
//!   asks the table to drop it first. No `unsafe` is needed.
//! - When the spare is still shared (a reader silent past the table's bounded wait, or a
//!   clone of the view held elsewhere) it is replaced by a fresh compile of the RIB
//!   (update path `"rebuild"`): slower, never wrong, never blocking.
//!
//! # Cost
//!
//! Twice the memory of the structure, and each update applies two change sets (the last
//! update's, to catch the spare up, and its own), plus the writer's wait for the readers'
//! grace period: the price of readers that never see a half-updated structure that was not
//! designed for concurrent readers.

use super::{Concurrent, Grace};
use crate::addr::Address;
use crate::fib::{BuildError, Compile, Incremental, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::sync::Arc;

/// Two copies of `F`: one published for readers, one being brought up to date.
#[doc(hidden)]
pub struct LeftRight<A: Address, F: Incremental<A>> {
    current: Arc<F>,
    spare: Arc<F>,
    /// Prefixes changed in `current` that `spare` still lacks.
    behind: Vec<Prefix<A>>,
    cfg: F::Config,
    last_path: &'static str,
}

impl<A: Address, F: Incremental<A>> LeftRight<A, F> {
    /// The copy readers walk.
    #[doc(hidden)]
    pub fn current(&self) -> &F {
        &self.current
    }
}

impl<A: Address, F: Incremental<A>> Lookup<A> for LeftRight<A, F>
where
    F::Config: Send + Sync,
{
    #[inline]
    fn lookup(&self, addr: A) -> Option<NextHop> {
        self.current.lookup(addr)
    }

    fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        self.current.lookup_batch(addrs, out)
    }

    /// Both copies: the memory the concurrent structure really holds.
    fn memory_bytes(&self) -> usize {
        self.current.memory_bytes() + self.spare.memory_bytes()
    }

    fn describe(&self) -> Option<String> {
        let inner = self.current.describe().map_or(String::new(), |d| format!("; {d}"));
        Some(format!("two copies (left-right){inner}"))
    }
}

impl<A: Address, F: Incremental<A>> Compile<A> for LeftRight<A, F>
where
    F::Config: Send + Sync,
{
    type Config = F::Config;

    fn compile(rib: &Rib<A>, cfg: &F::Config) -> Result<Self, BuildError> {
        Ok(LeftRight {
            current: Arc::new(F::compile(rib, cfg)?),
            spare: Arc::new(F::compile(rib, cfg)?),
            behind: Vec::new(),
            cfg: cfg.clone(),
            last_path: "spare",
        })
    }
}

impl<A: Address, F: Incremental<A>> Incremental<A> for LeftRight<A, F>
where
    F::Config: Send + Sync,
{
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        self.behind.extend_from_slice(changed);
        self.behind.sort_unstable();
        self.behind.dedup();
        match Arc::get_mut(&mut self.spare) {
            Some(spare) => {
                spare.apply_changes(rib, &self.behind)?;
                self.last_path = "spare";
            }
            None => {
                self.spare = Arc::new(F::compile(rib, &self.cfg)?);
                self.last_path = "rebuild";
            }
        }
        std::mem::swap(&mut self.current, &mut self.spare);
        self.behind.clear();
        self.behind.extend_from_slice(changed);
        Ok(())
    }

    fn last_update_path(&self) -> Option<&'static str> {
        Some(self.last_path)
    }
}

impl<A: Address, F: Incremental<A> + 'static> Concurrent<A> for LeftRight<A, F>
where
    F::Config: Send + Sync,
{
    type View = F;

    fn view(&self) -> &Arc<F> {
        &self.current
    }

    fn share(&mut self, _grace: &Grace) {}

    fn settle_before_update(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::radix::Radix;
    use crate::algo::testkit::{self, assert_same, hop, probes};
    use crate::sync::Table;
    use proptest::prelude::*;

    #[test]
    fn readers_see_every_update_and_the_copies_alternate() {
        let rib = testkit::table(&[(0x0A00_0000u32, 8, 1)]);
        let mut t = Table::<u32, LeftRight<u32, Radix<u32>>>::with_config(rib, &()).unwrap();
        let mut r = t.reader();
        r.online();
        let p = "10.1.0.0/16".parse().unwrap();
        let first = Arc::as_ptr(t.fib().view());
        t.insert(p, hop(2)).unwrap();
        assert_eq!(r.lookup(0x0A01_0203), Some(hop(1)), "online: the view of its last report");
        r.quiescent();
        assert_eq!(r.lookup(0x0A01_0203), Some(hop(2)));
        assert_ne!(Arc::as_ptr(t.fib().view()), first, "the spare became current");
        r.quiescent();
        t.insert(p, hop(3)).unwrap();
        assert_eq!(t.fib().last_update_path(), Some("spare"), "the old copy was reused");
        assert_eq!(Arc::as_ptr(t.fib().view()), first);
        r.quiescent();
        assert_eq!(r.lookup(0x0A01_0203), Some(hop(3)));
        t.remove(&p).unwrap();
        r.quiescent();
        assert_eq!(r.lookup(0x0A01_0203), Some(hop(1)));
    }

    #[test]
    fn a_shared_spare_is_rebuilt_not_written() {
        let rib = testkit::table(&[(0x0A00_0000u32, 8, 1)]);
        let mut t = Table::<u32, LeftRight<u32, Radix<u32>>>::with_config(rib, &()).unwrap();
        t.insert("10.1.0.0/16".parse().unwrap(), hop(2)).unwrap();
        let held = t.fib().spare.clone(); // someone keeps the old copy
        t.insert("10.2.0.0/16".parse().unwrap(), hop(3)).unwrap();
        assert_eq!(t.fib().last_update_path(), Some("rebuild"));
        assert_eq!(held.lookup(0x0A02_0000), Some(hop(1)), "the held copy was not touched");
        assert_eq!(t.lookup(0x0A02_0000), Some(hop(3)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(16)))]

        /// After any sequence of inserts and withdrawals both copies answer like the RIB.
        #[test]
        fn both_copies_follow_the_rib(
            start in testkit::arb_routes::<u32>(40, 50),
            ops in testkit::arb_routes::<u32>(40, 50),
            seed in any::<u64>(),
        ) {
            let rib: Rib<u32> = start.into_iter().collect();
            let mut t = Table::<u32, LeftRight<u32, Radix<u32>>>::with_config(rib, &()).unwrap();
            for (i, (p, h)) in ops.into_iter().enumerate() {
                if i % 3 == 2 { t.remove(&p).unwrap(); } else { t.insert(p, h).unwrap(); }
            }
            let addrs = probes(t.rib(), 200, seed);
            assert_same("current", t.fib(), t.rib(), &addrs);
            // Catch the spare up as the next update would, and check it too.
            let rib = t.rib().clone();
            let fib = &mut t.fib;
            Arc::get_mut(&mut fib.spare).unwrap().apply_changes(&rib, &fib.behind).unwrap();
            assert_same("spare", &*fib.spare, &rib, &addrs);
        }
    }
}
