//! Probe addresses: where a structure's answers can go wrong.
//!
//! Answers change only at route boundaries, so the first and last address of every route and
//! their outside neighbours are the sharpest probes; uniform addresses cover the space (IPv6
//! ones mostly miss every route), and addresses drawn inside random routes reach the deep
//! levels uniform ones rarely do.

use super::rng::XorShift64;
use crate::addr::Address;
use crate::rib::Rib;

/// The first and last address of every `step`-th route (every route for 0 or 1) and their
/// outside neighbours (wrapping at the ends of the space).
#[doc(hidden)]
pub fn route_edges<A: Address>(rib: &Rib<A>, step: usize) -> Vec<A> {
    let mut v = Vec::with_capacity(rib.len() / step.max(1) * 4 + 4);
    for (p, _) in rib.iter().step_by(step.max(1)) {
        let (first, last) = (p.addr().to_u128(), p.last().to_u128());
        v.extend([p.addr(), p.last()]);
        v.extend([A::from_u128(first.wrapping_sub(1)), A::from_u128(last.wrapping_add(1))]);
    }
    v
}

/// `n` uniform addresses (128 random bits each, truncated to the family).
pub fn uniform<A: Address>(rng: &mut XorShift64, n: usize) -> Vec<A> {
    (0..n).map(|_| A::from_u128(rng.next_u128())).collect()
}

/// `n` addresses, each inside a route drawn uniformly from `rib` (none for an empty RIB).
pub fn in_prefix<A: Address>(rib: &Rib<A>, rng: &mut XorShift64, n: usize) -> Vec<A> {
    let routes: Vec<(u128, u128)> =
        rib.iter().map(|(p, _)| (p.addr().to_u128(), !A::netmask(p.len()).to_u128())).collect();
    if routes.is_empty() {
        return Vec::new();
    }
    (0..n)
        .map(|_| {
            let (net, host) = routes[rng.below(routes.len() as u64) as usize];
            A::from_u128(net | (rng.next_u128() & host))
        })
        .collect()
}

/// The standard probe set: [`route_edges`] of every `step`-th route, then `samples` uniform
/// and `samples` in-route addresses drawn from `seed`.
pub fn probes<A: Address>(rib: &Rib<A>, step: usize, samples: usize, seed: u64) -> Vec<A> {
    let mut rng = XorShift64::new(seed);
    let mut v = route_edges(rib, step);
    v.reserve(samples * 2);
    v.extend(uniform::<A>(&mut rng, samples));
    v.extend(in_prefix(rib, &mut rng, samples));
    v
}

/// Every multiple of 2^(BITS − k) and the address before it, for each `k` in `levels`
/// (IPv4 /16 and /18 boundaries: all 2^k of them), where chunked structures change.
#[doc(hidden)]
pub fn level_boundaries<A: Address>(levels: &[u32]) -> Vec<A> {
    let mut v = Vec::new();
    for &k in levels {
        let step = 1u128 << (A::BITS - k);
        for i in 0..(1u128 << k) {
            let a = i * step;
            v.push(A::from_u128(a));
            v.push(A::from_u128(a.wrapping_sub(1)));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nexthop::NextHop;

    fn rib() -> Rib<u32> {
        ["10.0.0.0/8", "10.1.0.0/16"]
            .iter()
            .enumerate()
            .map(|(i, r)| (r.parse().unwrap(), NextHop::from_index(i as u32)))
            .collect()
    }

    #[test]
    fn edges_are_route_ends_and_their_neighbours() {
        let e = route_edges(&rib(), 1);
        for a in [0x0A00_0000, 0x0AFF_FFFF, 0x09FF_FFFF, 0x0B00_0000, 0x0A01_0000, 0x0A01_FFFF] {
            assert!(e.contains(&a), "{a:#x} missing from {e:x?}");
        }
        assert_eq!(route_edges(&rib(), 2).len(), 4);
    }

    #[test]
    fn in_prefix_addresses_are_inside_routes() {
        let rib = rib();
        let v = in_prefix(&rib, &mut XorShift64::new(3), 1000);
        assert_eq!(v.len(), 1000);
        assert!(v.iter().all(|&a| a >> 24 == 10));
        assert!(in_prefix::<u32>(&Rib::new(), &mut XorShift64::new(3), 10).is_empty());
    }

    #[test]
    fn probes_are_deterministic_per_seed() {
        let rib = rib();
        assert_eq!(probes(&rib, 1, 100, 9), probes(&rib, 1, 100, 9));
        assert_ne!(probes(&rib, 1, 100, 9), probes(&rib, 1, 100, 10));
        assert_eq!(probes(&rib, 1, 100, 9).len(), 8 + 200);
    }
}
