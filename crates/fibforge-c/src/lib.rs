#![warn(clippy::undocumented_unsafe_blocks)]
//! fibforge-c: the C ABI of fibforge, declared and documented in `include/fibforge.h`.
//!
//! Opaque handles for IPv4 (`fibforge_table4`, `fibforge_reader4`) and IPv6 tables
//! (`fibforge_table6`, `fibforge_reader6`): create or load (text tables, MRT dumps), insert
//! and remove routes, single and batch lookups, and reader handles for other threads while
//! one thread updates. Built as a shared and a static library (`libfibforge_c.so`, `.a`).
//!
//! Layout: [`error`] (status codes, last-error message, panic guard), [`ptr`] (NULL-checked
//! pointer conversions), [`handle`] (the objects behind the handles, safe Rust), [`batch`]
//! (array lookups), [`view`] (the arrays behind C's inline lookup), `entry` (generic entry
//! points), `ffi` (the exported names).
//!
//! # Safety model
//!
//! `unsafe` lives only where C pointers are turned into Rust references or copied from: in
//! [`ptr`], [`batch`], [`view`] and the entry points. Every pointer is checked for NULL;
//! beyond that the
//! caller's contract documented in the header (handles are live and came from this library,
//! arrays hold `n` elements, a table is updated by one thread at a time) is what makes each
//! dereference sound. No panic unwinds into C: every entry point that has a panicking path
//! runs under `catch_unwind` and reports `FIBFORGE_ERR_PANIC` instead; the single lookups and
//! the reader's online/offline/quiescent calls have none and run unguarded (see `entry`).

pub mod batch;
mod entry;
pub mod error;
mod ffi;
pub mod handle;
pub mod iptable;
pub mod ptr;
pub mod view;

pub use error::Status;
pub use ffi::*;
pub use handle::{Ip6, MAX_NEXT_HOP, NO_ROUTE};
