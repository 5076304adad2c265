//! Every IPv4 address: the structure's answers against the RIB's range partition
//! ([`Rib::ranges`], an oracle independent of `Rib::lookup`), through `lookup` and
//! `lookup_batch`, in blocks of 2^20 addresses spread over all cores.

use super::check::Report;
use crate::addr::Address;
use crate::fib::Lookup;
use crate::nexthop::NextHop;
use crate::rib::{Range, Rib};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// Addresses per parallel block.
const BLOCK: u64 = 1 << 20;

/// Checks all 2^32 addresses of an IPv4 family; `None` for a wider family, whose space cannot
/// be walked.
pub fn exhaustive<A: Address, F: Lookup<A> + ?Sized>(rib: &Rib<A>, fib: &F) -> Option<Report> {
    exhaustive_counted(rib, fib, &AtomicU64::new(0))
}

/// [`exhaustive`], adding the addresses checked so far to `done` after each block, so that
/// another thread can show progress (2^32 when finished).
#[doc(hidden)]
pub fn exhaustive_counted<A: Address, F: Lookup<A> + ?Sized>(
    rib: &Rib<A>,
    fib: &F,
    done: &AtomicU64,
) -> Option<Report> {
    if A::BITS != 32 {
        return None;
    }
    let ranges = rib.ranges();
    let blocks = (1u64 << 32) / BLOCK;
    let parts: Vec<Report> = (0..blocks)
        .into_par_iter()
        .map(|b| {
            let r = check_block(&ranges, fib, b * BLOCK);
            // Relaxed: a progress figure only, read by nothing that depends on the check.
            done.fetch_add(BLOCK, Ordering::Relaxed);
            r
        })
        .collect();
    let mut total = Report::default();
    for p in parts {
        total.merge(p);
    }
    Some(total)
}

/// The addresses `start..start + BLOCK`, each checked through both lookup paths.
fn check_block<A: Address, F: Lookup<A> + ?Sized>(
    ranges: &[Range<A>],
    fib: &F,
    start: u64,
) -> Report {
    let mut r = Report { checked: 2 * BLOCK, ..Default::default() };
    // The ranges start at address 0, so some range holds `start`.
    let mut i = ranges.partition_point(|x| x.start.to_u128() as u64 <= start) - 1;
    let addrs: Vec<A> = (start..start + BLOCK).map(|a| A::from_u128(a as u128)).collect();
    let mut batch: Vec<Option<NextHop>> = vec![None; addrs.len()];
    fib.lookup_batch(&addrs, &mut batch);
    for (&addr, &batched) in addrs.iter().zip(&batch) {
        while i + 1 < ranges.len() && ranges[i + 1].start <= addr {
            i += 1;
        }
        let want = ranges[i].hop;
        let got = fib.lookup(addr);
        if got != want {
            r.note(addr, "lookup", want, Some(got));
        }
        if batched != want {
            r.note(addr, "lookup_batch", want, Some(batched));
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::super::check::tests::{Broken, rib};
    use super::*;
    use crate::algo::radix::Radix;
    use crate::fib::Compile;

    #[test]
    fn blocks_check_every_address_and_count_a_wrong_16_exactly() {
        // The whole space takes minutes in a test build: `fibforge verify --exhaustive` walks
        // it; here the blocks around 10.1.0.0/16 and an untouched one.
        let rib = rib();
        let ranges = rib.ranges();
        let good = Radix::compile(&rib, &()).unwrap();
        let at = 0x0A01_0000 / BLOCK * BLOCK;
        for start in [0, at] {
            assert_eq!(
                check_block(&ranges, &good, start),
                Report { checked: 2 * BLOCK, ..Default::default() }
            );
        }
        let bad = Broken(good);
        assert!(check_block(&ranges, &bad, 0).is_ok());
        let r = check_block(&ranges, &bad, at);
        // 10.1.0.0/16 answers None instead of its hop: 2^16 addresses, both lookup paths.
        assert_eq!(r.mismatches, 2 << 16);
        assert!(r.examples[0].starts_with("10.1.0.0 "), "{:?}", r.examples);
    }

    #[test]
    fn ipv6_is_not_walked() {
        assert!(
            exhaustive::<u128, _>(&Rib::new(), &Radix::compile(&Rib::new(), &()).unwrap())
                .is_none()
        );
    }
}
