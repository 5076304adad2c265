//! LOOP on real tables: the shipped IPv4 table perturbed into a set of VRFs (always), the real
//! Internet2 router FIBs (when ../shared/data exists), and a real update stream replayed into
//! one VRF with a reader thread running.

use fibforge::multi::MultiLookup;
use fibforge::multi::generate::{Perturbation, perturbed_tables};
use fibforge::multi::loop_;
use fibforge::multi::loop_::Loop;
use fibforge::verify::rng::XorShift64;
use fibforge::{Address, Interner, NextHop, Prefix4, Rib};
use std::io::BufRead;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Reads `prefix nexthop` lines of an IPv4 table (gzip), interning next hops.
fn read_v4(path: &Path, hops: &mut Interner<String>) -> Rib<u32> {
    let file = std::fs::File::open(path).unwrap();
    let reader = std::io::BufReader::new(flate2_reader(file));
    let mut rib = Rib::new();
    for line in reader.lines() {
        let line = line.unwrap();
        let mut cols = line.split_whitespace();
        let (Some(p), Some(h)) = (cols.next(), cols.next()) else { continue };
        if let Ok(p) = p.parse::<Prefix4>() {
            rib.insert(p, hops.intern(h.to_string()).unwrap());
        }
    }
    rib
}

fn flate2_reader(file: std::fs::File) -> impl std::io::Read {
    flate2::read::MultiGzDecoder::new(file)
}

/// Route ends and random addresses inside routes, single lookups and one batch of them all.
fn check_all<A: Address>(l: &Loop<A>, ribs: &[Rib<A>], samples: usize) {
    let mut rng = XorShift64::new(0x1234_5678_9abc_def1);
    let (mut keys, mut want) = (Vec::new(), Vec::new());
    for (vrf, rib) in ribs.iter().enumerate() {
        let routes: Vec<_> = rib.iter().collect();
        for (i, (p, _)) in routes.iter().enumerate().step_by((routes.len() / samples).max(1)) {
            let seed = rng.next_u64();
            let inside =
                A::from_u128(p.addr().to_u128() | (seed as u128 & !A::netmask(p.len()).to_u128()));
            for a in [p.addr(), p.last(), inside, A::from_u128(p.last().to_u128().wrapping_add(1))]
            {
                assert_eq!(l.lookup(vrf as u32, a), rib.lookup(a), "vrf {vrf} route #{i} {p}");
                keys.push((vrf as u32, a));
                want.push(rib.lookup(a));
            }
        }
    }
    let mut out = vec![None; keys.len()];
    l.lookup_batch(&keys, &mut out);
    for ((&(vrf, a), got), want) in keys.iter().zip(&out).zip(&want) {
        assert_eq!(got, want, "batch: vrf {vrf} addr {}", a.to_std());
    }
}

#[test]
fn perturbed_real_table_set() {
    let mut hops = Interner::new();
    let base = read_v4(&repo().join("data/ris2015-as3856.tsv.gz"), &mut hops);
    let ribs = perturbed_tables(&base, 4, Perturbation::default(), 7);
    let l = Loop::build(ribs.clone(), &loop_::Config::default()).unwrap();
    check_all(&l, &ribs, 20_000);
    let cfg = loop_::Config { compress_pmt: true, ..Default::default() };
    let compressed = Loop::build(ribs.clone(), &cfg).unwrap();
    check_all(&compressed, &ribs, 20_000);
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn internet2_router_fibs() {
    let Some(dir) = fibforge_io::data::shared_data(&repo(), "multi/internet2") else {
        eprintln!("skipped: shared data multi/internet2 not present");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut hops = Interner::new();
    let ribs: Vec<Rib<u32>> = files.iter().map(|f| read_v4(f, &mut hops)).collect();
    assert_eq!(ribs.len(), 9);
    let l = Loop::build(ribs.clone(), &loop_::Config::default()).unwrap();
    check_all(&l, &ribs, 5_000);
}

/// Replays the LINX update stream into VRF 0 of a two-table set while a reader thread looks up
/// the updated prefixes; every answer must be the old or the new route of that moment's RIB,
/// and the end state must equal a fresh build.
#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn replay_real_updates_with_reader() {
    let stream = fibforge_io::data::shared_data(&repo(), "updates/linx2014-p52-v4.txt.gz");
    let mut hops = Interner::new();
    let base = read_v4(&repo().join("data/ris2015-as3856.tsv.gz"), &mut hops);
    let ribs = perturbed_tables(&base, 2, Perturbation::default(), 3);
    let mut l = Loop::build(ribs, &loop_::Config::default()).unwrap();
    let updates: Vec<(bool, Prefix4, NextHop)> = if let Some(stream) = stream {
        let reader = fibforge_io::read_updates(&stream, &fibforge_io::ReadConfig::default())
            .unwrap_or_else(|e| panic!("{}: {e}", stream.display()));
        reader
            .map(|u| u.unwrap_or_else(|e| panic!("{}: {e}", stream.display())))
            .filter_map(|u| {
                let fibforge::AnyPrefix::V4(p) = u.prefix else { return None };
                let hop = hops.intern(u.next_hop.unwrap_or_else(|| "-".into())).unwrap();
                Some((u.kind == fibforge_io::UpdateKind::Announce, p, hop))
            })
            .collect()
    } else {
        // Without ../shared: withdraw and re-announce a sample of the table's own routes.
        let sample: Vec<_> = base.iter().step_by(97).collect();
        sample
            .iter()
            .map(|&(p, h)| (false, p, h))
            .chain(sample.iter().map(|&(p, h)| (true, p, h)))
            .collect()
    };
    // Every value each probed address has during the replay; a reader's answer must be one.
    let mut probe: Vec<u32> = updates.iter().map(|(_, p, _)| p.addr()).collect();
    probe.sort_unstable();
    probe.dedup();
    let mut history: std::collections::HashMap<u32, Vec<Option<NextHop>>> =
        probe.iter().map(|&a| (a, vec![l.lookup(0, a)])).collect();
    let reader = l.reader();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    let probes = probe.clone();
    let worker = std::thread::spawn(move || {
        let mut seen = Vec::new();
        while !flag.load(std::sync::atomic::Ordering::Relaxed) {
            for &a in &probes {
                let got = reader.lookup(0, a);
                if seen.len() < 4_000_000 {
                    seen.push((a, got));
                }
            }
        }
        seen
    });
    for &(announce, p, h) in &updates {
        if announce {
            l.insert(0, p, h).unwrap()
        } else {
            l.remove(0, &p).unwrap()
        };
        let rib = l.rib(0).unwrap();
        let lo = probe.partition_point(|&a| a < p.addr());
        for &a in probe[lo..].iter().take_while(|&&a| a <= p.last()) {
            history.get_mut(&a).unwrap().push(rib.lookup(a));
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let seen = worker.join().unwrap();
    assert!(!seen.is_empty());
    for (a, got) in seen {
        assert!(history[&a].contains(&got), "{a:#x}: {got:?} was never the route");
    }
    let ribs: Vec<Rib<u32>> = (0..2).map(|v| l.rib(v).unwrap().clone()).collect();
    check_all(&l, &ribs, 50_000);
    let fresh = Loop::build(ribs.clone(), &loop_::Config::default()).unwrap();
    check_all(&fresh, &ribs, 5_000);
}

/// Incremental table insertion and deletion (§III-D) on real-sized tables: build two, add
/// three (one empty), remove a middle one and the last one; every table equals its RIB.
#[test]
fn real_tables_inserted_and_deleted_incrementally() {
    let mut hops = Interner::new();
    let base = read_v4(&repo().join("data/ris2015-as3856.tsv.gz"), &mut hops);
    let ribs = perturbed_tables(&base, 4, Perturbation::default(), 5);
    let mut l = Loop::build(ribs[..2].to_vec(), &loop_::Config::default()).unwrap();
    assert_eq!(l.add_table(ribs[2].clone()).unwrap(), 2);
    assert_eq!(l.add_table(Rib::new()).unwrap(), 3);
    assert_eq!(l.add_table(ribs[3].clone()).unwrap(), 4);
    let now: Vec<Rib<u32>> =
        vec![ribs[0].clone(), ribs[1].clone(), ribs[2].clone(), Rib::new(), ribs[3].clone()];
    check_all(&l, &now, 10_000);
    l.remove_table(1).unwrap();
    l.remove_table(4).unwrap();
    let after = [ribs[0].clone(), Rib::new(), ribs[2].clone(), Rib::new(), Rib::new()];
    check_all(&l, &after, 10_000);
    let fresh = Loop::build(after.to_vec(), &loop_::Config::default()).unwrap();
    let mut rng = XorShift64::new(0x0123_4567_89ab_cdef);
    for _ in 0..200_000 {
        let seed = rng.next_u64();
        let (vrf, a) = ((seed >> 32) as u32 % 5, seed as u32);
        assert_eq!(l.lookup(vrf, a), fresh.lookup(vrf, a), "vrf {vrf} {a:#x}");
    }
}
