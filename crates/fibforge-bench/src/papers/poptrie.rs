//! Poptrie (Asai & Ohara, SIGCOMM 2015): Table 2, §4.9 updates, Fig. 7.

use super::util::{f, median_ms, mib, percentile, random_rate, shuffled};
use super::{Study, StudyInput};
use crate::replay::load_updates;
use fibforge::algo::poptrie::{Config, Poptrie, UpdateCounts};
use fibforge::registry::{self, AlgoSpec};
use fibforge::{Compile, Incremental, Rib};
use rayon::prelude::*;
use std::time::Instant;

/// Table 2's variants: label and spec; `s` is added per row. The paper's rows are basic and
/// leafvec without aggregation and the full Poptrie; basic with aggregation is ours.
const VARIANTS: [(&str, &str); 4] = [
    ("Poptrie (basic) without route aggregation", "poptrie:leafvec=off,aggregate=off"),
    ("Poptrie (leafvec) without route aggregation", "poptrie:aggregate=off"),
    ("Poptrie (basic)", "poptrie:leafvec=off"),
    ("Poptrie", "poptrie"),
];

/// Table 2: inodes, leaves, memory, compilation and random-traffic rate by variant and `s`.
pub fn table2(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let mut out = Vec::new();
    for t in input.tables.iter().filter(|t| !t.v4.is_empty()) {
        let cols = ["Name and options", "s", "# of inodes", "# of leaves", "Mem. [MiB]"];
        let mut st = Study::new(
            "poptrie-table2",
            format!("Poptrie LoadedTable 2 on {} ({} IPv4 routes)", t.info.name, t.v4.len()),
            &[&cols[..], &["Compilation [ms]", "Rate [Mlps]"]].concat(),
        );
        let radix = registry::build(&AlgoSpec::named("radix"), &t.v4).map_err(|e| e.to_string())?;
        let rate = random_rate(radix.as_ref(), input.seconds, input.seed);
        let mem = mib(radix.memory_bytes() as u64);
        st.row(vec![
            "Radix".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            mem,
            "-".into(),
            f(rate, 1),
        ]);
        for (label, spec) in VARIANTS {
            for s in [0, 16, 18] {
                let spec = spec.parse::<AlgoSpec>().map_err(|e| e.to_string())?.with("s", s);
                let cfg = match fibforge::algo::poptrie::Config::from_spec::<u32>(&spec) {
                    Ok(cfg) => cfg,
                    _ => {
                        log(&format!("poptrie-table2: {spec} not built by this version, skipped"));
                        break;
                    }
                };
                log(&format!("poptrie-table2: {} {spec}", t.info.name));
                st.row(variant_row(label, s, &t.v4, &cfg, input)?);
            }
        }
        st.notes.push(format!(
            "Compilation: median of 3 builds from the RIB. Rate: uniformly random IPv4 \
             addresses drawn in the loop, one thread, {:.2} s, wall clock.",
            input.seconds
        ));
        out.push(st);
    }
    Ok(out)
}

fn variant_row(
    label: &str,
    s: u32,
    rib: &Rib<u32>,
    cfg: &Config,
    input: &StudyInput,
) -> Result<Vec<String>, String> {
    let (ms, p) = median_ms(3, || Poptrie::<u32>::compile(rib, cfg));
    let p = p.map_err(|e| e.to_string())?;
    let stats = p.stats();
    let rate = random_rate(&p, input.seconds, input.seed);
    Ok(vec![
        label.into(),
        s.to_string(),
        stats.inodes.to_string(),
        stats.leaves.to_string(),
        mib(stats.memory_bytes as u64),
        f(ms, 1),
        f(rate, 1),
    ])
}

/// §4.9: the update stream replayed into Poptrie18 (RIB and structure, µs per update), and the
/// whole table inserted one prefix at a time in random order (µs per prefix).
pub fn updates(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let cfg = Config { s: 18, ..Config::for_family::<u32>() };
    let mut st = Study::new(
        "poptrie-updates",
        "Poptrie §4.9: update time of Poptrie18".into(),
        &["LoadedTable", "Workload", "Updates", "Total [ms]", "Mean [µs]", "p50 [µs]", "p99 [µs]"],
    );
    let mut rep = replacements_study();
    for t in input.tables.iter().filter(|t| !t.v4.is_empty()) {
        if let Some(path) = &input.updates {
            let mut hops = fibforge_io::LoadedTable::new(&Default::default());
            let ups = load_updates(path, &mut hops).map_err(|e| e.to_string())?;
            log(&format!("poptrie-updates: {} updates of {}", ups.v4.len(), path.display()));
            let mut rib = t.v4.clone();
            let mut p = Poptrie::compile(&rib, &cfg).map_err(|e| e.to_string())?;
            let before = p.update_counts();
            let mut ns = Vec::with_capacity(ups.v4.len());
            for &(prefix, hop) in &ups.v4 {
                let t0 = Instant::now();
                match hop {
                    Some(h) => rib.insert(prefix, h),
                    None => rib.remove(&prefix),
                };
                p.apply_changes(&rib, &[prefix]).map_err(|e| e.to_string())?;
                ns.push(t0.elapsed().as_nanos() as f64);
            }
            let name = path.file_name().map_or(String::new(), |n| n.to_string_lossy().into());
            let what = format!("stream {name}");
            rep.row(counts_row(&t.info.name, &what, ns.len(), &p.update_counts().since(&before)));
            st.row(timing_row(&t.info.name, &what, &mut ns));
        }
        log(&format!("poptrie-updates: {} in random order", t.info.name));
        let mut rib = Rib::new();
        let mut p = Poptrie::compile(&rib, &cfg).map_err(|e| e.to_string())?;
        let mut ns = Vec::with_capacity(t.v4.len());
        for (prefix, hop) in shuffled(&t.v4, input.seed) {
            let t0 = Instant::now();
            rib.insert(prefix, hop);
            p.apply_changes(&rib, &[prefix]).map_err(|e| e.to_string())?;
            ns.push(t0.elapsed().as_nanos() as f64);
        }
        let what = "full table, random order";
        rep.row(counts_row(&t.info.name, what, ns.len(), &p.update_counts()));
        st.row(timing_row(&t.info.name, what, &mut ns));
    }
    st.notes.push(
        "Each update is applied to the RIB (radix tree) and then to Poptrie18 \
         (`apply_changes` with the one changed prefix); the time covers both, as the paper's \
         2.51 µs per update does."
            .into(),
    );
    Ok(vec![st, rep])
}

/// §4.9's second figure: objects replaced per update, with the paper's row first.
fn replacements_study() -> Study {
    let mut rep = Study::new(
        "poptrie-updates",
        "Poptrie §4.9: objects replaced per update in Poptrie18".into(),
        &[
            "LoadedTable",
            "Workload",
            "Updates",
            "Top-level (prefix ≤ s)",
            "Dir entries",
            "Leaves (bytes)",
            "Inodes (bytes)",
            "Array copies",
        ],
    );
    let paper = ["REAL-Tier1-A (paper)", "RV-linx-p52, 1 hour", "23446", "0.041", "-"];
    let paper = [&paper[..], &["6.05 (12.1)", "0.48 (11.52)", "-"]].concat();
    rep.row(paper.iter().map(|c| c.to_string()).collect());
    rep.notes.push(
        "Per update, from `Poptrie::update_counts` (kept by the writer when it publishes an \
         entry; patches abandoned for a full arena are not counted). Top-level: updates of \
         a prefix no longer than s=18, for which the paper replaces the whole 2^18 array; \
         this build stores only the entries inside the prefix (counted in Dir entries, as is \
         the one new root every deeper update stores). Leaves and inodes: records written \
         (bytes in brackets). Array copies: total times the arrays were copied whole (grown, \
         widened or recompiled to compact)."
            .into(),
    );
    rep
}

fn counts_row(table: &str, what: &str, n: usize, c: &UpdateCounts) -> Vec<String> {
    let per = |x: u64| f(x as f64 / n.max(1) as f64, 3);
    let with_bytes = |x: u64, b: u64| format!("{} ({})", per(x), f(b as f64 / n.max(1) as f64, 2));
    vec![
        table.into(),
        what.into(),
        n.to_string(),
        per(c.top_level),
        per(c.dir_entries),
        with_bytes(c.leaves, c.leaf_bytes),
        with_bytes(c.inodes, c.inode_bytes),
        c.array_copies.to_string(),
    ]
}

fn timing_row(table: &str, what: &str, ns: &mut [f64]) -> Vec<String> {
    let total: f64 = ns.iter().sum();
    let n = ns.len();
    vec![
        table.into(),
        what.into(),
        n.to_string(),
        f(total / 1e6, 1),
        f(total / n.max(1) as f64 / 1e3, 2),
        f(percentile(ns, 0.5) / 1e3, 2),
        f(percentile(ns, 0.99) / 1e3, 2),
    ]
}

/// Addresses drawn for Fig. 7 (the paper walks all 2^32).
pub const FIG7_SAMPLES: usize = 1 << 22;

/// Fig. 7: counts of (matched prefix length, binary radix depth) over random addresses, as a
/// PNG heat map and a table of the depth's spread per matched length.
pub fn fig7(input: &StudyInput, log: &mut dyn FnMut(&str)) -> Result<Vec<Study>, String> {
    let mut out = Vec::new();
    for t in input.tables.iter().filter(|t| !t.v4.is_empty()) {
        log(&format!("poptrie-fig7: {} ({FIG7_SAMPLES} addresses)", t.info.name));
        let grid = depth_grid(&t.v4, FIG7_SAMPLES, input.seed);
        let mut st = Study::new(
            "poptrie-fig7",
            format!("Poptrie Fig. 7 on {}: binary radix depth by matched length", t.info.name),
            &["Matched length", "Share [%]", "Depth p50", "Depth max", "Deeper than length [%]"],
        );
        for (len, row) in grid.iter().enumerate() {
            let n: u64 = row.iter().sum();
            if n == 0 {
                continue;
            }
            let deeper: u64 = row.iter().skip(len + 1).sum();
            let median = quantile_of(row, n / 2);
            let max = row.iter().rposition(|&c| c > 0).unwrap_or(0);
            st.row(vec![
                len.to_string(),
                f(100.0 * n as f64 / FIG7_SAMPLES as f64, 2),
                median.to_string(),
                max.to_string(),
                f(100.0 * deeper as f64 / n as f64, 1),
            ]);
        }
        st.notes.push(format!(
            "{FIG7_SAMPLES} uniformly random addresses (seed {}); addresses with no route are \
             left out. Depth: the deepest node of the binary trie of the routes on the \
             address's path.",
            input.seed
        ));
        if let Some(dir) = &input.out {
            let file = dir.join(format!("fig7-{}.png", t.info.name));
            super::heatmap::write(&grid, &file, &t.info.name)?;
            st.notes.push(format!("Heat map: `{}`.", file.display()));
        }
        out.push(st);
    }
    Ok(out)
}

/// `grid[len][depth]`: random addresses whose longest match has length `len` and whose
/// binary radix depth is `depth`.
pub fn depth_grid(rib: &Rib<u32>, samples: usize, seed: u64) -> Vec<[u64; 33]> {
    let chunks = 64;
    let per = samples.div_ceil(chunks);
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut rng = crate::rng::XorShift64::new(seed ^ (c as u64 + 1));
            let mut g = vec![[0u64; 33]; 33];
            for _ in 0..per.min(samples.saturating_sub(c * per)) {
                let a = rng.next_u64() as u32;
                if let Some((p, _)) = rib.longest_match(a) {
                    g[p.len() as usize][rib.trie_depth(a).min(32) as usize] += 1;
                }
            }
            g
        })
        .reduce(
            || vec![[0u64; 33]; 33],
            |mut a, b| {
                for (ra, rb) in a.iter_mut().zip(&b) {
                    for (x, y) in ra.iter_mut().zip(rb) {
                        *x += y;
                    }
                }
                a
            },
        )
}

/// The index where the running count of `row` first exceeds `k`.
fn quantile_of(row: &[u64], k: u64) -> usize {
    let mut acc = 0;
    for (i, &c) in row.iter().enumerate() {
        acc += c;
        if acc > k {
            return i;
        }
    }
    row.len() - 1
}
