//! The export container: header, array table, arrays, checksum (`docs/reference/export-format.md`).

use super::container::{self, ContainerError, Header, Kind, View};
pub use super::container::{ALIGN, HEADER_BYTES, MAX_ARRAYS, PARAMS, RECORD_BYTES, fnv1a64};
use std::fmt;

/// The file's first eight bytes.
pub const MAGIC: [u8; 8] = *b"FIBFEXP\0";
/// The format version this library writes and reads.
pub const VERSION: u32 = 1;
/// The parameter holding the route count (information only).
#[doc(hidden)]
pub const ROUTES_PARAM: usize = 15;

/// Export files in the shared container: their magic, version and checksum.
const EXPORT: Kind =
    Kind { magic: MAGIC, version: VERSION, checksum: fnv1a64, name: "a fibforge export" };

/// The structures an export can hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Algorithm {
    /// SAIL_L (`algo::sail`).
    SailL = 1,
    /// Poptrie (`algo::poptrie`), in its canonical shape: 32-bit `dir`, no fan-out.
    Poptrie = 2,
    /// Bloomfwd (`algo::bloom`, double hashing).
    Bloomfwd = 3,
}

impl Algorithm {
    /// The format's name for it (its registry row's name; the registry maps names and
    /// aliases to formats: `registry::export_format`).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::SailL => "sail_l",
            Algorithm::Poptrie => "poptrie",
            Algorithm::Bloomfwd => "bloomfwd",
        }
    }

    fn from_code(code: u32) -> Option<Self> {
        [Algorithm::SailL, Algorithm::Poptrie, Algorithm::Bloomfwd]
            .into_iter()
            .find(|a| *a as u32 == code)
    }
}

/// Why a file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The container is malformed: `at` is the byte offset or the array concerned.
    #[error("export file: {what} (at {at})")]
    Malformed {
        /// What is wrong.
        what: String,
        /// Where (a byte offset or an array name).
        at: String,
    },
    /// The checksum does not match the content.
    #[error("export file: checksum mismatch (header {stored:#018x}, content {computed:#018x})")]
    Checksum {
        /// The header's checksum.
        stored: u64,
        /// The checksum of the bytes read.
        computed: u64,
    },
    /// The container is sound but the structure it holds is not (an index out of range, a
    /// walk deeper than the address, a table with no empty slot...).
    #[error("export file: {algo} array `{array}`: {what}")]
    Invalid {
        /// The algorithm.
        algo: &'static str,
        /// The array concerned.
        array: &'static str,
        /// What is wrong.
        what: String,
    },
    /// The structure cannot be exported (another algorithm or configuration).
    #[error("cannot export: {0}")]
    Unsupported(String),
    /// Reading or writing failed.
    #[error("export file: {0}")]
    Io(#[from] std::io::Error),
}

pub(crate) fn malformed(what: impl Into<String>, at: impl fmt::Display) -> ExportError {
    ExportError::Malformed { what: what.into(), at: at.to_string() }
}

impl From<ContainerError> for ExportError {
    fn from(e: ContainerError) -> Self {
        match e {
            ContainerError::Malformed { what, at } => ExportError::Malformed { what, at },
            ContainerError::Checksum { stored, computed } => {
                ExportError::Checksum { stored, computed }
            }
        }
    }
}

/// One array: its element size and its bytes (a whole number of elements).
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct Array {
    /// Bytes per element.
    pub elem_bytes: u32,
    /// The elements, little-endian.
    pub bytes: Vec<u8>,
}

impl Array {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.bytes.len() / self.elem_bytes.max(1) as usize
    }

    /// True when the array has no element.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// An array of `u16`, `u32` or `u64` values.
    pub fn of<T: Element>(values: &[T]) -> Self {
        let mut bytes = Vec::with_capacity(values.len() * T::BYTES);
        values.iter().for_each(|v| v.put(&mut bytes));
        Array { elem_bytes: T::BYTES as u32, bytes }
    }

    /// The values of an array of `T`, or an error naming `name` when its element size is not
    /// `T`'s.
    pub fn values<T: Element>(&self, name: &str) -> Result<Vec<T>, ExportError> {
        if self.elem_bytes as usize != T::BYTES {
            let what = format!("element size {} (expected {})", self.elem_bytes, T::BYTES);
            return Err(malformed(what, name));
        }
        Ok(self.bytes.chunks_exact(T::BYTES).map(T::get).collect())
    }
}

/// A fixed-size little-endian integer stored in arrays.
#[doc(hidden)]
pub trait Element: Copy {
    /// Its size in bytes.
    const BYTES: usize;
    /// Appends its little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Reads it from exactly `BYTES` bytes.
    fn get(bytes: &[u8]) -> Self;
}

macro_rules! element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const BYTES: usize = size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("element size checked"))
            }
        }
    )*};
}
element!(u8, u16, u32, u64);

/// A compiled structure as stored in an export file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFile {
    /// Which structure.
    pub algorithm: Algorithm,
    /// 4 or 6.
    pub family: u32,
    /// Algorithm-specific parameters (`docs/reference/export-format.md`).
    pub params: [u64; PARAMS],
    /// The arrays, in the algorithm's order.
    pub arrays: Vec<Array>,
    /// The next-hop values as text, `hops[i]` for raw id `i + 1` (may be empty); stored as a
    /// last array of bytes, one value per line.
    pub hops: Vec<String>,
}

impl ExportFile {
    /// The file's bytes.
    ///
    /// # Panics
    /// When a next-hop value contains a line break.
    #[doc(hidden)]
    pub fn to_bytes(&self) -> Vec<u8> {
        assert!(self.hops.iter().all(|h| !h.contains('\n')), "next-hop value with a line break");
        let text: String = self.hops.iter().map(|h| format!("{h}\n")).collect();
        let mut arrays = self.arrays.clone();
        arrays.push(Array { elem_bytes: 1, bytes: text.into_bytes() });
        let header =
            Header { algorithm: self.algorithm as u32, family: self.family, params: self.params };
        let views: Vec<(u32, &[u8])> =
            arrays.iter().map(|a| (a.elem_bytes, a.bytes.as_slice())).collect();
        container::assemble(&EXPORT, &header, &views)
    }

    /// Writes the file to `path`, replacing any file there whole (a temporary file in the
    /// same directory, synced, then renamed over it): a failure leaves the old file or none,
    /// never a partial one.
    pub fn write(&self, path: &std::path::Path) -> Result<(), ExportError> {
        Ok(container::write_replacing(path, &self.to_bytes())?)
    }

    /// Reads and checks the container at `path`.
    pub fn read(path: &std::path::Path) -> Result<Self, ExportError> {
        Self::from_bytes(&std::fs::read(path)?)
    }

    /// True when `bytes` start like an export file (for callers that accept either a table
    /// or an export).
    #[doc(hidden)]
    pub fn sniff(bytes: &[u8]) -> bool {
        bytes.starts_with(&MAGIC)
    }

    /// Parses and checks the container (not yet the structure: see [`import`](super::import()).
    #[doc(hidden)]
    pub fn from_bytes(b: &[u8]) -> Result<Self, ExportError> {
        let View { header, arrays } = container::parse(&EXPORT, b)?;
        let algorithm = Algorithm::from_code(header.algorithm)
            .ok_or_else(|| malformed(format!("unknown algorithm {}", header.algorithm), 12))?;
        let family = header.family;
        if family != 4 && family != 6 {
            return Err(malformed(format!("family {family} (expected 4 or 6)"), 16));
        }
        let mut arrays: Vec<Array> = arrays
            .iter()
            .map(|a| Array { elem_bytes: a.elem_bytes, bytes: a.bytes.to_vec() })
            .collect();
        let hops = Self::hops(arrays.pop())?;
        Ok(ExportFile { algorithm, family, params: header.params, arrays, hops })
    }

    /// The next-hop values of the last array (bytes, one UTF-8 value per line).
    fn hops(last: Option<Array>) -> Result<Vec<String>, ExportError> {
        let last = last.ok_or_else(|| malformed("no next-hop array", "array table"))?;
        if last.elem_bytes != 1 || !(last.bytes.is_empty() || last.bytes.ends_with(b"\n")) {
            return Err(malformed("next-hop values are not lines of bytes", "last array"));
        }
        let text = String::from_utf8(last.bytes)
            .map_err(|e| malformed(format!("next-hop values: {e}"), "last array"))?;
        Ok(text.lines().map(str::to_owned).collect())
    }
}
