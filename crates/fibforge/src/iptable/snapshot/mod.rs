//! Snapshots of an [`IpTable`] (feature `serde`): one versioned, checksummed file holding
//! both families' compiled Poptrie, the routes and the values (`format.rs`), written whole
//! (temporary file and rename) and opened by mapping it into memory.
//!
//! [`IpTable::open`] checks the file (container, checksum, every index of the structures,
//! every route and value) and then looks up in the mapped pages themselves: nothing is
//! compiled or copied but the values, so processes that open one file share one copy of the
//! lookup arrays (the page cache's). An opened table is read-only in place: a family's first
//! change compiles that family's routes into memory of its own (`family.rs`), and the first
//! call that needs the routes (`get`, `iter`, `covering`, `covered`) reads them into a RIB.

mod format;

use super::IpTable;
use crate::export::container::ContainerError;
use crate::fib::BuildError;
use crate::mapped::Region;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// A snapshot file's first eight bytes.
pub(crate) const MAGIC: [u8; 8] = *b"FIBFSNAP";

/// Why a snapshot could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The file at `path` could not be written or read: `error` says why.
    #[error("{}: {error}", path.display())]
    File {
        /// The snapshot's path.
        path: PathBuf,
        /// What went wrong.
        error: Box<SnapshotError>,
    },
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file is not a snapshot this library reads (another file, another version, cut
    /// short, a bad table of arrays): `at` is the byte offset or the part concerned.
    #[error("not a readable snapshot: {what} (at {at})")]
    Malformed {
        /// What is wrong.
        what: String,
        /// Where.
        at: String,
    },
    /// The content does not match the stored checksum (the file is damaged).
    #[error(
        "damaged snapshot: checksum mismatch (stored {stored:#018x}, content {computed:#018x})"
    )]
    Checksum {
        /// The header's checksum.
        stored: u64,
        /// The checksum of the bytes read.
        computed: u64,
    },
    /// The checksum matches but a structure is unsound (an index out of range, a cycle, a
    /// next hop naming no value).
    #[error("invalid snapshot: {part}: {what}")]
    Invalid {
        /// The family and array concerned.
        part: String,
        /// What is wrong.
        what: String,
    },
    /// A value could not be encoded, or decoded as the table's value type.
    #[error("snapshot value {id}: {what}")]
    Value {
        /// The value's id in the file.
        id: u32,
        /// What is wrong.
        what: String,
    },
    /// The table cannot be saved (its structure has no snapshot form).
    #[error("cannot save a snapshot: {0}")]
    Unsupported(String),
    /// Compiling a family for the snapshot failed (a structural limit).
    #[error(transparent)]
    Build(BuildError),
}

impl From<ContainerError> for SnapshotError {
    fn from(e: ContainerError) -> Self {
        match e {
            ContainerError::Malformed { what, at } => SnapshotError::Malformed { what, at },
            ContainerError::Checksum { stored, computed } => {
                SnapshotError::Checksum { stored, computed }
            }
        }
    }
}

/// `error` about the file at `path`.
fn at_path(path: &Path, error: SnapshotError) -> SnapshotError {
    SnapshotError::File { path: path.to_owned(), error: Box::new(error) }
}

impl<V: Serialize> IpTable<V> {
    /// Writes the table to `path` as a snapshot (see [`IpTable::open`]), replacing any file
    /// there whole: the bytes go to a temporary file in the same directory, which is synced
    /// and renamed over `path`, so a failure leaves the old file and processes that have it
    /// open keep reading it. Values are encoded with `postcard` (their `serde` form).
    ///
    /// ```
    /// use fibforge::IpTable;
    /// use ipnet::IpNet;
    ///
    /// let mut table: IpTable<String> = IpTable::new();
    /// table.insert("10.0.0.0/8".parse::<IpNet>()?, "AS64500".to_string());
    /// table.insert("2001:db8::/32".parse::<IpNet>()?, "AS64501".to_string());
    /// let path = std::env::temp_dir().join(format!("doc-{}.fibs", std::process::id()));
    /// table.save(&path)?;
    ///
    /// let opened: IpTable<String> = IpTable::open(&path)?; // mapped, not compiled
    /// let (net, value) = opened.lookup("10.1.2.3".parse::<std::net::IpAddr>()?).unwrap();
    /// assert_eq!((net.to_string(), value.as_str()), ("10.0.0.0/8".to_string(), "AS64500"));
    /// assert!(opened.is_mapped());
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), SnapshotError> {
        let path = path.as_ref();
        let bytes = self.to_snapshot().map_err(|e| at_path(path, e))?;
        crate::export::container::write_replacing(path, &bytes).map_err(|e| at_path(path, e.into()))
    }

    /// The table's snapshot as bytes (what [`IpTable::save`] writes).
    pub fn to_snapshot(&self) -> Result<Vec<u8>, SnapshotError> {
        format::encode(self)
    }
}

impl<V: DeserializeOwned + Send> IpTable<V> {
    /// Opens the snapshot at `path` (written by [`IpTable::save`]) by mapping it into memory.
    ///
    /// The whole file is checked first — container, version, checksum, every index of both
    /// structures, every route and value — and a damaged, truncated, foreign or other-version
    /// file is refused with an error naming the part. Then lookups walk the mapped pages: no
    /// compile, no copy of the lookup arrays (processes that open one file share them), only
    /// the values are decoded. The table is read-only in place: a family's first change
    /// compiles that family's routes into memory of its own, and the first `get`, `iter`,
    /// `covering` or `covered` reads the routes into a RIB (tens of milliseconds for a full
    /// Internet table).
    ///
    /// The file must not be modified while the table is open (replace it whole, as
    /// [`IpTable::save`] does: the open table keeps the old file's pages).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, SnapshotError> {
        let path = path.as_ref();
        let opened = std::fs::File::open(path).and_then(|file| Region::map(&file));
        let region = opened.map_err(|e| at_path(path, e.into()))?;
        format::decode(&region).map_err(|e| at_path(path, e))
    }

    /// The table of snapshot `bytes` (copied into memory of its own, then checked and read as
    /// [`IpTable::open`] does).
    pub fn from_snapshot(bytes: &[u8]) -> Result<Self, SnapshotError> {
        format::decode(&Region::copy_of(bytes))
    }
}

impl<V> IpTable<V> {
    /// True while a family of the table looks up in a snapshot's arrays where they lie: the
    /// file's mapping after [`IpTable::open`], the aligned copy after
    /// [`IpTable::from_snapshot`]. A family's first change compiles that family into memory of
    /// its own; false once both have changed.
    pub fn is_mapped(&self) -> bool {
        self.v4.is_mapped() || self.v6.is_mapped()
    }
}
