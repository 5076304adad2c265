#![warn(clippy::undocumented_unsafe_blocks)]
//! fibforge-io: reading routing data.
//!
//! - [`open()`]: any file, plain, gzip or bzip2, chosen by content (magic bytes), not by name;
//! - [`text`]: text tables (`prefix<TAB or spaces>nexthop[...]`, prefix-only lists, comments,
//!   mixed IPv4/IPv6) into a [`LoadedTable`];
//! - [`mrt`]: MRT RIB dumps and BGP update files (TABLE_DUMP, TABLE_DUMP_V2, BGP4MP, BGP4MP_ET),
//!   as entries ([`mrt::MrtReader`]) or as a [`LoadedTable`] of one peer or all;
//! - [`updates`]: update streams (MRT or `time a|w prefix nexthop` text) as [`updates::Update`]s;
//! - [`trace`]: destination addresses of pcap/pcapng captures and address lists;
//! - [`atomic`]: files written whole or not at all (a synced temporary file renamed over the
//!   target), for every file fibforge writes;
//! - [`data`]: where the workplace's shared data folder is (`FIBFORGE_SHARED_DATA`).
//!
//! [`read_table`] chooses the format by content: after decompression, a stream whose first
//! 12 bytes are an MRT header of a routing type is MRT; a stream whose first 12 bytes hold a
//! NUL byte (which text never has, and every MRT header has: the high bytes of its type,
//! subtype and length) or whose name ends in `.mrt` (before any `.gz`/`.bz2`) and that is
//! not MRT is refused with an MRT error about its first header (a damaged MRT file, not a
//! text table); an empty stream is an error; anything else is text.
//!
//! Every error names the file and the line or byte offset and what was wrong; a failed load
//! still hands back everything valid that was read before the failure.

pub mod atomic;
pub mod data;
pub mod delimited;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod hostile;
pub mod mmdb;
pub mod mrt;
pub mod open;
pub mod table;
pub mod text;
pub mod trace;
pub mod updates;

pub use error::{LoadError, ReadError};
pub use open::{open, open_reader, open_reader_with_limit};
pub use table::{
    DuplicatePolicy, LoadedTable, NO_COVERING_ROUTE, PeerFilter, PrefixOnlyHops, ReadConfig,
    ValueColumn,
};
pub use text::read_text_table;
pub use trace::{Trace, TraceError, read_trace, read_trace_from};
pub use updates::{Update, UpdateKind, UpdateReader, read_updates, read_updates_from};

use std::io::Read;
use std::path::Path;

/// Reads a routing table file of any supported format.
pub fn read_table(path: &Path, cfg: &ReadConfig) -> Result<LoadedTable, LoadError> {
    let name = path.display().to_string();
    let fail = |err| {
        LoadError::new(ReadError::Io { source_name: name.clone(), err }, LoadedTable::new(cfg))
    };
    if path.is_dir() {
        let err = std::io::Error::other("is a directory, not a table file");
        return Err(fail(err));
    }
    let file = std::fs::File::open(path).map_err(fail)?;
    read_table_from(file, &name, cfg)
}

/// Reads a routing table of any supported format from a byte source; `name` is used in errors.
pub fn read_table_from<R: Read + Send + 'static>(
    source: R,
    name: &str,
    cfg: &ReadConfig,
) -> Result<LoadedTable, LoadError> {
    let fail = |e| LoadError::new(e, LoadedTable::new(cfg));
    let input = match cfg.max_decompressed {
        Some(limit) => open_reader_with_limit(source, name, limit),
        None => open_reader(source, name),
    }
    .map_err(fail)?;
    let (head, input) = open::peek(input, HEAD_BYTES, name).map_err(fail)?;
    if head.is_empty() {
        // A zero-byte file is a failed download or write far more often than a table.
        let reason = "the file is empty (0 bytes after decompression): not a table".into();
        return Err(fail(ReadError::Content { source_name: name.into(), reason }));
    }
    let binary = head[..head.len().min(12)].contains(&0);
    let csv = !binary && delimited::looks_like_csv(&head);
    let mrt = mrt::looks_like_mrt(&head);
    let maybe_mmdb = (binary && !mrt) || named(name, ".mmdb");
    if let Some(field) = cfg.value_field.as_deref().filter(|_| !csv && !maybe_mmdb) {
        let kind =
            if mrt { "an MRT dump" } else { "a text table, whose value is its second column" };
        let reason = format!(
            "a value field ('{field}') applies to CSV tables and MaxMind DB files; this is {kind}"
        );
        return Err(fail(ReadError::Content { source_name: name.into(), reason }));
    }
    if mrt {
        mrt::read_mrt_table(input, name, cfg)
    } else if named(name, ".mrt") {
        Err(fail(mrt::not_mrt(&head, name)))
    } else if maybe_mmdb {
        // A MaxMind DB (its marker is at the end), else a damaged MRT file.
        mmdb::read_if_mmdb(input, name, cfg).unwrap_or_else(|| {
            let error = if named(name, ".mmdb") {
                ReadError::Content {
                    source_name: name.into(),
                    reason: "not a MaxMind DB: no metadata marker in its last 128 KiB".into(),
                }
            } else {
                mrt::not_mrt(&head, name)
            };
            Err(fail(error))
        })
    } else if csv {
        delimited::read_csv_table(input, name, cfg)
    } else {
        read_text_table(input, name, cfg)
    }
}

/// How much of a stream is looked at to choose its format (a CSV header line fits).
const HEAD_BYTES: usize = 4096;

/// A name ending in `suffix`, possibly followed by a compression suffix.
fn named(name: &str, suffix: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let base = [".gz", ".bz2", ".gzip", ".bzip2"]
        .iter()
        .find_map(|s| lower.strip_suffix(s))
        .unwrap_or(&lower);
    base.ends_with(suffix)
}
