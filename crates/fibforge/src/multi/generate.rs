//! Generated sets of many tables, made by perturbing a real table (for the multi-table
//! experiments: up to hundreds of VRFs from one real FIB).
//!
//! Table `i` of a set is the base table with, chosen by a deterministic xorshift generator
//! seeded with `seed + i`: `withdraw` of its routes removed, `more_specific` of its routes
//! (those shorter than the address width) given a more-specific route one or two bits longer,
//! and `change_hop` of its routes given another next hop drawn from the base table's next hops.
//! Fractions are of the base table's route count.

use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// How much each generated table differs from the base.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Perturbation {
    /// Share of routes withdrawn.
    pub withdraw: f64,
    /// Share of routes that get an added more-specific route.
    pub more_specific: f64,
    /// Share of routes whose next hop changes.
    pub change_hop: f64,
}

impl Default for Perturbation {
    /// 2% withdrawn, 2% more-specifics added, 5% next hops changed.
    fn default() -> Self {
        Perturbation { withdraw: 0.02, more_specific: 0.02, change_hop: 0.05 }
    }
}

/// One xorshift64 stream: the generated tables stay what they were before the workspace's
/// generator became the four-stream [`crate::verify::XorShift64`].
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 = crate::rng::xorshift64_step(self.0);
        self.0
    }
    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// `count` tables derived from `base` (table 0 is perturbed too).
pub fn perturbed_tables<A: Address>(
    base: &Rib<A>,
    count: usize,
    how: Perturbation,
    seed: u64,
) -> Vec<Rib<A>> {
    let routes: Vec<(Prefix<A>, NextHop)> = base.iter().collect();
    let mut hops: Vec<NextHop> = routes.iter().map(|&(_, h)| h).collect();
    hops.sort_unstable();
    hops.dedup();
    (0..count).map(|i| perturb_one(&routes, &hops, how, seed.wrapping_add(i as u64))).collect()
}

fn perturb_one<A: Address>(
    routes: &[(Prefix<A>, NextHop)],
    hops: &[NextHop],
    how: Perturbation,
    seed: u64,
) -> Rib<A> {
    let mut rng = XorShift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut rib = Rib::with_capacity(routes.len());
    for &(p, h) in routes {
        if rng.chance(how.withdraw) {
            continue;
        }
        let hop = if rng.chance(how.change_hop) {
            hops[(rng.next() % hops.len() as u64) as usize]
        } else {
            h
        };
        rib.insert(p, hop);
        if p.len() < A::BITS && rng.chance(how.more_specific) {
            let extra = (1 + rng.next() % 2).min((A::BITS - p.len()) as u64) as u32;
            let host = A::from_u128(rng.next() as u128 | (rng.next() as u128) << 64);
            let specific_addr = A::from_u128(
                p.addr().to_u128() | (host.to_u128() & !A::netmask(p.len()).to_u128()),
            );
            let specific =
                Prefix::new_masked(specific_addr, p.len() + extra).expect("length within range");
            rib.insert(specific, hops[(rng.next() % hops.len() as u64) as usize]);
        }
    }
    rib.shrink_to_fit();
    rib
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perturbation_is_deterministic_and_bounded() {
        let base: Rib<u32> = (0..2000u32)
            .map(|i| (Prefix::new(i << 12, 20).unwrap(), NextHop::from_index(i % 7)))
            .collect();
        let a = perturbed_tables(&base, 3, Perturbation::default(), 5);
        let b = perturbed_tables(&base, 3, Perturbation::default(), 5);
        for (x, y) in a.iter().zip(&b) {
            assert!(x.iter().eq(y.iter()));
        }
        assert!(!a[0].iter().eq(a[1].iter()), "tables differ from each other");
        for t in &a {
            let n = t.len() as f64;
            assert!(n > 2000.0 * 0.9 && n < 2000.0 * 1.1, "{n}");
        }
        let none = Perturbation { withdraw: 0.0, more_specific: 0.0, change_hop: 0.0 };
        assert!(perturbed_tables(&base, 1, none, 1)[0].iter().eq(base.iter()));
    }
}
