//! Compiled structures written to a file and read back without compiling
//! (`docs/reference/export-format.md` is the byte-level specification).
//!
//! An [`ExportFile`] is the container: algorithm, family, sixteen `u64` parameters and a list
//! of arrays of fixed-size little-endian elements, with an FNV-1a 64 checksum over everything
//! after the first 32 bytes. [`ExportFile::from_bytes`] checks the container (magic, version,
//! array table, offsets, padding, checksum); each algorithm's importer then checks every
//! length and index of its own arrays before building the structure (`import.rs`), so a
//! corrupted or hostile file gives an [`ExportError`], never an out-of-bounds read.
//!
//! The same files feed the CUDA lookups in `gpu/`, which read the arrays as they are.

//!
//! Layout: `container.rs` is the container that export files and `IpTable` snapshots share,
//! `file.rs` the export file in it (both a layer below the structures, whose `export.rs` files
//! write and read it); `import.rs` builds and reads structures by name (above the registry);
//! `probes.rs` the probe files of the GPU checks.

pub(crate) mod container;
pub(crate) mod file;
mod import;
mod probes;

pub use file::*;
pub use import::{ExportKey, export, import};
pub use probes::{PROBE_MAGIC, ProbeFile, write_probes};

#[cfg(test)]
mod tests;
