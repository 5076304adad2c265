//! The bodies of the cargo-fuzz targets whose code lives in this crate (`fuzz/fuzz_targets`),
//! so that the fuzz targets and the normal test run execute the same checks: each target is
//! a one-line call of its function here, and `crates/fibforge-io/tests/fuzz_seeds.rs`
//! replays every committed seed (`fuzz/seeds/T`) and past crash (`fuzz/regressions/T`)
//! through the same function on stable Rust, without cargo-fuzz.
//!
//! Layout: one function per target, named like it; the reader and parser targets that need
//! `fibforge-io` are in `fibforge_io::fuzzing`, whose `TARGETS` is the one list of all
//! eleven.
//!
//! Not a stable API (`#[doc(hidden)]`): it exists for the fuzz crate and the tests.
//!
//! Invariant: a function returns for every input (an error from the code under test is an
//! answer, not a failure) and panics, naming what broke, when an assertion of the target
//! fails: that panic is the fuzzer's finding and the replay test's failure.

use crate::export::{ExportFile, ExportKey, fnv1a64, import};
use crate::registry::{self, AlgoSpec, RegistryFamily};
use crate::verify::sequence::{WIDE_V4, WIDE_V6, is_wide, run_one};
use crate::verify::{Probes, check, route_edges};
use crate::{Address, Lookup, NextHop, Prefix, Rib};

/// A fuzz target's body: any bytes in, a panic when an invariant breaks.
pub type Body = fn(&[u8]);

/// A default route, a route 8 bits short of a host route and a host route: every structure's
/// levels are reached, while expansions (`levels=1`) stay at 256 entries (a /8 would be
/// expanded to 2^24 entries, within the structures' documented bounds but seconds per input).
fn tiny<A: Address>() -> Rib<A> {
    let top = A::from_u128(u128::MAX);
    let near_top = A::from_u128(0x0a << 120 >> (128 - A::BITS));
    [(A::ZERO, 0, 0), (near_top, A::BITS - 8, 1), (top, A::BITS, 2)]
        .into_iter()
        .map(|(a, l, h)| (Prefix::new_masked(a, l).unwrap(), NextHop::from_index(h)))
        .collect()
}

fn build_tiny<A: RegistryFamily>(spec: &AlgoSpec) {
    let rib = tiny::<A>();
    if let Ok(fib) = registry::build::<A>(spec, &rib) {
        let probes = Probes::new(&rib, route_edges(&rib, 1));
        check(fib.as_ref(), &probes, true, true).assert_ok(&spec.to_string());
    }
}

/// `algo_spec`: the algorithm-spec grammar (`name:key=value,...`) and the registry build on
/// a tiny RIB of each family: a spec parses or is refused, prints back to itself, and what
/// builds answers like the RIB; never a panic or an allocation the options alone make
/// unbounded.
pub fn algo_spec(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(spec) = text.parse::<AlgoSpec>() else { return };
    assert_eq!(spec.to_string().parse::<AlgoSpec>().as_ref(), Ok(&spec), "{text:?}");
    build_tiny::<u32>(&spec);
    build_tiny::<u128>(&spec);
}

fn probe_export<A: ExportKey>(file: &ExportFile, data: &[u8]) {
    if let Ok(fib) = import::<A>(file) {
        let mut addrs = vec![A::ZERO, A::from_u128(u128::MAX)];
        for chunk in data.chunks_exact(16).take(64) {
            let bytes: [u8; 16] = chunk.try_into().expect("chunks_exact(16) yields 16 bytes");
            addrs.push(A::from_u128(u128::from_le_bytes(bytes)));
        }
        for &a in &addrs {
            fib.lookup(a);
        }
        let mut out = vec![None; addrs.len()];
        fib.lookup_batch(&addrs, &mut out);
    }
}

/// `read_export`: export files (`docs/reference/export-format.md`) and `IpTable` snapshots
/// (`docs/reference/snapshot-format.md`, bytes that start with its magic): any bytes, with the
/// checksum made right so that the fuzzer reaches the structural checks behind it, either
/// parse and import into a structure whose lookups stay in bounds and end, or are refused
/// with an error; never a panic.
pub fn read_export(data: &[u8]) {
    #[cfg(feature = "serde")]
    if data.starts_with(&crate::iptable::SNAPSHOT_MAGIC) {
        return read_snapshot(data);
    }
    let mut bytes = data.to_vec();
    if bytes.len() >= 32 {
        let sum = fnv1a64(&bytes[32..]);
        bytes[24..32].copy_from_slice(&sum.to_le_bytes());
    }
    let Ok(file) = ExportFile::from_bytes(&bytes) else { return };
    probe_export::<u32>(&file, data);
    probe_export::<u128>(&file, data);
}

/// A snapshot (checksum made right) opens as a table whose lookups of both families, single
/// and batch, stay in bounds and end; whose routes read back (`len`, `iter`, `get` agree)
/// and which takes a change, or it is refused with an error.
#[cfg(feature = "serde")]
fn read_snapshot(data: &[u8]) {
    let mut bytes = data.to_vec();
    if bytes.len() >= 32 {
        let sum = crate::export::container::xxh3_64(&bytes[32..]);
        bytes[24..32].copy_from_slice(&sum.to_le_bytes());
    }
    let Ok(mut table) = crate::IpTable::<u32>::from_snapshot(&bytes) else { return };
    let mut v4 = vec![std::net::Ipv4Addr::BROADCAST, std::net::Ipv4Addr::UNSPECIFIED];
    let mut v6 = vec![std::net::Ipv6Addr::UNSPECIFIED, std::net::Ipv6Addr::from(u128::MAX)];
    for chunk in data.chunks_exact(16).take(64) {
        let x = u128::from_le_bytes(chunk.try_into().expect("chunks_exact(16) yields 16 bytes"));
        v4.push(std::net::Ipv4Addr::from(x as u32));
        v6.push(std::net::Ipv6Addr::from(x));
    }
    let single: Vec<_> = v4.iter().map(|&a| table.lookup_v4(a)).collect();
    let mut batch = vec![None; v4.len()];
    table.lookup_batch_v4(&v4, &mut batch);
    assert_eq!(single, batch, "snapshot: single and batch IPv4 lookups differ");
    let single: Vec<_> = v6.iter().map(|&a| table.lookup_v6(a)).collect();
    let mut batch = vec![None; v6.len()];
    table.lookup_batch_v6(&v6, &mut batch);
    assert_eq!(single, batch, "snapshot: single and batch IPv6 lookups differ");
    let routes: Vec<_> = table.iter().map(|(n, &v)| (n, v)).collect();
    assert_eq!(routes.len(), table.len(), "snapshot: iter and len differ");
    for &(net, value) in &routes {
        assert_eq!(table.get(net), Some(&value), "snapshot: get({net})");
    }
    let _ = table.try_insert("10.0.0.0/8".parse::<ipnet::IpNet>().expect("a network"), 7);
}

/// The IPv4 subjects whose compile fills a fixed array of 2^18 entries or more
/// ([`WIDE_V4`]): `diff_updates_v4_wide` fuzzes them, so they do not dominate
/// `diff_updates_v4`'s time (docs/lab/reliability.md has the profile and the rates).
fn v4_wide(name: &str) -> bool {
    is_wide(WIDE_V4, name)
}

/// The slowest IPv6 subjects per input ([`WIDE_V6`]); `diff_updates_v6_wide` fuzzes them.
fn v6_wide(name: &str) -> bool {
    is_wide(WIDE_V6, name)
}

/// `diff_updates_v4`: differential update sequences (IPv4); the first byte picks one
/// `Incremental` structure outside `v4_wide`'s, the rest is decoded by
/// [`crate::verify::sequence`] into inserts, removals and next-hop changes; after each batch
/// the structure must answer exactly as the RIB (a mismatch or refused update panics, naming
/// the structure).
pub fn diff_updates_v4(data: &[u8]) {
    run_one::<u32>(data, |name| !v4_wide(name));
}

/// `diff_updates_v4_wide`: as [`diff_updates_v4`] for the structures `v4_wide` selects.
pub fn diff_updates_v4_wide(data: &[u8]) {
    run_one::<u32>(data, v4_wide);
}

/// `diff_updates_v6`: as [`diff_updates_v4`] for IPv6, outside `v6_wide`'s structures.
pub fn diff_updates_v6(data: &[u8]) {
    run_one::<u128>(data, |name| !v6_wide(name));
}

/// `diff_updates_v6_wide`: as [`diff_updates_v6`] for the structures `v6_wide` selects.
pub fn diff_updates_v6_wide(data: &[u8]) {
    run_one::<u128>(data, v6_wide);
}
