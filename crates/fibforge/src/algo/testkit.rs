//! Test support shared by the algorithm tests: edge-case tables, probe addresses and checks
//! against the RIB oracle.

use crate::addr::Address;
use crate::fib::Lookup;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::{Range, Rib};

/// A next hop by index.
pub fn hop(i: u32) -> NextHop {
    NextHop::from_index(i)
}

/// A table from `(address, length, hop index)` triples (host bits are masked).
pub fn table<A: Address>(routes: &[(A, u32, u32)]) -> Rib<A> {
    routes.iter().map(|&(a, l, h)| (Prefix::new_masked(a, l).unwrap(), hop(h))).collect()
}

/// xorshift64* step: deterministic pseudo-random numbers for probes.
pub fn next_random(state: &mut u64) -> u64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    state.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// A random address (IPv6: two draws).
pub fn random_addr<A: Address>(state: &mut u64) -> A {
    let hi = next_random(state) as u128;
    let lo = next_random(state) as u128;
    A::from_u128((hi << 64) | lo)
}

/// The edge-case tables every algorithm must answer correctly, by name.
pub fn edge_tables<A: Address>() -> Vec<(&'static str, Rib<A>)> {
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
pub fn many_hops<A: Address>(n: u32) -> Rib<A> {
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
pub fn probes<A: Address>(rib: &Rib<A>, random: usize, seed: u64) -> Vec<A> {
    let mut v = Vec::with_capacity(rib.len() * 4 + random * 2);
    for (p, _) in rib.iter() {
        v.extend([p.addr(), p.last()]);
        v.push(A::from_u128(p.addr().to_u128().wrapping_sub(1)));
        v.push(A::from_u128(p.last().to_u128().wrapping_add(1)));
    }
    let routes: Vec<_> = rib.iter().map(|(p, _)| p).collect();
    let mut state = seed | 1;
    for _ in 0..random {
        let a: A = random_addr(&mut state);
        v.push(a);
        if let Some(p) = routes.get((next_random(&mut state) % routes.len().max(1) as u64) as usize)
        {
            let host = a.to_u128() & !A::netmask(p.len()).to_u128();
            v.push(A::from_u128(p.addr().to_u128() | host));
        }
    }
    v
}

/// Every multiple of 2^(BITS − k) and the address before it, for each `k` in `levels`
/// (IPv4 /16 and /18 boundaries: all 2^k of them).
pub fn boundaries<A: Address>(levels: &[u32]) -> Vec<A> {
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

/// The /k boundaries (and the address before each) of the 256 /k blocks around every route:
/// those inside the route's enclosing prefix of length k − 8 (or all of them for a shorter
/// route). IPv4 /24 boundaries near the routes, where the structures change.
pub fn boundaries_near_routes<A: Address>(rib: &Rib<A>, k: u32) -> Vec<A> {
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

/// Asserts that `fib` answers like the RIB on `addrs`, through `lookup` and `lookup_batch`.
/// The oracle walks the RIB's range partition over the sorted addresses (fast for millions).
#[track_caller]
pub fn assert_same<A: Address, F: Lookup<A> + ?Sized>(
    name: &str,
    fib: &F,
    rib: &Rib<A>,
    addrs: &[A],
) {
    let mut sorted = addrs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let expected = answers_from_ranges(&rib.ranges(), &sorted);
    let mut batch = vec![None; sorted.len()];
    fib.lookup_batch(&sorted, &mut batch);
    let mut bad = 0;
    for (i, (&a, &want)) in sorted.iter().zip(&expected).enumerate() {
        let single = fib.lookup(a);
        if single != want || batch[i] != want {
            if bad < 5 {
                eprintln!("{name}: {a:?}: lookup {single:?} batch {:?} rib {want:?}", batch[i]);
            }
            bad += 1;
        }
    }
    assert_eq!(bad, 0, "{name}: {bad} of {} addresses differ from the RIB", sorted.len());
    // Unsorted order too: batches must not depend on neighbouring addresses being similar.
    let mut out = vec![None; addrs.len()];
    fib.lookup_batch(addrs, &mut out);
    for (&a, &o) in addrs.iter().zip(&out) {
        assert_eq!(o, fib.lookup(a), "{name}: batch lookup of {a:?} in input order");
    }
}

/// The RIB answer of each sorted address, from the range partition.
fn answers_from_ranges<A: Address>(ranges: &[Range<A>], sorted: &[A]) -> Vec<Option<NextHop>> {
    let mut i = 0;
    sorted
        .iter()
        .map(|&a| {
            while i + 1 < ranges.len() && ranges[i + 1].start <= a {
                i += 1;
            }
            ranges[i].hop
        })
        .collect()
}

/// Routes from a proptest-friendly description: few distinct top bits so routes nest and
/// collide, lengths anywhere in `0..=BITS`, next-hop indices up to `max_hop`.
pub fn arb_routes<A: Address>(
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
