//! Files a command writes (exports, probe files, JSON reports): checked before any work, so
//! that a bad path fails at once, and written whole or not at all through
//! `fibforge_io::atomic`, so that a failed or interrupted command leaves the old file as it
//! was and no partial file behind (issue 56).

use anyhow::Context;
use fibforge_io::atomic::{AtomicFile, write_atomically};
use std::path::Path;

/// Checks before any work that `path` can be written as a file (`what`: the option) by
/// [`write_file`]: its temporary file is created beside `path` and removed, so that nothing
/// appears or changes at `path` until the command has the whole content.
pub fn check_writable_file(path: &Path, what: &str) -> anyhow::Result<()> {
    anyhow::ensure!(!path.is_dir(), "{what} {}: is a directory", path.display());
    AtomicFile::create(path).with_context(|| format!("{what} {}: cannot write", path.display()))?;
    Ok(())
}

/// Writes `bytes` to the file at `path` whole or not at all (`fibforge_io::atomic`): on any
/// failure the old file is left as it was and no partial file remains.
pub fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomically(path, |w| w.write_all(bytes))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Checks before any work that files can be written in directory `dir` (created if missing).
#[cfg(feature = "bench")]
pub fn check_writable_dir(dir: &Path, what: &str) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("{what} {}: cannot create", dir.display()))?;
    let probe = dir.join(format!(".fibforge-write-check-{}", std::process::id()));
    std::fs::write(&probe, b"")
        .with_context(|| format!("{what} {}: cannot write in it", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}
