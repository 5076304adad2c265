#![warn(clippy::undocumented_unsafe_blocks)]
//! fibforge-bench: the benchmark method of the papers, as a library behind `fibforge bench` and
//! `fibforge replay`.
//!
//! - [`traffic`]: address generators (random, sequential, repeated, in-prefix, traces, generated
//!   traces with Zipf popularity, bursts and a matching ratio);
//! - [`timing`]: rates over fixed durations with repeats, per-lookup TSC cycles and their
//!   percentiles, thread scaling;
//! - [`verify`]: every structure is checked against the RIB before it is timed;
//! - [`peers`]: DPDK, Go bart and Rust crates measured in the same run;
//! - [`runner`]: the whole run; [`report`]: JSON, terminal table, machine description, plots;
//! - [`synth`]: Poptrie's SYN1/SYN2 growth tables.
//! - [`soak`]: a long perturbed replay of real update streams with every reader answer checked
//!   to be an old-or-new answer, and memory sampled.
//! - [`multi`]: many tables at once (LOOP, SAIL_M, one structure per table).
//!
//! Features: `harness` (default) is everything above; without it only the measuring core
//! that `fibforge replay` and `soak` use is built ([`traffic`], [`timing`], [`replay`],
//! [`soak`]), with no plotters, DPDK shim, C library or C compiler.
//!
//! Method: Poptrie (Asai & Ohara, SIGCOMM 2015) §4 — xorshift addresses generated in the loop,
//! cycles per lookup with the timer's cost removed, per-depth costs, thread scaling; Bloomfwd
//! (Lucchesi et al. 2018) §6.4 — the matching ratio.

#[cfg(feature = "harness")]
pub mod alloc;
#[cfg(feature = "harness")]
pub mod contender;
#[cfg(feature = "harness")]
pub mod depth;
pub mod family;
#[cfg(feature = "harness")]
mod log;
#[cfg(feature = "harness")]
pub mod multi;
#[cfg(feature = "harness")]
mod multi_cycles;
#[cfg(feature = "harness")]
pub mod papers;
#[cfg(feature = "harness")]
pub mod peers;
pub mod replay;
#[cfg(feature = "harness")]
pub mod report;
pub mod rng;
#[cfg(feature = "harness")]
pub mod runner;
pub mod soak;
#[cfg(feature = "harness")]
pub mod subsample;
#[cfg(feature = "harness")]
pub mod synth;
pub mod timing;
pub mod traffic;
#[cfg(feature = "harness")]
pub mod verify;

pub use family::BenchAddress;
#[cfg(feature = "harness")]
pub use runner::{NamedTable, Settings};

/// The Rust guide (`docs/guide/rust.md`) as a doc test: each of its Rust snippets is
/// compiled and run by `cargo test --doc` (`./test.sh`), so the guide stays true. This crate
/// hosts it because it depends on everything the guide uses (`fibforge`, `fibforge-io`,
/// `ipnet`); only doc tests see the item.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide/rust.md")]
pub struct RustGuide;
