//! Single lookups on random IPv4 addresses: the bare Poptrie beside the `sync::Table` reader
//! paths (QSBR online with a quiescent state every 256 lookups, pinned bursts of 256,
//! offline), each a plain loop over the same generator, measured by the thread's CPU time and
//! interleaved round by round (a shared machine drifts); figures in
//! docs/lab/api-speed.md.
//!
//! `cargo run --release -p fibforge-bench --example api_speed [TABLE] [ROUNDS]`

use fibforge::algo::poptrie::Poptrie;
use fibforge::{Compile, Lookup, NextHop, Table};
use std::hint::black_box;
use std::path::Path;

const N: u32 = 1 << 24;
const BURST: u32 = 256;

fn cpu_s() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid, writable timespec; the thread CPU clock exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// `N` lookups of xorshift32 addresses through `f`; M lookups per CPU second.
#[inline(never)]
fn rate(mut f: impl FnMut(u32, u32) -> Option<NextHop>) -> f64 {
    let (mut x, mut sum, t0) = (2_463_534_242u32, 0u64, cpu_s());
    for i in 0..N {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        sum += f(i, x).map_or(0, |h| h.raw() as u64);
    }
    black_box(sum);
    N as f64 / (cpu_s() - t0) / 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).map_or("data/ris2015-as3856.tsv.gz", String::as_str);
    let rounds: usize = args.get(2).map_or(7, |s| s.parse().expect("ROUNDS"));
    let rib = fibforge_io::read_table(Path::new(path), &Default::default()).expect("table").v4;
    let bare = Poptrie::compile(&rib, &Default::default()).expect("compile");
    let table = Table::new(rib).expect("table");
    let mut qsbr = table.reader();
    qsbr.online();
    let mut pinned = table.reader();
    let offline = table.reader();
    let names = ["bare Poptrie", "Reader online (QSBR)", "Reader pinned bursts", "Reader offline"];
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    for _ in 0..rounds {
        rates[0].push(rate(|_, a| bare.lookup(a)));
        rates[1].push(rate(|i, a| {
            if i % BURST == 0 {
                qsbr.quiescent();
            }
            qsbr.lookup(a)
        }));
        rates[2].push(rate(|i, a| {
            if i % BURST == 0 {
                pinned.offline(); // the end of one pinned burst, the start of the next
                pinned.online();
            }
            pinned.lookup(a)
        }));
        rates[3].push(rate(|_, a| offline.lookup(a)));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let base = median(&mut rates[0]);
    for (name, r) in names.iter().zip(&mut rates) {
        let m = median(r);
        println!("{name:<24} {m:7.1} M lookups/CPU s  {:5.1} % of bare", 100.0 * m / base);
    }
}
