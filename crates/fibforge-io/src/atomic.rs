//! Files replaced whole or not at all.
//!
//! Why: a file written in place (truncate, then write) is half-written for as long as the
//! write lasts, and stays so when the disk fills or the process dies: readers beside the
//! writer saw empty and cut export files, and a failed re-export lost the good file it was
//! replacing (issue 56). Every file fibforge writes (exports, probe files, bench, replay and
//! soak JSON, plots) therefore goes through this module:
//!
//! 1. a temporary file is created in the target's own directory (a rename is atomic only
//!    within one file system), named `.<name>.<random>.tmp[.<ext>]`;
//! 2. the content is written to it, flushed and synced (`fsync`) to the disk;
//! 3. it is renamed over the target, and the directory is synced (best effort: some file
//!    systems refuse to sync a directory; the rename has happened by then).
//!
//! A reader sees the old file or the new one, never a mix. When anything fails (creating,
//! writing, syncing, renaming), the temporary file is removed and the old file is left as it
//! was; the temporary file is also removed when an [`AtomicFile`] is dropped uncommitted.
//!
//! The temporary name keeps the target's extension last, because some writers (the image
//! encoders behind the bench's plots) choose the format from the name of the path they are
//! given ([`AtomicFile::temp_path`]).
//!
//! As a file written in place would, the new file keeps the permissions of the file it
//! replaces (on Unix; a new file gets the usual `0o666` less the umask), and a symbolic
//! link at the target is followed: the file it points to is replaced, the link stays. A
//! read-only target is refused ([`std::io::ErrorKind::PermissionDenied`]) rather than
//! replaced, even though its directory would allow the rename.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// Writes the file at `path` atomically: `write` fills a buffered writer on a temporary
/// file, which replaces `path` only when `write` and the sync succeed (see the module
/// docs). On any error `path` is left as it was and no temporary file remains.
///
/// ```
/// use std::io::Write;
/// let path = std::env::temp_dir().join(format!("fibforge-doc-{}.txt", std::process::id()));
/// fibforge_io::atomic::write_atomically(&path, |w| w.write_all(b"new\n"))?;
/// assert_eq!(std::fs::read(&path)?, b"new\n");
/// let failed = fibforge_io::atomic::write_atomically(&path, |w| {
///     w.write_all(b"half")?;
///     Err(std::io::Error::other("the writer failed"))
/// });
/// assert!(failed.is_err());
/// assert_eq!(std::fs::read(&path)?, b"new\n"); // untouched
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    let mut buffered = BufWriter::new(&mut file);
    write(&mut buffered)?;
    buffered.flush()?;
    drop(buffered);
    file.commit()
}

/// A temporary file beside `target` that replaces it on [`commit`](Self::commit), for
/// writers that need a [`File`] or a path of their own; dropped uncommitted, it is removed.
/// [`write_atomically`] is the short form for writers that take any [`Write`].
#[derive(Debug)]
pub struct AtomicFile {
    temp: NamedTempFile,
    target: PathBuf,
}

impl AtomicFile {
    /// Creates the temporary file for `target` in `target`'s directory. Fails when the
    /// directory cannot be written, `target` is a directory, or `target` is read-only.
    pub fn create(target: &Path) -> io::Result<Self> {
        let target = resolve_link(target);
        let existing = std::fs::metadata(&target).ok();
        if let Some(meta) = &existing {
            refuse_to_replace(meta)?;
        }
        let temp = create_temp(&target, existing.as_ref())?;
        if let Some(meta) = &existing {
            temp.as_file().set_permissions(meta.permissions())?;
        }
        Ok(AtomicFile { temp, target })
    }

    /// The temporary file's path, for writers that open a path themselves (they must write
    /// to it in place: opening it with truncation is fine, replacing it is not).
    pub fn temp_path(&self) -> &Path {
        self.temp.path()
    }

    /// The temporary file.
    pub fn file(&mut self) -> &mut File {
        self.temp.as_file_mut()
    }

    /// Syncs the temporary file and renames it over the target (then syncs the directory,
    /// best effort). On error the target is untouched and the temporary file removed.
    pub fn commit(mut self) -> io::Result<()> {
        self.temp.as_file_mut().flush()?;
        self.temp.as_file().sync_all()?;
        self.temp.persist(&self.target).map_err(|e| e.error)?;
        sync_directory(directory(&self.target));
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.temp.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.flush()
    }
}

/// The file a symbolic link at `path` points to (as a write through the link would reach);
/// `path` itself otherwise, or when the link cannot be resolved.
fn resolve_link(path: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link && let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    path.to_path_buf()
}

/// An error when the existing target must not be replaced: a directory, or read-only (the
/// caller names the path, as for any other error of writing it).
fn refuse_to_replace(meta: &std::fs::Metadata) -> io::Result<()> {
    let why = if meta.is_dir() {
        "is a directory"
    } else if meta.permissions().readonly() {
        "is read-only"
    } else {
        return Ok(());
    };
    Err(io::Error::new(
        if meta.is_dir() { io::ErrorKind::IsADirectory } else { io::ErrorKind::PermissionDenied },
        why,
    ))
}

/// The directory `target` is in (`.` for a bare file name).
fn directory(target: &Path) -> &Path {
    match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Creates `.<name>.<random>.tmp[.<ext>]` beside `target`, with the permissions a new file
/// gets (those of the file it replaces are set by the caller).
fn create_temp(target: &Path, existing: Option<&std::fs::Metadata>) -> io::Result<NamedTempFile> {
    let name = target.file_name().unwrap_or(target.as_os_str());
    let mut prefix = OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut suffix = OsString::from(".tmp");
    if let Some(ext) = target.extension() {
        suffix.push(".");
        suffix.push(ext);
    }
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(&suffix);
    #[cfg(unix)]
    if existing.is_none() {
        use std::os::unix::fs::PermissionsExt;
        // What `File::create` asks for (the umask applies); tempfile's default is 0o600.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    #[cfg(not(unix))]
    let _ = existing;
    builder.tempfile_in(directory(target))
}

/// Syncs a directory so that a rename in it survives a crash. Best effort: the rename has
/// happened, and some systems cannot open or sync a directory.
fn sync_directory(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests;
