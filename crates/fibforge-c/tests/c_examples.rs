//! The example programs of `examples/` built as their comments say and run on the shipped
//! tables (the benchmarks on a few thousand addresses: this checks that they run and agree,
//! not their speed). `iptable.c`'s answers are checked against the RIB's longest match.
//! `bench_reference.c` needs the reference Poptrie sources and is not built here.

mod support;

use fibforge::{Address, Rib};
use std::net::IpAddr;

#[test]
fn the_iptable_example_answers_as_the_rib() {
    let Some(cc) = support::compiler("the C examples") else { return };
    let tmp = support::scratch("fibforge-c-examples");
    let exe = tmp.join("iptable");
    support::compile(&cc, &support::crate_dir().join("examples/iptable.c"), &exe);
    let table = support::data("ris2015-as3856.tsv.gz");
    let snapshot = tmp.join("example.fibs");
    let addrs = ["8.8.8.8", "1.1.1.1", "193.0.14.129", "2001:db8::1", "240.0.0.1"];
    let mut args: Vec<&std::path::Path> = vec![&table, &snapshot];
    args.extend(addrs.iter().map(std::path::Path::new));
    let out = support::run(&exe, &args);

    let loaded = fibforge_io::read_table(&table, &Default::default()).unwrap();
    assert!(out.starts_with(&format!("{} routes, poptrie, mapped: 1\n", loaded.len())), "{out}");
    for text in addrs {
        let want = match text.parse::<IpAddr>().unwrap() {
            IpAddr::V4(a) => answer(&loaded, &loaded.v4, u32::from(a)),
            IpAddr::V6(a) => answer(&loaded, &loaded.v6, u128::from(a)),
        };
        let line = match want {
            Some((prefix, name)) => format!("{text} -> {prefix} via {name}\n"),
            None => format!("{text} -> no route\n"),
        };
        assert!(out.contains(&line), "missing {line:?} in {out}");
    }
    assert!(out.contains("  covered: "), "{out}");
}

fn answer<A: Address>(
    loaded: &fibforge_io::LoadedTable,
    rib: &Rib<A>,
    addr: A,
) -> Option<(String, String)> {
    let (prefix, hop) = rib.longest_match(addr)?;
    Some((prefix.to_string(), loaded.hops.value(hop).unwrap().clone()))
}

#[test]
fn the_benchmark_examples_run() {
    let Some(cc) = support::compiler("the C examples") else { return };
    let tmp = support::scratch("fibforge-c-examples");
    let table = support::data("ris2015-as3856.tsv.gz");
    for name in ["bench_single", "bench_batch"] {
        let exe = tmp.join(name);
        support::compile(&cc, &support::crate_dir().join(format!("examples/{name}.c")), &exe);
        let out = support::run(&exe, &[&table, std::path::Path::new("4096")]);
        assert!(out.contains("M"), "{name}: {out}");
        // Every path sums the same next hops of the same addresses.
        let mut sums: Vec<&str> =
            out.lines().filter_map(|l| l.split("(checksum ").nth(1)).collect();
        sums.dedup();
        assert!(sums.len() <= 1, "{name}: paths disagree: {out}");
    }
}
