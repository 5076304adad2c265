//! Helpers shared by the integration tests: where the data is.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository's own `data/` folder (always present).
pub fn repo_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

/// The workplace's shared data, when it exists: `<repo>/../shared/data`, or the folder named
/// by `FIBFORGE_SHARED_DATA` (for checkouts elsewhere, such as git worktrees).
pub fn shared_data() -> Option<PathBuf> {
    let beside_repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    let from_env = std::env::var_os("FIBFORGE_SHARED_DATA").map(PathBuf::from);
    let found = [Some(beside_repo), from_env].into_iter().flatten().find(|d| d.is_dir());
    if found.is_none() {
        eprintln!("../shared/data not found: the shared-data part of this test is skipped");
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
