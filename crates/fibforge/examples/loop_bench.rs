//! LOOP measurements (the paper's Fig. 9/10, Tables III/IV, Fig. 14) on the tables at hand.
//!
//! `cargo run --release -p fibforge --example loop_bench -- [SHARED_DATA_DIR [SECTIONS]]`
//!
//! SECTIONS is a comma-separated subset of `memory,lookup,updates,tables,tables_real,batch`
//! (default: all).
//!
//! Prints: memory and bytes per prefix versus the number of tables (real sets and perturbed
//! copies of `data/ris2015-as3856`), lookup rates of LOOP against one structure per table,
//! update execution time and modified pointers for a real update stream, the group-size
//! trade-off, and table insertion/deletion times versus the number of tables.

use fibforge::multi::generate::{Perturbation, perturbed_tables};
use fibforge::multi::loop_::{Loop, LoopConfig};
use fibforge::multi::{MultiLookup, PerTable};
use fibforge::registry::AlgoSpec;
use fibforge::{Interner, NextHop, Prefix4, Rib};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn load_dir(dir: &Path) -> Vec<Rib<u32>> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files.retain(|f| !f.to_string_lossy().contains("all_peers"));
    let mut hops = Interner::<String>::new();
    files
        .iter()
        .map(|f| remap(&fibforge_io::read_table(f, &Default::default()).unwrap(), &mut hops))
        .collect()
}

fn remap(t: &fibforge_io::Table, hops: &mut Interner<String>) -> Rib<u32> {
    t.v4.iter().map(|(p, h)| (p, hops.intern_ref(t.hop_value(h)).unwrap())).collect()
}

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Million lookups per second over random (vrf, address) pairs, median of 5 runs.
fn mlps(m: &dyn MultiLookup<u32>, vrfs: u32) -> f64 {
    let n = 4_000_000u64;
    let mut runs: Vec<f64> = (0..5)
        .map(|r| {
            let mut s = 0x9E37_79B9 + r;
            let mut acc = 0u32;
            let t0 = Instant::now();
            for _ in 0..n {
                let x = xorshift(&mut s);
                let h = m.lookup((x >> 32) as u32 % vrfs, x as u32);
                acc = acc.wrapping_add(h.map_or(0, |h| h.raw()));
            }
            std::hint::black_box(acc);
            n as f64 / t0.elapsed().as_secs_f64() / 1e6
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    runs[2]
}

/// The same, pinned once (the way a data-plane thread uses a reader).
fn mlps_pinned(l: &Loop<u32>, vrfs: u32) -> f64 {
    let n = 4_000_000u64;
    let reader = l.reader();
    let mut runs: Vec<f64> = (0..5)
        .map(|r| {
            let mut s = 0x9E37_79B9 + r;
            reader.with(|v| {
                let mut acc = 0u32;
                let t0 = Instant::now();
                for _ in 0..n {
                    let x = xorshift(&mut s);
                    acc = acc.wrapping_add(
                        v.lookup((x >> 32) as u32 % vrfs, x as u32).map_or(0, |h| h.raw()),
                    );
                }
                std::hint::black_box(acc);
                n as f64 / t0.elapsed().as_secs_f64() / 1e6
            })
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    runs[2]
}

/// One row of Fig. 9/10: memory with the flat PortMapTable (`S_pmt`) and with the
/// bitmap-compressed one (`S_pmt2`).
fn memory_row(name: &str, ribs: &[Rib<u32>], cfg: &LoopConfig) {
    let prefixes: usize = ribs.iter().map(|r| r.len()).sum();
    let t0 = Instant::now();
    let l = Loop::build(ribs.to_vec(), cfg).unwrap();
    let build = t0.elapsed().as_secs_f64() * 1e3;
    let st = l.stats();
    let bytes = l.memory_bytes();
    let c = Loop::build(ribs.to_vec(), &LoopConfig { compress_pmt: true, ..cfg.clone() }).unwrap();
    let (cbytes, cst) = (c.memory_bytes(), c.stats());
    let mib = |b: usize| b as f64 / 1048576.0;
    let sail = (ribs.len() <= 32 && prefixes <= 5_000_000)
        .then(|| fibforge::multi::sail_m::SailM::build(ribs, &Default::default()).ok())
        .flatten()
        .map_or("-".to_string(), |m| format!("{:.3}", m.memory_bytes() as f64 / prefixes as f64));
    print!("sail_m {sail:>8} B/prefix  ");
    println!(
        "{name:<18} tables {:>3}  prefixes {prefixes:>9}  build {build:>7.1} ms  memory {:>7.2} MiB  {:>6.3} B/prefix  pmt entries {:>7}  S_pmt {:>8.1} KiB  S_pmt2 {:>8.1} KiB  memory with S_pmt2 {:>7.2} MiB  {:>6.3} B/prefix  chunks {:>6}",
        ribs.len(),
        mib(bytes),
        bytes as f64 / prefixes as f64,
        st.pmt_entries,
        st.pmt_bytes as f64 / 1024.0,
        cst.pmt_bytes as f64 / 1024.0,
        mib(cbytes),
        cbytes as f64 / prefixes as f64,
        st.chunks
    );
}

fn read_updates(path: &Path, hops: &mut Interner<String>) -> Vec<(bool, Prefix4, NextHop)> {
    let file = std::fs::File::open(path).unwrap();
    let r = std::io::BufReader::new(flate2::read::MultiGzDecoder::new(file));
    r.lines()
        .map_while(Result::ok)
        .filter_map(|line| {
            let c: Vec<&str> = line.split_whitespace().collect();
            let p = c.get(2)?.parse::<Prefix4>().ok()?;
            Some((c[1] == "a", p, hops.intern(c.get(3).unwrap_or(&"-").to_string()).unwrap()))
        })
        .collect()
}

fn percentile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q) as usize]
}

fn update_row(base: &[Rib<u32>], updates: &[(bool, Prefix4, NextHop)], cfg: &LoopConfig) {
    let mut l = Loop::build(base.to_vec(), cfg).unwrap();
    let mut times = Vec::with_capacity(updates.len());
    let mut pointers = [0u64; 3];
    for &(announce, p, h) in updates {
        let before = l.stats().modified_pointers;
        let t0 = Instant::now();
        if announce {
            l.insert(0, p, h).unwrap()
        } else {
            l.remove(0, &p).unwrap()
        };
        times.push(t0.elapsed().as_nanos() as f64);
        let changed = (l.stats().modified_pointers - before) as usize;
        if changed > 0 {
            pointers[(changed - 1).min(2)] += 1;
        }
    }
    let total: u64 = pointers.iter().sum();
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let prefixes: usize = base.iter().map(|r| r.len()).sum();
    println!(
        "group {:>3} opt1 {:<5}: {:>6.3} B/prefix  update mean {:>7.0} ns  p50 {:>7.0} ns  p99 {:>8.0} ns  modified pointers 1: {:.2}%  2: {:.2}%  >=3: {:.2}%",
        cfg.group,
        cfg.optimization1,
        l.memory_bytes() as f64 / prefixes as f64,
        mean,
        percentile(&mut times, 0.5),
        percentile(&mut times, 0.99),
        100.0 * pointers[0] as f64 / total.max(1) as f64,
        100.0 * pointers[1] as f64 / total.max(1) as f64,
        100.0 * pointers[2] as f64 / total.max(1) as f64,
    );
}

/// Thread CPU time in ms (wall time on a shared machine includes waiting for a core).
fn cpu_ms() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to write; CLOCK_THREAD_CPUTIME_ID exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

/// Wall and CPU milliseconds of `f`.
fn timed<R>(f: impl FnOnce() -> R) -> (R, f64, f64) {
    let (t0, c0) = (Instant::now(), cpu_ms());
    let r = f();
    (r, t0.elapsed().as_secs_f64() * 1e3, cpu_ms() - c0)
}

/// Fig. 14: incremental insertion h(n) and deletion g(n) of one table into a set of `n`
/// (`set(n)`), versus a full rebuild f(n+1) when `rebuild`; medians of 3, wall and CPU time.
fn tables_rows(
    name: &str,
    set: &dyn Fn(usize) -> Vec<Rib<u32>>,
    (counts, added): (&[usize], &Rib<u32>),
    cfg: &LoopConfig,
    rebuild: bool,
) {
    println!("-- {name}");
    for &n in counts {
        let tables = set(n);
        let mut t = [(); 6].map(|_| Vec::new());
        let mut stats = fibforge::multi::loop_::LoopStats::default();
        for _ in 0..3 {
            let mut l = Loop::build(tables.clone(), cfg).unwrap();
            stats = l.stats();
            let rib = added.clone();
            let (id, wall, cpu) = timed(|| l.add_table(rib).unwrap());
            t[0].push(wall);
            t[1].push(cpu);
            let (_, wall, cpu) = timed(|| l.remove_table(id).unwrap());
            t[2].push(wall);
            t[3].push(cpu);
            if rebuild {
                let mut all = tables.clone();
                all.push(added.clone());
                let (_, wall, cpu) = timed(|| std::hint::black_box(Loop::build(all, cfg).unwrap()));
                t[4].push(wall);
                t[5].push(cpu);
            }
        }
        let m = |v: &mut Vec<f64>| if v.is_empty() { f64::NAN } else { percentile(v, 0.5) };
        println!(
            "tables {n:>3}: insert one {:>7.1} ms (cpu {:>7.1})  delete one {:>7.1} ms (cpu {:>7.1})  full rebuild of {} {:>8.1} ms (cpu {:>8.1})  [before: chunks {:>6}, arena words {:>8}, pmt entries {:>7}]",
            m(&mut t[0]),
            m(&mut t[1]),
            m(&mut t[2]),
            m(&mut t[3]),
            n + 1,
            m(&mut t[4]),
            m(&mut t[5]),
            stats.chunks,
            stats.arena_words,
            stats.pmt_entries,
        );
    }
}

fn tables_section(base: &Rib<u32>, perturbed: &[Rib<u32>], cfg: &LoopConfig) {
    println!("\n== table insertion / deletion time vs number of tables (Fig. 14), median of 3");
    let counts = [1, 2, 4, 8, 16, 31];
    let name = "perturbed set: add perturbed table n+1";
    tables_rows(name, &|n| perturbed[..n].to_vec(), (&counts, &perturbed[31]), cfg, true);
    let name = "n copies of the base table: add a perturbed one (structure size fixed)";
    tables_rows(name, &|n| vec![base.clone(); n], (&counts, &perturbed[0]), cfg, false);
}

/// Fig. 14 on the real sets (add the last table to the first n) and on 1..256 perturbed
/// copies of the first Internet2 table.
fn tables_real_section(shared: &Path, cfg: &LoopConfig) {
    println!("\n== table insertion / deletion time vs number of tables (Fig. 14), real and 256");
    for dir in ["internet2", "ris2000-v4"] {
        let p = shared.join("multi").join(dir);
        if p.exists() {
            let ribs = load_dir(&p);
            let last = ribs.len() - 1;
            let counts: Vec<usize> = (1..=last).collect();
            let name = format!("{dir}: add table {} to the first n", last + 1);
            tables_rows(&name, &|n| ribs[..n].to_vec(), (&counts, &ribs[last]), cfg, true);
        }
    }
    let i2 = shared.join("multi/internet2");
    if i2.exists() {
        let small = load_dir(&i2).swap_remove(0);
        let many = perturbed_tables(&small, 257, Perturbation::default(), 7);
        let counts = [1, 2, 4, 8, 16, 32, 64, 128, 256];
        let name = "internet2 perturbed: add perturbed table n+1";
        tables_rows(name, &|n| many[..n].to_vec(), (&counts, &many[256]), cfg, true);
    }
}

fn main() {
    let shared = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/data"));
    let sections = std::env::args().nth(2).unwrap_or_else(|| "all".into());
    let want = |s: &str| sections == "all" || sections.split(',').any(|x| x == s);
    let cfg = LoopConfig::default();
    let mut hops = Interner::<String>::new();
    let base = remap(
        &fibforge_io::read_table(Path::new("data/ris2015-as3856.tsv.gz"), &Default::default())
            .unwrap(),
        &mut hops,
    );

    if want("memory") {
        memory_rows(&shared, &cfg);
    }
    let perturbed = perturbed_tables(&base, 32, Perturbation::default(), 11);
    if want("memory") {
        for n in [1, 2, 4, 8, 16, 32] {
            memory_row("ris2015 perturbed", &perturbed[..n], &cfg);
        }
        let i2 = shared.join("multi/internet2");
        if i2.exists() {
            let small = load_dir(&i2).swap_remove(0);
            let many = perturbed_tables(&small, 256, Perturbation::default(), 7);
            for n in [1, 2, 4, 8, 16, 32, 64, 128, 256] {
                memory_row("internet2 perturbed", &many[..n], &cfg);
            }
        }
    }
    if want("lookup") {
        lookup_rows(&shared, &perturbed, &cfg);
    }
    let stream = shared.join("updates/linx2014-p52-v4.txt.gz");
    if want("updates") && stream.exists() {
        let updates = read_updates(&stream, &mut hops);
        println!(
            "\n== updates: {} real updates into VRF 0 of 2 tables (Table III, Table IV)",
            updates.len()
        );
        for group in [32, 64, 128] {
            update_row(&perturbed[..2], &updates, &LoopConfig { group, ..cfg.clone() });
        }
        let without = LoopConfig { optimization1: false, ..cfg.clone() };
        update_row(&perturbed[..2], &updates, &without);
        println!(
            "-- the same stream into VRF 0 of 8 tables (the slow path scans every table's RIB)"
        );
        update_row(&perturbed[..8], &updates, &cfg);
        update_row(&perturbed[..8], &updates, &without);
    }
    if want("tables") {
        tables_section(&base, &perturbed, &cfg);
    }
    if want("tables_real") {
        tables_real_section(&shared, &cfg);
    }
    if want("batch") {
        batch_section(&shared, &perturbed, &cfg);
    }
}

fn memory_rows(shared: &Path, cfg: &LoopConfig) {
    println!("== memory vs number of tables (Fig. 9/10)");
    for dir in ["internet2", "ris2000-v4"] {
        let p = shared.join("multi").join(dir);
        if p.exists() {
            let ribs = load_dir(&p);
            for n in 1..=ribs.len() {
                memory_row(dir, &ribs[..n], cfg);
            }
        }
    }
}

fn lookup_rows(shared: &Path, perturbed: &[Rib<u32>], cfg: &LoopConfig) {
    println!("\n== lookup rate, random (vrf, address), Mlps median of 5");
    for (name, ribs) in [("ris2015 perturbed x8", perturbed[..8].to_vec())].into_iter().chain(
        shared
            .join("multi/internet2")
            .exists()
            .then(|| ("internet2 x9", load_dir(&shared.join("multi/internet2")))),
    ) {
        let n = ribs.len() as u32;
        let l = Loop::build(ribs.clone(), cfg).unwrap();
        print!("{name:<22} loop {:>6.1} (pinned {:>6.1})", mlps(&l, n), mlps_pinned(&l, n));
        let zcfg = LoopConfig { compress_pmt: true, ..cfg.clone() };
        let z = Loop::build(ribs.clone(), &zcfg).unwrap();
        print!(
            "  loop S_pmt2 {:>6.1} (pinned {:>6.1}, {:.2} MiB)",
            mlps(&z, n),
            mlps_pinned(&z, n),
            z.memory_bytes() as f64 / 1048576.0
        );
        if let Ok(m) = fibforge::multi::sail_m::SailM::build(&ribs, &Default::default()) {
            let mib = m.memory_bytes() as f64 / 1048576.0;
            print!("  sail_m {:>6.1} ({mib:.1} MiB)", mlps(&m, n));
        }
        for algo in ["poptrie", "radix"] {
            if let Ok(per) = PerTable::build(&ribs, &AlgoSpec::named(algo)) {
                print!(
                    "  per-table {algo} {:>6.1} ({:.1} MiB)",
                    mlps(&per, n),
                    per.memory_bytes() as f64 / 1048576.0
                );
            }
        }
        println!("  loop {:.2} MiB", l.memory_bytes() as f64 / 1048576.0);
    }
}

/// Million lookups per CPU second over batches of 64 random `(vrf, address)` keys, through
/// one pinned view: `batch` with `lookup_batch`, else one `lookup` per key.
fn batch_mlps(l: &Loop<u32>, vrfs: u32, batch: bool, seed: u64) -> f64 {
    let rounds = 60_000u64;
    let mut keys = [(0u32, 0u32); 64];
    let mut out = [None; 64];
    let mut s = 0x9E37_79B9 + seed;
    l.reader().with(|v| {
        let mut acc = 0u32;
        let c0 = cpu_ms();
        for _ in 0..rounds {
            for k in keys.iter_mut() {
                let x = xorshift(&mut s);
                *k = ((x >> 32) as u32 % vrfs, x as u32);
            }
            if batch {
                v.lookup_batch(&keys, &mut out);
            } else {
                for (o, &(vrf, a)) in out.iter_mut().zip(&keys) {
                    *o = v.lookup(vrf, a);
                }
            }
            acc = acc.wrapping_add(out.iter().map(|h| h.map_or(0, |h| h.raw())).sum::<u32>());
        }
        std::hint::black_box(acc);
        (rounds * 64) as f64 / (cpu_ms() - c0) / 1e3
    })
}

/// Batch versus single lookups, interleaved repeats, medians of 7 (thread CPU time).
fn batch_section(shared: &Path, perturbed: &[Rib<u32>], cfg: &LoopConfig) {
    println!(
        "\n== LOOP lookup_batch (interleaved, 16 lanes) vs one lookup per key, Mlps per CPU s"
    );
    let mut sets = vec![("ris2015 perturbed x8", perturbed[..8].to_vec())];
    let i2 = shared.join("multi/internet2");
    if i2.exists() {
        sets.push(("internet2 x9", load_dir(&i2)));
    }
    for (name, ribs) in sets {
        let n = ribs.len() as u32;
        let l = Loop::build(ribs, cfg).unwrap();
        let (mut single, mut batch) = (Vec::new(), Vec::new());
        for r in 0..7 {
            single.push(batch_mlps(&l, n, false, r));
            batch.push(batch_mlps(&l, n, true, r));
        }
        let (s, b) = (percentile(&mut single, 0.5), percentile(&mut batch, 0.5));
        println!("{name:<22} single {s:>6.1}  batch {b:>6.1}  ratio {:.2}", b / s);
    }
}
