//! `fibforge bench --preset STUDY`: the papers' structural experiments (counts, sizes, build
//! and update times, Fig. 7's heat map) through [`super::run`], and the presets
//! that run as many-table benches (`loop-fig12`).

use super::locate::{DEFAULT_TABLES, locate, shared_data};
use super::{Study, StudyInput};
use crate::runner::{NamedTable, Settings};
use anyhow::bail;
use std::path::{Path, PathBuf};

/// The update stream the update studies replay unless `--updates` names one.
const DEFAULT_UPDATES: &str = "../shared/data/updates/linx2014-p52-v4.txt.gz";

/// Seconds per rate measurement in a study when `--duration` is not given.
const STUDY_SECONDS: f64 = 0.2;

/// Runs the study `part` on `tables`.
pub fn study(
    part: &str,
    settings: &Settings,
    tables: &[NamedTable],
    updates: Option<PathBuf>,
    out: &Path,
) -> anyhow::Result<Vec<Study>> {
    let input = StudyInput {
        tables,
        updates: updates.or_else(|| locate(DEFAULT_UPDATES).ok()),
        out: (out.as_os_str() != "none").then(|| out.to_path_buf()),
        seconds: settings.duration_s.unwrap_or(STUDY_SECONDS),
        seed: settings.seed,
        shared: shared_data(),
    };
    if let Some(dir) = &input.out {
        std::fs::create_dir_all(dir)?;
    }
    let mut log = |msg: &str| eprintln!("{msg}");
    super::run(part, &input, &mut log).map_err(|e| anyhow::anyhow!("preset {part}: {e}"))
}

/// The `--multi` sets to measure: those given, or the sets of a many-table preset
/// (`loop-fig12`: LOOP's lookup speed against the baselines); empty for single tables.
pub fn multi_sets(given: &[PathBuf], preset: Option<&str>) -> anyhow::Result<Vec<PathBuf>> {
    match preset {
        Some(_) if !given.is_empty() => bail!("--preset and --multi cannot be combined"),
        Some("loop-fig12") => {
            let mut sets = Vec::new();
            if let Some(shared) = shared_data() {
                sets.push(shared.join("multi/internet2"));
            }
            sets.push(PathBuf::from(format!("{}#8", locate(DEFAULT_TABLES[0])?.display())));
            Ok(sets)
        }
        _ => Ok(given.to_vec()),
    }
}
