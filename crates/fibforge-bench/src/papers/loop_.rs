//! LOOP (Mi & Yang): storage by number of FIBs against the baselines (Fig. 9/10), update time
//! (Fig. 13), FIB insertion and deletion (Fig. 14) and the 18-table headline.
//!
//! The many-table sets are the directories of `shared/data/multi` (one table per file, the
//! `all_peers` union left out); next hops are interned across the tables of a set.

use super::util::{f, kib, median_ms, percentile};
use super::{Study, StudyInput};
use crate::replay::load_updates;
use fibforge::multi::baselines;
use fibforge::multi::generate::{Perturbation, perturbed_tables};
use fibforge::multi::loop_::{Loop, LoopConfig};
use fibforge::multi::sail_m::SailM;
use fibforge::multi::{MultiLookup, PerTable};
use fibforge::registry::AlgoSpec;
use fibforge::{Interner, Rib};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The real many-table sets, in the order the headline takes them.
const SETS: [&str; 3] = ["internet2", "ris2000-v4", "routeviews2019-v4-partial"];

/// Most prefixes (all tables together) a SAIL_M row is built for.
const SAIL_M_MAX_PREFIXES: usize = 5_000_000;

/// The IPv4 tables of one set directory, files in sorted order.
pub fn load_set(dir: &Path) -> Result<Vec<Rib<u32>>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|f| !f.to_string_lossy().contains("all_peers"))
        .collect();
    files.sort();
    let mut hops = Interner::<String>::new();
    let mut out = Vec::new();
    for f in &files {
        let t = fibforge_io::read_table(f, &Default::default()).map_err(|e| e.error.to_string())?;
        let mut rib = Rib::new();
        for (p, h) in t.v4.iter() {
            rib.insert(p, hops.intern_ref(t.hop_value(h)).map_err(|e| e.to_string())?);
        }
        if !rib.is_empty() {
            out.push(rib);
        }
    }
    Ok(out)
}

fn sets(input: &StudyInput) -> Vec<(String, Vec<Rib<u32>>)> {
    let Some(shared) = &input.shared else { return Vec::new() };
    SETS.iter()
        .filter_map(|s| load_set(&shared.join("multi").join(s)).ok().map(|r| (s.to_string(), r)))
        .filter(|(_, r)| !r.is_empty())
        .collect()
}

/// The first input table with IPv4 routes, perturbed into `n` tables (seeded).
fn perturbed(input: &StudyInput, n: usize) -> Result<(String, Vec<Rib<u32>>), String> {
    let t = input.tables.iter().find(|t| !t.v4.is_empty()).ok_or("no IPv4 table")?;
    let ribs = perturbed_tables(&t.v4, n, Perturbation::default(), input.seed);
    Ok((format!("{} perturbed", t.info.name), ribs))
}

/// The columns of [`storage_row`] (the LOOP paper's Fig. 9/10 measures and its comparators).
const STORAGE_COLUMNS: &[&str] = &[
    "Set",
    "N",
    "Prefixes",
    "S_loop [KiB]",
    "S_pmt [KiB]",
    "S_pmt2 [KiB]",
    "B/prefix",
    "SAIL_M [KiB]",
    "Poptrie per table [KiB]",
    "Merged trie [KiB]",
    "Trie Overlap [KiB]",
    "Trie Braiding [KiB]",
    "Bitmap trie [KiB]",
];

/// Fig. 9/10: bytes of LOOP (`S_loop`, `S_pmt`, `S_pmt2`) against SAIL_M and one Poptrie per
/// table, for the first N tables of every set.
pub fn fig9(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let mut st = Study::new(
        "loop-fig9",
        "LOOP Fig. 9/10: storage by number of FIBs".into(),
        STORAGE_COLUMNS,
    );
    let mut all = sets(input);
    let (name, p) = perturbed(input, 4)?;
    all.push((name, p));
    for (name, ribs) in &all {
        for n in 1..=ribs.len() {
            log(&format!("loop-fig9: {name} N={n}"));
            st.row(storage_row(name, &ribs[..n])?);
        }
    }
    st.notes.push(
        "S_loop: LOOP's bytes (memory_bytes); S_pmt: its PortMapTable; S_pmt2: the \
         PortMapTable with bitmap compression (compress_pmt). Perturbed set: 2% withdrawn, 2% \
         more-specifics, 5% next hops changed per table. Comparators (LOOP §V, \
         `fibforge::multi::baselines`): Merged Trie (one next-hop vector per node, no leaf \
         pushing), Trie Overlap, Trie Braiding (greedy), Bitmap-assisted Trie."
            .into(),
    );
    Ok(vec![st])
}

fn storage_row(name: &str, ribs: &[Rib<u32>]) -> Result<Vec<String>, String> {
    let prefixes: usize = ribs.iter().map(Rib::len).sum();
    let cfg = LoopConfig::default();
    let l = Loop::build(ribs.to_vec(), &cfg).map_err(|e| e.to_string())?;
    let z = Loop::build(ribs.to_vec(), &LoopConfig { compress_pmt: true, ..cfg })
        .map_err(|e| e.to_string())?;
    // SAIL_M's level-32 chunks grow with every table's long routes; past a few million
    // prefixes its build takes longer than the suite allows (the row says "-").
    let sail = (prefixes <= SAIL_M_MAX_PREFIXES)
        .then(|| SailM::build(ribs, &Default::default()).ok())
        .flatten()
        .map_or("-".into(), |m| kib(m.memory_bytes() as u64));
    let per = PerTable::build(ribs, &AlgoSpec::named("poptrie"))
        .map_or("-".into(), |p| kib(p.memory_bytes() as u64));
    let bytes = l.memory_bytes();
    let head: [String; 9] = [
        name.into(),
        ribs.len().to_string(),
        prefixes.to_string(),
        kib(bytes as u64),
        kib(l.stats().pmt_bytes as u64),
        kib(z.stats().pmt_bytes as u64),
        f(bytes as f64 / prefixes as f64, 3),
        sail,
        per,
    ];
    Ok(head.into_iter().chain(BASELINES.iter().map(|b| baseline_kib(b, ribs))).collect())
}

/// LOOP's comparators (§V) in Fig. 9/10's storage columns.
const BASELINES: [&str; 4] = ["merged_trie", "trie_overlap", "trie_braiding", "bitmap_trie"];

/// KiB of the comparator `name` over `ribs`, or why it could not be built.
fn baseline_kib(name: &str, ribs: &[Rib<u32>]) -> String {
    match baselines::build(&AlgoSpec::named(name), ribs) {
        Some(Ok(m)) => kib(m.memory_bytes() as u64),
        Some(Err(e)) => format!("- ({e})"),
        None => "-".into(),
    }
}

/// The headline: up to 18 real tables (the sets in order, topped up with perturbed copies of
/// the input table), bytes per prefix.
pub fn headline(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let mut ribs: Vec<Rib<u32>> = sets(input).into_iter().flat_map(|(_, r)| r).take(18).collect();
    let real = ribs.len();
    if ribs.len() < 18 {
        ribs.extend(perturbed(input, 18 - ribs.len())?.1);
    }
    log(&format!("loop-headline: {real} real tables + {} perturbed", 18 - real));
    let mut st = Study::new(
        "loop-headline",
        "LOOP headline: 18 FIBs in one structure".into(),
        STORAGE_COLUMNS,
    );
    st.row(storage_row(&format!("{real} real + {} perturbed", 18 - real), &ribs)?);
    drop(ribs);
    let (name, ribs) = perturbed(input, 18)?;
    log("loop-headline: 18 perturbed copies of the input table");
    st.row(storage_row(&name, &ribs)?);
    st.notes.push(format!(
        "Real tables: the files of shared/data/multi/{{{}}} in that order; the rest are \
         perturbed copies of the input table.",
        SETS.join(",")
    ));
    Ok(vec![st])
}

/// Fig. 13: the update stream into VRF 0 of two perturbed tables, one update at a time.
pub fn fig13(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let path = input.updates.as_ref().ok_or("loop-fig13 needs an update stream (--updates)")?;
    let mut hops = fibforge_io::Table::new(&Default::default());
    let ups = load_updates(path, &mut hops).map_err(|e| e.to_string())?;
    let (name, ribs) = perturbed(input, 2)?;
    let mut st = Study::new(
        "loop-fig13",
        format!("LOOP Fig. 13: {} updates into VRF 0 of 2 tables ({name})", ups.v4.len()),
        &[
            "Group",
            "Optimization 1",
            "Mean [ns]",
            "p50 [ns]",
            "p99 [ns]",
            "Updates/s [M]",
            "Modified pointers 1/2/≥3 [%]",
        ],
    );
    for (group, opt1) in [(64, true), (64, false)] {
        log(&format!("loop-fig13: group {group}, optimization 1 {opt1}"));
        let cfg = LoopConfig { group, optimization1: opt1, ..LoopConfig::default() };
        let mut l = Loop::build(ribs.clone(), &cfg).map_err(|e| e.to_string())?;
        let (mut ns, mut ptrs) = (Vec::with_capacity(ups.v4.len()), [0u64; 3]);
        for &(p, hop) in &ups.v4 {
            let before = l.stats().modified_pointers;
            let t0 = Instant::now();
            match hop {
                Some(h) => l.insert(0, p, h).map(|_| ()),
                None => l.remove(0, &p).map(|_| ()),
            }
            .map_err(|e| e.to_string())?;
            ns.push(t0.elapsed().as_nanos() as f64);
            let changed = (l.stats().modified_pointers - before) as usize;
            if changed > 0 {
                ptrs[(changed - 1).min(2)] += 1;
            }
        }
        let mean = ns.iter().sum::<f64>() / ns.len().max(1) as f64;
        let total = ptrs.iter().sum::<u64>().max(1) as f64;
        let share: Vec<String> = ptrs.iter().map(|&c| f(100.0 * c as f64 / total, 1)).collect();
        st.row(vec![
            group.to_string(),
            opt1.to_string(),
            f(mean, 0),
            f(percentile(&mut ns, 0.5), 0),
            f(percentile(&mut ns, 0.99), 0),
            f(1e3 / mean, 2),
            share.join(" / "),
        ]);
    }
    st.notes.push("Time: one `insert`/`remove` call (RIB and structure), wall clock.".into());
    Ok(vec![st])
}

/// Fig. 14: f(n) build of the first n FIBs, g(n) deleting FIB n+1, h(n) inserting FIB n.
pub fn fig14(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let mut st = Study::new(
        "loop-fig14",
        "LOOP Fig. 14: time to build, insert and delete FIBs".into(),
        &["Set", "n", "f(n) build [ms]", "g(n) delete FIB n+1 [ms]", "h(n) insert FIB n [ms]"],
    );
    let mut all = sets(input);
    all.truncate(1);
    all.push(perturbed(input, 4)?);
    let cfg = LoopConfig::default();
    for (name, ribs) in &all {
        for n in 1..ribs.len() {
            log(&format!("loop-fig14: {name} n={n}"));
            let (build, _) = median_ms(3, || Loop::build(ribs[..n].to_vec(), &cfg));
            let mut g = Vec::new();
            let mut h = Vec::new();
            for _ in 0..3 {
                let mut l = Loop::build(ribs[..=n].to_vec(), &cfg).map_err(|e| e.to_string())?;
                let t0 = Instant::now();
                l.remove_table(n as u32).map_err(|e| e.to_string())?;
                g.push(t0.elapsed().as_secs_f64() * 1e3);
                if n >= 2 {
                    let mut l =
                        Loop::build(ribs[..n - 1].to_vec(), &cfg).map_err(|e| e.to_string())?;
                    let rib = ribs[n - 1].clone();
                    let t0 = Instant::now();
                    l.add_table(rib).map_err(|e| e.to_string())?;
                    h.push(t0.elapsed().as_secs_f64() * 1e3);
                }
            }
            let m =
                |v: &mut Vec<f64>| if v.is_empty() { "-".into() } else { f(percentile(v, 0.5), 1) };
            st.row(vec![name.clone(), n.to_string(), f(build, 1), m(&mut g), m(&mut h)]);
        }
    }
    st.notes.push(
        "Medians of 3; the RIB clone handed to `add_table` is made outside the timer.".into(),
    );
    Ok(vec![st])
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibforge::NextHop;

    #[test]
    fn storage_rows_are_as_wide_as_the_storage_columns() {
        let rib: Rib<u32> = [("10.0.0.0/8", 1), ("10.1.0.0/16", 2)]
            .iter()
            .map(|&(p, h)| (p.parse().unwrap(), NextHop::from_index(h)))
            .collect();
        let row = storage_row("t", &[rib.clone(), rib]).unwrap();
        assert_eq!(row.len(), STORAGE_COLUMNS.len(), "{row:?}");
    }
}
