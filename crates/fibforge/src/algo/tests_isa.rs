//! The one CPU dispatch ([`crate::cpu`]) seen from the structures with SIMD kernels: every
//! level this CPU has, forced through the `isa=` option, answers as the RIB does and so as
//! the detected level does; a level the CPU lacks or an unknown name is a clear error.

use super::bloom;
use super::bloom::{BloomFib, BloomKey};
use super::testkit::{assert_same, edge_tables, many_hops, probes};
use crate::addr::Address;
use crate::cpu::Isa;
use crate::fib::{BuildError, Compile};
use crate::registry::{self, AlgoSpec, RegistryFamily};
use crate::rib::Rib;

/// The registry names whose lookups dispatch on [`Isa`] (Bloomfwd separately: its default
/// expansion limit is too large for the edge tables in a test).
const SIMD_ALGOS: &[&str] = &["poptrie", "poptrie16", "bplus"];

fn spec(text: &str) -> AlgoSpec {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Bloomfwd forced to `isa` (`None`: detected), its expansion kept small.
fn bloomfwd<A: BloomKey>(rib: &Rib<A>, isa: Option<Isa>) -> Option<BloomFib<A>> {
    let cfg = bloom::Config { isa, max_keys: 1 << 18, ..bloom::Config::default() };
    match BloomFib::compile(rib, &cfg) {
        Err(BuildError::LimitExceeded { .. }) => None,
        built => Some(built.unwrap()),
    }
}

fn every_level_answers_alike<A: Address + RegistryFamily + BloomKey>() {
    let mut tables = edge_tables::<A>();
    tables.push(("many hops", many_hops::<A>(2000)));
    let levels: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
    for (table, rib) in &tables {
        let addrs: Vec<A> = probes(rib, 500, 7);
        for algo in SIMD_ALGOS {
            let auto = registry::build(&spec(algo), rib).unwrap();
            assert_same(&format!("{algo} auto on {table}"), &*auto, rib, &addrs);
            for isa in &levels {
                let forced = registry::build(&spec(&format!("{algo}:isa={isa}")), rib).unwrap();
                assert_same(&format!("{algo}:isa={isa} on {table}"), &*forced, rib, &addrs);
            }
        }
        if let Some(auto) = bloomfwd(rib, None) {
            assert_same(&format!("bloomfwd auto on {table}"), &auto, rib, &addrs);
            for &isa in &levels {
                let forced = bloomfwd(rib, Some(isa)).unwrap();
                assert_same(&format!("bloomfwd:isa={isa} on {table}"), &forced, rib, &addrs);
            }
        }
    }
}

#[test]
fn forced_levels_answer_as_detected_ipv4() {
    every_level_answers_alike::<u32>();
}

#[test]
fn forced_levels_answer_as_detected_ipv6() {
    every_level_answers_alike::<u128>();
}

#[test]
fn unknown_or_missing_levels_are_errors() {
    let rib: Rib<u32> = Rib::new();
    for algo in SIMD_ALGOS.iter().chain(&["bloomfwd"]) {
        let err = registry::build(&spec(&format!("{algo}:isa=sse9")), &rib).err().unwrap();
        assert!(matches!(err, BuildError::BadOption { .. }), "{algo}: {err}");
        assert!(err.to_string().contains("sse9"), "{algo}: {err}");
        for isa in Isa::ALL.into_iter().filter(|i| !i.available()) {
            let err = registry::build(&spec(&format!("{algo}:isa={isa}")), &rib).err().unwrap();
            assert!(err.to_string().contains("does not have"), "{algo}: {err}");
        }
    }
}
