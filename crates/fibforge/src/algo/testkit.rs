//! Test support shared by the algorithm tests: edge-case tables, and probe addresses and
//! checks against the RIB oracle as thin callers of [`crate::verify`].

use crate::addr::Address;
use crate::fib::Lookup;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use crate::verify::{self, Probes};

pub(crate) use crate::verify::level_boundaries as boundaries;

/// A next hop by index.
pub(crate) fn hop(i: u32) -> NextHop {
    NextHop::from_index(i)
}

/// A table from `(address, length, hop index)` triples (host bits are masked).
pub(crate) fn table<A: Address>(routes: &[(A, u32, u32)]) -> Rib<A> {
    routes.iter().map(|&(a, l, h)| (Prefix::new_masked(a, l).unwrap(), hop(h))).collect()
}

/// The edge-case tables every algorithm must answer correctly, by name.
pub(crate) fn edge_tables<A: Address>() -> Vec<(&'static str, Rib<A>)> {
    let max = A::BITS;
    let top = A::from_u128(u128::MAX);
    let probe = A::from_u128(0x0A0B_0C0D_0E0F_1011_1213_1415_1617_1819u128 >> (128 - max));
    let mut every_length = Vec::new();
    for len in 0..=max {
        every_length.push((probe, len, len));
        every_length.push((top, len, len + 200));
    }
    let mut hosts = Vec::new();
    for i in 0..300u32 {
        let a = A::from_u128((i as u128 * 0x0101_0101) << (max - 32));
        hosts.push((a, max, i));
        hosts.push((A::from_u128(a.to_u128() | 1), max, i + 1));
    }
    vec![
        ("empty", Rib::new()),
        ("default only", table(&[(A::ZERO, 0, 7)])),
        ("default and extremes", table(&[(A::ZERO, 0, 1), (A::ZERO, max, 2), (top, max, 3)])),
        ("halves", table(&[(A::ZERO, 1, 1), (top, 1, 2)])),
        ("a prefix at every length", table(&every_length)),
        ("host routes", table(&hosts)),
        ("deep nesting", deep_nesting()),
        ("chunk boundaries", chunk_boundaries()),
        ("more than 65,536 next hops", many_hops(70_000)),
    ]
}

/// Routes nested along one path, every length, alternating two hops and siblings.
fn deep_nesting<A: Address>() -> Rib<A> {
    let base = A::from_u128(0xC000_0000u128 << (A::BITS - 32));
    let mut routes = Vec::new();
    for len in 1..=A::BITS {
        routes.push((base, len, len % 3));
        // The sibling half at each level, ending just after the path.
        let sibling = A::from_u128(base.to_u128() ^ (1u128 << (A::BITS - len)));
        routes.push((sibling, len, 1000 + len));
    }
    table(&routes)
}

/// Routes starting and ending at the /8, /16, /18, /24 (and /48, /64 for IPv6) boundaries
/// around one address, plus their neighbours one bit longer and shorter.
fn chunk_boundaries<A: Address>() -> Rib<A> {
    let base = A::from_u128(0x5A5A_5A5A_5A5A_5A5A_5A5A_5A5A_5A5A_5A5Au128 >> (128 - A::BITS));
    let mut routes = Vec::new();
    let mut h = 0;
    for k in [8u32, 16, 18, 24, 48, 64].into_iter().filter(|&k| k < A::BITS) {
        for len in [k - 1, k, k + 1, k + 2] {
            for delta in [0u128, 1, 2, 3] {
                let a = A::from_u128(base.to_u128() + (delta << (A::BITS - len)));
                routes.push((a, len, h));
                h += 1;
            }
        }
    }
    table(&routes)
}

/// `n` routes with `n` distinct next hops: /24-ish routes spread over the space and host
/// routes packed into one small block (so one chunk holds many of them).
pub(crate) fn many_hops<A: Address>(n: u32) -> Rib<A> {
    let mut routes = Vec::with_capacity(n as usize);
    let shift = A::BITS - 32;
    for i in 0..n / 2 {
        let a = A::from_u128(((i as u128).wrapping_mul(0x9E37_79B9) as u32 as u128) << shift);
        routes.push((a, 24.min(A::BITS), i));
    }
    let block = A::from_u128(0x6400_0000u128 << shift);
    for i in n / 2..n {
        let a = A::from_u128(block.to_u128() + (((i - n / 2) as u128 * 3) << shift));
        routes.push((a, A::BITS.min(32 + shift), i));
    }
    table(&routes)
}

/// Addresses that stress a table: the first and last address of every route and their
/// outside neighbours, `random` uniform addresses and as many inside random routes.
pub(crate) fn probes<A: Address>(rib: &Rib<A>, random: usize, seed: u64) -> Vec<A> {
    verify::probes(rib, 1, random, seed)
}

/// The /k boundaries (and the address before each) of the 256 /k blocks around every route:
/// those inside the route's enclosing prefix of length k − 8 (or all of them for a shorter
/// route). IPv4 /24 boundaries near the routes, where the structures change.
pub(crate) fn boundaries_near_routes<A: Address>(rib: &Rib<A>, k: u32) -> Vec<A> {
    let mut regions: Vec<Prefix<A>> =
        rib.iter().map(|(p, _)| p.truncated(p.len().min(k - 8))).collect();
    regions.sort_unstable();
    regions.dedup();
    let mut v = Vec::new();
    for r in regions {
        let step = 1u128 << (A::BITS - k);
        let count = 1u128 << (k - r.len()).min(8);
        for i in 0..count {
            let a = r.addr().to_u128() + i * step;
            v.push(A::from_u128(a));
            v.push(A::from_u128(a.wrapping_sub(1)));
        }
    }
    v
}

/// Asserts that `fib` answers like the RIB on `addrs`, through `lookup` and `lookup_batch`
/// in the given order, and through `lookup_batch` sorted too (batches must not depend on
/// neighbouring addresses being similar, nor miss what similar neighbours expose).
#[track_caller]
pub(crate) fn assert_same<A: Address, F: Lookup<A> + ?Sized>(
    name: &str,
    fib: &F,
    rib: &Rib<A>,
    addrs: &[A],
) {
    let given = Probes::new(rib, addrs.to_vec());
    verify::check(fib, &given, true, true).assert_ok(name);
    let mut pairs: Vec<(A, Option<NextHop>)> =
        given.addrs.into_iter().zip(given.expected).collect();
    pairs.sort_unstable_by_key(|&(a, _)| a);
    pairs.dedup_by_key(|&mut (a, _)| a);
    let (addrs, expected) = pairs.into_iter().unzip();
    let sorted = Probes { addrs, expected };
    verify::check(fib, &sorted, false, true).assert_ok(&format!("{name} (sorted)"));
}

/// Routes from a proptest-friendly description: few distinct top bits so routes nest and
/// collide, lengths anywhere in `0..=BITS`, next-hop indices up to `max_hop`.
pub(crate) fn arb_routes<A: Address>(
    max_routes: usize,
    max_hop: u32,
) -> impl proptest::strategy::Strategy<Value = Vec<(Prefix<A>, NextHop)>> {
    use proptest::prelude::*;
    let bits = A::BITS;
    let addr = prop_oneof![
        Just(0u128),
        any::<u128>(),
        any::<u16>().prop_map(move |x| (x as u128) << (bits - 16)),
        (any::<u8>(), any::<u32>()).prop_map(move |(x, y)| ((x as u128) << (bits - 8))
            | ((y as u128) << (bits - 32)) >> 8),
    ];
    let route = (addr, 0..=bits, 0..=max_hop).prop_map(|(a, len, h)| {
        (Prefix::new_masked(A::from_u128(a), len).unwrap(), NextHop::from_index(h))
    });
    proptest::collection::vec(route, 0..max_routes)
}
