//! Read errors that name the place and the problem.

use crate::table::LoadedTable;
use std::fmt;

/// What went wrong, and where.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{source_name}: {err}")]
    Io { source_name: String, err: std::io::Error },
    /// A line of a text file is malformed.
    #[error("{source_name}:{line}: {reason}")]
    Line { source_name: String, line: u64, reason: String },
    /// A binary record is malformed.
    #[error("{source_name}: at byte offset {offset}: {reason}")]
    Binary { source_name: String, offset: u64, reason: String },
    /// The file reads fine but cannot give what was asked (an absent peer, a limit).
    #[error("{source_name}: {reason}")]
    Content { source_name: String, reason: String },
}

/// The most bytes of a bad line or column quoted in an error message.
pub const SHOWN_BYTES: usize = 64;

/// `bytes` for an error message: quoted, cut to [`SHOWN_BYTES`] bytes (with the
/// full length after a cut) and escaped (`\0`, `\xef`, `\r`), so that a huge or binary line
/// neither floods the terminal nor hides a NUL, a control byte or a byte-order mark.
pub fn quote(bytes: &[u8]) -> String {
    let shown = &bytes[..bytes.len().min(SHOWN_BYTES)];
    let text: String = shown.escape_ascii().to_string();
    if shown.len() < bytes.len() {
        format!("'{text}...' ({} bytes)", bytes.len())
    } else {
        format!("'{text}'")
    }
}

/// A failed load: the error, and everything valid read before it.
pub struct LoadError {
    /// The first error.
    pub error: ReadError,
    /// The routes read before the error.
    pub partial: Box<LoadedTable>,
}

impl LoadError {
    /// Wraps an error with what was read so far.
    pub fn new(error: ReadError, partial: LoadedTable) -> Self {
        LoadError { error, partial: Box::new(partial) }
    }
}

impl fmt::Debug for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LoadError({:?}, {} routes kept)", self.error, self.partial.len())
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({} routes read before it were kept)", self.error, self.partial.len())
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}
