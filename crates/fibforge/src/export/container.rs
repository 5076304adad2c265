//! The container both fibforge file kinds share (`docs/reference/export-format.md`): a
//! 160-byte header (magic, version, algorithm, family, array count, checksum, sixteen `u64`
//! parameters), the array table, then arrays of fixed-size little-endian elements, each at a
//! multiple of 64 bytes with zero padding between. Export files and `IpTable` snapshots
//! differ only in magic, version and checksum ([`Kind`]).
//!
//! [`parse`] checks the whole container and borrows the arrays from the bytes (a snapshot
//! maps them, an export copies them); the algorithm's own checks come after.

/// The bytes before the array table: magic, version, algorithm, family, count, checksum,
/// params.
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

/// What tells one file kind from another.
pub(crate) struct Kind {
    /// The first eight bytes.
    pub(crate) magic: [u8; 8],
    /// The one version read and written.
    pub(crate) version: u32,
    /// The checksum over every byte after the first 32.
    pub(crate) checksum: fn(&[u8]) -> u64,
    /// What a foreign file is not ("a fibforge export").
    pub(crate) name: &'static str,
}

/// Why a container was refused (the file kind's error wraps it).
#[derive(Debug)]
pub(crate) enum ContainerError {
    /// Malformed at a byte offset or an array.
    Malformed { what: String, at: String },
    /// The content does not match the stored checksum.
    Checksum { stored: u64, computed: u64 },
}

pub(crate) fn malformed(what: impl Into<String>, at: impl std::fmt::Display) -> ContainerError {
    ContainerError::Malformed { what: what.into(), at: at.to_string() }
}

/// A file cut short: `promise` says how long it should be, `len` is how long it is.
fn truncated(promise: String, len: usize) -> ContainerError {
    malformed(format!("truncated: {promise}, the file has {len}"), len)
}

/// The header fields after magic and version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) algorithm: u32,
    pub(crate) family: u32,
    pub(crate) params: [u64; PARAMS],
}

/// One array as it lies in the file.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ArrayView<'a> {
    pub(crate) elem_bytes: u32,
    pub(crate) bytes: &'a [u8],
    /// Where `bytes` start in the file.
    pub(crate) offset: usize,
}

impl ArrayView<'_> {
    /// Number of elements.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len() / self.elem_bytes.max(1) as usize
    }

    /// The byte range in the file.
    pub(crate) fn range(&self) -> std::ops::Range<usize> {
        self.offset..self.offset + self.bytes.len()
    }
}

/// A checked container, its arrays borrowed from the file's bytes.
pub(crate) struct View<'a> {
    pub(crate) header: Header,
    pub(crate) arrays: Vec<ArrayView<'a>>,
}

/// FNV-1a 64 of `bytes` (the export files' checksum).
#[doc(hidden)]
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// XXH3-64 of `bytes` (the snapshots' checksum: tens of GB/s, so a snapshot of megabytes is
/// checked within its open).
pub(crate) fn xxh3_64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
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

/// The bytes of a container of `kind` holding `header` and `arrays` (element size, bytes).
pub(crate) fn assemble(kind: &Kind, header: &Header, arrays: &[(u32, &[u8])]) -> Vec<u8> {
    let table_end = HEADER_BYTES + RECORD_BYTES * arrays.len();
    let total = arrays.iter().fold(round_up(table_end), |at, (_, b)| round_up(at + b.len()));
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&kind.magic);
    for v in [kind.version, header.algorithm, header.family, arrays.len() as u32] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&0u64.to_le_bytes());
    header.params.iter().for_each(|p| out.extend_from_slice(&p.to_le_bytes()));
    let mut offset = round_up(table_end);
    for &(elem, bytes) in arrays {
        debug_assert!(elem > 0 && bytes.len().is_multiple_of(elem as usize));
        out.extend_from_slice(&elem.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&((bytes.len() / elem as usize) as u64).to_le_bytes());
        out.extend_from_slice(&(offset as u64).to_le_bytes());
        offset = round_up(offset + bytes.len());
    }
    for (_, bytes) in arrays {
        out.resize(round_up(out.len()), 0);
        out.extend_from_slice(bytes);
    }
    let sum = (kind.checksum)(&out[32..]);
    out[24..32].copy_from_slice(&sum.to_le_bytes());
    out
}

/// Parses and checks a container of `kind`: magic, version, array table, checksum, offsets,
/// padding, and that the file ends with its last array.
pub(crate) fn parse<'a>(kind: &Kind, b: &'a [u8]) -> Result<View<'a>, ContainerError> {
    verify(kind, b)?;
    layout(kind, b)
}

/// Checks the start of a container of `kind` and its checksum: a file that fails is not the
/// file that was written (damaged, or cut short: the error says which).
pub(crate) fn verify(kind: &Kind, b: &[u8]) -> Result<(), ContainerError> {
    let count = table(kind, b)?;
    let (stored, computed) = (le_u64(b, 24), (kind.checksum)(&b[32..]));
    if stored != computed {
        // A cut file (a full disk, a copy interrupted) says so, not just that it differs.
        return Err(match promised_len(b, count) {
            n if n > b.len() as u128 => {
                truncated(format!("the header promises {n} bytes"), b.len())
            }
            _ => ContainerError::Checksum { stored, computed },
        });
    }
    Ok(())
}

/// Parses a container of `kind` without its checksum ([`verify`] checks that, and may run
/// beside this): everything [`parse`] checks but the checksum.
pub(crate) fn layout<'a>(kind: &Kind, b: &'a [u8]) -> Result<View<'a>, ContainerError> {
    let count = table(kind, b)?;
    let mut params = [0u64; PARAMS];
    for (i, p) in params.iter_mut().enumerate() {
        *p = le_u64(b, 32 + 8 * i);
    }
    let header = Header { algorithm: le_u32(b, 12), family: le_u32(b, 16), params };
    Ok(View { header, arrays: arrays(b, count, HEADER_BYTES + RECORD_BYTES * count)? })
}

/// Checks the magic, the version and that the array table is in the file: its length.
fn table(kind: &Kind, b: &[u8]) -> Result<usize, ContainerError> {
    check_start(kind, b)?;
    let version = le_u32(b, 8);
    if version != kind.version {
        let what = format!("format version {version} (this reads {})", kind.version);
        return Err(malformed(what, 8));
    }
    let count = le_u32(b, 20) as usize;
    if count > MAX_ARRAYS {
        return Err(malformed(format!("{count} arrays (at most {MAX_ARRAYS})"), 20));
    }
    let table_end = HEADER_BYTES + RECORD_BYTES * count;
    if b.len() < table_end {
        return Err(truncated(format!("the array table ends at byte {table_end}"), b.len()));
    }
    Ok(count)
}

/// An error for a file that is empty, does not start with the magic, or ends inside the
/// header (a prefix of the magic is a cut file, not a foreign one).
fn check_start(kind: &Kind, b: &[u8]) -> Result<(), ContainerError> {
    if b.is_empty() {
        return Err(malformed("empty file (0 bytes)", 0));
    }
    let head = b.len().min(kind.magic.len());
    if b[..head] != kind.magic[..head] {
        return Err(malformed(format!("not {} (bad magic)", kind.name), 0));
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

/// The arrays of the table at 160, each checked to lie after the previous one, aligned,
/// inside the file, with zero padding between, and the file to end with the last.
fn arrays(b: &[u8], count: usize, table_end: usize) -> Result<Vec<ArrayView<'_>>, ContainerError> {
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
        if !start.is_multiple_of(ALIGN) || start < end || start > b.len() || b.len() - start < len {
            return Err(malformed(format!("offset {offset} for {len} bytes"), at));
        }
        if b[end..start].iter().any(|&x| x != 0) {
            return Err(malformed("non-zero padding", end));
        }
        arrays.push(ArrayView { elem_bytes: elem, bytes: &b[start..start + len], offset: start });
        end = start + len;
    }
    if end != b.len() {
        return Err(malformed(format!("{} bytes after the last array", b.len() - end), end));
    }
    Ok(arrays)
}

/// Writes `bytes` to `path`, replacing any file there whole: they go to a new temporary file
/// in the same directory, which is synced and then renamed over `path`, so a crash or a full
/// disk leaves the old file (or none), never a partial one, and a process that has the old
/// file mapped keeps reading it.
pub(crate) fn write_replacing(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::sync::atomic::{AtomicU64, Ordering};
    static TEMPORARY: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
    })?;
    let n = TEMPORARY.fetch_add(1, Ordering::Relaxed);
    let temporary =
        path.with_file_name(format!(".{}.{}.{n}.tmp", name.to_string_lossy(), std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}
