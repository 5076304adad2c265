//! The concurrent [`Table`]: reader threads look up while the writer replays updates; every
//! answer must be the route of the address before or after an update in flight (never a
//! torn structure, never freed memory), with QSBR readers and pinned bursts. Also: batches,
//! replace, readers outliving the table, and a silent reader delaying reclamation.

use fibforge::algo::bplus::{self, BPlus};
use fibforge::algo::poptrie::Key;
use fibforge::sync::{Change, Concurrent};
use fibforge::verify::rng::XorShift64;
use fibforge::{Address, NextHop, Prefix, Rib, Table};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

fn hop(i: u64) -> NextHop {
    NextHop::from_index(i as u32)
}

/// A route change: the prefix and its new next hop (`None`: withdrawn).
type Update<A> = (Prefix<A>, Option<NextHop>);

/// An address from 64 random bits: IPv4 the low 32, IPv6 inside 2000::/3 (its upper half
/// from the bits, so routes nest and share direct-pointing regions).
fn addr<A: Key>(r: u64) -> A {
    match A::BITS {
        32 => A::from_u128(r as u128),
        _ => A::from_u128((((r >> 3) | 1 << 61) as u128) << 64 | r as u128),
    }
}

/// A random prefix length: IPv4 8..=32; IPv6 16..=64, and /128 one time in 16.
fn length<A: Key>(r: u64) -> u32 {
    match A::BITS {
        32 => 8 + (r % 25) as u32,
        _ if r.is_multiple_of(16) => 128,
        _ => 16 + (r % 49) as u32,
    }
}

/// A random table of `n` routes and `k` updates (inserts, replacements, withdrawals).
fn workload<A: Key>(n: usize, k: usize) -> (Rib<A>, Vec<Update<A>>) {
    let mut rng = XorShift64::new(0x1234_5678_9abc_def1);
    let mut rib = Rib::new();
    let mut routes = Vec::new();
    for _ in 0..n {
        let a = addr::<A>(rng.next_u64());
        let p = Prefix::new_masked(a, length::<A>(rng.next_u64())).unwrap();
        rib.insert(p, hop(rng.next_u64() % 50));
        routes.push(p);
    }
    let mut ups = Vec::new();
    for i in 0..k {
        let r = rng.next_u64();
        let p = if i.is_multiple_of(200) {
            // Short prefixes: many direct-pointing entries at once.
            Prefix::new_masked(addr::<A>(r), (r >> 40) as u32 % 9).unwrap()
        } else if r.is_multiple_of(3) {
            Prefix::new_masked(addr::<A>(r), length::<A>(r >> 40)).unwrap()
        } else {
            routes[(r >> 8) as usize % routes.len()]
        };
        ups.push((p, (i % 4 != 0).then(|| hop(r >> 50 & 63))));
    }
    (rib, ups)
}

/// For each probe address: its answers as (version, answer) transitions, version 0 first.
fn expected<A: Key>(
    rib: &Rib<A>,
    ups: &[Update<A>],
    probes: &[A],
) -> Vec<Vec<(usize, Option<NextHop>)>> {
    let mut rib = rib.clone();
    let mut hist: Vec<Vec<_>> = probes.iter().map(|&a| vec![(0, rib.lookup(a))]).collect();
    for (k, &(p, h)) in ups.iter().enumerate() {
        match h {
            Some(h) => rib.insert(p, h),
            None => rib.remove(&p),
        };
        let lo = probes.partition_point(|&a| a < p.addr());
        let hi = probes.partition_point(|&a| a <= p.last());
        for i in lo..hi {
            let now = rib.lookup(probes[i]);
            if hist[i].last().unwrap().1 != now {
                hist[i].push((k + 1, now));
            }
        }
    }
    hist
}

/// Is `got` the answer at some version in `v0..=v1`?
fn allowed(hist: &[(usize, Option<NextHop>)], v0: usize, v1: usize, got: Option<NextHop>) -> bool {
    let start = hist.partition_point(|&(v, _)| v <= v0).saturating_sub(1);
    hist[start..].iter().take_while(|&&(v, _)| v <= v1).any(|&(_, a)| a == got)
}

#[test]
fn readers_never_see_a_route_that_was_not_there() {
    let table = readers_see_only_real_routes::<u32, _>(|rib| Table::new(rib).unwrap());
    assert!(!table.fib().stats().fanout);
}

/// IPv6, whose default configuration has root fan-out (`fanout.rs`): new roots write their
/// fan-out blocks while readers walk the old ones.
#[test]
fn ipv6_readers_never_see_a_route_that_was_not_there() {
    let table = readers_see_only_real_routes::<u128, _>(|rib| {
        let table = Table::new(rib).unwrap();
        assert!(table.fib().stats().fanout, "the family's default fan-out");
        table
    });
    assert!(table.fib().stats().fanout, "fan-out kept through the updates");
}

/// The interval B+-tree: in-place words, side tables retagged and freed after grace
/// periods, and rebuilds published as new views (few side slots force many).
#[test]
fn bplus_readers_never_see_a_route_that_was_not_there() {
    fn bplus<A: Key + fibforge::algo::bplus::Key>(rib: Rib<A>) -> Table<A, BPlus<A>> {
        Table::with_config(rib, &bplus::Config { delta: 64, ..Default::default() }).unwrap()
    }
    let table = readers_see_only_real_routes::<u32, _>(bplus);
    assert!(table.fib().rebuilds() > 0, "the updates outran the side slots");
    let table = readers_see_only_real_routes::<u128, _>(bplus);
    assert!(table.fib().rebuilds() > 0, "the updates outran the side slots");
}

fn readers_see_only_real_routes<A: Key, F: Concurrent<A>>(
    make: impl FnOnce(Rib<A>) -> Table<A, F>,
) -> Table<A, F> {
    let (rib, ups) = workload::<A>(20_000, 3_000);
    let mut probes: Vec<A> = ups
        .iter()
        .flat_map(|(p, _)| {
            let (f, l) = (p.addr().to_u128(), p.last().to_u128());
            [f, l, f + (l - f) / 2, f.wrapping_sub(1), l.wrapping_add(1)].map(A::from_u128)
        })
        .collect();
    probes.sort_unstable();
    probes.dedup();
    let hist = Arc::new(expected(&rib, &ups, &probes));
    let probes = Arc::new(probes);
    let mut table = make(rib);
    let version = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|t| {
            let (mut reader, version, done) = (table.reader(), version.clone(), done.clone());
            let (hist, probes) = (hist.clone(), probes.clone());
            std::thread::spawn(move || {
                let mut rng = XorShift64::new(0x9E37_79B9_7F4A_7C15 ^ t);
                let mut checked = 0u64;
                // An online reader answers for the view it took at its last report (or going
                // online), so the oldest version it may show is the one stored before that.
                let mut burst = |v0: usize, lookup: &dyn Fn(A) -> Option<NextHop>| {
                    for _ in 0..256 {
                        let i = rng.next_u64() as usize % probes.len();
                        let got = lookup(probes[i]);
                        let v1 = version.load(Ordering::Acquire) + 1; // one may be in flight
                        assert!(
                            allowed(&hist[i], v0, v1, got),
                            "{}: {got:?} at v{v0}..{v1}",
                            probes[i].to_std()
                        );
                        checked += 1;
                    }
                };
                // Reader 0: QSBR (online, a quiescent state after each burst); reader 1:
                // pinned bursts, offline in between.
                let mut taken = version.load(Ordering::Acquire);
                if t == 0 {
                    reader.online();
                }
                while !done.load(Ordering::Acquire) {
                    if t == 0 {
                        burst(taken, &|a| reader.lookup(a));
                        taken = version.load(Ordering::Acquire);
                        reader.quiescent();
                    } else {
                        taken = version.load(Ordering::Acquire);
                        let pinned = reader.pin();
                        burst(taken, &|a| pinned.lookup(a));
                    }
                }
                checked
            })
        })
        .collect();
    for (k, &(p, h)) in ups.iter().enumerate() {
        match h {
            Some(h) => table.insert(p, h).unwrap(),
            None => table.remove(&p).unwrap(),
        };
        version.store(k + 1, Ordering::Release);
    }
    done.store(true, Ordering::Release);
    let checked: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
    assert!(checked > 0);
    let reader = table.reader();
    for (i, &a) in probes.iter().enumerate() {
        assert_eq!(reader.lookup(a), hist[i].last().unwrap().1, "final {}", a.to_std());
    }
    drop(reader);
    table
}

#[test]
fn batches_replace_and_readers_outliving_the_table() {
    let p = |s: &str| s.parse::<Prefix<u32>>().unwrap();
    let mut table = Table::new(Rib::new()).unwrap();
    let reader = table.reader();
    table
        .apply(&[
            Change::Insert(p("0.0.0.0/0"), hop(1)),
            Change::Insert(p("10.0.0.0/8"), hop(2)),
            Change::Insert(p("10.1.2.3/32"), hop(3)),
            Change::Remove(p("10.0.0.0/8")),
        ])
        .unwrap();
    assert_eq!(reader.lookup(0x0A01_0203), Some(hop(3)));
    assert_eq!(reader.lookup(0x0A01_0204), Some(hop(1)));
    assert_eq!(table.replace(p("10.0.0.0/8"), hop(5)).unwrap(), None, "absent: not added");
    assert_eq!(table.replace(p("0.0.0.0/0"), hop(6)).unwrap(), Some(hop(1)));
    let addrs = [0u32, 0x0A01_0203, u32::MAX];
    let mut out = [None; 3];
    reader.lookup_batch(&addrs, &mut out);
    assert_eq!(out, [Some(hop(6)), Some(hop(3)), Some(hop(6))]);
    let big = NextHop::from_raw((1 << 31) + 5).unwrap();
    assert!(table.insert(p("10.0.0.0/8"), big).is_err(), "beyond the limit");
    assert_eq!(table.rib().get(&p("10.0.0.0/8")), None, "undone");
    assert_eq!(reader.lookup(0x0A00_0001), Some(hop(6)));
    drop(table);
    assert_eq!(reader.lookup(0x0A01_0203), Some(hop(3)), "the view outlives the table");
    let v6 = Table::<u128>::new(Rib::new()).unwrap();
    assert_eq!(v6.reader().lookup(u128::MAX.to_u128()), None);
}

/// A reader that is online and never reports keeps every retirement pending (blocks and
/// views), whatever the writer does; its report, going offline or being dropped lets them go.
#[test]
fn a_silent_online_reader_delays_reclamation_and_its_report_releases_it() {
    let p = |i: u32| Prefix::new(0x0A00_0000 | i << 8, 24).unwrap();
    let mut table = Table::new(Rib::new()).unwrap();
    table.insert(Prefix::new(0x0A00_0000, 8).unwrap(), hop(1)).unwrap();
    let mut silent = table.reader();
    let mut idle = table.reader(); // registered, offline: never waited for
    silent.online();
    assert_eq!(table.grace().readers(), 2);
    let view = silent.lookup(0x0A00_0105);
    let mut pending = 0;
    for i in 0..300 {
        table.insert(p(i), hop(2)).unwrap();
        table.insert(p(i), hop(3)).unwrap(); // replaces: retires its leaf
        let now = table.fib().pending_retirements();
        assert!(now > pending, "update {i}: the silent reader holds every batch ({now})");
        pending = now;
    }
    assert!(table.fib().stats().memory_bytes > 0);
    assert_eq!(view, Some(hop(1)));
    assert_eq!(silent.lookup(0x0A00_0105), Some(hop(3)), "and still sees the updates");
    idle.quiescent(); // offline: nothing to report
    silent.quiescent();
    table.insert(p(10), hop(4)).unwrap();
    // The freed batches may leave the arena sparse enough to compact, which starts afresh.
    assert!(table.fib().pending_retirements() <= 1, "at most the newest batch waits");
    table.insert(p(11), hop(4)).unwrap();
    assert_eq!(table.fib().pending_retirements(), 1, "the silent reader holds the newest");
    drop(silent);
    drop(idle);
    assert_eq!(table.grace().readers(), 0);
    table.insert(p(12), hop(4)).unwrap();
    assert_eq!(table.fib().pending_retirements(), 0, "no reader: nothing waits");
}

/// Replaced views (growth copies the arrays) wait for the silent reader too, and the reader
/// keeps walking the view it loaded until it reports.
#[test]
fn replaced_views_wait_for_online_readers() {
    let mut table = Table::new(Rib::new()).unwrap();
    let mut reader = table.reader();
    reader.online();
    let mut rng = XorShift64::new(7u64);
    for _ in 0..20_000 {
        let r = rng.next_u64();
        table
            .insert(
                Prefix::new_masked(r as u32, 16 + (r >> 40) as u32 % 17).unwrap(),
                hop(r >> 50 & 7),
            )
            .unwrap();
    }
    let held = table.pending_views();
    assert!(held > 0, "20,000 inserts into an empty table grow the arrays");
    reader.offline();
    table.insert(Prefix::new(0, 0).unwrap(), hop(1)).unwrap();
    assert_eq!(table.pending_views(), 0, "offline: every replaced view dropped");
}

/// The interval B+-tree's side tables: a silent online reader keeps every replaced side
/// pending; its quiescent state lets the next update free them.
#[test]
fn bplus_side_tables_wait_for_a_silent_reader() {
    let p = |i: u32| Prefix::new(0x0A00_0000 | i << 8, 24).unwrap();
    let rib: Rib<u32> = [(Prefix::new(0x0A00_0000, 8).unwrap(), hop(1))].into_iter().collect();
    let mut table: Table<u32, BPlus<u32>> = Table::with_config(rib, &Default::default()).unwrap();
    let mut silent = table.reader();
    silent.online();
    // Each new /24 splits the /8's interval: a side table over the /8, replacing the last.
    for i in 0..50 {
        table.insert(p(i), hop(2 + i as u64)).unwrap();
        assert_eq!(table.fib().pending_retirements(), i as usize, "after insert {i}");
    }
    assert_eq!(silent.lookup(0x0A00_0105), Some(hop(3)));
    silent.quiescent();
    table.insert(p(60), hop(9)).unwrap();
    assert_eq!(table.fib().pending_retirements(), 1, "only the newest waits");
    drop(silent);
    table.insert(p(61), hop(9)).unwrap();
    assert_eq!(table.fib().pending_retirements(), 0, "no reader: nothing waits");
}
