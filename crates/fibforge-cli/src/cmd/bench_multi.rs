//! `fibforge bench --multi DIR`: many tables at once (DESIGN.md: each table file in DIR is one
//! table, VRF id = sorted file order). `--multi FILE#N` makes N tables by perturbing FILE
//! (`fibforge::multi::generate`, default perturbation, seed 1). Rows in the bench JSON format
//! with `table` = the argument as given; IPv4 and IPv6 tables of the set are measured apart.

use super::verify_multi::{remap, table_files};
use fibforge::Interner;
use fibforge::multi::generate::{Perturbation, perturbed_tables};
use fibforge_bench::multi::{MultiSettings, run_multi};
use fibforge_bench::report::Row;
use fibforge_io::ReadConfig;
use std::path::{Path, PathBuf};

/// The seed of generated (`FILE#N`) table sets.
const GENERATED_SEED: u64 = 1;

/// Runs every set; rows in order of set, family, structure, mode.
pub fn run(sets: &[PathBuf], s: &MultiSettings) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    for set in sets {
        let name = set.display().to_string();
        let (v4, v6) = load_set(set)?;
        eprintln!(
            "loaded {name}: {} tables, {} IPv4 + {} IPv6 routes",
            v4.len().max(v6.len()),
            v4.iter().map(|r| r.len()).sum::<usize>(),
            v6.iter().map(|r| r.len()).sum::<usize>()
        );
        let mut log = |m: &str| eprintln!("{m}");
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
    let text = set.display().to_string();
    if let Some((file, n)) = text.rsplit_once('#')
        && let Ok(n) = n.parse::<usize>()
    {
        let t = read(Path::new(file))?;
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

fn read(file: &Path) -> anyhow::Result<fibforge_io::Table> {
    Ok(fibforge_io::read_table(file, &ReadConfig::default()).map_err(|e| e.error)?)
}
