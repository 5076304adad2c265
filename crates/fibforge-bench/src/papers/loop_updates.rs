//! LOOP's update experiments with their comparators: Fig. 13 (one route at a time) and
//! Fig. 14 (a whole FIB inserted or deleted), LOOP beside SAIL_M and a structure rebuilt from
//! scratch, in the same run on the same tables and update stream.
//!
//! SAIL_M follows routes incrementally ([`SailMWriter`]) but has no table insertion or
//! deletion: Fig. 14 gives it both a rebuild of the n tables and the FIB's routes inserted
//! (or withdrawn) one by one through its route updates. The Merged Trie (`leafpush=off`)
//! follows Fig. 13's routes in place too ([`MergedWriter`]). Trie Overlap has no incremental
//! path at all (the paper's rebuild comparator): every row naming it is a rebuild from scratch.

use super::loop_::{perturbed, sets};
use super::util::{f, median_ms, percentile};
use super::{Study, StudyInput};
use crate::replay::load_updates;
use fibforge::multi::loop_;
use fibforge::multi::loop_::Loop;
use fibforge::multi::merged::MergedWriter;
use fibforge::multi::sail_m::SailMWriter;
use fibforge::multi::{MultiLookup, VrfId};
use fibforge::registry::AlgoSpec;
use fibforge::{NextHop, Prefix, Rib};
use std::time::Instant;

/// Updates a rebuild-per-update row times (each is a whole build).
const REBUILD_SAMPLE: usize = 5;

/// Most routes of one FIB inserted or withdrawn route by route in Fig. 14 (above: "-").
const PER_ROUTE_MAX: usize = 200_000;

type Update4 = (Prefix<u32>, Option<NextHop>);

/// Wall-clock nanoseconds of each `step` over the stream.
fn time_stream(
    ups: &[Update4],
    mut step: impl FnMut(Prefix<u32>, Option<NextHop>) -> Result<(), String>,
) -> Result<Vec<f64>, String> {
    let mut ns = Vec::with_capacity(ups.len());
    for &(p, hop) in ups {
        let t0 = Instant::now();
        step(p, hop)?;
        ns.push(t0.elapsed().as_nanos() as f64);
    }
    Ok(ns)
}

/// Addresses (first, last, last + 1 of every updated prefix) where `m` and the RIBs differ.
fn mismatches(m: &dyn MultiLookup<u32>, rib: impl Fn(VrfId) -> Rib<u32>, ups: &[Update4]) -> usize {
    let ribs: Vec<Rib<u32>> = (0..m.vrfs() as VrfId).map(rib).collect();
    let addrs = ups.iter().flat_map(|(p, _)| [p.addr(), p.last(), p.last().wrapping_add(1)]);
    addrs
        .map(|a| {
            ribs.iter().enumerate().filter(|(v, r)| m.lookup(*v as VrfId, a) != r.lookup(a)).count()
        })
        .sum()
}

/// The row cells shared by every structure: mean, p50, p99, updates/s.
fn timing_cells(ns: &mut [f64]) -> [String; 4] {
    let mean = ns.iter().sum::<f64>() / ns.len().max(1) as f64;
    [f(mean, 0), f(percentile(ns, 0.5), 0), f(percentile(ns, 0.99), 0), f(1e3 / mean, 3)]
}

/// Fig. 13: the update stream into VRF 0 of two perturbed tables, one update at a time, for
/// LOOP (with and without Optimization 1), SAIL_M and the Merged Trie in place, and Trie Overlap
/// rebuilt per update.
pub fn fig13(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let path = input.updates.as_ref().ok_or("loop-fig13 needs an update stream (--updates)")?;
    let mut hops = fibforge_io::LoadedTable::new(&Default::default());
    let ups = load_updates(path, &mut hops).map_err(|e| e.to_string())?.v4;
    let (name, ribs) = perturbed(input, 2)?;
    let mut st = Study::new(
        "loop-fig13",
        format!("LOOP Fig. 13: {} updates into VRF 0 of 2 tables ({name})", ups.len()),
        &[
            "Structure",
            "Updates timed",
            "Mean [ns]",
            "p50 [ns]",
            "p99 [ns]",
            "Updates/s [M]",
            "Modified pointers 1/2/≥3 [%]",
            "Mismatches",
        ],
    );
    for (group, opt1) in [(64, true), (64, false)] {
        log(&format!("loop-fig13: LOOP group {group}, optimization 1 {opt1}"));
        st.row(loop_row(&ribs, &ups, group, opt1)?);
    }
    log("loop-fig13: SAIL_M");
    let mut w = SailMWriter::build(ribs.clone(), &Default::default()).map_err(|e| e.to_string())?;
    let mut rebuilds = 0;
    let mut ns = time_stream(&ups, |p, hop| {
        match hop {
            Some(h) => w.insert(0, p, h).map(|_| ()),
            None => w.remove(0, &p).map(|_| ()),
        }
        .map_err(|e| e.to_string())?;
        rebuilds += usize::from(w.last_update_path() == "rebuild");
        Ok(())
    })?;
    let bad = mismatches(&w, |v| w.rib(v).expect("table").clone(), &ups);
    let label = format!("SAIL_M (in place; {rebuilds} rebuilds to 32-bit words)");
    let [mean, p50, p99, rate] = timing_cells(&mut ns);
    st.row(vec![label, ups.len().to_string(), mean, p50, p99, rate, "-".into(), bad.to_string()]);
    log("loop-fig13: Merged Trie in place");
    st.row(merged_row(&ribs, &ups)?);
    log("loop-fig13: Trie Overlap rebuilt per update");
    st.row(rebuild_row(&ribs, &ups[..ups.len().min(REBUILD_SAMPLE)])?);
    st.notes.push(
        "Time: one `insert`/`remove` call (RIB and structure), wall clock, same tables and \
         stream for every row. SAIL_M rewrites the slots of the route in place \
         (`SailMWriter`); the Merged Trie (`MergedWriter`, no RIB: the route is one entry of \
         one node's vector) creates or frees the nodes on the route's path and changes that \
         entry. Trie Overlap has no incremental path: each of its updates is a \
         rebuild of both tables from scratch (the RIB change included), timed for the first \
         updates only. Mismatches: lookups differing from the RIBs after the stream, at the \
         first, last and next address of every updated prefix, both tables."
            .into(),
    );
    Ok(vec![st])
}

fn loop_row(
    ribs: &[Rib<u32>],
    ups: &[Update4],
    group: u32,
    opt1: bool,
) -> Result<Vec<String>, String> {
    let cfg = loop_::Config { group, optimization1: opt1, ..loop_::Config::default() };
    let mut l = Loop::build(ribs.to_vec(), &cfg).map_err(|e| e.to_string())?;
    let mut ptrs = [0u64; 3];
    let mut ns = time_stream(ups, |p, hop| {
        let before = l.stats().modified_pointers;
        match hop {
            Some(h) => l.insert(0, p, h).map(|_| ()),
            None => l.remove(0, &p).map(|_| ()),
        }
        .map_err(|e| e.to_string())?;
        let changed = (l.stats().modified_pointers - before) as usize;
        if changed > 0 {
            ptrs[(changed - 1).min(2)] += 1;
        }
        Ok(())
    })?;
    let bad = mismatches(&l, |v| l.rib(v).expect("table").clone(), ups);
    let total = ptrs.iter().sum::<u64>().max(1) as f64;
    let share: Vec<String> = ptrs.iter().map(|&c| f(100.0 * c as f64 / total, 1)).collect();
    let label = format!("LOOP group {group}, optimization 1 {}", if opt1 { "on" } else { "off" });
    let [mean, p50, p99, rate] = timing_cells(&mut ns);
    Ok(vec![label, ups.len().to_string(), mean, p50, p99, rate, share.join(" / "), bad.to_string()])
}

/// The Merged Trie (`leafpush=off`) following `ups` in place ([`MergedWriter`]).
fn merged_row(ribs: &[Rib<u32>], ups: &[Update4]) -> Result<Vec<String>, String> {
    let mut w = MergedWriter::build(ribs, &Default::default()).map_err(|e| e.to_string())?;
    let mut truth = ribs.to_vec();
    let mut ns = time_stream(ups, |p, hop| {
        match hop {
            Some(h) => w.insert(0, p, h).map(|_| ()),
            None => w.remove(0, &p).map(|_| ()),
        }
        .map_err(|e| e.to_string())
    })?;
    for &(p, hop) in ups {
        match hop {
            Some(h) => truth[0].insert(p, h),
            None => truth[0].remove(&p),
        };
    }
    let bad = mismatches(&w, |v| truth[v as usize].clone(), ups);
    let [mean, p50, p99, rate] = timing_cells(&mut ns);
    let label = "Merged Trie (leafpush=off, in place)".to_string();
    Ok(vec![label, ups.len().to_string(), mean, p50, p99, rate, "-".into(), bad.to_string()])
}

/// Trie Overlap rebuilt from scratch after each update of `ups`.
fn rebuild_row(ribs: &[Rib<u32>], ups: &[Update4]) -> Result<Vec<String>, String> {
    let spec = AlgoSpec::named("trie_overlap");
    let mut ribs = ribs.to_vec();
    let mut last = None;
    let mut ns = time_stream(ups, |p, hop| {
        match hop {
            Some(h) => ribs[0].insert(p, h),
            None => ribs[0].remove(&p),
        };
        let built =
            fibforge::registry::build_many(&spec, &ribs).ok_or("trie_overlap is not built here")?;
        last = Some(built.map_err(|e| e.to_string())?);
        Ok(())
    })?;
    let bad = last.map_or(0, |m| mismatches(&*m, |v| ribs[v as usize].clone(), ups));
    let [mean, p50, p99, rate] = timing_cells(&mut ns);
    let label = "Trie Overlap (REBUILD from scratch per update)".to_string();
    Ok(vec![label, ups.len().to_string(), mean, p50, p99, rate, "-".into(), bad.to_string()])
}

/// Fig. 14: f(n) build of the first n FIBs, g(n) deleting FIB n+1, h(n) inserting FIB n —
/// LOOP's table insertion and deletion beside SAIL_M (rebuilt, and route by route) and
/// Trie Overlap (rebuilt).
pub fn fig14(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let mut st = Study::new(
        "loop-fig14",
        "LOOP Fig. 14: time to build, insert and delete FIBs".into(),
        &[
            "Set",
            "n",
            "f(n) build [ms]",
            "g(n) delete FIB n+1 [ms]",
            "h(n) insert FIB n [ms]",
            "SAIL_M rebuild of n [ms]",
            "SAIL_M g(n) route by route [ms]",
            "SAIL_M h(n) route by route [ms]",
            "Trie Overlap rebuild of n [ms]",
        ],
    );
    let mut all = sets(input);
    all.truncate(1);
    all.push(perturbed(input, 4)?);
    for (name, ribs) in &all {
        for n in 1..ribs.len() {
            log(&format!("loop-fig14: {name} n={n}"));
            let mut row = vec![name.clone(), n.to_string()];
            row.extend(loop_cells(ribs, n)?);
            row.extend(comparator_cells(ribs, n)?);
            st.row(row);
        }
    }
    st.notes.push(
        "Medians of 3; the RIB clone handed to `add_table` is made outside the timer. SAIL_M \
         and Trie Overlap have no table insertion or deletion: their \"rebuild\" columns build \
         the n tables from scratch (what a deletion of FIB n+1 or an insertion of FIB n costs \
         them). SAIL_M route by route: g(n) withdraws every route of FIB n+1 through \
         `SailMWriter::remove` (the table slot stays, empty), h(n) inserts every route of FIB n \
         into an empty slot through `SailMWriter::insert`, in the RIB's order; one run, \"-\" \
         above 200,000 routes."
            .into(),
    );
    Ok(vec![st])
}

/// f(n), g(n), h(n) of LOOP.
fn loop_cells(ribs: &[Rib<u32>], n: usize) -> Result<[String; 3], String> {
    let cfg = loop_::Config::default();
    let (build, _) = median_ms(3, || Loop::build(ribs[..n].to_vec(), &cfg));
    let (mut g, mut h) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let mut l = Loop::build(ribs[..=n].to_vec(), &cfg).map_err(|e| e.to_string())?;
        let t0 = Instant::now();
        l.remove_table(n as u32).map_err(|e| e.to_string())?;
        g.push(t0.elapsed().as_secs_f64() * 1e3);
        if n >= 2 {
            let mut l = Loop::build(ribs[..n - 1].to_vec(), &cfg).map_err(|e| e.to_string())?;
            let rib = ribs[n - 1].clone();
            let t0 = Instant::now();
            l.add_table(rib).map_err(|e| e.to_string())?;
            h.push(t0.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok([f(build, 1), median(&mut g), median(&mut h)])
}

fn median(v: &mut [f64]) -> String {
    if v.is_empty() { "-".into() } else { f(percentile(v, 0.5), 1) }
}

/// SAIL_M rebuilt, SAIL_M route by route (g, h), Trie Overlap rebuilt.
fn comparator_cells(ribs: &[Rib<u32>], n: usize) -> Result<[String; 4], String> {
    let (sail, _) = median_ms(3, || SailMWriter::build(ribs[..n].to_vec(), &Default::default()));
    let small = |k: usize| ribs[k].len() <= PER_ROUTE_MAX;
    let g = if small(n) {
        let mut w = SailMWriter::build(ribs[..=n].to_vec(), &Default::default())
            .map_err(|e| e.to_string())?;
        let routes: Vec<Prefix<u32>> = ribs[n].iter().map(|(p, _)| p).collect();
        let t0 = Instant::now();
        for p in &routes {
            w.remove(n as VrfId, p).map_err(|e| e.to_string())?;
        }
        f(t0.elapsed().as_secs_f64() * 1e3, 1)
    } else {
        "-".into()
    };
    let h = if n >= 2 && small(n - 1) {
        let mut tables = ribs[..n - 1].to_vec();
        tables.push(Rib::new());
        let mut w = SailMWriter::build(tables, &Default::default()).map_err(|e| e.to_string())?;
        let t0 = Instant::now();
        for (p, hop) in ribs[n - 1].iter() {
            w.insert(n as VrfId - 1, p, hop).map_err(|e| e.to_string())?;
        }
        f(t0.elapsed().as_secs_f64() * 1e3, 1)
    } else {
        "-".into()
    };
    let spec = AlgoSpec::named("trie_overlap");
    let (overlap, _) = median_ms(3, || fibforge::registry::build_many(&spec, &ribs[..n]));
    Ok([f(sail, 1), g, h, f(overlap, 1)])
}
