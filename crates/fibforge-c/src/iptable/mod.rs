//! `fibforge_iptable`: both address families behind one C handle, on [`fibforge::IpTable`].
//!
//! The per-family tables (`fibforge_table4` / `fibforge_table6`) are the data plane's: a
//! next hop per lookup, at the walk's speed, with inline views. This handle is the rest of
//! the library at the C boundary: lookups that also answer the matched prefix's length
//! (stored beside the value in the compiled structure, so one walk answers both), exact
//! gets, cursors over the routes (all, covering or covered), snapshots saved and opened by
//! `mmap`, and readers for other threads — for IPv4 and IPv6 in one table.
//!
//! Values are the caller's `u32` next hops (`0..=FIBFORGE_MAX_NEXT_HOP`, as the per-family
//! tables), stored once however many prefixes carry them. A snapshot holds them as
//! `IpTable<u32>` does, so C, Rust (`IpTable::<u32>::open`) and `fibforge snapshot
//! --values index` files are one format.
//!
//! Layout: [`types`] (the C structs `fibforge_prefix` and `fibforge_route`), [`handle`] (the
//! table, its reader and cursor, safe Rust), [`batch`] (array lookups), `ffi` (the exported
//! names, each a NULL-checked forwarder).

pub mod batch;
pub mod handle;
pub mod types;

mod ffi;

pub use ffi::*;
