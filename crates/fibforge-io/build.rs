//! Build script: sets `cfg(shared_data)` when the workplace's shared data folder exists
//! (`$FIBFORGE_SHARED_DATA`, else `../shared/data` beside the workspace, as
//! `fibforge_io::data` finds it), so that the integration tests reading it are reported as ignored,
//! not as passed, where it is absent.
//!
//! Decided when the script runs: after the folder appears or goes, set
//! `FIBFORGE_SHARED_DATA` or `touch` this file for the tests to notice (watching a path that
//! may be missing would rebuild the crate on every build).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(shared_data)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=FIBFORGE_SHARED_DATA");
    let dir = match std::env::var_os("FIBFORGE_SHARED_DATA") {
        Some(d) => std::path::PathBuf::from(d),
        None => {
            let manifest = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
            std::path::Path::new(&manifest).join("../../../shared/data")
        }
    };
    if dir.is_dir() {
        println!("cargo::rustc-cfg=shared_data");
    }
}
