//! SAIL_M with readers: [`SailMFib`]'s [`Incremental`] batches equal a fresh compile;
//! [`SailMShared`]'s readers, looking up while the writer updates, only ever see an answer of
//! the address before or after an update in flight; a silent reader holds the replaced copy
//! (the writer then rebuilds its spare rather than write under it).

use super::*;
use crate::algo::testkit::hop;
use crate::fib::{Compile, Incremental};
use crate::prefix::Prefix4;
use crate::verify::rng::XorShift64;
use proptest::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

fn arb_prefix() -> impl Strategy<Value = Prefix4> {
    let addr =
        prop_oneof![Just(0x0A00_0000u32), Just(0x0A01_0200), Just(0x0A01_0280), any::<u32>()];
    (0u32..=32, addr).prop_map(|(len, a)| Prefix4::new_masked(a, len).unwrap())
}

/// Route boundaries of `rib` and `extra`, plus the ends of the address space.
fn probes(rib: &Rib<u32>, extra: &[Prefix4]) -> Vec<u32> {
    let mut v = vec![0, u32::MAX];
    for p in rib.iter().map(|(p, _)| p).chain(extra.iter().copied()) {
        let (a, z) = (p.addr(), p.last());
        v.extend([a, z, a.wrapping_sub(1), z.wrapping_add(1)]);
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::verify::cases(48)))]
    /// Batches of changes (inserts, replacements, withdrawals, overlapping routes in one
    /// batch) applied through `apply_changes` answer as a fresh compile and as the RIB.
    #[test]
    fn incremental_batches_equal_a_fresh_compile(
        initial in prop::collection::vec((arb_prefix(), 0u32..5), 0..30),
        batches in prop::collection::vec(
            prop::collection::vec((arb_prefix(), prop::option::of(0u32..5)), 1..6), 1..12),
    ) {
        let mut rib: Rib<u32> = initial.into_iter().map(|(p, h)| (p, hop(h))).collect();
        let mut fib = SailMFib::compile(&rib, &sail::Config::default()).unwrap();
        let mut changed = Vec::new();
        for batch in batches {
            let ps: Vec<Prefix4> = batch.iter().map(|&(p, _)| p).collect();
            for (p, h) in batch {
                match h {
                    Some(h) => { rib.insert(p, hop(h)); }
                    None => { rib.remove(&p); }
                }
            }
            fib.apply_changes(&rib, &ps).unwrap();
            changed.extend(ps);
        }
        let fresh = SailMFib::compile(&rib, &sail::Config::default()).unwrap();
        for a in probes(&rib, &changed) {
            prop_assert_eq!(fib.lookup(a), rib.lookup(a), "addr {:#x}", a);
            prop_assert_eq!(fresh.lookup(a), rib.lookup(a), "fresh, addr {:#x}", a);
        }
        prop_assert_eq!(fib.stats().chunks.len(), fresh.stats().chunks.len());
    }
}

/// A route change of table `.0`: prefix and new next hop (`None`: withdrawn).
type Update = (VrfId, Prefix4, Option<NextHop>);

/// Three tables of `n` random routes each, and `k` updates spread over them (a short
/// prefix every 100: thousands of words rewritten at once).
fn workload(n: usize, k: usize) -> (Vec<Rib<u32>>, Vec<Update>) {
    let mut rng = XorShift64::new(0x0123_4567_89ab_cdef);
    let mut tables = vec![Rib::new(), Rib::new(), Rib::new()];
    let mut routes = Vec::new();
    for i in 0..3 * n {
        let r = rng.next_u64();
        let p = Prefix4::new_masked(r as u32, 8 + (r >> 40) as u32 % 25).unwrap();
        tables[i % 3].insert(p, hop(((r >> 50) % 40) as u32));
        routes.push(((i % 3) as VrfId, p));
    }
    let ups = (0..k)
        .map(|i| {
            let r = rng.next_u64();
            let (v, p) = if i.is_multiple_of(100) {
                (
                    (r % 3) as VrfId,
                    Prefix4::new_masked(r as u32, 4 + (r >> 40) as u32 % 10).unwrap(),
                )
            } else if r.is_multiple_of(3) {
                let p = Prefix4::new_masked(r as u32, 8 + (r >> 40) as u32 % 25).unwrap();
                ((r >> 20) as VrfId % 3, p)
            } else {
                routes[(r >> 8) as usize % routes.len()]
            };
            (v, p, (!i.is_multiple_of(4)).then(|| hop((r >> 52 & 63) as u32)))
        })
        .collect();
    (tables, ups)
}

/// For each (table, probe address): its answers as (version, answer) transitions.
type History = Vec<Vec<(usize, Option<NextHop>)>>;

fn history(tables: &[Rib<u32>], ups: &[Update], probes: &[u32]) -> Vec<History> {
    let mut ribs = tables.to_vec();
    let mut hist: Vec<History> =
        ribs.iter().map(|rib| probes.iter().map(|&a| vec![(0, rib.lookup(a))]).collect()).collect();
    for (k, &(v, p, h)) in ups.iter().enumerate() {
        let rib = &mut ribs[v as usize];
        match h {
            Some(h) => rib.insert(p, h),
            None => rib.remove(&p),
        };
        let lo = probes.partition_point(|&a| a < p.addr());
        let hi = probes.partition_point(|&a| a <= p.last());
        for i in lo..hi {
            let now = rib.lookup(probes[i]);
            let h = &mut hist[v as usize][i];
            if h.last().unwrap().1 != now {
                h.push((k + 1, now));
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

/// Two readers (one online with quiescent reports, one offline: online per call) look up
/// the changed prefixes' boundaries in all three tables while the writer replays updates;
/// every answer is the address's route at a version between the ones around the lookup
/// (the old or the new answer of the change in flight), and the final answers are the RIBs'.
#[test]
fn readers_never_see_an_answer_that_was_not_there() {
    let (tables, ups) = workload(1_000, 1_000);
    let mut probes: Vec<u32> = ups
        .iter()
        .flat_map(|&(_, p, _)| {
            let (f, l) = (p.addr(), p.last());
            [f, l, f + (l - f) / 2, f.wrapping_sub(1), l.wrapping_add(1)]
        })
        .collect();
    probes.sort_unstable();
    probes.dedup();
    let hist = Arc::new(history(&tables, &ups, &probes));
    let probes = Arc::new(probes);
    let mut m = SailMShared::build(tables, &sail::Config::default()).unwrap();
    let version = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2u64)
        .map(|t| {
            let (mut reader, version, done) = (m.reader(), version.clone(), done.clone());
            let (hist, probes) = (hist.clone(), probes.clone());
            std::thread::spawn(move || {
                let mut rng = XorShift64::new(0x9E37_79B9_7F4A_7C15 ^ t);
                let mut checked = 0u64;
                // An online reader answers for the copy it took at its last report (or going
                // online): the oldest version it may show is the one stored before that.
                let mut taken = version.load(Ordering::Acquire);
                if t == 0 {
                    reader.online();
                }
                while !done.load(Ordering::Acquire) {
                    for _ in 0..256 {
                        let r = rng.next_u64();
                        let (i, vrf) = (r as usize % probes.len(), (r >> 40) % 3);
                        let v0 = if t == 0 { taken } else { version.load(Ordering::Acquire) };
                        let got = reader.lookup(vrf as VrfId, probes[i]);
                        let v1 = version.load(Ordering::Acquire) + 1; // one may be in flight
                        let h = &hist[vrf as usize][i];
                        assert!(allowed(h, v0, v1, got), "vrf {vrf} {:#x}: {got:?}", probes[i]);
                        checked += 1;
                    }
                    taken = version.load(Ordering::Acquire);
                    reader.quiescent();
                }
                checked
            })
        })
        .collect();
    for (k, &(v, p, h)) in ups.iter().enumerate() {
        match h {
            Some(h) => m.insert(v, p, h).unwrap(),
            None => m.remove(v, &p).unwrap(),
        };
        version.store(k + 1, Ordering::Release);
    }
    done.store(true, Ordering::Release);
    let checked: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
    assert!(checked > 0);
    let reader = m.reader();
    let ribs: Vec<Rib<u32>> = (0..3).map(|v| m.rib(v).unwrap().clone()).collect();
    let fresh = SailM::build(&ribs, &sail::Config::default()).unwrap();
    for (i, &a) in probes.iter().enumerate() {
        for v in 0..3 {
            let want = hist[v][i].last().unwrap().1;
            assert_eq!(reader.lookup(v as VrfId, a), want, "final vrf {v} {a:#x}");
            assert_eq!(fresh.lookup(v as VrfId, a), want, "fresh vrf {v} {a:#x}");
        }
    }
}

/// A silent online reader holds the copy it walks: the writer never writes it (it rebuilds
/// its spare instead, after the bounded wait) and the reader keeps its answers until it
/// reports; then the replaced copies are released and updates go in place again.
#[test]
fn a_silent_reader_keeps_its_copy_and_its_report_releases_it() {
    let p = |s: &str| s.parse::<Prefix4>().unwrap();
    let t0: Rib<u32> = [(p("10.0.0.0/8"), hop(1))].into_iter().collect();
    let mut m = SailMShared::build(vec![t0, Rib::new()], &sail::Config::default()).unwrap();
    m.insert(1, p("10.1.0.0/16"), hop(2)).unwrap();
    assert_eq!(m.last_update_path(), "in place");
    let mut silent = m.reader();
    silent.online();
    let answer =
        |r: &SailMReader<u32>| r.with(|w| (w.lookup(0, 0x0A01_0203), w.lookup(1, 0x0A01_0203)));
    silent.with(|seen| {
        assert_eq!(seen.lookup(0, 0x0A01_0203), Some(hop(1)));
    });
    m.insert(0, p("10.1.2.0/24"), hop(3)).unwrap();
    assert_eq!(m.pending_views(), 1, "the silent reader holds the replaced copy");
    // The next update's spare is the copy the silent reader may still walk: rebuilt.
    m.insert(1, p("10.1.2.3/32"), hop(4)).unwrap();
    assert_eq!(m.last_update_path(), "rebuild");
    assert_eq!(
        answer(&silent),
        (Some(hop(1)), Some(hop(2))),
        "online: the copy it went online with"
    );
    silent.quiescent();
    assert_eq!(answer(&silent), (Some(hop(3)), Some(hop(4))), "the newest, from its report");
    m.insert(1, p("10.1.2.3/32"), hop(5)).unwrap();
    assert_eq!(m.pending_views(), 1, "the copy just replaced waits for the next report");
    drop(silent);
    m.insert(1, p("10.1.2.3/32"), hop(6)).unwrap();
    assert_eq!((m.last_update_path(), m.pending_views()), ("in place", 0));
    assert_eq!(m.lookup(1, 0x0A01_0203), Some(hop(6)));
    assert_eq!(m.remove(0, &p("10.1.2.0/24")).unwrap(), Some(hop(3)));
    assert_eq!(m.lookup(0, 0x0A01_0203), Some(hop(1)));
    let e = m.insert(2, p("10.0.0.0/8"), hop(1)).unwrap_err().to_string();
    assert!(e.contains("VRF id 2"), "{e}");
}
