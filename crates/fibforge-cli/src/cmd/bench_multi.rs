//! `fibforge bench --multi DIR`: many tables at once (DESIGN.md: each table file in DIR is one
//! table, VRF id = sorted file order). `--multi FILE#N` makes N tables by perturbing FILE
//! (`fibforge::multi::generate`, default perturbation, seed 1). Rows in the bench JSON format
//! with `table` = the argument as given; IPv4 and IPv6 tables of the set are measured apart.

use crate::load::{remap, table_files};
use anyhow::Context;
use fibforge::Interner;
use fibforge::multi::generate::{Perturbation, perturbed_tables};
use fibforge_bench::multi::{MultiSettings, run_multi};
use fibforge_bench::report::Row;
use fibforge_io::ReadConfig;
use std::path::{Path, PathBuf};

/// The seed of generated (`FILE#N`) table sets.
const GENERATED_SEED: u64 = 1;

/// The most tables in one set (`FILE#N` or files of a directory). Each table costs its
/// per-table baselines (one Poptrie, one rte_fib) a few MiB even when it holds one route, so
/// memory grows with the count whatever the table: 1,024 tables stay within a few GiB.
pub const MAX_TABLES: usize = 1024;

/// Checks a set's form before any work: `FILE#N` with N in 1..=[`MAX_TABLES`] and FILE
/// readable, or a directory of at most [`MAX_TABLES`] files.
pub fn check_set(set: &Path) -> anyhow::Result<()> {
    match generated(set)? {
        Some((file, _)) => {
            std::fs::File::open(file).with_context(|| {
                format!("--multi {}: cannot open {}", set.display(), file.display())
            })?;
        }
        None => {
            let n = table_files(set).with_context(|| format!("--multi {}", set.display()))?.len();
            anyhow::ensure!(
                n <= MAX_TABLES,
                "--multi {}: {n} table files, more than the {MAX_TABLES} a set may hold",
                set.display()
            );
        }
    }
    Ok(())
}

/// `FILE#N` as (FILE, N), N checked; `None` for anything else (a directory).
fn generated(set: &Path) -> anyhow::Result<Option<(&Path, usize)>> {
    let Some(text) = set.to_str() else { return Ok(None) };
    let Some((file, n)) = text.rsplit_once('#') else { return Ok(None) };
    let Ok(n) = n.parse::<usize>() else { return Ok(None) };
    anyhow::ensure!(
        (1..=MAX_TABLES).contains(&n),
        "--multi {text}: the table count N of FILE#N must be from 1 to {MAX_TABLES}"
    );
    Ok(Some((Path::new(file), n)))
}

/// Runs every set; rows in order of set, family, structure, mode.
pub fn run(sets: &[PathBuf], s: &MultiSettings) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for set in sets {
        let name = set.display().to_string();
        let (v4, v6) = load_set(set)?;
        crate::out::diag!(
            "loaded {name}: {} tables, {} IPv4 + {} IPv6 routes",
            v4.len().max(v6.len()),
            v4.iter().map(|r| r.len()).sum::<usize>(),
            v6.iter().map(|r| r.len()).sum::<usize>()
        );
        let mut log = |m: &str| crate::out::diag!("{m}");
        if v4.iter().any(|r| !r.is_empty()) {
            rows.extend(run_multi(&name, &v4, s, &mut log));
        }
        if v6.iter().any(|r| !r.is_empty()) {
            rows.extend(run_multi(&name, &v6, s, &mut log));
        }
    }
    Ok(rows)
}

type Set = (Vec<fibforge::Rib<u32>>, Vec<fibforge::Rib<u128>>);

/// A directory of tables, or `FILE#N`: N perturbed copies of FILE.
fn load_set(set: &Path) -> anyhow::Result<Set> {
    if let Some((file, n)) = generated(set)? {
        let t = read(file)?;
        let how = Perturbation::default();
        return Ok((
            perturbed_tables(&t.v4, n, how, GENERATED_SEED),
            perturbed_tables(&t.v6, n, how, GENERATED_SEED),
        ));
    }
    let mut hops = Interner::<String>::new();
    let (mut v4, mut v6) = (Vec::new(), Vec::new());
    for f in table_files(set)? {
        let t = read(&f)?;
        v4.push(remap(&t.v4, &t, &mut hops)?);
        v6.push(remap(&t.v6, &t, &mut hops)?);
    }
    Ok((v4, v6))
}

fn read(file: &Path) -> anyhow::Result<fibforge_io::LoadedTable> {
    Ok(fibforge_io::read_table(file, &ReadConfig::default()).map_err(|e| e.error)?)
}
