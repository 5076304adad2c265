//! fibforge-io: reading routing data.
//!
//! - [`open`]: any file, plain, gzip or bzip2, chosen by content (magic bytes), not by name;
//! - [`text`]: text tables (`prefix<TAB or spaces>nexthop[...]`, prefix-only lists, comments,
//!   mixed IPv4/IPv6) into a [`Table`];
//!
//! Every error names the file and the line or byte offset and what was wrong; a failed load
//! still hands back everything valid that was read before the failure.

pub mod error;
pub mod open;
pub mod table;
pub mod text;

pub use error::{LoadError, ReadError};
pub use open::{open, open_reader};
pub use table::{DuplicatePolicy, PrefixOnlyHops, ReadConfig, Table};
pub use text::read_text_table;

use std::path::Path;

/// Reads a routing table file of any supported format.
pub fn read_table(path: &Path, cfg: &ReadConfig) -> Result<Table, LoadError> {
    let input = open(path).map_err(|e| LoadError::new(e, Table::new(cfg)))?;
    read_text_table(input, &path.display().to_string(), cfg)
}
