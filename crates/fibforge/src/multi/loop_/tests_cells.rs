//! PortMapTable cells at the paper's width (`pmt/cells.rs`): one byte per table up to 255 next
//! hops, two up to 65,535, four beyond; the bytes counted are the cells' and the port lists';
//! route updates and table insertions that need a wider cell widen the column, and the answers
//! stay those of the RIBs and of a fresh build, for readers running meanwhile too.

use super::pmt::Pmt;
use super::tests::{arb_prefix, assert_matches, hop, probes};
use super::tests_tables::settle;
use super::*;
use crate::multi::MultiLookup;
use crate::prefix::Prefix4;
use crate::rib::Rib;
use proptest::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A table of `n` /24 routes from 10.0.0.0 on, route `i` with next hop `first + i`.
fn spread(n: u32, first: u32) -> Rib<u32> {
    (0..n)
        .map(|i| (Prefix4::new_masked(0x0A00_0000 | i << 8, 24).unwrap(), hop(first + i)))
        .collect()
}

fn widths(l: &Loop<u32>) -> Vec<usize> {
    match &l.core.pmt {
        Pmt::Columns(c) => c.cell_bytes(),
        Pmt::Packed(_) => Vec::new(),
    }
}

/// Answers equal the RIBs and a fresh build's.
fn assert_fresh(l: &Loop<u32>) {
    assert_matches(l, &[0, u32::MAX]);
    let tables = l.ribs.iter().map(|r| r.clone().unwrap_or_default()).collect();
    let fresh = Loop::build(tables, &l.cfg).unwrap();
    for a in probes(&l.ribs, &[0, u32::MAX]) {
        for vrf in 0..l.ribs.len() as u32 {
            assert_eq!(l.lookup(vrf, a), fresh.lookup(vrf, a), "vrf {vrf} addr {a:#x}");
        }
    }
}

#[test]
fn cells_are_as_narrow_as_the_tables_next_hops_and_counted_so() {
    let tables = vec![spread(255, 0), spread(256, 1000), spread(3, 0)];
    let l = Loop::build(tables, &Config::default()).unwrap();
    assert_eq!(widths(&l), [1, 2, 1]);
    let s = l.stats();
    assert_eq!(
        s.pmt_bytes,
        s.pmt_entries * (1 + 2 + 1) + 4 * (255 + 256 + 3),
        "cells + port lists"
    );
    assert_fresh(&l);
    let wide = Loop::build(vec![spread(70_000, 0)], &Config::default()).unwrap();
    assert_eq!(widths(&wide), [4], "past 65,535 next hops: raw ids");
    assert_fresh(&wide);
}

#[test]
fn an_update_with_a_256th_next_hop_widens_the_column_under_readers() {
    let tables = vec![spread(255, 0), spread(20, 0)];
    let mut l = Loop::build(tables.clone(), &Config::default()).unwrap();
    assert_eq!(widths(&l), [1, 1]);
    let reader = l.reader();
    let stop = Arc::new(AtomicBool::new(false));
    let probes = probes(&l.ribs, &[0, u32::MAX]);
    let checker = {
        let (stop, untouched) = (stop.clone(), tables[1].clone());
        std::thread::spawn(move || {
            let mut rounds = 0u64;
            while !stop.load(Ordering::Relaxed) || rounds == 0 {
                for &a in &probes {
                    assert_eq!(reader.lookup(1, a), untouched.lookup(a), "{a:#x}");
                    // Table 0 changes meanwhile: its answer is one of its next hops or none.
                    assert!(reader.lookup(0, a).is_none_or(|h| h.index() < 300));
                }
                rounds += 1;
            }
            rounds
        })
    };
    for i in 0..40u32 {
        let p = Prefix4::new_masked(0x0B00_0000 | i << 8, 24).unwrap();
        l.insert(0, p, hop(255 + i)).unwrap();
        if i == 0 {
            assert_eq!(widths(&l), [2, 1], "the 256th next hop widens table 0 only");
        }
    }
    l.remove(0, &Prefix4::new_masked(0x0B00_0000, 24).unwrap()).unwrap();
    stop.store(true, Ordering::Relaxed);
    assert!(checker.join().expect("reader saw a wrong answer") > 0);
    assert_fresh(&l);
    settle(&mut l);
    let s = l.stats();
    assert_eq!(s.pmt_bytes, s.pmt_entries * (2 + 1) + 4 * (295 + 20), "listed ports stay");
}

#[test]
fn an_added_table_gets_its_own_width_and_deletion_frees_it() {
    let mut l = Loop::build(vec![spread(10, 0), spread(10, 5)], &Config::default()).unwrap();
    let big = l.add_table(spread(300, 50)).unwrap();
    assert_eq!(widths(&l), [1, 1, 2]);
    assert_fresh(&l);
    l.remove_table(0).unwrap();
    assert_eq!(widths(&l), [0, 1, 2], "a removed table's slot has no cells");
    assert_eq!(l.add_table(spread(7, 900)).unwrap(), 0, "the free slot is reused");
    assert_eq!(widths(&l), [1, 1, 2]);
    l.remove_table(big).unwrap();
    assert_eq!(widths(&l), [1, 1]);
    assert_fresh(&l);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(32)))]
    /// Route updates around the byte cells' limit (table 0 starts with 250 next hops, the
    /// changes bring up to 20 more) and table churn, with and without packed rows.
    #[test]
    fn updates_across_the_width_limit_equal_fresh_build(
        changes in prop::collection::vec((0u32..2, arb_prefix(), prop::option::of(245u32..270)), 0..40),
        churn in any::<bool>(),
        compress_pmt in any::<bool>(),
    ) {
        let cfg = Config { headroom: 0.0, compress_pmt, ..Default::default() };
        let mut l = Loop::build(vec![spread(250, 0), spread(5, 0)], &cfg).unwrap();
        for (k, (v, p, h)) in changes.into_iter().enumerate() {
            match h {
                Some(h) => { l.insert(v, p, hop(h)).unwrap(); }
                None => { l.remove(v, &p).unwrap(); }
            }
            if churn && k % 8 == 7 {
                let id = l.add_table(spread(3, 260)).unwrap();
                l.remove_table(id).unwrap();
            }
        }
        let tables: Vec<Rib<u32>> = l.ribs.iter().map(|r| r.clone().unwrap_or_default()).collect();
        let fresh = Loop::build(tables, &cfg).unwrap();
        for a in probes(&l.ribs, &[0, u32::MAX]) {
            for vrf in 0..2u32 {
                let want = l.ribs[vrf as usize].as_ref().unwrap().lookup(a);
                prop_assert_eq!(l.lookup(vrf, a), want);
                prop_assert_eq!(fresh.lookup(vrf, a), want);
            }
        }
    }
}
