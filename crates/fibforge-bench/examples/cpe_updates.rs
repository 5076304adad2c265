//! Insert and delete times of the updatable (non-leaf-pushed) CPE tries on a real BGP update
//! stream: the quantity of Srinivasan & Varghese 1998 §5.5 (average and worst insert/delete).
//!
//! ```sh
//! cargo run --release -p fibforge-bench --example cpe_updates -- TABLE UPDATES [SPEC...]
//! ```
//!
//! `UPDATES` has lines `unixtime a|w prefix nexthop` (IPv4). Each `SPEC` is a registry name
//! with options, `cpe_fixed` or `cpe_var` with `levels=K` and `maxstride=S` (default: fixed
//! and variable stride, 3 and 4 levels, maximum stride 17, and both with maximum stride 24).
//! For every spec the trie is compiled from TABLE, then each update goes to the RIB and then
//! to the trie through `apply_changes`; only the trie call is timed (monotonic clock, one
//! read pair per update included). The stream is replayed `CPE_REPEATS` times (default 3),
//! each time onto a fresh trie, and each update keeps its fastest time, so that a preemption
//! (a 4 ms scheduler tick on a shared machine) does not pose as a worst case; the largest
//! single timing is printed too. Announcements of a present prefix with another next hop
//! count as inserts (route changes). Prints count, mean, p50, p99 and max per kind, the
//! slowest update, then checks the last replay against the RIB on every changed prefix's
//! edges (exit 1 on a mismatch).

use fibforge::algo::multibit;
use fibforge::algo::multibit::UpdatableTrie;
use fibforge::registry::AlgoSpec;
use fibforge::{AnyPrefix, Compile, Incremental, Lookup, NextHop, Prefix, Rib};
use fibforge_io::{ReadConfig, UpdateKind};
use std::time::Instant;

const DEFAULT_SPECS: &[&str] = &[
    "cpe_fixed:levels=3",
    "cpe_fixed:levels=4",
    "cpe_var:levels=3",
    "cpe_var:levels=4",
    "cpe_fixed:levels=3,maxstride=24",
    "cpe_var:levels=3,maxstride=24",
];

/// One update of the stream.
type Update = (Prefix<u32>, Option<NextHop>);

/// Count, mean, p50, p99 and max of update times in nanoseconds.
fn summary(name: &str, ns: &mut [u64]) -> String {
    if ns.is_empty() {
        return format!("{name}: none");
    }
    ns.sort_unstable();
    let mean = ns.iter().sum::<u64>() as f64 / ns.len() as f64;
    let pct = |p: f64| ns[((ns.len() - 1) as f64 * p).round() as usize];
    format!(
        "{name}: n={} mean={mean:.0} ns p50={} ns p99={} ns max={} ns",
        ns.len(),
        pct(0.5),
        pct(0.99),
        ns[ns.len() - 1]
    )
}

/// The trie configuration a `cpe_fixed` / `cpe_var` spec names.
fn config(spec: &AlgoSpec) -> Result<multibit::Config, String> {
    let variable = match spec.name.as_str() {
        "cpe_fixed" => false,
        "cpe_var" => true,
        other => return Err(format!("'{other}': expected cpe_fixed or cpe_var")),
    };
    spec.check_options("cpe", &["levels", "maxstride"]).map_err(|e| e.to_string())?;
    let opt = |key| spec.options.get(key).map(|_| spec.get_u32("cpe", key, 0)).transpose();
    Ok(multibit::Config {
        levels: opt("levels").map_err(|e| e.to_string())?,
        variable,
        packed: false,
        max_stride: opt("maxstride").map_err(|e| e.to_string())?,
        leaf_pushed: false,
    })
}

/// Reads the IPv4 updates of a stream (text or MRT, through `fibforge_io::read_updates`),
/// interning next hops into `table`; IPv6 updates are skipped.
fn read_updates(path: &str, table: &mut fibforge_io::LoadedTable) -> Vec<Update> {
    let reader = fibforge_io::read_updates(path.as_ref(), &ReadConfig::default())
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    for u in reader {
        let u = u.unwrap_or_else(|e| panic!("{path}: {e}"));
        let AnyPrefix::V4(p) = u.prefix else { continue };
        let hop = match (u.kind, u.next_hop) {
            (UpdateKind::Withdraw, _) => None,
            (UpdateKind::Announce, hop) => {
                let value = hop.unwrap_or_default();
                Some(table.hops.intern(value).expect("hop ids"))
            }
        };
        out.push((p, hop));
    }
    out
}

/// Times of one replay: per update, the `apply_changes` nanoseconds (`None`: no change).
struct Replay {
    ns: Vec<Option<u64>>,
    touched: Vec<Prefix<u32>>,
    trie: UpdatableTrie<u32>,
    rib: Rib<u32>,
}

/// Replays `updates` onto a fresh trie of `rib` built with `cfg`.
fn replay_once(cfg: &multibit::Config, mut rib: Rib<u32>, updates: &[Update]) -> Replay {
    let mut trie = UpdatableTrie::compile(&rib, cfg).expect("compiles");
    let (mut ns, mut touched) = (Vec::with_capacity(updates.len()), Vec::new());
    for &(p, hop) in updates {
        let mark = rib.change_mark();
        match hop {
            Some(h) => rib.insert(p, h),
            None => rib.remove(&p),
        };
        let changed = rib.changes_since(mark).to_vec();
        let t0 = Instant::now();
        trie.apply_changes(&rib, &changed).expect("update applies");
        let t = t0.elapsed().as_nanos() as u64;
        rib.trim_changes(rib.change_mark());
        ns.push((!changed.is_empty()).then_some(t));
        touched.extend(changed);
    }
    Replay { ns, touched, trie, rib }
}

/// Replays `updates` `repeats` times (a fresh trie each time) and prints, per kind, the
/// statistics of each update's fastest time: a preemption of this process (frequent on a
/// shared machine) rarely hits the same update in every replay. True when the last replay's
/// trie equals the RIB on the edges of every changed prefix.
fn run(
    spec: &str,
    cfg: &multibit::Config,
    rib: &Rib<u32>,
    updates: &[Update],
    repeats: usize,
) -> bool {
    let start = Instant::now();
    let trie = UpdatableTrie::compile(rib, cfg).expect("compiles");
    let (build_ms, s) = (start.elapsed().as_secs_f64() * 1e3, trie.stats());
    let kib = |b: usize| b as f64 / 1024.0;
    println!(
        "{spec}: build {build_ms:.1} ms, {} nodes, {} levels, {:.0} KiB nodes, {:.0} KiB arena",
        s.nodes,
        s.levels,
        s.node_bytes as f64 / 1024.0,
        kib(trie.memory_bytes())
    );
    let runs: Vec<Replay> =
        (0..repeats.max(1)).map(|_| replay_once(cfg, rib.clone(), updates)).collect();
    let fastest = |i: usize| runs.iter().filter_map(|r| r.ns[i]).min();
    let raw_max = runs.iter().flat_map(|r| r.ns.iter().flatten()).max().copied().unwrap_or(0);
    let (mut ins, mut del) = (Vec::new(), Vec::new());
    for (i, &(_, hop)) in updates.iter().enumerate() {
        if let Some(t) = fastest(i) {
            if hop.is_some() { ins.push(t) } else { del.push(t) }
        }
    }
    println!("  {}", summary("insert (announce)", &mut ins));
    println!("  {}", summary("delete (withdraw)", &mut del));
    let worst = (0..updates.len()).max_by_key(|&i| fastest(i).unwrap_or(0)).unwrap_or(0);
    let last = runs.last().expect("one replay");
    let bad = last
        .touched
        .iter()
        .flat_map(|p| [p.addr(), p.last(), p.addr().wrapping_sub(1), p.last().wrapping_add(1)])
        .filter(|&a| last.trie.lookup(a) != last.rib.lookup(a))
        .count();
    println!(
        "  slowest update {} ({}); max of any single timing {raw_max} ns; arena {:.0} KiB after; \
         check: {} changed prefixes, {bad} mismatching addresses",
        updates.get(worst).map_or("-".into(), |u| u.0.to_string()),
        updates.get(worst).map_or("-", |u| if u.1.is_some() { "announce" } else { "withdraw" }),
        kib(last.trie.memory_bytes()),
        last.touched.len()
    );
    bad == 0 && short_routes(cfg, rib)
}

/// The expensive updates the stream lacks: announcing, re-pointing and withdrawing the
/// shortest routes (/1, /2, /4, /8 at 0.0.0.0 or 64.0.0.0), which repaint up to half of the
/// root node (the paper's bound: one node of at most 2^maxstride entries). Each cycle runs 3
/// times; every step keeps its fastest time. True when the trie still equals the RIB.
fn short_routes(cfg: &multibit::Config, rib: &Rib<u32>) -> bool {
    let mut rib = rib.clone();
    let mut trie = UpdatableTrie::compile(&rib, cfg).expect("compiles");
    let steps = [
        ("announce", NextHop::from_index(0).into()),
        ("change", NextHop::from_index(1).into()),
        ("withdraw", None),
    ];
    let mut line = Vec::new();
    for len in [1, 2, 4, 8] {
        let p = Prefix::new(0x4000_0000 & !(u32::MAX >> len), len).expect("canonical");
        let mut best = [u64::MAX; 3];
        for _ in 0..3 {
            for (j, &(_, h)) in steps.iter().enumerate() {
                let mark = rib.change_mark();
                match h {
                    Some(h) => rib.insert(p, h),
                    None => rib.remove(&p),
                };
                let changed = rib.changes_since(mark).to_vec();
                let t0 = Instant::now();
                trie.apply_changes(&rib, &changed).expect("update applies");
                best[j] = best[j].min(t0.elapsed().as_nanos() as u64);
                rib.trim_changes(rib.change_mark());
            }
        }
        line.extend(steps.iter().zip(best).map(|((what, _), ns)| format!("{what} /{len} {ns}")));
    }
    println!("  short routes (ns, fastest of 3): {}", line.join(", "));
    [0u32, 0x3fff_ffff, 0x4000_0000, 0x7fff_ffff, 0x8000_0000, u32::MAX]
        .into_iter()
        .all(|a| trie.lookup(a) == rib.lookup(a))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, table, updates, specs @ ..] = &args[..] else {
        eprintln!("usage: cpe_updates TABLE UPDATES [SPEC...]  (env CPE_REPEATS: replays, 3)");
        std::process::exit(2);
    };
    let repeats = std::env::var("CPE_REPEATS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let mut t = fibforge_io::read_table(table.as_ref(), &ReadConfig::default())
        .unwrap_or_else(|e| panic!("{table}: {}", e.error));
    let ups = read_updates(updates, &mut t);
    println!("{table}: {} IPv4 routes; {updates}: {} updates", t.v4.len(), ups.len());
    let specs: Vec<&str> = if specs.is_empty() {
        DEFAULT_SPECS.to_vec()
    } else {
        specs.iter().map(String::as_str).collect()
    };
    let mut ok = true;
    for text in specs {
        let cfg = text.parse::<AlgoSpec>().map_err(|e| e.to_string()).and_then(|s| config(&s));
        match cfg {
            Ok(cfg) => ok &= run(text, &cfg, &t.v4, &ups, repeats),
            Err(e) => {
                eprintln!("{text}: {e}");
                std::process::exit(2);
            }
        }
    }
    std::process::exit(if ok { 0 } else { 1 });
}
