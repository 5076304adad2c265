//! Helpers shared by the integration tests: where the data is.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository's own `data/` folder (always present).
pub fn repo_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

/// The workplace's shared data, when it exists (`fibforge_io::data`: `$FIBFORGE_SHARED_DATA`,
/// else `../shared/data` beside the workspace).
pub fn shared_data() -> Option<PathBuf> {
    let found = fibforge_io::data::shared_data_dir(&repo_data().join(".."));
    if found.is_none() {
        eprintln!(
            "the shared data folder was not found: the shared-data part of this test is skipped"
        );
    }
    found
}

/// The files of a folder, sorted by name (empty when the folder is missing).
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    files.sort();
    files
}
