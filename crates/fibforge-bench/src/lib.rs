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
//! Method: Poptrie (Asai & Ohara, SIGCOMM 2015) §4 — xorshift addresses generated in the loop,
//! cycles per lookup with the timer's cost removed, per-depth costs, thread scaling; Bloomfwd
//! (Lucchesi et al. 2018) §6.4 — the matching ratio.

pub mod alloc;
pub mod contender;
pub mod depth;
pub mod family;
mod log;
pub mod multi;
mod multi_cycles;
pub mod papers;
pub mod peers;
pub mod replay;
pub mod report;
pub mod rng;
pub mod runner;
pub mod soak;
pub mod subsample;
pub mod synth;
pub mod timing;
pub mod traffic;
pub mod verify;

pub use family::BenchAddress;
pub use runner::{NamedTable, Settings};
