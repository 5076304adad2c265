//! LOOP (Mi & Yang): storage by number of FIBs against the baselines (Fig. 9/10) and the
//! 18-table headline; update time (Fig. 13) and FIB insertion and deletion (Fig. 14) are in
//! [`super::loop_updates`].
//!
//! The many-table sets are the directories of `shared/data/multi` (one table per file, the
//! `all_peers` union left out); next hops are interned across the tables of a set.

use super::util::{f, kib};
use super::{Study, StudyInput};
use fibforge::multi::braiding::TrieBraiding;
use fibforge::multi::generate::{Perturbation, perturbed_tables};
use fibforge::multi::loop_;
use fibforge::multi::loop_::Loop;
use fibforge::multi::sail_m::SailM;
use fibforge::multi::{MultiLookup, PerTable};
use fibforge::registry::AlgoSpec;
use fibforge::{Interner, Rib};
use std::path::{Path, PathBuf};

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

pub(super) fn sets(input: &StudyInput) -> Vec<(String, Vec<Rib<u32>>)> {
    let Some(shared) = &input.shared else { return Vec::new() };
    SETS.iter()
        .filter_map(|s| load_set(&shared.join("multi").join(s)).ok().map(|r| (s.to_string(), r)))
        .filter(|(_, r)| !r.is_empty())
        .collect()
}

/// The first input table with IPv4 routes, perturbed into `n` tables (seeded).
pub(super) fn perturbed(input: &StudyInput, n: usize) -> Result<(String, Vec<Rib<u32>>), String> {
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
    "S_fix [KiB]",
    "S_pmt [KiB]",
    "S_pmt2 [KiB]",
    "PMT entries",
    "B/prefix",
    "SAIL_M [KiB]",
    "Poptrie per table [KiB]",
    "Merged trie [KiB]",
    "Trie Overlap [KiB]",
    "Trie Braiding [KiB]",
    "Braiding",
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
    st.notes.push(STORAGE_NOTE.into());
    Ok(vec![st])
}

/// What the storage columns mean (Fig. 9/10 and the headline).
const STORAGE_NOTE: &str = "S_loop: LOOP's bytes in use (memory_bytes); S_fix = S_loop - S_pmt \
    (the paper's term: pointers, codewords, lookup entries, sparse chunks); S_pmt: its \
    PortMapTable, cells one byte per table while the table has at most 255 next hops, two up \
    to 65,535 (the paper: one byte, its port numbers), with each table's list of next hops (4 \
    bytes each); S_pmt2: the PortMapTable with bitmap compression (compress_pmt); PMT \
    entries: distinct next-hop combinations. Perturbed set: 2% withdrawn, 2% more-specifics, \
    5% next hops changed per table. Comparators (LOOP §V, `fibforge::registry::MANY_TABLES`): \
    Merged Trie (one next-hop vector per node, no leaf pushing), Trie Overlap, Trie Braiding \
    (braid=optimal; Braiding: tables the exact program braided within its budget of 4 x \
    nodes + 1024 memoised pairs, those the one-level lookahead braided, and whether the \
    braided trie or the plain merge, when smaller, was kept), Bitmap-assisted Trie.";

fn storage_row(name: &str, ribs: &[Rib<u32>]) -> Result<Vec<String>, String> {
    let prefixes: usize = ribs.iter().map(Rib::len).sum();
    let cfg = loop_::Config::default();
    let l = Loop::build(ribs.to_vec(), &cfg).map_err(|e| e.to_string())?;
    let z = Loop::build(ribs.to_vec(), &loop_::Config { compress_pmt: true, ..cfg })
        .map_err(|e| e.to_string())?;
    // SAIL_M's level-32 chunks grow with every table's long routes; past a few million
    // prefixes its build takes longer than the suite allows (the row says "-").
    let sail = (prefixes <= SAIL_M_MAX_PREFIXES)
        .then(|| SailM::build(ribs, &Default::default()).ok())
        .flatten()
        .map_or("-".into(), |m| kib(m.memory_bytes() as u64));
    let per = PerTable::build(ribs, &AlgoSpec::named("poptrie"))
        .map_or("-".into(), |p| kib(p.memory_bytes() as u64));
    let (bytes, stats) = (l.memory_bytes(), l.stats());
    let braiding = TrieBraiding::build(ribs, &Default::default());
    let head: [String; 11] = [
        name.into(),
        ribs.len().to_string(),
        prefixes.to_string(),
        kib(bytes as u64),
        kib((bytes - stats.pmt_bytes) as u64),
        kib(stats.pmt_bytes as u64),
        kib(z.stats().pmt_bytes as u64),
        stats.pmt_entries.to_string(),
        f(bytes as f64 / prefixes as f64, 3),
        sail,
        per,
    ];
    let tail = [
        baseline_kib("merged_trie", ribs),
        baseline_kib("trie_overlap", ribs),
        braiding.as_ref().map_or_else(|e| format!("- ({e})"), |b| kib(b.memory_bytes() as u64)),
        braiding.map_or("-".into(), |b| b.outcome().to_string()),
        baseline_kib("bitmap_trie", ribs),
    ];
    Ok(head.into_iter().chain(tail).collect())
}

/// KiB of the comparator `name` over `ribs`, or why it could not be built.
fn baseline_kib(name: &str, ribs: &[Rib<u32>]) -> String {
    match fibforge::registry::build_many(&AlgoSpec::named(name), ribs) {
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
    st.notes.push(
        "Paper (§V-B, Fig. 9-11): 18 FIBs of about 7 M prefixes in 4.6 MB, 0.673 B/prefix; \
         S_pmt 32.66 % of S_loop at one byte per cell (so about 1.5 MB, S_fix about 3.1 MB); \
         S_pmt2 about 50 % of S_pmt."
            .into(),
    );
    st.notes.push(STORAGE_NOTE.into());
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
