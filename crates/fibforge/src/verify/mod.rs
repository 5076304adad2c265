//! The oracle at work: checking any [`Lookup`](crate::Lookup) structure against the [`Rib`]
//! it was built from. The `fibforge verify` command, the benchmark's check before timing, and
//! every test of the workspace use this module and its one random generator.
//!
//! Layout:
//! - [`rng`]: [`XorShift64`], the workspace's pseudo-random generator;
//! - [`probes`](mod@probes): probe addresses ([`route_edges`]: route first/last ± 1;
//!   [`uniform`]; [`in_prefix`]; [`probes()`] combines them);
//! - [`check`](mod@check): [`Probes`] (addresses with the RIB's answers), [`check()`] through
//!   `lookup` and `lookup_batch`, [`compare`] for answers computed elsewhere, [`Report`];
//! - [`exhaustive`](mod@exhaustive): all 2^32 IPv4 addresses against [`Rib::ranges`];
//! - [`multi`]: every table of a [`MultiLookup`](crate::multi::MultiLookup) against its own RIB;
//! - [`sequence`]: differential update sequences (every `Incremental` structure against the
//!   RIB after each batch of a decoded byte string), for the fuzz targets and tests;
//! - [`cases`]: how many random cases property tests run (`FIBFORGE_CASES`).
//!
//! Invariant: a [`Report`]'s `checked` counts every comparison made (a probe looked up through
//! both paths counts twice), so "0 mismatches of N checked" means N answers agreed.
//!
//! ```
//! use fibforge::verify::{self, Probes};
//! use fibforge::{Compile, NextHop, Rib, algo::radix::Radix};
//!
//! let rib: Rib<u32> = [("10.0.0.0/8".parse()?, NextHop::from_index(0))].into_iter().collect();
//! let fib = Radix::compile(&rib, &())?;
//! let probes = Probes::new(&rib, verify::probes(&rib, 1, 1000, 1));
//! let report = verify::check(&fib, &probes, true, true);
//! assert_eq!((report.mismatches, report.checked), (0, 2 * 2004));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Rib`]: crate::Rib
//! [`Rib::ranges`]: crate::Rib::ranges

pub mod check;
pub mod exhaustive;
#[doc(hidden)]
pub mod multi;
pub mod probes;
/// The workspace's pseudo-random generator (defined a layer down, for the structures'
/// generators; see the crate's layer map).
#[doc(hidden)]
pub mod rng {
    pub use crate::rng::{STREAMS, XorShift64, xorshift64_step};
}
#[doc(hidden)]
pub mod sequence;

pub use check::{Probes, Report, check, compare};
pub use exhaustive::{exhaustive, exhaustive_counted};
pub use probes::{in_prefix, level_boundaries, probes, route_edges, uniform};
pub use rng::{XorShift64, xorshift64_step};

/// The environment variable that sets how many random cases property tests and soak checks
/// run ([`cases`]).
#[doc(hidden)]
pub const CASES_ENV: &str = "FIBFORGE_CASES";

/// How many random cases a property test or soak check runs: `FIBFORGE_CASES` when it holds a
/// positive whole number (for long runs, e.g. `FIBFORGE_CASES=10000 cargo test`), else
/// `default` (the quick count of an ordinary test run; another value is reported on stderr and
/// ignored).
#[doc(hidden)]
pub fn cases(default: u32) -> u32 {
    use std::io::Write;
    match std::env::var(CASES_ENV) {
        Err(_) => default,
        Ok(v) => v.trim().parse().ok().filter(|&n| n > 0).unwrap_or_else(|| {
            let what = format!("{CASES_ENV}={v:?} is not a positive whole number: {default} cases");
            let _ = writeln!(std::io::stderr(), "{what}"); // never a panic on a closed stderr
            default
        }),
    }
}
