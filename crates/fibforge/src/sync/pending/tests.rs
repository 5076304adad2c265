use super::*;
use crate::algo::bplus;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// `rounds` rounds of changes to the next hops of 64 routes (each update retires the blocks
/// or side tables it replaced).
fn churn<F: Concurrent<u32>>(table: &mut Table<u32, F>, rounds: u32) {
    for round in 0..rounds {
        for i in 0..64u32 {
            let p = Prefix::new(0x0A00_0000 | i << 8, 24).unwrap();
            table.insert(p, NextHop::from_index(round * 64 + i)).unwrap();
        }
    }
}

/// A reader online and silent holds back everything retired: the count is non-zero and
/// grows; once it reports, one more update frees all but that update's own retirements.
fn silent_reader_holds_then_releases<F: Concurrent<u32>>(mut table: Table<u32, F>) {
    assert_eq!(table.pending_reclaim().bytes, 0, "nothing retired yet");
    let mut reader = table.reader();
    reader.online();
    churn(&mut table, 2);
    let first = table.pending_reclaim();
    assert!(first.objects > 0 && first.bytes > 0, "{first:?}");
    churn(&mut table, 2);
    let second = table.pending_reclaim();
    assert!(second.objects > first.objects && second.bytes > first.bytes, "{second:?}");
    assert!(!second.over_threshold, "{second:?}: under the 64 MiB floor");
    reader.quiescent();
    table.remove(&Prefix::new(0x0A00_0000, 24).unwrap()).unwrap();
    let after = table.pending_reclaim();
    // What is left is that update's own retirements: a batch, or the view it replaced (a
    // withdraw may compact Poptrie into a new view, retiring the old one whole).
    assert!(after.objects <= 2 && after.objects < second.objects, "{after:?} after {second:?}");
    let one_view = 2 * table.fib().memory_bytes();
    assert!(after.bytes <= one_view, "{after:?}: more than one view's worth");
}

#[test]
fn poptrie_pending_memory_grows_under_a_silent_reader_and_goes_after_a_report() {
    silent_reader_holds_then_releases(Table::new(Rib::new()).unwrap());
}

#[test]
fn bplus_pending_memory_grows_under_a_silent_reader_and_goes_after_a_report() {
    let table: Table<u32, bplus::BPlus<u32>> =
        Table::with_config(Rib::new(), &bplus::Config::default()).unwrap();
    silent_reader_holds_then_releases(table);
}

#[test]
fn the_threshold_is_four_structures_or_64_mib_whichever_is_larger() {
    const MIB: usize = 1 << 20;
    assert!(!PendingReclaim::new(9, 64 * MIB, MIB).over_threshold, "the floor");
    assert!(PendingReclaim::new(9, 64 * MIB + 1, MIB).over_threshold);
    assert!(!PendingReclaim::new(9, 400 * MIB, 100 * MIB).over_threshold, "4 structures");
    assert!(PendingReclaim::new(9, 400 * MIB + 1, 100 * MIB).over_threshold);
    assert!(!PendingReclaim::new(0, 0, usize::MAX).over_threshold, "no overflow");
}
