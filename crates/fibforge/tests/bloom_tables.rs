//! bloom_naive, bloom_base and bloomfwd on real tables: equal to the RIB on sampled addresses,
//! and after replaying a real BGP update stream equal to a fresh compile.
//!
//! Uses the repository's `data/` tables and, when present, `../shared/data` or
//! `$FIBFORGE_SHARED_DATA` (skipped otherwise). Exhaustive IPv4 checks are a command: `fibforge verify TABLE --exhaustive`.

use fibforge::algo::bloom::{BloomConfig, BloomFib, BloomKey};
use fibforge::{Address, Compile, Incremental, Lookup, NextHop, Prefix, Rib};
use fibforge_io::{ReadConfig, Table, read_table};
use std::io::BufRead;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `../shared/data` next to the repository, or `$FIBFORGE_SHARED_DATA` (for worktrees that
/// live elsewhere); `None` when neither exists.
fn shared_data() -> Option<PathBuf> {
    let from_env = std::env::var_os("FIBFORGE_SHARED_DATA").map(PathBuf::from);
    from_env.into_iter().chain([repo_root().join("../shared/data")]).find(|p| p.is_dir())
}

fn load(path: &Path) -> Table {
    read_table(path, &ReadConfig::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn configs() -> [BloomConfig; 3] {
    [BloomConfig::naive(), BloomConfig::baseline(), BloomConfig::default()]
}

struct Xorshift(u64);
impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Every `stride`-th route's first and last address and outside neighbours, random addresses
/// inside random routes, and uniform random addresses.
fn sample<A: Address>(rib: &Rib<A>, stride: usize, random: usize) -> Vec<A> {
    let routes: Vec<Prefix<A>> = rib.iter().map(|(p, _)| p).collect();
    let mut out = Vec::new();
    for p in routes.iter().step_by(stride.max(1)) {
        let (lo, hi) = (p.addr().to_u128(), p.last().to_u128());
        out.extend([lo, hi, lo.wrapping_sub(1), hi.wrapping_add(1)].map(A::from_u128));
    }
    let mut x = Xorshift(0x2545_f491_4f6c_dd1d);
    for _ in 0..random {
        let r = ((x.next() as u128) << 64) | x.next() as u128;
        out.push(A::from_u128(r));
        if !routes.is_empty() {
            let p = routes[(x.next() % routes.len() as u64) as usize];
            let host = r & !A::netmask(p.len()).to_u128();
            out.push(A::from_u128(p.addr().to_u128() | host));
        }
    }
    out
}

fn check<A: BloomKey>(rib: &Rib<A>, name: &str, stride: usize) {
    let addrs = sample(rib, stride, 50_000);
    for cfg in configs() {
        let fib = BloomFib::compile(rib, &cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut batch = vec![None; addrs.len()];
        fib.lookup_batch(&addrs, &mut batch);
        for (&a, &b) in addrs.iter().zip(&batch) {
            let want = rib.lookup(a);
            assert_eq!(fib.lookup(a), want, "{name} {}: {a:?}", cfg.algo_name());
            assert_eq!(b, want, "{name} {} batch: {a:?}", cfg.algo_name());
        }
    }
}

#[test]
fn shipped_tables_equal_the_rib() {
    let v4 = load(&repo_root().join("data/ris2015-as3856.tsv.gz"));
    check(&v4.v4, "ris2015-as3856", 3);
    let v6 = load(&repo_root().join("data/tier1-2024-v6.txt.gz"));
    check(&v6.v6, "tier1-2024-v6", 2);
}

#[test]
fn shared_tables_equal_the_rib_sampled() {
    let Some(shared) = shared_data() else {
        eprintln!("../shared/data absent: skipped");
        return;
    };
    for name in [
        "v4/ris2010-as4777.tsv.gz",
        "v4/ris2002-as1853.tsv.gz",
        "v4/maewest.txt.gz",
        "v6/linx2014-p69.txt.gz",
        "v6/rrc00-v6.txt.gz",
    ] {
        let t = load(&shared.join("tables").join(name));
        check(&t.v4, name, 17);
        check(&t.v6, name, 7);
    }
}

/// Parses `unixtime a|w prefix nexthop` lines into RIB changes.
fn replay(path: &Path, rib: &mut Rib<u32>, table: &mut Table, mut on_batch: impl FnMut(&Rib<u32>)) {
    let reader = fibforge_io::open(path).expect("update file");
    for (n, line) in reader.lines().enumerate() {
        let line = line.expect("readable update line");
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 || f[0].starts_with('#') {
            continue;
        }
        let Ok(prefix) = f[2].parse::<Prefix<u32>>() else { continue };
        match f[1] {
            "a" => {
                let hop = table.hops.intern(f.get(3).unwrap_or(&"-").to_string()).unwrap();
                rib.insert(prefix, hop);
            }
            "w" => {
                rib.remove(&prefix);
            }
            other => panic!("line {}: unknown update kind {other}", n + 1),
        }
        if n % 500 == 499 {
            on_batch(rib);
        }
    }
    on_batch(rib);
}

#[test]
fn real_update_stream_equals_fresh_compile() {
    let Some(shared) = shared_data() else {
        eprintln!("../shared/data absent: skipped");
        return;
    };
    let mut table = load(&repo_root().join("data/ris2015-as3856.tsv.gz"));
    let mut rib = std::mem::take(&mut table.v4);
    let cfgs = [BloomConfig::baseline(), BloomConfig::default()];
    let mut fibs: Vec<BloomFib<u32>> =
        cfgs.iter().map(|c| BloomFib::compile(&rib, c).unwrap()).collect();
    let mut mark = rib.change_mark();
    let mut touched: Vec<Prefix<u32>> = Vec::new();
    replay(&shared.join("updates/linx2014-p52-v4.txt.gz"), &mut rib, &mut table, |rib| {
        let changed = rib.changes_since(mark).to_vec();
        for fib in &mut fibs {
            fib.apply_changes(rib, &changed).unwrap();
        }
        touched.extend(changed);
        mark = rib.change_mark();
    });
    assert!(touched.len() > 10_000, "the stream should change many routes");
    let mut addrs = sample(&rib, 11, 30_000);
    for p in &touched {
        addrs.extend([p.addr(), p.last(), p.addr().wrapping_sub(1), p.last().wrapping_add(1)]);
    }
    for (fib, cfg) in fibs.iter().zip(&cfgs) {
        let fresh = BloomFib::compile(&rib, cfg).unwrap();
        for &a in &addrs {
            let got: Option<NextHop> = fib.lookup(a);
            assert_eq!(got, fresh.lookup(a), "{} after updates: {a:#x}", cfg.algo_name());
            assert_eq!(got, rib.lookup(a), "{} vs RIB: {a:#x}", cfg.algo_name());
        }
    }
}
