//! Snapshot open time and the memory processes share (lab tool, docs/lab/iptable.md).
//!
//! Builds one `IpTable<String>` of an IPv4 and an IPv6 table, saves it, and times
//! `IpTable::open` (the median of 21 opens; the file is in the page cache, as a server's
//! restart or a forked worker finds it). Then, for each way of getting the table — `open`
//! (the snapshot, mapped) and `build` (from the text tables, as without snapshots) — starts
//! one process alone and then P processes together; each gets the table, looks up 2^20
//! random addresses of each family and waits, and while they are all alive each one's `Rss`
//! and `Pss` (its share of pages mapped by several processes) are read from
//! `/proc/PID/smaps_rollup`.
//!
//! `cargo run --release -p fibforge-bench --example snapshot_share -- V4TABLE V6TABLE
//! [PROCESSES]`; for profiling, `--save V4TABLE V6TABLE FILE` writes the snapshot and
//! `--open-loop FILE N` opens it N times (under `perf record`).

use fibforge::IpTable;
use ipnet::IpNet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args[0] == "--child" {
        return child(&args[1], &args[2..]);
    }
    if args[0] == "--save" {
        return build(&args[1], &args[2]).save(&args[3]).unwrap();
    }
    if args[0] == "--open-loop" {
        for _ in 0..args[2].parse().unwrap() {
            let table: IpTable<String> = IpTable::open(&args[1]).unwrap();
            std::hint::black_box(&table);
        }
        return;
    }
    let (v4, v6) = (&args[0], &args[1]);
    let processes: usize = args.get(2).map_or(8, |p| p.parse().unwrap());
    let path = std::env::temp_dir().join(format!("snapshot-share-{}.fibs", std::process::id()));
    let started = Instant::now();
    let table = build(v4, v6);
    let built = started.elapsed();
    table.save(&path).unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    println!(
        "table: {} routes, built in {:.0} ms; snapshot {:.1} MB",
        table.len(),
        built.as_secs_f64() * 1e3,
        size as f64 / 1e6
    );
    let mut opens: Vec<f64> = (0..21)
        .map(|_| {
            let t = Instant::now();
            let opened: IpTable<String> = IpTable::open(&path).unwrap();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            assert!(opened.is_mapped());
            ms
        })
        .collect();
    opens.sort_by(f64::total_cmp);
    println!("open: median {:.2} ms (min {:.2}, max {:.2})", opens[10], opens[0], opens[20]);
    let opened: IpTable<String> = IpTable::open(&path).unwrap();
    for round in 0..3 {
        let (b4, b6) = (rate(&table), rate(&opened));
        println!(
            "round {round}: lookups, Mlps IPv4 / IPv6: built {:.1} / {:.1}, opened {:.1} / {:.1}",
            b4.0, b4.1, b6.0, b6.1
        );
    }
    drop(opened);
    let p = path.to_str().unwrap();
    let sum = |m: &[(u64, u64)]| m.iter().fold((0, 0), |(r, s), &(a, b)| (r + a, s + b));
    // Processes without a table: what the program itself costs, alone and side by side.
    let (base1, base) = (measure("none", &[], 1)[0].1, sum(&measure("none", &[], processes)).1);
    println!(
        "no table: one process Pss {:.1} MB, {processes} processes {:.1} MB",
        mb(base1),
        mb(base)
    );
    for (mode, rest) in [("open", vec![p]), ("build", vec![v4.as_str(), v6.as_str()])] {
        let (rss1, pss1) = measure(mode, &rest, 1)[0];
        let (rss, pss) = sum(&measure(mode, &rest, processes));
        println!(
            "{mode}: one process Rss {:.1} MB Pss {:.1} MB; {processes} processes: summed Rss \
             {:.1} MB, summed Pss {:.1} MB = {:.2}x one process's; the table's part (Pss less \
             the no-table processes'): {:.1} MB for one, {:.1} MB for {processes} = {:.2}x",
            mb(rss1),
            mb(pss1),
            mb(rss),
            mb(pss),
            pss as f64 / pss1 as f64,
            mb(pss1 - base1),
            mb(pss - base),
            (pss - base) as f64 / (pss1 - base1) as f64
        );
    }
    std::fs::remove_file(&path).unwrap();
}

fn mb(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The tables of two text files in one IpTable, values the next hops' text.
fn build(v4: &str, v6: &str) -> IpTable<String> {
    let read = |p: &str| fibforge_io::read_table(std::path::Path::new(p), &Default::default());
    let (f4, f6) = (read(v4).unwrap(), read(v6).unwrap());
    let name4 = |h| f4.hops.value(h).unwrap().clone();
    let name6 = |h| f6.hops.value(h).unwrap().clone();
    let net = |s: String| s.parse::<IpNet>().unwrap();
    let routes4 = f4.v4.iter().map(|(p, h)| (net(p.to_string()), name4(h)));
    let routes6 = f6.v6.iter().map(|(p, h)| (net(p.to_string()), name6(h)));
    routes4.chain(routes6).collect()
}

/// Single `lookup`s of 2^20 random addresses per family (IPv6 under 2000::/4, where the
/// table's routes are): millions per second.
fn rate(table: &IpTable<String>) -> (f64, f64) {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let v4: Vec<std::net::Ipv4Addr> = (0..1 << 20).map(|_| (next() as u32).into()).collect();
    let v6: Vec<std::net::Ipv6Addr> =
        (0..1 << 20).map(|_| ((0x2u128 << 124) | u128::from(next()) << 60).into()).collect();
    let t = Instant::now();
    let hits = v4.iter().filter(|&&a| table.lookup(a).is_some()).count();
    let r4 = v4.len() as f64 / t.elapsed().as_secs_f64() / 1e6;
    let t = Instant::now();
    let hits6 = v6.iter().filter(|&&a| table.lookup(a).is_some()).count();
    let r6 = v6.len() as f64 / t.elapsed().as_secs_f64() / 1e6;
    std::hint::black_box((hits, hits6));
    (r4, r6)
}

/// Starts `n` children of `mode`, waits until each has its table and has looked up, reads
/// every child's (Rss, Pss) in KiB while all are alive, then lets them exit.
fn measure(mode: &str, rest: &[&str], n: usize) -> Vec<(u64, u64)> {
    let exe = std::env::current_exe().unwrap();
    let mut children: Vec<Child> = (0..n)
        .map(|_| {
            Command::new(&exe)
                .arg("--child")
                .arg(mode)
                .args(rest)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in &mut children {
        let mut line = String::new();
        BufReader::new(c.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "ready");
    }
    let memory = children.iter().map(|c| rss_pss(c.id())).collect();
    for mut c in children {
        drop(c.stdin.take());
        assert!(c.wait().unwrap().success());
    }
    memory
}

/// `Rss` and `Pss` of process `pid`, in KiB.
fn rss_pss(pid: u32) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap();
    let field = |name: &str| {
        let line = text.lines().find(|l| l.starts_with(name)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap()
    };
    (field("Rss:"), field("Pss:"))
}

/// A child: gets the table (`open PATH`, `build V4 V6`, or `none`: no table), looks up 2^20 random addresses of
/// each family, says "ready" and waits for its stdin to close.
fn child(mode: &str, rest: &[String]) {
    let table: Option<IpTable<String>> = match mode {
        "open" => Some(IpTable::open(&rest[0]).unwrap()),
        "build" => Some(build(&rest[0], &rest[1])),
        _ => None,
    };
    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(std::process::id());
    let mut found = 0usize;
    for _ in 0..1 << 20 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v4 = std::net::Ipv4Addr::from(x as u32);
        let v6 = std::net::Ipv6Addr::from((0x2000u128 << 112) | (x as u128) << 64 | x as u128);
        if let Some(t) = &table {
            found += t.lookup(v4).is_some() as usize + t.lookup(v6).is_some() as usize;
        }
    }
    std::hint::black_box(found);
    let mut out = std::io::stdout();
    writeln!(out, "ready").unwrap();
    out.flush().unwrap();
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
}
