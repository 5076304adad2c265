//! One table and family: resolve traffic, build the verification sample, then build, verify
//! and measure every algorithm and peer in turn.

use super::api::{ApiFamily, api_rows};
use super::measure::{Ctx, measure};
use super::{Log, Settings};
use crate::contender::{Contender, OURS};
use crate::peers::{Peer, PeerError, PeerFamily, Variant};
use crate::report::{Row, Status};
use crate::timing::Mode;
use crate::traffic::TrafficSource;
use fibforge::Rib;
use fibforge::registry::{AlgoSpec, build};
use std::time::{Duration, Instant};

/// Addresses of each timed traffic pattern included in the verification sample.
const VERIFY_PER_TRAFFIC: usize = 20_000;

/// Benchmarks one family of one table.
pub fn run_family<A: PeerFamily + ApiFamily>(
    s: &Settings,
    table: &str,
    rib: &Rib<A>,
    duration: Duration,
    log: Log<'_>,
) -> Vec<Row> {
    let family = A::FAMILY.name();
    log(&format!("{table} {family}: {} routes", rib.len()));
    let mut rows = Vec::new();
    let mut sources = Vec::new();
    for t in s.traffic_for(A::FAMILY) {
        match TrafficSource::resolve(t, rib, s.seed) {
            Ok(src) => sources.push((t.to_string(), src)),
            Err(e) => {
                log(&format!("  traffic {t}: {e}"));
                let mut r =
                    Row::empty(table, family, "*", "*", "single", &t.to_string(), Status::Error);
                r.note = Some(e);
                rows.push(r);
            }
        }
    }
    let scaling = TrafficSource::resolve(&s.scaling_traffic, rib, s.seed).ok();
    let refs: Vec<&TrafficSource<A>> = sources.iter().map(|(_, src)| src).collect();
    let probes = crate::verify::probes(
        rib,
        &refs,
        s.verify_routes,
        s.verify_random,
        VERIFY_PER_TRAFFIC,
        s.seed,
    );
    log(&format!("  verification sample: {} addresses", probes.addrs.len()));
    let ctx = Ctx::new(s, table, rib, duration, sources, scaling, probes);
    for spec in s.algos_for(A::FAMILY) {
        rows.extend(run_ours(&ctx, &spec, log));
        s.step_done();
        if spec.to_string() == fibforge::registry::DEFAULT {
            let api = api_rows(&ctx);
            let rates: Vec<String> = api
                .iter()
                .map(|r| format!("{}/{} {:.1}", r.implementation, r.mode, r.mlps.unwrap_or(0.0)))
                .collect();
            log(&format!(
                "  {:<20} API rows, Mlps: {}",
                fibforge::registry::DEFAULT,
                rates.join(", ")
            ));
            rows.extend(api);
        }
    }
    for &peer in &s.peers {
        match A::variants(peer) {
            Err(why) => {
                rows.extend(unavailable::<A>(&ctx, peer, &why, log));
                s.step_done();
            }
            Ok(variants) => {
                for v in variants {
                    rows.extend(run_peer(&ctx, &v, log));
                    s.step_done();
                }
            }
        }
        if peer == Peer::Bart {
            rows.extend(crate::peers::bart::run(&ctx, log));
            s.step_done();
        }
    }
    rows
}

fn run_ours<A: PeerFamily>(ctx: &Ctx<'_, A>, spec: &AlgoSpec, log: Log<'_>) -> Vec<Row> {
    let t0 = Instant::now();
    let built = build(spec, ctx.rib);
    let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
    match built {
        Ok(fib) => {
            let memory = fib.memory_bytes() as u64;
            let note = fib.describe();
            let c = Contender {
                algo: spec.to_string(),
                implementation: OURS.into(),
                fib,
                single: true,
                batch: true,
                compile_ms,
                memory_bytes: Some(memory),
                note,
            };
            measure(ctx, &c, log)
        }
        Err(e) => {
            log(&format!("  {spec}: cannot build: {e}"));
            let mut r =
                ctx.row(&spec.to_string(), OURS, Mode::Single, ctx.first_traffic(), Status::Error);
            r.note = Some(e.to_string());
            r.compile_ms = Some(compile_ms);
            vec![r]
        }
    }
}

fn run_peer<A: PeerFamily>(ctx: &Ctx<'_, A>, v: &Variant<A>, log: Log<'_>) -> Vec<Row> {
    let heap0 = crate::alloc::live_bytes();
    let t0 = Instant::now();
    let built = (v.build)(ctx.rib);
    let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
    let heap1 = crate::alloc::live_bytes();
    match built {
        Ok(b) => {
            let heap = heap0.zip(heap1).map(|(a, b)| b.saturating_sub(a) as u64);
            let c = Contender {
                algo: v.algo.into(),
                implementation: v.peer.name().into(),
                fib: b.fib,
                single: v.single,
                batch: v.batch,
                compile_ms: b.compile_ms.unwrap_or(compile_ms),
                memory_bytes: b.memory.or(heap),
                note: b.note,
            };
            measure(ctx, &c, log)
        }
        Err(e) => {
            log(&format!("  {} ({}): {e}", v.algo, v.peer));
            let mode = if v.single { Mode::Single } else { Mode::Batch };
            let (status, why) = match e {
                PeerError::NotAvailable(why) => (Status::NotAvailable, why),
                PeerError::Failed(why) => (Status::Error, why),
            };
            let mut r = ctx.row(v.algo, v.peer.name(), mode, ctx.first_traffic(), status);
            r.note = Some(why);
            r.compile_ms = Some(compile_ms);
            vec![r]
        }
    }
}

/// The API names a peer would have produced for a family, for "not available" rows.
pub fn peer_algos(peer: Peer, ipv6: bool) -> &'static [&'static str] {
    match (peer, ipv6) {
        (Peer::Dpdk, false) => &["rte_lpm", "rte_lpm_x4", "rte_fib", "rte_fib_avx512"],
        (Peer::Dpdk, true) => &["rte_lpm6", "rte_fib6", "rte_fib6_avx512"],
        (Peer::Bart, _) => &["bart"],
        (Peer::PrefixTrie, _) => &["prefix_trie"],
        (Peer::IpNetworkTable, _) => &["ip_network_table"],
        (Peer::PoptrieCrate, _) => &["poptrie_crate"],
        (Peer::TreeBitmap, _) => &["treebitmap"],
    }
}

fn unavailable<A: PeerFamily>(ctx: &Ctx<'_, A>, peer: Peer, why: &str, log: Log<'_>) -> Vec<Row> {
    log(&format!("  peer {peer}: not available: {why}"));
    peer_algos(peer, A::BITS == 128)
        .iter()
        .map(|algo| {
            let mut r =
                ctx.row(algo, peer.name(), Mode::Single, ctx.first_traffic(), Status::NotAvailable);
            r.note = Some(why.to_string());
            r
        })
        .collect()
}
