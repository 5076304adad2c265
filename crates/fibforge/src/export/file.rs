//! The export container: header, array table, arrays, checksum (`docs/reference/export-format.md`).

use std::fmt;

/// The file's first eight bytes.
pub const MAGIC: [u8; 8] = *b"FIBFEXP\0";
/// The format version this library writes and reads.
pub const VERSION: u32 = 1;
/// Bytes before the array table: magic, version, algorithm, family, count, checksum, params.
#[doc(hidden)]
pub const HEADER_BYTES: usize = 160;
/// Bytes of one array-table record.
#[doc(hidden)]
pub const RECORD_BYTES: usize = 24;
/// Arrays start at multiples of this.
#[doc(hidden)]
pub const ALIGN: usize = 64;
/// The most arrays a file may list.
#[doc(hidden)]
pub const MAX_ARRAYS: usize = 4096;
/// Number of `u64` parameters in the header.
#[doc(hidden)]
pub const PARAMS: usize = 16;
/// The parameter holding the route count (information only).
#[doc(hidden)]
pub const ROUTES_PARAM: usize = 15;

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

/// A file cut short: `promise` says how long it should be, `len` is how long it is.
fn truncated(promise: String, len: usize) -> ExportError {
    malformed(format!("truncated: {promise}, the file has {len}"), len)
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

/// FNV-1a 64 of `bytes`.
#[doc(hidden)]
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

fn round_up(n: usize) -> usize {
    n.div_ceil(ALIGN) * ALIGN
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
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
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        for v in [VERSION, self.algorithm as u32, self.family, arrays.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&0u64.to_le_bytes());
        self.params.iter().for_each(|p| out.extend_from_slice(&p.to_le_bytes()));
        let mut offset = round_up(HEADER_BYTES + RECORD_BYTES * arrays.len());
        for a in &arrays {
            out.extend_from_slice(&a.elem_bytes.to_le_bytes());
            out.extend_from_slice(&0u32.to_le_bytes());
            out.extend_from_slice(&(a.len() as u64).to_le_bytes());
            out.extend_from_slice(&(offset as u64).to_le_bytes());
            offset = round_up(offset + a.bytes.len());
        }
        for a in &arrays {
            out.resize(round_up(out.len()), 0);
            out.extend_from_slice(&a.bytes);
        }
        let sum = fnv1a64(&out[32..]);
        out[24..32].copy_from_slice(&sum.to_le_bytes());
        out
    }

    /// Writes the file to `path` in place (truncate, then write), so a failure can leave a
    /// partial file; fibforge's own writers replace files whole instead, through
    /// `fibforge_io::atomic` (a crate above this one).
    pub fn write(&self, path: &std::path::Path) -> Result<(), ExportError> {
        Ok(std::fs::write(path, self.to_bytes())?)
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
        Self::check_start(b)?;
        let version = le_u32(b, 8);
        if version != VERSION {
            return Err(malformed(format!("format version {version} (this reads {VERSION})"), 8));
        }
        let algorithm = Algorithm::from_code(le_u32(b, 12))
            .ok_or_else(|| malformed(format!("unknown algorithm {}", le_u32(b, 12)), 12))?;
        let family = le_u32(b, 16);
        if family != 4 && family != 6 {
            return Err(malformed(format!("family {family} (expected 4 or 6)"), 16));
        }
        let count = le_u32(b, 20) as usize;
        if count > MAX_ARRAYS {
            return Err(malformed(format!("{count} arrays (at most {MAX_ARRAYS})"), 20));
        }
        let table_end = HEADER_BYTES + RECORD_BYTES * count;
        if b.len() < table_end {
            return Err(truncated(format!("the array table ends at byte {table_end}"), b.len()));
        }
        let (stored, computed) = (le_u64(b, 24), fnv1a64(&b[32..]));
        if stored != computed {
            // A cut file (a full disk, a copy interrupted) says so, not just that it differs.
            return Err(match Self::promised_len(b, count) {
                n if n > b.len() as u128 => {
                    truncated(format!("the header promises {n} bytes"), b.len())
                }
                _ => ExportError::Checksum { stored, computed },
            });
        }
        let mut params = [0u64; PARAMS];
        for (i, p) in params.iter_mut().enumerate() {
            *p = le_u64(b, 32 + 8 * i);
        }
        let mut arrays = Self::arrays(b, count, table_end)?;
        let hops = Self::hops(arrays.pop())?;
        Ok(ExportFile { algorithm, family, params, arrays, hops })
    }

    /// An error for a file that is empty, does not start with the magic, or ends inside the
    /// header (a prefix of the magic is a cut export, not a foreign file).
    fn check_start(b: &[u8]) -> Result<(), ExportError> {
        if b.is_empty() {
            return Err(malformed("empty file (0 bytes)", 0));
        }
        let head = b.len().min(MAGIC.len());
        if b[..head] != MAGIC[..head] {
            return Err(malformed("not a fibforge export (bad magic)", 0));
        }
        if b.len() < HEADER_BYTES {
            return Err(truncated(format!("the header takes {HEADER_BYTES} bytes"), b.len()));
        }
        Ok(())
    }

    /// The file length the array table promises: the end of its furthest array (the records
    /// are unchecked here, hence the width).
    fn promised_len(b: &[u8], count: usize) -> u128 {
        (0..count)
            .map(|i| {
                let rec = HEADER_BYTES + RECORD_BYTES * i;
                let (elem, n) = (le_u32(b, rec) as u128, le_u64(b, rec + 8) as u128);
                le_u64(b, rec + 16) as u128 + n * elem
            })
            .max()
            .unwrap_or(0)
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

    /// The arrays of the table at 160, each checked to lie after the previous one, aligned,
    /// inside the file, with zero padding between, and the file to end with the last.
    fn arrays(b: &[u8], count: usize, table_end: usize) -> Result<Vec<Array>, ExportError> {
        let mut arrays = Vec::with_capacity(count);
        let mut end = table_end;
        for i in 0..count {
            let rec = HEADER_BYTES + RECORD_BYTES * i;
            let elem = le_u32(b, rec);
            let (n, offset) = (le_u64(b, rec + 8), le_u64(b, rec + 16));
            let at = format!("array {i}");
            if !(1..=64).contains(&elem) || le_u32(b, rec + 4) != 0 {
                return Err(malformed(format!("element size {elem}"), at));
            }
            let len = n
                .checked_mul(elem as u64)
                .filter(|&l| l <= b.len() as u64)
                .ok_or_else(|| malformed(format!("{n} elements of {elem} bytes"), &at))?
                as usize;
            let start = usize::try_from(offset).unwrap_or(usize::MAX);
            if start % ALIGN != 0 || start < end || start > b.len() || b.len() - start < len {
                return Err(malformed(format!("offset {offset} for {len} bytes"), at));
            }
            if b[end..start].iter().any(|&x| x != 0) {
                return Err(malformed("non-zero padding", end));
            }
            arrays.push(Array { elem_bytes: elem, bytes: b[start..start + len].to_vec() });
            end = start + len;
        }
        if end != b.len() {
            return Err(malformed(format!("{} bytes after the last array", b.len() - end), end));
        }
        Ok(arrays)
    }
}
