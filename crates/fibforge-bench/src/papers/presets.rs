//! `fibforge bench --preset NAME`: the papers' experiments as bench settings.
//!
//! A preset fixes the tables (unless `--table` is given), algorithms, traffic, call modes and
//! thread counts of one experiment. A preset made of several (`bloomfwd`) runs each part in
//! turn into one report.

use super::locate::{DEFAULT_TABLES, locate};
use crate::runner::Settings;
use crate::timing::Mode;
use crate::traffic::Traffic;
use anyhow::bail;
use fibforge::registry::{self, AlgoSpec};
use std::path::PathBuf;

/// Every preset with the experiment it reproduces.
pub const PRESETS: &[(&str, &str)] = &[
    ("poptrie-table3", "Poptrie Table 3: every algorithm, random traffic, IPv4"),
    ("poptrie-table4", "Poptrie Table 4: cycles per lookup percentiles (4M samples)"),
    ("poptrie-traffic", "Poptrie §4.2/§4.5: random, sequential and repeated traffic"),
    ("poptrie-fig8", "Poptrie Fig. 8: thread scaling"),
    ("poptrie-table5", "Poptrie Table 5: SYN1 and SYN2 growth tables"),
    ("poptrie-ipv6", "Poptrie §4.10: IPv6"),
    ("sail-traces", "SAIL: random and FIB-derived traces with Zipf locality"),
    ("bloomfwd-fpr", "Bloomfwd Fig. 1 / Table 5: false-positive rate × hash function"),
    (
        "bloomfwd-threads",
        "Bloomfwd Fig. 2: batch lookups on every thread, against Baseline and MIHT",
    ),
    ("bloomfwd-matching", "Bloomfwd Fig. 3: share of addresses that match a route"),
    ("bloomfwd-traffic", "Bloomfwd Fig. 4: random against real-address trace traffic"),
    ("bloomfwd-tables", "Bloomfwd Fig. 5/6: IPv4 tables of different sizes"),
    ("bloomfwd-ipv6", "Bloomfwd Fig. 7: IPv6 with and without DPCPE levels"),
    ("bloomfwd", "all the bloomfwd-* experiments in one report"),
    ("poptrie-table2", "Poptrie Table 2: inodes, leaves, memory, compile, rate by option and s"),
    ("poptrie-updates", "Poptrie §4.9: µs per update (stream) and per prefix (random order)"),
    ("poptrie-fig7", "Poptrie Fig. 7: binary radix depth by matched length (heat map PNG)"),
    ("poptrie-table3-all", "Poptrie Table 3 on every table in data/ and shared/data/tables"),
    ("sail-memory", "SAIL: on-chip (bitmap) and off-chip bytes, update speed"),
    ("sail-12fibs", "SAIL: lookup rates on up to 12 FIBs, random and prefix-based traces"),
    ("cpe-table3", "CPE Table 3: 8-8-8-8 trie nodes, memory, build and leaf-push time"),
    ("cpe-tables", "CPE Tables 5-8: memory by levels, fixed and variable strides, packed"),
    ("cpe-lookup", "CPE Table 10/11: lookup rates of the expanded tries and binary search"),
    ("cpe-table11", "CPE Table 11: binary search on lengths, 3 levels, first level an array"),
    ("bloomfwd-table3", "Bloomfwd Table 3: keys per level before and after CPE"),
    ("bloomfwd-fig5", "Bloomfwd Fig. 5: one table subsampled to 1/2 ... 1/16 (FILE#subK)"),
    ("loop-fig9", "LOOP Fig. 9/10: storage by number of FIBs against the baselines"),
    ("loop-fig12", "LOOP Fig. 12: lookup speed against the baselines (a --multi run)"),
    ("loop-fig13", "LOOP Fig. 13: update time and updates/s"),
    ("loop-fig14", "LOOP Fig. 14: FIB insertion and deletion time"),
    ("loop-headline", "LOOP headline: 18 tables, bytes per prefix"),
    ("papers", "every preset above but loop-fig12, in one report"),
];

/// Presets that run as their own kind of bench and are left out of `papers`.
const NOT_IN_PAPERS: [&str; 4] = ["bloomfwd", "papers", "loop-fig12", "poptrie-table3-all"];

/// The parts of a preset: itself, or the experiments a compound preset runs.
pub fn parts(name: &str) -> anyhow::Result<Vec<&'static str>> {
    if name == "bloomfwd" {
        return Ok(PRESETS.iter().map(|p| p.0).filter(|n| n.starts_with("bloomfwd-")).collect());
    }
    if name == "papers" {
        return Ok(PRESETS.iter().map(|p| p.0).filter(|n| !NOT_IN_PAPERS.contains(n)).collect());
    }
    match PRESETS.iter().find(|p| p.0 == name) {
        Some(p) => Ok(vec![p.0]),
        None => {
            let names: Vec<_> = PRESETS.iter().map(|p| p.0).collect();
            bail!("unknown preset '{name}' (known: {})", names.join(", "))
        }
    }
}

/// Applies one (non-compound) preset; `paths` are the tables given with `--table`.
pub fn apply(name: &str, s: &mut Settings, paths: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    match name {
        "poptrie-table3" | "poptrie-table4" | "poptrie-traffic" | "poptrie-table5" => {
            default_tables(paths, &[0])?;
            single_thread(s, &[Traffic::Random]);
            if name == "poptrie-table4" {
                s.cycle_samples = 1 << 22;
            }
            if name == "poptrie-traffic" {
                s.traffic_v4 = vec![Traffic::Random, Traffic::Sequential, Traffic::Repeated];
            }
            if name == "poptrie-table5" {
                *paths = paths.iter().flat_map(|p| growth_tables(p)).collect();
            }
        }
        "poptrie-fig8" => {
            default_tables(paths, &[0])?;
            s.traffic_v4 = vec![Traffic::Random];
            s.modes = vec![Mode::Single];
        }
        "poptrie-ipv6" => {
            default_tables(paths, &[1])?;
            single_thread(s, &[Traffic::Random, Traffic::InPrefix]);
        }
        "sail-traces" => {
            default_tables(paths, &[0])?;
            single_thread(s, &[Traffic::Random, "zipf:s=1.1:flows=64:burst=16".parse()?]);
            s.modes = vec![Mode::Single, Mode::Batch];
        }
        "bloomfwd-table3" | "bloomfwd-fig5" => apply_more(name, s, paths)?,
        n if n.starts_with("bloomfwd-") => apply_bloomfwd(name, s, paths)?,
        _ => apply_more(name, s, paths)?,
    }
    Ok(())
}

/// The presets added for the papers pages: studies (tables chosen here, measured by
/// `fibforge_bench::papers`) and rate presets over many tables.
fn apply_more(name: &str, s: &mut Settings, paths: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    match name {
        "poptrie-table2" | "poptrie-updates" | "poptrie-fig7" | "sail-memory" => {
            default_tables(paths, &[0])?
        }
        n if n.starts_with("loop-") => default_tables(paths, &[0])?,
        "cpe-table3" | "cpe-tables" | "cpe-table11" | "bloomfwd-table3" => {
            if paths.is_empty() {
                *paths = shared_or_default(&CPE_TABLES, DEFAULT_TABLES[0])?;
            }
        }
        "cpe-lookup" => {
            if paths.is_empty() {
                *paths = shared_or_default(&CPE_TABLES[..1], DEFAULT_TABLES[0])?;
            }
            single_thread(s, &[Traffic::Random]);
            let specs = ["cpe_fixed:levels=3", "cpe_fixed:levels=4", "cpe_var:levels=3"];
            let mut algos: Vec<AlgoSpec> =
                specs.iter().map(|a| a.parse()).collect::<Result<_, _>>()?;
            // Lulea: the structure CPE's Table 2 compares with.
            algos.extend(available(&["cpe_var", "bsl", "radix", "lulea"]));
            s.algos =
                Some(algos.into_iter().filter(|a| registry::info(&a.name).is_some()).collect());
        }
        "poptrie-table3-all" => {
            if paths.is_empty() {
                let mut all = shared_or_default(&ALL_TABLES, DEFAULT_TABLES[0])?;
                all.extend(DEFAULT_TABLES.iter().filter_map(|t| locate(t).ok()));
                *paths = all;
            }
            single_thread(s, &[Traffic::Random]);
        }
        "sail-12fibs" => {
            if paths.is_empty() {
                let mut all = shared_or_default(&ALL_TABLES[..7], DEFAULT_TABLES[0])?;
                all.extend(locate(DEFAULT_TABLES[0]));
                all.truncate(12);
                *paths = all;
            }
            single_thread(s, &[Traffic::Random, Traffic::InPrefix]);
            // With the structures the SAIL paper compares with: LC-trie, Lulea, Tree Bitmap.
            let names = ["sail_b", "sail_u", "sail_l", "poptrie", "dir24_8", "lctrie", "lulea"];
            s.algos = Some(available(&[&names[..], &["treebitmap4", "treebitmap6"]].concat()));
        }
        "bloomfwd-fig5" => {
            default_tables(paths, &[0])?;
            let whole = paths.clone();
            for k in [2, 4, 8, 16] {
                paths
                    .extend(whole.iter().map(|p| PathBuf::from(format!("{}#sub{k}", p.display()))));
            }
            single_thread(s, &[Traffic::Random]);
            s.modes = vec![Mode::Single, Mode::Batch];
            s.algos = Some(available(&["bloom_naive", "bloom_base", "bloomfwd", "miht"]));
        }
        "loop-fig12" => bail!("loop-fig12 is a --multi run (handled before single tables)"),
        _ => bail!("unknown preset '{name}'"),
    }
    Ok(())
}

/// The CPE paper's tables: Mae-West first, then the other IPv4 tables of shared data.
const CPE_TABLES: [&str; 5] = [
    "tables/v4/maewest.txt.gz",
    "tables/v4/ris2002-as1853.tsv.gz",
    "tables/v4/ris2010-as2497.tsv.gz",
    "tables/v4/ris2010-as4777.tsv.gz",
    "tables/v4/ris2015-as3856.tsv.gz",
];

/// Every table of `shared/data/tables`: IPv4, mixed, IPv6.
const ALL_TABLES: [&str; 9] = [
    "tables/v4/maewest.txt.gz",
    "tables/v4/ris2002-as1853.tsv.gz",
    "tables/v4/ris2010-as2497.tsv.gz",
    "tables/v4/ris2010-as4777.tsv.gz",
    "tables/v4/ris2015-as3856.tsv.gz",
    "tables/mixed/tier1-2024.txt.gz",
    "tables/mixed/global2026-origin.tsv.gz",
    "tables/v6/linx2014-p69.txt.gz",
    "tables/v6/rrc00-v6.txt.gz",
];

/// The Bloom-filter paper's experiments (Lucchesi et al. §6).
fn apply_bloomfwd(name: &str, s: &mut Settings, paths: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let family = ["bloom_naive", "bloom_base", "bloomfwd", "miht"];
    match name {
        "bloomfwd-fpr" => {
            default_tables(paths, &[0, 1])?;
            single_thread(s, &[Traffic::Random]);
            s.algos = Some(fpr_hash_sweep()?);
        }
        "bloomfwd-threads" => {
            default_tables(paths, &[0, 1])?;
            s.traffic_v4 = vec![Traffic::Random];
            s.traffic_v6 = vec![Traffic::InPrefix];
            s.modes = vec![Mode::Batch];
            s.algos = Some(available(&["bloomfwd", "bloom_base", "miht", "poptrie"]));
        }
        "bloomfwd-matching" => {
            default_tables(paths, &[0])?;
            let ratios = [1.0, 0.8, 0.6, 0.4, 0.2];
            let traffic: Vec<Traffic> = ratios
                .iter()
                .map(|m| format!("zipf:s=0:flows=1:burst=1:match={m}").parse())
                .collect::<Result<_, _>>()?;
            single_thread(s, &traffic);
            s.algos = Some(available(&family));
        }
        "bloomfwd-traffic" => {
            default_tables(paths, &[0])?;
            let trace = Traffic::Trace(locate("data/ipsum-2026-08-22.txt.gz")?);
            single_thread(s, &[Traffic::Random, trace, "zipf:s=1.1:flows=64:burst=16".parse()?]);
            s.algos = Some(available(&family));
        }
        "bloomfwd-tables" => {
            if paths.is_empty() {
                *paths = shared_or_default(&V4_TABLES, DEFAULT_TABLES[0])?;
            }
            single_thread(s, &[Traffic::Random]);
            s.algos = Some(available(&family));
        }
        "bloomfwd-ipv6" => {
            if paths.is_empty() {
                *paths = shared_or_default(&V6_TABLES, DEFAULT_TABLES[1])?;
            }
            single_thread(s, &[Traffic::InPrefix, Traffic::Random]);
            let mut algos = available(&["bloom_naive", "bloom_base", "miht"]);
            algos.extend((0..=7).filter(|&n| n != 1).map(|n| {
                AlgoSpec::named("bloomfwd").with("levels", n) // 0: one filter per length
            }));
            s.algos = Some(algos);
        }
        _ => bail!("unknown preset '{name}'"),
    }
    // The paper measures batches of addresses (§4.3); keep the per-address rows beside them.
    s.modes = vec![Mode::Single, Mode::Batch];
    Ok(())
}

/// IPv4 tables of growing size under `../shared/data/tables` (used when present).
const V4_TABLES: [&str; 4] = [
    "tables/v4/ris2002-as1853.tsv.gz",
    "tables/v4/ris2010-as4777.tsv.gz",
    "tables/v4/ris2015-as3856.tsv.gz",
    "tables/mixed/tier1-2024.txt.gz",
];

/// IPv6 tables under `../shared/data/tables` (used when present).
const V6_TABLES: [&str; 2] = ["tables/v6/linx2014-p69.txt.gz", "tables/v6/rrc00-v6.txt.gz"];

fn shared_or_default(shared: &[&str], default: &str) -> anyhow::Result<Vec<PathBuf>> {
    let found: Vec<PathBuf> =
        shared.iter().filter_map(|t| locate(&format!("../shared/data/{t}")).ok()).collect();
    if found.is_empty() { Ok(vec![locate(default)?]) } else { Ok(found) }
}

fn fpr_hash_sweep() -> anyhow::Result<Vec<AlgoSpec>> {
    let mut algos = Vec::new();
    for hash in ["h2", "murmur", "knuth"] {
        for fpr in ["0.01", "0.1", "0.3", "0.6", "0.9"] {
            algos.push(AlgoSpec::named("bloomfwd").with("hash", hash).with("fpr", fpr));
        }
    }
    Ok(algos)
}

/// The named algorithms that this build registers (MIHT may be absent).
fn available(names: &[&str]) -> Vec<AlgoSpec> {
    names.iter().filter(|n| registry::info(n).is_some()).map(|n| AlgoSpec::named(n)).collect()
}

fn single_thread(s: &mut Settings, traffic: &[Traffic]) {
    s.traffic_v4 = traffic.to_vec();
    s.traffic_v6 = traffic.to_vec();
    s.modes = vec![Mode::Single];
    s.threads = 1;
}

/// With no `--table`, the default tables of `data/` with these indices (0: IPv4, 1: IPv6).
fn default_tables(paths: &mut Vec<PathBuf>, which: &[usize]) -> anyhow::Result<()> {
    if paths.is_empty() {
        *paths = which.iter().map(|&i| locate(DEFAULT_TABLES[i])).collect::<Result<_, _>>()?;
    }
    Ok(())
}

fn growth_tables(p: &std::path::Path) -> [PathBuf; 2] {
    let p = p.display();
    [PathBuf::from(format!("{p}#syn1")), PathBuf::from(format!("{p}#syn2"))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_preset_applies() {
        for (name, _) in PRESETS.iter().filter(|p| p.0 != "loop-fig12") {
            for part in parts(name).unwrap() {
                let (mut s, mut paths) = (Settings::default(), Vec::new());
                apply(part, &mut s, &mut paths).unwrap_or_else(|e| panic!("{part}: {e}"));
                assert!(!paths.is_empty(), "{part} chose no table");
            }
        }
        assert_eq!(parts("bloomfwd").unwrap().len(), 8);
        assert!(parts("papers").unwrap().len() > 20);
        assert!(parts("nope").is_err());
    }

    #[test]
    fn the_fpr_sweep_is_every_rate_with_every_hash() {
        let (mut s, mut paths) = (Settings::default(), Vec::new());
        apply("bloomfwd-fpr", &mut s, &mut paths).unwrap();
        let algos = s.algos.unwrap();
        assert_eq!(algos.len(), 15);
        assert!(algos.iter().any(|a| a.to_string() == "bloomfwd:fpr=0.3,hash=knuth"));
        assert_eq!(paths.len(), 2);
    }
}
