#![warn(missing_docs, unreachable_pub, clippy::undocumented_unsafe_blocks)]
//! fibforge: longest-prefix-match (IP routing table lookup) structures from the research
//! literature, compiled from one RIB and verified against it.
//!
//! - [`IpTable`]: the table to embed: `ipnet` networks of both families, values of your own
//!   type, longest-match answers with the matched prefix at the compiled structure's speed.
//! - [`Rib`]: the routes (a binary radix tree) and the oracle every structure is checked against.
//! - [`Lookup`], [`Compile`], [`Incremental`]: what every algorithm implements.
//! - [`Table`]: the concurrent table (one writer, lock-free [`Reader`]s), Poptrie by default.
//! - [`algo`]: the algorithms, one module each; [`registry`] describes each once (one
//!   descriptor: name, options, capabilities, builders) and builds them by name.
//! - [`multi`]: many tables in one structure (LOOP, with readers and updates).
//! - [`verify`]: any structure checked against its RIB (probes, exhaustive IPv4).
//! - [`export`]: compiled structures written to a file and read back.
//!
//! Items marked `#[doc(hidden)]` are internals that the workspace's tools, benchmarks and
//! bindings share (the SIMD dispatch `cpu`, the structures' node layouts, the update
//! sequences of the fuzzers): public so that those crates reach them, not part of the API
//! (`tools/public-api` counts what is).
//!
//! # Start reading here
//!
//! ```text
//! text / MRT files ──fibforge-io──▶ Rib (truth, oracle) ──Compile──▶ FIB (algo::*) ──▶ Lookup
//!                                     │                                 ▲
//!                                     └── changes ──Incremental─────────┘
//! Table = Rib + incremental FIB + QSBR publication (qsbr, sync); Readers look up lock-free
//! registry (one descriptor per structure) ──▶ CLI, bench, C ABI, Python
//! multi/: many tables in one structure (LOOP, SAIL_M, one FIB per table)
//! ```
//!
//! Read `fib.rs` (the traits), `rib/` (the truth), one algorithm (`algo/poptrie`), then
//! `qsbr/` and `sync.rs` (publication) and `registry/` (names to descriptors).
//!
//! # Layers
//!
//! The modules in layers, lowest first. An import may only go to its own layer or a lower
//! one (tests excepted); `tools/check-layers` reads this list and fails CI on any import
//! that runs up. A module path belongs to the longest path listed (`export::import` is
//! above `export`).
//!
//! ```text
//! 1. addr rng mapped               (addresses, families, the pseudo-random generator, mapped memory)
//! 2. prefix nexthop                (prefixes, next-hop ids)
//! 3. rib                           (the routes, the oracle)
//! 4. fib spec cpu export::file export::container (traits, option grammar, SIMD dispatch, file container)
//! 5. qsbr                          (reclamation: grace periods, publication, Concurrent)
//! 6. algo multi                    (the structures, one table and many)
//! 7. sync                          (the concurrent Table, LeftRight, AnyTable)
//! 8. registry                      (one descriptor per structure: names to builders)
//! 9. verify export                (checks against the RIB, export and import by name)
//! 10. iptable                      (the embedder's table: ipnet keys, the user's values)
//! 11. fuzzing                      (the fuzz targets' bodies)
//! ```
//!
//! Addresses are `u32` (IPv4) and `u128` (IPv6) through the [`Address`] trait; next hops are
//! dense [`NextHop`] ids interned from user values with [`Interner`].
//!
//! ```
//! use fibforge::sync::Table;
//! use fibforge::{Interner, Rib};
//!
//! let mut hops = Interner::new(); // any user value <-> dense NextHop id
//! let mut rib: Rib<u32> = Rib::new();
//! rib.insert("10.0.0.0/8".parse()?, hops.intern("gw-a")?);
//! let mut table = Table::new(rib)?; // Poptrie, the default structure
//! let mut reader = table.reader(); // one per lookup thread (Send, not Sync)
//! reader.online(); // QSBR: lookups only walk; report quiescent states between bursts
//! table.insert("10.1.0.0/16".parse()?, hops.intern("gw-b")?)?;
//! let hop = reader.lookup(u32::from(std::net::Ipv4Addr::new(10, 1, 2, 3)));
//! assert_eq!(hop.and_then(|h| hops.value(h)), Some(&"gw-b"));
//! reader.quiescent(); // nothing held from the lookups above: retired memory may go
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod addr;
pub mod algo;
#[doc(hidden)]
pub mod cpu;
pub mod export;
pub mod fib;
#[doc(hidden)]
pub mod fuzzing;
mod iptable;
mod mapped;
pub mod multi;
pub mod nexthop;
pub mod prefix;
mod qsbr;
pub mod registry;
pub mod rib;
mod rng;
mod spec;
pub mod sync;
pub mod verify;

pub use addr::{Address, Family};
pub use fib::{BuildError, Compile, Incremental, Lookup};
#[cfg(feature = "serde")]
pub use iptable::SnapshotError;
pub use iptable::{AsIpNet, IpPinned, IpReader, IpTable, IpTableError};
pub use nexthop::{Interner, NextHop};
pub use prefix::{AnyPrefix, ParseMode, Prefix, Prefix4, Prefix6, PrefixError};
pub use rib::Rib;
pub use sync::{Reader, Table};
