//! bloom_naive, bloom_base and bloomfwd on real tables: equal to the RIB on sampled addresses,
//! and after replaying a real BGP update stream equal to a fresh compile.
//!
//! Uses the repository's `data/` tables and, when present, `../shared/data` or
//! `$FIBFORGE_SHARED_DATA` (skipped otherwise). Exhaustive IPv4 checks are a command: `fibforge verify TABLE --exhaustive`.

mod common;

use common::{Update, load, probes, read_updates, repo_data, shared_data};
use fibforge::algo::bloom;
use fibforge::algo::bloom::{BloomFib, BloomKey};
use fibforge::{Compile, Incremental, Lookup, NextHop, Prefix, Rib};

fn configs() -> [bloom::Config; 3] {
    [bloom::Config::naive(), bloom::Config::baseline(), bloom::Config::default()]
}

fn check<A: BloomKey>(rib: &Rib<A>, name: &str, stride: usize) {
    let addrs = probes(rib, stride, 50_000, 0x2545_f491_4f6c_dd1d);
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
    let v4 = load(&repo_data("ris2015-as3856.tsv.gz"));
    check(&v4.v4, "ris2015-as3856", 3);
    let v6 = load(&repo_data("tier1-2024-v6.txt.gz"));
    check(&v6.v6, "tier1-2024-v6", 2);
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn shared_tables_equal_the_rib_sampled() {
    let Some(tables) = shared_data("tables") else { return };
    for name in [
        "v4/ris2010-as4777.tsv.gz",
        "v4/ris2002-as1853.tsv.gz",
        "v4/maewest.txt.gz",
        "v6/linx2014-p69.txt.gz",
        "v6/rrc00-v6.txt.gz",
    ] {
        let t = load(&tables.join(name));
        check(&t.v4, name, 17);
        check(&t.v6, name, 7);
    }
}

/// Applies `updates` to `rib` in chunks of 500, calling `on_chunk` after each (so the
/// structures see many changes per `apply_changes`).
fn replay(updates: &[Update<u32>], rib: &mut Rib<u32>, mut on_chunk: impl FnMut(&Rib<u32>)) {
    for chunk in updates.chunks(500) {
        for u in chunk {
            match *u {
                Update::Announce(p, h) => rib.insert(p, h),
                Update::Withdraw(p) => rib.remove(&p),
            };
        }
        on_chunk(rib);
    }
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data or $FIBFORGE_SHARED_DATA, absent at build time"
)]
fn real_update_stream_equals_fresh_compile() {
    let Some(stream) = shared_data("updates/linx2014-p52-v4.txt.gz") else { return };
    let mut table = load(&repo_data("ris2015-as3856.tsv.gz"));
    let mut rib = std::mem::take(&mut table.v4);
    let cfgs = [bloom::Config::baseline(), bloom::Config::default()];
    let mut fibs: Vec<BloomFib<u32>> =
        cfgs.iter().map(|c| BloomFib::compile(&rib, c).unwrap()).collect();
    let mut mark = rib.change_mark();
    let mut touched: Vec<Prefix<u32>> = Vec::new();
    let updates = read_updates(&stream, &mut table);
    replay(&updates, &mut rib, |rib| {
        let changed = rib.changes_since(mark).to_vec();
        for fib in &mut fibs {
            fib.apply_changes(rib, &changed).unwrap();
        }
        touched.extend(changed);
        mark = rib.change_mark();
    });
    assert!(touched.len() > 10_000, "the stream should change many routes");
    let mut addrs = probes(&rib, 11, 30_000, 0x2545_f491_4f6c_dd1d);
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
