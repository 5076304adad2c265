use super::tree::{Layout, Tree};
use super::{BPlus, Config, Key, Leaf};
use crate::algo::testkit::{
    arb_routes, assert_same, boundaries_near_routes, edge_tables, hop, probes, table,
};
use crate::cpu::Isa;
use crate::fib::{Compile, Incremental, Lookup};
use crate::prefix::Prefix;
use crate::rib::Rib;
use crate::verify::{XorShift64, cases};
use proptest::prelude::*;

/// Every instruction set this CPU has.
fn isas() -> Vec<Isa> {
    Isa::ALL.into_iter().filter(|s| s.available()).collect()
}

/// Every leaf layout, and the default.
const LEAVES: [Option<Leaf>; 4] = [Some(Leaf::Plain), Some(Leaf::Rel), Some(Leaf::Hop), None];

/// Directory variants: `dir`, `[dhop, dir2, bgroup]`, lanes.
const VARIANTS: [(bool, [bool; 3], usize); 7] = [
    (true, [true; 3], 16),
    (true, [false; 3], 16),
    (true, [true, false, true], 16),
    (true, [false, true, false], 16),
    (false, [true; 3], 16),
    (true, [true; 3], 8),
    (true, [true; 3], 32),
];

/// Builds `rib` with every instruction set and leaf layout, with and without the directory,
/// and checks it on its probes.
fn check<A: Key>(name: &str, rib: &Rib<A>, extra: &[A]) {
    let mut addrs = probes(rib, 2000, 7);
    addrs.extend_from_slice(extra);
    addrs.extend([A::ZERO, A::from_u128(u128::MAX), A::from_u128(1), A::from_u128(u128::MAX - 1)]);
    for isa in isas() {
        for leaf in LEAVES {
            for (dir, [dir_hops, dir2, bgroup], lanes) in VARIANTS {
                let cfg = Config {
                    isa: Some(isa),
                    dir,
                    dir_hops,
                    dir2,
                    bgroup,
                    lanes,
                    leaf,
                    ..Config::default()
                };
                let fib = BPlus::compile(rib, &cfg).unwrap();
                let what = format!(
                    "{name} ({}, {leaf:?} leaves, dir {dir} [dhop, dir2, bgroup] {:?}, {lanes} \
                     lanes)",
                    isa.name(),
                    [dir_hops, dir2, bgroup]
                );
                assert_same(&what, &fib, rib, &addrs);
            }
        }
    }
}

#[test]
fn edge_tables_v4() {
    for (name, rib) in edge_tables::<u32>() {
        check(name, &rib, &[]);
    }
}

#[test]
fn edge_tables_v6() {
    for (name, rib) in edge_tables::<u128>() {
        check(name, &rib, &[]);
    }
}

#[test]
fn longer_prefix_ending_where_a_shorter_one_starts() {
    // 10.0.0.0/9 ends at 10.127.255.255; 10.128.0.0/9 starts right after; /24 ends where a
    // /16 starts, and a /32 sits on the last address before another route.
    let v4 = table::<u32>(&[
        (0x0A00_0000, 9, 1),
        (0x0A80_0000, 9, 2),
        (0x0B00_FF00, 24, 3),
        (0x0B01_0000, 16, 4),
        (0x0C00_FFFF, 32, 5),
        (0x0C01_0000, 16, 5),
        (0x0C01_0000, 17, 6),
    ]);
    check("abutting v4", &v4, &[]);
    let base = 0x2001_0db8u128 << 96;
    let v6 = table::<u128>(&[
        (base, 48, 1),
        (base + (1 << 80), 48, 2),
        (base + (1 << 80) - (1 << 64), 64, 3),
        (base + (1 << 80) - 1, 128, 4),
        (base + (1 << 80), 128, 5),
        (base + (1 << 80) + (1 << 64) - 4, 126, 6),
        (base + (1 << 80) + (1 << 64), 65, 7),
    ]);
    check("abutting v6", &v6, &[]);
}

#[test]
fn nested_chain_and_all_ones() {
    let ones = u128::MAX;
    let chain: Vec<(u128, u32, u32)> = (0..=128).map(|l| (ones, l, l % 5)).collect();
    check("chain to all-ones v6", &table(&chain), &[]);
    let chain: Vec<(u128, u32, u32)> = (0..=128).map(|l| (0, l, l % 3)).collect();
    check("chain to all-zeros v6", &table(&chain), &[]);
    let chain: Vec<(u32, u32, u32)> = (0..=32).map(|l| (u32::MAX, l, l)).collect();
    check("chain to all-ones v4", &table(&chain), &[]);
    check("single /128", &table::<u128>(&[(ones, 128, 1)]), &[]);
    check("single /32", &table::<u32>(&[(u32::MAX, 32, 1)]), &[]);
    check("only ::/0", &table::<u128>(&[(0, 0, 1)]), &[]);
}

/// `n` host routes with alternating hops: `n` intervals or so, around each level-size cliff.
fn spaced<A: Key>(n: usize) -> Rib<A> {
    let step = u128::MAX >> (128 - A::BITS) >> 1;
    let step = step / (n as u128 + 1);
    let routes: Vec<(A, u32, u32)> =
        (0..n).map(|i| (A::from_u128((i as u128 + 1) * step), A::BITS, (i % 2) as u32)).collect();
    table(&routes)
}

#[test]
fn key_counts_at_the_level_cliffs() {
    for cliff in [8usize, 72, 648, 5832] {
        for n in [cliff / 2 - 1, cliff / 2, cliff / 2 + 1] {
            check("v6 cliff", &spaced::<u128>(n), &[]);
        }
    }
    for cliff in [16usize, 272, 4624] {
        for n in [cliff / 2 - 1, cliff / 2, cliff / 2 + 1] {
            check("v4 cliff", &spaced::<u32>(n), &[]);
        }
    }
    // Relative leaves hold 13 keys: their cliffs are 13, 117 and 1053 keys (IPv6).
    for cliff in [13usize, 117, 1053] {
        for n in [cliff / 2 - 1, cliff / 2, cliff / 2 + 1] {
            check("v6 relative-leaf cliff", &spaced::<u128>(n), &[]);
        }
    }
}

/// Batches of every length up to two groups and one more, for each instruction set and lane
/// count, with and without start-level classes: a full group walks all its lanes, a group a
/// quarter full or more walks the stale lanes of the group before it too, and a smaller one
/// descends lane by lane; every answer must equal the RIB's.
#[test]
fn batches_of_every_group_size() {
    fn run<A: Key>(rib: &Rib<A>) {
        // Addresses inside the routes (the tree's work, not the directory's), shuffled.
        let mut addrs = probes(rib, 0, 3);
        let mut rng = XorShift64::new(5);
        for i in (1..addrs.len()).rev() {
            addrs.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let variants = isas().into_iter().flat_map(|isa| {
            [8, 16, 32].into_iter().flat_map(move |lanes| [(isa, lanes, false), (isa, lanes, true)])
        });
        for (isa, lanes, bgroup) in variants {
            let cfg = Config { isa: Some(isa), lanes, bgroup, ..Config::default() };
            let fib = BPlus::compile(rib, &cfg).unwrap();
            let what = format!("{}, {lanes} lanes, bgroup {bgroup}", isa.name());
            for len in 1..=2 * lanes + 1 {
                for chunk in addrs.chunks_exact(len).take(8) {
                    let mut out = vec![None; len];
                    fib.lookup_batch(chunk, &mut out);
                    for (&a, got) in chunk.iter().zip(&out) {
                        assert_eq!(*got, rib.lookup(a), "{what}, batch of {len}: {a:?}");
                    }
                }
            }
        }
    }
    // 5000 routes in one /16 of each family, so that lookups reach the tree.
    fn dense<A: Key>(top: u128) -> Rib<A> {
        let bits = A::BITS;
        let routes: Vec<(A, u32, u32)> = (0..5000u128)
            .map(|i| (A::from_u128(top | i << (bits - 30)), 30 + (i % 3) as u32, (i % 7) as u32))
            .collect();
        table(&routes)
    }
    run::<u128>(&dense(0x2001u128 << 112));
    run::<u32>(&dense(0x0A00u128 << 16));
}

/// A batch whose first few addresses the directory mostly answers takes the next block words
/// 16 at a time (one AVX-512 gather, or 16 scalar loads), answers the lanes whose word holds
/// a hop with one store per chunk, admits the others one by one, and leaves the rest of the
/// batch to the scalar step after a round of chunks it answered nothing of. Batches mixing
/// directory-answered addresses (uniform, mostly in blocks without routes) and tree
/// addresses in every proportion and order, of lengths around the chunk size, must all
/// answer as the RIB, in every instruction set, with the directory on or off and with or
/// without hops in its words.
#[test]
fn batches_mixing_directory_and_tree_lanes() {
    fn run<A: Key>(rib: &Rib<A>, inside: &[A]) {
        let mut rng = XorShift64::new(9);
        let mut draw = |share_inside: u64| {
            if rng.below(100) < share_inside {
                inside[rng.below(inside.len() as u64) as usize]
            } else {
                A::from_u128(
                    ((rng.next_u64() as u128) << 64 | rng.next_u64() as u128) >> (128 - A::BITS),
                )
            }
        };
        let batches: Vec<Vec<A>> = [0, 3, 50, 97, 100]
            .into_iter()
            .flat_map(|share| [1, 4, 5, 15, 16, 17, 32, 33, 48, 64, 100].map(|len| (share, len)))
            .map(|(share, len)| (0..len).map(|_| draw(share)).collect())
            .chain([
                // A scalar probe answered through the last key's interval (its block holds a
                // route, so its word holds no hop) and a lane left to the tree, then chunks
                // the directory answers: the probe's outputs must survive the chunk's store.
                (0..64)
                    .map(|i| match i {
                        1 => A::from_u128(u128::MAX),
                        3 => inside[0],
                        _ => A::ZERO,
                    })
                    .collect(),
                // A probe and a first round of chunks the directory answers (0's block holds
                // no route), a round of four chunks it answers nothing of (the 16-address step
                // ends), then directory addresses again, left to the scalar step.
                (0..160)
                    .map(|i| if (64..128).contains(&i) { inside[i] } else { A::ZERO })
                    .collect(),
                // A probe the directory answers, then gathered chunks mixing hop lanes, tree
                // lanes and the last key of the space (a block with routes).
                (0..64)
                    .map(|i| match (i < 16, i % 3) {
                        (true, _) | (false, 0) => A::ZERO,
                        (false, 1) => A::from_u128(u128::MAX),
                        _ => inside[i],
                    })
                    .collect(),
            ])
            .collect();
        // Without `dhop`, direct block words hold positions: the scalar step answers them,
        // the 16-address step leaves them to `admit`.
        let dirs = [(true, true), (true, false), (false, false)];
        for (isa, (dir, dir_hops)) in isas().into_iter().flat_map(|i| dirs.map(|d| (i, d))) {
            let cfg = Config { isa: Some(isa), dir, dir_hops, ..Config::default() };
            let fib = BPlus::compile(rib, &cfg).unwrap();
            for batch in &batches {
                let mut out = vec![None; batch.len()];
                fib.lookup_batch(batch, &mut out);
                for (&a, got) in batch.iter().zip(&out) {
                    let name = isa.name();
                    assert_eq!(*got, rib.lookup(a), "{name}, dir {dir}, dhop {dir_hops}: {a:?}");
                }
            }
        }
    }
    // Dense routes in one /16 (the tree's lanes), a short route elsewhere (hop words that
    // are not 0) and the last address's /32 block.
    fn routes<A: Key>(top: u128) -> (Rib<A>, Vec<A>) {
        let bits = A::BITS;
        let mut routes: Vec<(A, u32, u32)> = (0..3000u128)
            .map(|i| (A::from_u128(top | i << (bits - 30)), 30 + (i % 3) as u32, (i % 7) as u32))
            .collect();
        routes.push((A::from_u128(0x40u128 << (bits - 8)), 2, 9));
        routes.push((A::from_u128(u128::MAX), 32, 11));
        let rib = table(&routes);
        let inside = probes(&rib, 0, 4);
        (rib, inside)
    }
    let (rib, inside) = routes::<u128>(0x2001u128 << 112);
    run::<u128>(&rib, &inside);
    let (rib, inside) = routes::<u32>(0x0A00u128 << 16);
    run::<u32>(&rib, &inside);
}

#[test]
fn tree_search_is_the_predecessor() {
    let words = vec![0; 5000];
    for layout in [Layout::Plain, Layout::Rel, Layout::Hop(&words)] {
        for n in [1usize, 2, 8, 9, 10, 13, 14, 16, 17, 18, 81, 82, 100, 1000, 5000] {
            let keys: Vec<u64> = (0..n as u64).map(|i| i * 1000).collect();
            let tree = Tree::build(&keys, layout);
            let keys32: Vec<u32> = (0..n as u32).map(|i| i * 7).collect();
            let tree32 = Tree::build(&keys32, layout);
            let mut rng = XorShift64::new(1);
            for _ in 0..2000 {
                let x = rng.below(n as u64 * 1000 + 5);
                let want = keys.partition_point(|&k| k <= x) - 1;
                assert_eq!(tree.search::<super::node::Portable>(x), want, "n={n} x={x}");
                let x32 = (x % (n as u64 * 7 + 5)) as u32;
                let want = keys32.partition_point(|&k| k <= x32) - 1;
                assert_eq!(tree32.search::<super::node::Portable>(x32), want, "n={n} x={x32}");
            }
            for pos in 0..n {
                assert_eq!((tree.key(pos), tree32.key(pos)), (keys[pos], keys32[pos]));
            }
        }
    }
}

/// Keys whose differences need every shift and overflow 32-bit offsets (leaves of one key
/// next to full ones): each instruction set's relative rank gives the predecessor, and a hop
/// leaf's rank its word.
#[test]
fn relative_and_hop_leaves_pack_keys_of_every_scale() {
    let mut rng = XorShift64::new(5);
    let mut keys = vec![0u64];
    while keys.len() < 3000 {
        let scale = rng.below(64) as u32;
        let step = (rng.next_u64() >> (63 - scale.min(62))).max(1);
        match keys.last().unwrap().checked_add(step) {
            Some(k) if k < u64::MAX => keys.push(k),
            _ => break,
        }
    }
    let tree = Tree::build(&keys, Layout::Rel);
    let rel = tree.rel().unwrap();
    assert!(rel.len() < keys.len() && rel.len() > keys.len() / 13, "leaves: {}", rel.len());
    let words: Vec<u32> =
        (0..keys.len() as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 17).collect();
    let hop_tree = Tree::build(&keys, Layout::Hop(&words));
    let hop = hop_tree.hop_leaves().unwrap();
    assert!(hop.len() < keys.len() && hop.len() > keys.len() / 9, "leaves: {}", hop.len());
    let mut probes: Vec<u64> = keys.iter().flat_map(|&k| [k, k.saturating_sub(1), k + 1]).collect();
    probes.extend((0..5000).map(|_| rng.next_u64()).map(|x| x.min(u64::MAX - 1)));
    for x in probes {
        let want = keys.partition_point(|&k| k <= x) - 1;
        assert_eq!(tree.search::<super::node::Portable>(x), want, "x={x:#x}");
        assert_eq!(hop_tree.search::<super::node::Portable>(x), want, "x={x:#x} (hop)");
        let (leaf, _) = hop_tree.leaf_from::<super::node::Portable>(0, 0, x);
        assert_eq!(hop.word::<super::node::Portable>(leaf, x), words[want], "x={x:#x}");
        #[cfg(target_arch = "x86_64")]
        for isa in isas() {
            // SAFETY: `isas` lists only the sets this CPU has.
            let got = unsafe { (simd_search(&tree, x, isa), simd_search(&hop_tree, x, isa)) };
            assert_eq!(got, (want, want), "x={x:#x} {}", isa.name());
        }
    }
    for pos in [0, 1, 8, 9, 10, keys.len() / 2, keys.len() - 1] {
        assert_eq!((tree.key(pos), hop_tree.key(pos)), (keys[pos], keys[pos]));
    }
}

/// Hop leaves hold 16-bit words: a table whose answers need 32 bits gets relative leaves
/// even when `leaf=hop` asks otherwise, and answers the same.
#[test]
fn hop_leaves_fall_back_for_wide_answers() {
    let narrow = table::<u128>(&[(0, 0, 1), (0x2001u128 << 112, 16, 2)]);
    let wide = table::<u128>(&[(0, 0, 1), (0x2001u128 << 112, 16, 70_000)]);
    let cfg = Config { leaf: Some(Leaf::Hop), ..Config::default() };
    let shape = |rib: &Rib<u128>| super::Fib::describe(BPlus::compile(rib, &cfg).unwrap().view());
    assert!(shape(&narrow).contains("(hop leaves); 16-bit words"), "{}", shape(&narrow));
    assert!(shape(&wide).contains("(relative leaves); 32-bit words"), "{}", shape(&wide));
    check("wide answers, leaf=hop", &wide, &[]);
}

/// The search with `isa`'s node ranks.
///
/// # Safety
/// This CPU has `isa`.
#[cfg(target_arch = "x86_64")]
unsafe fn simd_search(tree: &Tree<u64>, x: u64, isa: Isa) -> usize {
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn avx2(tree: &Tree<u64>, x: u64) -> usize {
        tree.search::<super::node::Avx2>(x)
    }
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn avx512(tree: &Tree<u64>, x: u64) -> usize {
        tree.search::<super::node::Avx512>(x)
    }
    // SAFETY: the caller checked that this CPU has `isa`.
    unsafe {
        match isa {
            Isa::Avx512 => avx512(tree, x),
            Isa::Avx2 => avx2(tree, x),
            Isa::Portable => tree.search::<super::node::Portable>(x),
        }
    }
}

/// Applies `ops` one by one (insert when `hop` is some, else remove), checking after each
/// against the RIB, and at the end against a fresh compile.
fn replay<A: Key>(
    start: &[(Prefix<A>, crate::NextHop)],
    ops: &[(Prefix<A>, Option<u32>)],
    delta: usize,
    leaf: Option<Leaf>,
    dir_hops: bool,
) {
    let mut rib: Rib<A> = start.iter().copied().collect();
    let cfg = Config { delta, leaf, dir_hops, dir2: true, bgroup: true, ..Config::default() };
    let mut fib = BPlus::compile(&rib, &cfg).unwrap();
    for (i, &(p, h)) in ops.iter().enumerate() {
        match h {
            Some(h) => rib.insert(p, hop(h)),
            None => rib.remove(&p),
        };
        fib.apply_changes(&rib, &[p]).unwrap();
        let mut addrs = probes(&rib, 50, i as u64);
        addrs.extend(boundaries_near_routes(&rib, 16));
        assert_same(&format!("after op {i} ({p:?} -> {h:?})"), &fib, &rib, &addrs);
    }
    let fresh = BPlus::compile(&rib, &cfg).unwrap();
    let addrs = probes(&rib, 500, 99);
    let mut a = vec![None; addrs.len()];
    let mut b = vec![None; addrs.len()];
    fib.lookup_batch(&addrs, &mut a);
    fresh.lookup_batch(&addrs, &mut b);
    assert_eq!(a, b, "updated structure differs from a fresh compile");
}

fn arb_ops<A: Key>() -> impl Strategy<Value = Vec<(Prefix<A>, Option<u32>)>> {
    arb_routes::<A>(40, 6)
        .prop_flat_map(|routes| {
            let n = routes.len();
            (Just(routes), proptest::collection::vec(any::<bool>(), n))
        })
        .prop_map(|(routes, removes)| {
            routes
                .into_iter()
                .zip(removes)
                .map(|((p, h), remove)| (p, (!remove).then_some(h.index())))
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    #[test]
    fn random_tables_v4(routes in arb_routes::<u32>(200, 9)) {
        check("random v4", &routes.into_iter().collect(), &[]);
    }

    #[test]
    fn random_tables_v6(routes in arb_routes::<u128>(200, 9)) {
        check("random v6", &routes.into_iter().collect(), &[]);
    }

    #[test]
    fn updates_v4(start in arb_routes::<u32>(60, 6), ops in arb_ops::<u32>(), delta in 1usize..6,
                  leaf in proptest::sample::select(LEAVES.to_vec()), dir_hops in any::<bool>()) {
        replay(&start, &ops, delta, leaf, dir_hops);
    }

    #[test]
    fn updates_v6(start in arb_routes::<u128>(60, 6), ops in arb_ops::<u128>(), delta in 1usize..6,
                  leaf in proptest::sample::select(LEAVES.to_vec()), dir_hops in any::<bool>()) {
        replay(&start, &ops, delta, leaf, dir_hops);
    }
}

#[test]
fn next_hop_changes_that_move_no_boundary_are_written_in_place() {
    let mut rib = table::<u32>(&[(0x0A00_0000, 8, 1), (0x0A01_0000, 16, 2)]);
    let mut fib = BPlus::compile(&rib, &Config::default()).unwrap();
    let p: Prefix<u32> = "10.1.0.0/16".parse().unwrap();
    rib.insert(p, hop(3));
    fib.apply_changes(&rib, &[p]).unwrap();
    assert_eq!(fib.next_slot, 0, "no side table for a change that moves no boundary");
    assert_eq!(fib.lookup(0x0A01_0203), Some(hop(3)));
    // A new route moves boundaries: it gets a side table, and the answers follow.
    let q: Prefix<u32> = "10.2.0.0/16".parse().unwrap();
    rib.insert(q, hop(4));
    fib.apply_changes(&rib, &[q]).unwrap();
    assert_eq!(fib.next_slot, 1);
    assert_eq!(fib.lookup(0x0A02_0001), Some(hop(4)));
    assert_eq!(fib.lookup(0x0A03_0001), Some(hop(1)));
}

#[test]
fn running_out_of_side_slots_rebuilds() {
    let mut rib = table::<u128>(&[(0, 0, 1)]);
    let mut fib = BPlus::compile(&rib, &Config { delta: 2, ..Config::default() }).unwrap();
    for i in 0..10u128 {
        let p = Prefix::new((0x2001u128 << 112) + (i << 80), 48).unwrap();
        rib.insert(p, hop(2 + i as u32));
        fib.apply_changes(&rib, &[p]).unwrap();
    }
    assert!(fib.rebuilds() >= 3, "rebuilds: {}", fib.rebuilds());
    assert_same("after rebuilds", &fib, &rib, &probes(&rib, 100, 3));
}

/// Thousands of routes in one directory block: lookups there descend from the root (the
/// catch-up to the lock-step level), the other blocks from deeper nodes or not at all.
#[test]
fn a_crowded_directory_block() {
    let v4: Vec<(u32, u32, u32)> =
        (0..6000u32).map(|i| (0x0A01_0000 + i * 7, 32, i % 5)).chain([(0, 0, 9)]).collect();
    check("crowded /16 v4", &table(&v4), &[]);
    let base = 0x2001_0db8u128 << 96;
    let v6: Vec<(u128, u32, u32)> = (0..6000u128)
        .map(|i| (base + (i << 80), 48, (i % 5) as u32))
        .chain((0..50u128).map(|i| (base + (i << 90) + 5, 128, 7)))
        .collect();
    check("crowded /16 v6", &table(&v6), &[]);
}

#[test]
fn next_hops_beyond_the_word_limit_are_refused_by_updates_too() {
    let mut rib = table::<u32>(&[(0, 0, 1)]);
    let mut fib = BPlus::compile(&rib, &Config::default()).unwrap();
    let p: Prefix<u32> = "10.0.0.0/8".parse().unwrap();
    rib.insert(p, crate::NextHop::from_index(1 << 31));
    assert!(fib.apply_changes(&rib, &[p]).is_err(), "a rebuild could not hold this hop");
    assert!(BPlus::compile(&rib, &Config::default()).is_err());
}

/// Updates that change the hop of intervals holding whole directory blocks (a /0, /8 and /12
/// over many blocks, a /16 that is exactly one block, a /17 half of one): the directory's
/// words follow, through in-place rewrites and through side tables and back.
#[test]
fn updates_change_directly_answered_hops() {
    fn run<A: Key>(routes: &[(A, u32, u32)], changes: &[(usize, Option<u32>)]) {
        let start = table::<A>(routes);
        for delta in [1, 8] {
            let mut rib = start.clone();
            let cfg = Config { delta, dir_hops: true, dir2: true, ..Config::default() };
            let mut fib = BPlus::compile(&rib, &cfg).unwrap();
            assert!(fib.view().dir.sub_tables() > 0, "the crowded block has a second level");
            for (step, &(r, h)) in changes.iter().enumerate() {
                let (a, len, _) = routes[r];
                let p = Prefix::new_masked(a, len).unwrap();
                match h {
                    Some(h) => rib.insert(p, hop(h)),
                    None => rib.remove(&p),
                };
                fib.apply_changes(&rib, &[p]).unwrap();
                let mut addrs = boundaries_near_routes(&rib, 16);
                addrs.extend(boundaries_near_routes(&start, 16));
                addrs.extend(probes(&rib, 200, step as u64));
                assert_same(&format!("step {step}, delta {delta}"), &fib, &rib, &addrs);
            }
            let fresh = BPlus::compile(&rib, &cfg).unwrap();
            let addrs = probes(&rib, 2000, 5);
            let (mut a, mut b) = (vec![None; addrs.len()], vec![None; addrs.len()]);
            fib.lookup_batch(&addrs, &mut a);
            fresh.lookup_batch(&addrs, &mut b);
            assert_eq!(a, b, "updated structure differs from a fresh compile");
        }
    }
    // Hop changes move no boundary (in place); removing the /16 and putting it back moves
    // boundaries (side tables), as do the /17 and the last block's route. Route 6 is a /20
    // (16 second-level blocks) inside a block crowded with 3000 routes.
    let changes = [
        (0, Some(7)),
        (1, Some(8)),
        (2, Some(9)),
        (3, Some(10)),
        (3, None),
        (4, None),
        (6, Some(15)),
        (3, Some(11)),
        (4, Some(12)),
        (0, Some(13)),
        (5, Some(14)),
        (6, Some(16)),
        (5, None),
        (6, None),
        (0, None),
        (6, Some(17)),
    ];
    let ones = u32::MAX;
    let crowd = 0x0A40_0000;
    let v4: Vec<(u32, u32, u32)> = [
        (0, 0, 1),
        (0x0A00_0000, 8, 2),
        (0x0A10_0000, 12, 3),
        (0x0A20_0000, 16, 4),
        (0x0A30_0000, 17, 5),
        (ones, 16, 6),
        (crowd + 0x8000, 20, 6),
    ]
    .into_iter()
    .chain((0..3000).map(|i| (crowd + i * 5, 32, i % 4)))
    .collect();
    run::<u32>(&v4, &changes);
    let b = 0x2000u128 << 112;
    let ones = u128::MAX;
    let crowd = 0x2001u128 << 112;
    let v6: Vec<(u128, u32, u32)> = [
        (0, 0, 1),
        (b, 8, 2),
        (b + (1 << 116), 12, 3),
        (b + (2 << 112), 16, 4),
        (b + (3 << 112), 17, 5),
        (ones, 16, 6),
        (crowd + (0x8000 << 96), 20, 6),
    ]
    .into_iter()
    .chain((0..3000u128).map(|i| (crowd + (0xdb8 << 96) + (i << 80), 48, (i % 4) as u32)))
    .collect();
    run::<u128>(&v6, &changes);
}

/// Each instruction set's node ranks equal the portable count on lines of keys around the
/// sign bits and the ends of both key widths (the AVX2 ranks flip signs and compare `x + 1`).
#[test]
fn node_ranks_agree_across_instruction_sets() {
    use super::node::{Line32, Line64, TreeKey};
    let edges64 =
        [0, 1, (1 << 31) - 1, 1 << 31, (1 << 63) - 1, 1 << 63, (1 << 63) + 1, u64::MAX - 1];
    let edges32 = [0, 1, (1 << 31) - 1, 1 << 31, (1 << 31) + 1, u32::MAX - 2, u32::MAX - 1];
    let edges32_wide: Vec<u64> = edges32.iter().map(|&e| e as u64).collect();
    let mut rng = XorShift64::new(11);
    for round in 0..2000 {
        // Ascending keys, a random number of them real and the rest padding.
        let mut k64: Vec<u64> = (0..8).map(|i| pick(&mut rng, &edges64, i)).collect();
        k64.sort_unstable();
        k64[rng.below(9) as usize..].fill(u64::MAX);
        let mut k32: Vec<u32> = (0..16).map(|i| pick(&mut rng, &edges32_wide, i) as u32).collect();
        k32.sort_unstable();
        k32[rng.below(17) as usize..].fill(u32::MAX);
        let line64 = Line64(std::array::from_fn(|i| k64[i].line_form()));
        let line32 = Line32(k32.clone().try_into().unwrap());
        let x64 = if round % 2 == 0 { k64[rng.below(8) as usize] } else { rng.next_u64() };
        let x32 = match round % 3 {
            0 => k32[rng.below(16) as usize],
            1 => edges32[rng.below(edges32.len() as u64) as usize],
            _ => rng.next_u64() as u32,
        };
        for (x64, x32) in [(x64, x32), (x64.wrapping_sub(1), x32.wrapping_sub(1))] {
            let (x64, x32) = (x64.min(u64::MAX - 1), x32.min(u32::MAX - 1));
            let want = (
                k64.iter().filter(|&&k| k <= x64).count(),
                k32.iter().filter(|&&k| k <= x32).count(),
                k32[super::node::HEAD..].iter().filter(|&&k| k <= x32).count(),
            );
            #[cfg(target_arch = "x86_64")]
            for isa in isas() {
                let case = RankCase { l64: &line64, x64, l32: &line32, x32 };
                // SAFETY: `isas` lists only the sets this CPU has.
                let got = unsafe { simd_ranks(&case, isa) };
                assert_eq!(got, want, "{} x64={x64:#x} x32={x32:#x} {k64:x?} {k32:x?}", isa.name());
            }
        }
    }
}

/// Key `i` of a random line: an edge value, one near it, or a random one.
fn pick(rng: &mut XorShift64, edges: &[u64], i: usize) -> u64 {
    let e = edges[(rng.below(edges.len() as u64) as usize + i) % edges.len()];
    match rng.below(3) {
        0 => e,
        1 => e.wrapping_add(rng.below(3)).min(u64::MAX - 1),
        _ => rng.next_u64().min(u64::MAX - 1),
    }
}

/// Two lines and a probe for each, as the rank test draws them.
#[cfg(target_arch = "x86_64")]
struct RankCase<'a> {
    l64: &'a super::node::Line64,
    x64: u64,
    l32: &'a super::node::Line32,
    x32: u32,
}

/// `rank64`, `rank32` and `rank_rel` of `c` with `isa`'s node ranks.
///
/// # Safety
/// This CPU has `isa`.
#[cfg(target_arch = "x86_64")]
unsafe fn simd_ranks(c: &RankCase, isa: Isa) -> (usize, usize, usize) {
    use super::node::{Avx2, Avx512, Isa as NodeIsa, Portable};
    fn ranks<I: NodeIsa>(c: &RankCase) -> (usize, usize, usize) {
        let RankCase { l64, x64, l32, x32 } = *c;
        (I::rank64(l64, I::probe64(x64)), I::rank32(l32, I::probe32(x32)), I::rank_rel(l32, x32))
    }
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn avx2(c: &RankCase) -> (usize, usize, usize) {
        ranks::<Avx2>(c)
    }
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn avx512(c: &RankCase) -> (usize, usize, usize) {
        ranks::<Avx512>(c)
    }
    // SAFETY: the caller checked that this CPU has `isa`.
    unsafe {
        match isa {
            Isa::Avx512 => avx512(c),
            Isa::Avx2 => avx2(c),
            Isa::Portable => ranks::<Portable>(c),
        }
    }
}
