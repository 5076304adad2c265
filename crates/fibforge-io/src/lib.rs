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
pub use table::{DuplicatePolicy, PeerFilter, PrefixOnlyHops, ReadConfig, Table};
pub use text::read_text_table;

use std::io::Read;
use std::path::Path;

/// Reads a routing table file of any supported format.
pub fn read_table(path: &Path, cfg: &ReadConfig) -> Result<Table, LoadError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|err| {
        LoadError::new(ReadError::Io { source_name: name.clone(), err }, Table::new(cfg))
    })?;
    read_table_from(file, &name, cfg)
}

/// Reads a routing table of any supported format from a byte source; `name` is used in errors.
pub fn read_table_from<R: Read + Send + 'static>(
    source: R,
    name: &str,
    cfg: &ReadConfig,
) -> Result<Table, LoadError> {
    let input = open_reader(source, name).map_err(|e| LoadError::new(e, Table::new(cfg)))?;
    read_text_table(input, name, cfg)
}
