//! MIHT update times on a real BGP update stream (the quantity Lin et al. 2014 report).
//!
//! ```sh
//! cargo run --release -p fibforge-bench --example miht_updates -- TABLE UPDATES
//! ```
//!
//! `UPDATES` has lines `unixtime a|w prefix nexthop` (IPv4). Each update goes to the RIB,
//! then to the MIHT through `apply_changes`; only the MIHT call is timed. Announcements of
//! a prefix already present with another next hop count as inserts (a replacement).
//! Prints count, mean, p50, p99 and max for announcements and withdrawals, then checks the
//! result against a fresh compile on every changed prefix's edges.

use fibforge::algo::miht;
use fibforge::algo::miht::Miht;
use fibforge::{Compile, Incremental, Lookup, Prefix};
use fibforge_io::ReadConfig;
use std::io::BufRead;
use std::time::Instant;

fn summary(name: &str, ns: &mut [u64]) {
    if ns.is_empty() {
        return println!("{name}: none");
    }
    ns.sort_unstable();
    let mean = ns.iter().sum::<u64>() as f64 / ns.len() as f64;
    let pct = |p: f64| ns[((ns.len() - 1) as f64 * p) as usize];
    println!(
        "{name}: n={} mean={mean:.0} ns p50={} ns p99={} ns max={} ns",
        ns.len(),
        pct(0.5),
        pct(0.99),
        ns[ns.len() - 1]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, table, updates] = &args[..] else {
        eprintln!("usage: miht_updates TABLE UPDATES");
        std::process::exit(2);
    };
    let mut t = fibforge_io::read_table(table.as_ref(), &ReadConfig::default())
        .unwrap_or_else(|e| panic!("{table}: {}", e.error));
    let mut rib = std::mem::take(&mut t.v4);
    let start = Instant::now();
    let mut fib = Miht::compile(&rib, &miht::Config::default()).expect("compiles");
    println!("compile: {:.1} ms, {:?}", start.elapsed().as_secs_f64() * 1e3, fib.stats());
    let (mut ins, mut del, mut touched) = (Vec::new(), Vec::new(), Vec::new());
    let input = fibforge_io::open(updates.as_ref()).expect("update stream opens");
    for line in input.lines() {
        let line = line.expect("update stream reads");
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 4 || f[0].starts_with('#') {
            continue;
        }
        let p: Prefix<u32> = f[2].parse().expect("IPv4 prefix");
        let mark = rib.change_mark();
        let withdraw = f[1] == "w";
        if withdraw {
            rib.remove(&p);
        } else {
            rib.insert(p, t.hops.intern(f[3].to_string()).expect("hop ids"));
        }
        let changed = rib.changes_since(mark).to_vec();
        let t0 = Instant::now();
        fib.apply_changes(&rib, &changed).expect("update applies");
        let ns = t0.elapsed().as_nanos() as u64;
        rib.trim_changes(rib.change_mark());
        if !changed.is_empty() {
            if withdraw { del.push(ns) } else { ins.push(ns) }
        }
        touched.extend(changed);
    }
    summary("insert (announce)", &mut ins);
    summary("delete (withdraw)", &mut del);
    let fresh = Miht::compile(&rib, &miht::Config::default()).expect("compiles");
    let bad = touched
        .iter()
        .flat_map(|p| [p.addr(), p.last(), p.addr().wrapping_sub(1), p.last().wrapping_add(1)])
        .filter(|&a| fib.lookup(a) != fresh.lookup(a) || fib.lookup(a) != rib.lookup(a))
        .count();
    println!("after replay: {:?}; mismatches against a fresh compile: {bad}", fib.stats());
}
