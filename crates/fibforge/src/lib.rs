//! fibforge: longest-prefix-match (IP routing table lookup) structures from the research
//! literature, compiled from one RIB and verified against it.
//!
//! - [`Rib`]: the routes (a binary radix tree) and the oracle every structure is checked against.
//! - [`Lookup`], [`Compile`], [`Incremental`]: what every algorithm implements.
//! - [`Table`]: the concurrent table (one writer, lock-free [`Reader`]s), Poptrie by default.
//! - [`algo`]: the algorithms, one module each; [`registry`] builds them by name.
//!
//! Addresses are `u32` (IPv4) and `u128` (IPv6) through the [`Address`] trait; next hops are
//! dense [`NextHop`] ids interned from user values with [`Interner`].

pub mod addr;
pub mod algo;
pub mod fib;
pub mod multi;
pub mod nexthop;
pub mod prefix;
pub mod registry;
pub mod rib;
pub mod sync;

pub use addr::{Address, Family};
pub use fib::{BuildError, Compile, Incremental, Lookup};
pub use nexthop::{Interner, NextHop};
pub use prefix::{AnyPrefix, ParseMode, Prefix, Prefix4, Prefix6, PrefixError};
pub use rib::Rib;
pub use sync::{Reader, Table};
