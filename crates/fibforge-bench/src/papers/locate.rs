//! Where a preset's tables are: the repository's `data/` and the workplace's shared data,
//! found above the current directory or the executable (an installed `fibforge` run from
//! inside a checkout finds them too).

use std::path::{Path, PathBuf};

/// The default tables, relative to the repository root.
pub const DEFAULT_TABLES: [&str; 2] = ["data/ris2015-as3856.tsv.gz", "data/tier1-2024-v6.txt.gz"];

/// Finds `relative` (a path under the repository root) from the current directory or the
/// executable's location, walking up their ancestors.
pub fn locate(relative: &str) -> anyhow::Result<PathBuf> {
    let mut starts = Vec::new();
    if let Ok(d) = std::env::current_dir() {
        starts.push(d);
    }
    if let Ok(exe) = std::env::current_exe() {
        starts.push(exe);
    }
    for start in &starts {
        for dir in start.ancestors() {
            let candidate = dir.join(relative);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    anyhow::bail!(
        "cannot find {relative} above the current directory or the fibforge executable; give --table FILE"
    )
}

/// `shared/data` (the many-table sets), found above the current directory or the executable.
pub fn shared_data() -> Option<PathBuf> {
    let readme = locate("../shared/data/README.md").ok()?;
    readme.parent().map(Path::to_path_buf)
}
