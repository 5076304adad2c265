//! What the two fuzz-target tests (`fuzz_seeds.rs`, `fuzz_mutations.rs`) share: where the
//! fuzz crate's folders are, how a folder's inputs are listed, and a caught panic's message.

use std::path::{Path, PathBuf};

/// The repository's `fuzz/` folder.
pub fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The inputs of one folder, sorted; files whose names start with `.` (`.gitkeep`) are
/// skipped; a missing folder is an error naming it.
pub fn inputs(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e} (every fuzz target needs this folder)", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap_or_else(|err| panic!("{}: {err}", dir.display())).path())
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .collect();
    files.sort();
    files
}

/// The message of a caught panic's payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload.downcast_ref::<String>().map(String::as_str);
    text.or_else(|| payload.downcast_ref::<&str>().copied()).unwrap_or("(no message)").into()
}
