//! Table insertion and deletion (§III-D): answers equal every table's RIB and a fresh build,
//! for the first, last, middle and empty tables, and readers running meanwhile see no wrong
//! answer for the tables left untouched.

use super::tests::{arb_prefix, assert_matches, hop, probes, rib4};
use super::*;
use crate::addr::Address;
use crate::multi::MultiLookup;
use crate::prefix::Prefix;
use crate::rib::Rib;
use proptest::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Answers equal the RIBs (through the writer and a reader) and a fresh build of the RIBs.
fn assert_fresh(l: &Loop<u32>) {
    assert_matches(l, &[0, u32::MAX, 0x0A01_0203]);
    let tables = l.ribs.iter().map(|r| r.clone().unwrap_or_default()).collect();
    let fresh = Loop::build(tables, &l.cfg).unwrap();
    for a in probes(&l.ribs, &[0, u32::MAX]) {
        for vrf in 0..l.ribs.len() as u32 + 1 {
            assert_eq!(l.lookup(vrf, a), fresh.lookup(vrf, a), "vrf {vrf} addr {a:#x}");
        }
    }
}

/// Waits for the readers' grace period of everything retired so far and hands the retired
/// storage back to the allocator, so the storage counters show what is in use. Readers
/// offline between lookups (as the tests' are) never hold it for long.
pub(super) fn settle<A: Address>(l: &mut Loop<A>) {
    let ticket = l.grace().retire();
    for _ in 0..100_000 {
        if l.grace().passed() >= ticket {
            l.collect();
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("the grace period never passed");
}

fn sample_tables() -> Vec<Rib<u32>> {
    vec![
        rib4(&[("0.0.0.0/0", 1), ("10.0.0.0/8", 2), ("10.1.2.0/24", 3), ("10.1.2.128/25", 4)]),
        rib4(&[("10.0.0.0/16", 5), ("10.1.2.3/32", 6), ("192.168.0.0/16", 7)]),
        rib4(&[("10.1.0.0/16", 8), ("10.1.2.0/26", 9), ("172.16.0.0/12", 2)]),
    ]
}

#[test]
fn add_to_empty_then_first_middle_last() {
    let mut l = Loop::build(vec![], &Config::default()).unwrap();
    assert_eq!(l.add_table(Rib::new()).unwrap(), 0, "an empty table first");
    assert_fresh(&l);
    for (i, t) in sample_tables().into_iter().enumerate() {
        assert_eq!(l.add_table(t).unwrap(), i as u32 + 1);
        assert_fresh(&l);
    }
    l.remove_table(2).unwrap(); // a middle table
    assert_fresh(&l);
    assert_eq!(l.lookup(2, 0x0A01_0203), None);
    l.remove_table(0).unwrap(); // the first (empty) table
    assert_fresh(&l);
    l.remove_table(3).unwrap(); // the last: the width shrinks past the removed middle one
    assert_fresh(&l);
    assert_eq!(l.stats().vrfs, 2);
    l.insert(1, "10.1.2.0/24".parse().unwrap(), hop(11)).unwrap();
    assert_fresh(&l);
    assert_eq!(l.add_table(rib4(&[("10.1.2.0/23", 12)])).unwrap(), 0, "the lowest free slot");
    assert_fresh(&l);
    assert_eq!(l.add_table(rib4(&[("10.1.2.0/24", 13)])).unwrap(), 2, "the next free slot");
    assert_fresh(&l);
    l.remove_table(1).unwrap();
    l.remove_table(2).unwrap();
    l.remove_table(0).unwrap();
    assert_eq!(l.stats().vrfs, 0, "no table left");
    assert_fresh(&l);
    assert!(l.remove_table(0).is_err(), "already removed");
}

#[test]
fn sparse_and_grouped_forms_through_insertion() {
    for group in [32, 64, 128] {
        for (sparse_limit, compress_pmt) in [(0, false), (1, true), (3, false), (3, true)] {
            let cfg = Config { group, sparse_limit, compress_pmt, ..Default::default() };
            let mut l = Loop::build(sample_tables(), &cfg).unwrap();
            l.add_table(rib4(&[("10.1.2.64/26", 13), ("10.1.2.4/30", 14)])).unwrap();
            assert_fresh(&l);
            l.remove_table(0).unwrap();
            assert_fresh(&l);
        }
    }
}

/// Removing a table frees what only it needed: its column, the chunks of its longer routes
/// and the ranges it divided; adding it back restores the answers.
#[test]
fn deletion_frees_the_tables_memory() {
    for compress_pmt in [false, true] {
        let cfg = Config { compress_pmt, ..Default::default() };
        let base = sample_tables();
        let only_base = Loop::build(base.clone(), &cfg).unwrap();
        let mut l = Loop::build(base, &cfg).unwrap();
        let deep: Vec<(String, u32)> =
            (0..40u32).map(|i| (format!("10.{i}.{i}.{i}/32"), 20 + i % 7)).collect();
        let deep: Vec<(&str, u32)> = deep.iter().map(|(p, h)| (p.as_str(), *h)).collect();
        let id = l.add_table(rib4(&deep)).unwrap();
        settle(&mut l);
        let grown = l.stats();
        l.add_table(rib4(&[("10.9.0.0/16", 3)])).unwrap(); // a table after it: a middle slot
        let allocated = l.reader().memory_bytes();
        l.remove_table(id).unwrap();
        assert_fresh(&l);
        settle(&mut l);
        assert_eq!(l.stats().chunks, only_base.stats().chunks, "its chunks collapsed");
        if !compress_pmt {
            assert!(l.reader().memory_bytes() < allocated, "its column was freed");
        }
        assert!(l.stats().arena_words < grown.arena_words, "its sparse chunks were freed");
        assert_eq!(l.add_table(rib4(&deep)).unwrap(), id, "the freed id is reused");
        assert_fresh(&l);
    }
}

/// Adding and removing tables over and over does not grow the PortMapTable without bound:
/// entries divided by a removed table are compacted away.
#[test]
fn table_churn_keeps_the_portmaptable_bounded() {
    let mut l = Loop::build(sample_tables(), &Config::default()).unwrap();
    let fresh_entries = l.stats().pmt_entries;
    for round in 0..300u32 {
        let t = rib4(&[("10.1.2.0/25", 100 + round), ("172.16.0.0/13", 200 + round)]);
        let id = l.add_table(t).unwrap();
        l.remove_table(id).unwrap();
    }
    assert_fresh(&l);
    let entries = l.stats().pmt_entries;
    assert!(entries <= 2 * fresh_entries + 64 + 4, "{entries} entries after churn");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]
    #[test]
    fn random_insertions_and_deletions_equal_fresh_build(
        tables in prop::collection::vec(
            prop::collection::vec((arb_prefix(), 0u32..6), 0..25), 1..6),
        removals in prop::collection::vec(0u32..6, 0..4),
        build_first in 0usize..3,
        compress_pmt in any::<bool>(),
    ) {
        let ribs: Vec<Rib<u32>> = tables
            .iter()
            .map(|t| t.iter().map(|&(p, h)| (p, hop(h))).collect())
            .collect();
        let first = build_first.min(ribs.len());
        let cfg = Config { headroom: 0.0, compress_pmt, ..Default::default() };
        let mut l = Loop::build(ribs[..first].to_vec(), &cfg).unwrap();
        for rib in &ribs[first..] {
            l.add_table(rib.clone()).unwrap();
        }
        assert_fresh(&l);
        for v in removals {
            let _ = l.remove_table(v);
            assert_fresh(&l);
        }
    }
}

#[test]
fn readers_see_untouched_tables_during_insertion_and_deletion() {
    let tables = sample_tables();
    let mut l = Loop::build(tables.clone(), &Config::default()).unwrap();
    let reader = l.reader();
    let stop = Arc::new(AtomicBool::new(false));
    let probes = probes(&l.ribs, &[0, u32::MAX]);
    let checker = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut rounds = 0u64;
            while !stop.load(Ordering::Relaxed) || rounds == 0 {
                for &a in &probes {
                    for (vrf, rib) in tables.iter().enumerate() {
                        assert_eq!(reader.lookup(vrf as u32, a), rib.lookup(a), "vrf {vrf} {a:#x}");
                    }
                }
                rounds += 1;
            }
            rounds
        })
    };
    for round in 0..200u32 {
        let extra = rib4(&[("10.1.2.0/25", 20 + round % 5), ("10.0.0.0/9", 30)]);
        let id = l.add_table(extra).unwrap();
        l.add_table(Rib::new()).unwrap();
        l.remove_table(id).unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    assert!(checker.join().expect("reader saw a wrong answer") > 0);
    assert_fresh(&l);
}

/// The address of the live arena: unchanged when an insertion or deletion patched the arrays
/// in place, new when it built fresh ones.
fn arena_of(l: &Loop<u32>) -> usize {
    l.core.arena.as_ptr() as usize
}

/// Within the reserved room, insertion and deletion patch the live arrays (copy-on-write of
/// the changed groups only); past it the arrays are copied into larger ones first. Both
/// answer like a fresh build, and retired groups are reused.
#[test]
fn insertion_patches_in_place_until_the_room_runs_out() {
    let mut l = Loop::build(sample_tables(), &Config::default()).unwrap();
    let arena = arena_of(&l);
    for round in 0..50u32 {
        let t = rib4(&[("10.1.2.0/25", 20 + round % 3), ("10.1.2.4/30", 9), ("10.0.0.0/9", 4)]);
        let id = l.add_table(t).unwrap();
        assert_fresh(&l);
        assert_eq!(arena_of(&l), arena, "patched in place");
        l.remove_table(id).unwrap();
        assert_fresh(&l);
        settle(&mut l);
    }
    assert_eq!(arena_of(&l), arena, "retired words are reused: the room never ran out");
    // 100 grouped layer-2 chunks (4 routes each) need more chunk ids than are reserved.
    let many: Vec<(String, u32)> =
        (0..400u32).map(|i| (format!("11.{}.{}.0/24", i / 4, i % 4), 1 + i % 5)).collect();
    let many: Vec<(&str, u32)> = many.iter().map(|(p, h)| (p.as_str(), *h)).collect();
    let id = l.add_table(rib4(&many)).unwrap();
    assert_ne!(arena_of(&l), arena, "moved to larger arrays");
    assert_fresh(&l);
    let arena = arena_of(&l);
    l.remove_table(id).unwrap();
    assert_eq!(arena_of(&l), arena, "the deletion is patched in place");
    assert_fresh(&l);
}

/// Readers running through in-place insertions that divide entries used by the untouched
/// tables, and deletions that merge them back, with route updates in between.
#[test]
fn readers_during_in_place_division_and_merging() {
    let tables = sample_tables();
    let mut l = Loop::build(tables.clone(), &Config::default()).unwrap();
    let reader = l.reader();
    let stop = Arc::new(AtomicBool::new(false));
    let probes = probes(&l.ribs, &[0, u32::MAX, 0x0A01_0203]);
    let checker = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                for &a in &probes {
                    for (vrf, rib) in tables.iter().enumerate().skip(1) {
                        assert_eq!(reader.lookup(vrf as u32, a), rib.lookup(a), "vrf {vrf} {a:#x}");
                    }
                }
            }
        })
    };
    for round in 0..100u32 {
        let routes = [("10.1.2.0/26", 40 + round % 7), ("10.1.2.64/27", 3), ("10.200.0.0/16", 5)];
        let id = l.add_table(rib4(&routes)).unwrap();
        l.insert(0, "10.1.2.192/26".parse().unwrap(), hop(50 + round % 3)).unwrap();
        l.remove_table(id).unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    checker.join().expect("reader saw a wrong answer");
    assert_fresh(&l);
}

/// One step of a mixed run: add a table, remove one, or change a route.
#[derive(Clone, Debug)]
enum Step {
    Add(Vec<(Prefix<u32>, u32)>),
    Remove(u32),
    Route(u32, Prefix<u32>, Option<u32>),
}

fn arb_step() -> impl Strategy<Value = Step> {
    prop_oneof![
        prop::collection::vec((arb_prefix(), 1u32..6), 0..20).prop_map(Step::Add),
        (0u32..6).prop_map(Step::Remove),
        (0u32..6, arb_prefix(), prop::option::of(1u32..6))
            .prop_map(|(v, p, h)| Step::Route(v, p, h)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]
    /// Insertions and deletions patched in place between route updates (which divide, merge
    /// and collapse the chunks the patches then walk) answer like a fresh build.
    #[test]
    fn mixed_tables_and_routes_equal_fresh_build(
        steps in prop::collection::vec(arb_step(), 1..24),
        group in prop_oneof![Just(32u32), Just(64), Just(128)],
        sparse_limit in 0usize..4,
    ) {
        let cfg = Config { group, sparse_limit, ..Default::default() };
        let mut l = Loop::build(sample_tables(), &cfg).unwrap();
        for step in steps {
            match step {
                Step::Add(routes) => {
                    l.add_table(routes.iter().map(|&(p, h)| (p, hop(h))).collect()).unwrap();
                }
                Step::Remove(v) => { let _ = l.remove_table(v); }
                Step::Route(v, p, Some(h)) => { let _ = l.insert(v, p, hop(h)); }
                Step::Route(v, p, None) => { let _ = l.remove(v, &p); }
            }
        }
        assert_fresh(&l);
    }
}

/// An insertion that divides more entries than the PortMapTable columns hold moves them into
/// larger storage and still patches the arrays, into copies that only the new structure names
/// (same layout, new address; the writer does not wait for readers); readers of the other
/// tables see no wrong answer meanwhile.
#[test]
fn insertion_outgrowing_the_columns_patches_in_place() {
    let routes = |hops: &dyn Fn(u32) -> u32, len: u32| -> Rib<u32> {
        (0..2000u32)
            .flat_map(|i| {
                let a = 0x1000_0000 + (i << 16);
                (0..1u32 << (len - 16)).map(move |k| (a | k << (32 - len), k))
            })
            .map(|(a, k)| (Prefix::new_masked(a, len).unwrap(), hop(hops(a >> 16) + k)))
            .collect()
    };
    let base = routes(&|x| x, 16); // 2000 distinct entries
    let cfg = Config { headroom: 0.0, ..Default::default() };
    let mut l = Loop::build(vec![base.clone()], &cfg).unwrap();
    let (arena, arena_len) = (arena_of(&l), l.core.arena.len());
    let reader = l.reader();
    let stop = Arc::new(AtomicBool::new(false));
    let checker = {
        let (stop, base) = (stop.clone(), base.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                for i in (0..2000u32).step_by(7) {
                    let a = 0x1000_0000 + (i << 16) + 0x8001;
                    assert_eq!(reader.lookup(0, a), base.lookup(a), "{a:#x}");
                }
            }
        })
    };
    l.add_table(routes(&|x| 5000 + x, 17)).unwrap(); // every entry divided in two
    stop.store(true, Ordering::Relaxed);
    checker.join().expect("reader saw a wrong answer");
    assert_eq!(l.core.arena.len(), arena_len, "patched: the layout of the arrays is kept");
    assert_ne!(arena_of(&l), arena, "the pointers went into a copy: the columns moved");
    assert!(l.stats().pmt_entries >= 4000);
    assert_fresh(&l);
}
