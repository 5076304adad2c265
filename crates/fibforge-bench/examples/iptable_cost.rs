//! Where an IpTable lookup's time goes (lab tool, docs/lab/iptable.md): the same routes as a
//! bare Poptrie with the plain next hops, a bare Poptrie with IpTable's encoded next hops, the
//! concurrent AnyTable under IpTable, and IpTable's lookups; random addresses, single lookups.
//!
//! `cargo run --release -p fibforge-bench --example iptable_cost -- TABLE [SECONDS]`

use fibforge::sync::{AnyTable, Structure};
use fibforge::{Compile, IpTable, Lookup, NextHop, Rib};
use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file =
        fibforge_io::read_table(std::path::Path::new(&args[1]), &Default::default()).unwrap();
    let secs: f64 = args.get(2).map_or(0.5, |s| s.parse().unwrap());
    let rib = file.v4.clone();
    let mut encoded = Rib::new();
    for (p, h) in rib.iter() {
        encoded.insert(p, NextHop::from_index(h.index() << 8 | p.len()));
    }
    // Answer ids: one per distinct (next hop, length) pair, dense.
    let mut pairs = std::collections::HashMap::new();
    let mut answers: Vec<(u32, u8)> = Vec::new();
    let mut dense = Rib::new();
    for (p, h) in rib.iter() {
        let id = *pairs.entry((h.index(), p.len())).or_insert_with(|| {
            answers.push((h.index(), p.len() as u8));
            answers.len() as u32 - 1
        });
        dense.insert(p, NextHop::from_index(id));
    }
    let values: Vec<NextHop> = (0..file.hops.len() as u32).map(NextHop::from_index).collect();
    let cfg = fibforge::algo::poptrie::Config::for_family::<u32>();
    let pairs_fib = fibforge::algo::poptrie::Poptrie::compile(&dense, &cfg).unwrap();
    println!("answers {} bytes pairs {}", answers.len(), pairs_fib.memory_bytes());
    let bare = fibforge::algo::poptrie::Poptrie::compile(&rib, &cfg).unwrap();
    let wide = fibforge::algo::poptrie::Poptrie::compile(&encoded, &cfg).unwrap();
    let any = AnyTable::new(encoded.clone(), &Structure::default_for::<u32>()).unwrap();
    let table: IpTable<NextHop> = rib
        .iter()
        .map(|(p, h)| (ipnet::Ipv4Net::new(p.addr().into(), p.len() as u8).unwrap(), h))
        .collect();
    println!(
        "bytes: bare {} wide {} iptable {}",
        bare.memory_bytes(),
        wide.memory_bytes(),
        table.memory_bytes()
    );
    let mut x = 0x1234_5678_9abc_def0u64;
    let addrs: Vec<u32> = (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u32
        })
        .collect();
    for round in 0..3 {
        let rate = |name: &str, f: &dyn Fn(u32) -> u32| {
            let start = Instant::now();
            let mut n = 0u64;
            let mut sum = 0u32;
            while start.elapsed().as_secs_f64() < secs {
                for &a in &addrs {
                    sum = sum.wrapping_add(f(a));
                }
                n += addrs.len() as u64;
            }
            black_box(sum);
            println!(
                "round {round} {name:<28} {:7.1} Mlps",
                n as f64 / start.elapsed().as_secs_f64() / 1e6
            );
        };
        rate("bare poptrie", &|a| bare.lookup(a).map_or(0, NextHop::raw));
        rate("bare poptrie, encoded hops", &|a| wide.lookup(a).map_or(0, NextHop::raw));
        rate("encoded + net", &|a| {
            wide.lookup(a).map_or(0, |h| {
                let len = (h.index() & 0xff) as u8;
                let n = ipnet::Ipv4Net::new_assert(
                    Ipv4Addr::from(a & u32::MAX.checked_shl(32 - len as u32).unwrap_or(0)),
                    len,
                );
                u32::from(n.addr()) ^ n.prefix_len() as u32
            })
        });
        rate("encoded + value + net", &|a| {
            wide.lookup(a).map_or(0, |h| {
                let len = (h.index() & 0xff) as u8;
                let n = ipnet::Ipv4Net::new_assert(
                    Ipv4Addr::from(a & u32::MAX.checked_shl(32 - len as u32).unwrap_or(0)),
                    len,
                );
                values[(h.index() >> 8) as usize].raw()
                    ^ u32::from(n.addr())
                    ^ n.prefix_len() as u32
            })
        });
        rate("encoded + value", &|a| {
            wide.lookup(a).map_or(0, |h| values[(h.index() >> 8) as usize].raw())
        });
        rate("pairs + answer + value", &|a| {
            pairs_fib.lookup(a).map_or(0, |h| {
                let (v, len) = answers[h.index() as usize];
                values[v as usize].raw() ^ len as u32
            })
        });
        rate("pairs + answer + value + net", &|a| {
            pairs_fib.lookup(a).map_or(0, |h| {
                let (v, len) = answers[h.index() as usize];
                let n = ipnet::Ipv4Net::new_assert(
                    Ipv4Addr::from(a & u32::MAX.checked_shl(32 - len as u32).unwrap_or(0)),
                    len,
                );
                values[v as usize].raw() ^ u32::from(n.addr()) ^ n.prefix_len() as u32
            })
        });
        rate("AnyTable, encoded hops", &|a| any.lookup(a).map_or(0, NextHop::raw));
        rate("IpTable::lookup_value", &|a| {
            table.lookup_value(IpAddr::V4(Ipv4Addr::from(a))).map_or(0, |v| v.raw())
        });
        rate("IpTable::lookup_v4", &|a| {
            table
                .lookup_v4(Ipv4Addr::from(a))
                .map_or(0, |(n, v)| v.raw() ^ u32::from(n.addr()) ^ n.prefix_len() as u32)
        });
        rate("IpTable::lookup", &|a| {
            table.lookup(IpAddr::V4(Ipv4Addr::from(a))).map_or(0, |(n, v)| {
                v.raw()
                    ^ n.prefix_len() as u32
                    ^ match n.addr() {
                        IpAddr::V4(x) => u32::from(x),
                        _ => 0,
                    }
            })
        });
    }
}
