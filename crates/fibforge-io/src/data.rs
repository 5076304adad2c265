//! Where the workplace's shared data lives, for tests, examples and benchmark presets: the
//! folder named by `FIBFORGE_SHARED_DATA` when that variable is set, else `../shared/data`
//! beside the workspace (a git worktree elsewhere sets the variable).

use std::path::{Path, PathBuf};

/// The environment variable that names the shared data folder.
pub const SHARED_DATA_ENV: &str = "FIBFORGE_SHARED_DATA";

/// The shared data folder for the workspace at `workspace`, when it exists.
pub fn shared_data_dir(workspace: &Path) -> Option<PathBuf> {
    let dir = match std::env::var_os(SHARED_DATA_ENV) {
        Some(d) => PathBuf::from(d),
        None => workspace.join("../shared/data"),
    };
    dir.is_dir().then_some(dir)
}

/// `rel` inside the shared data folder, when that file or folder exists.
pub fn shared_data(workspace: &Path, rel: &str) -> Option<PathBuf> {
    shared_data_dir(workspace).map(|d| d.join(rel)).filter(|p| p.exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_beside_the_workspace_and_missing_folders_are_none() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        if std::env::var_os(SHARED_DATA_ENV).is_none() {
            let want = here.join("../shared/data");
            assert_eq!(shared_data_dir(here), want.is_dir().then_some(want));
        }
        assert_eq!(shared_data(here, "no/such/file"), None);
    }
}
