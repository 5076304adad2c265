//! Compiling the §7 hybrid: the routes split into the bands `[0, 32]`, `(32, 64]`,
//! `(64, 96]` and `(96, 128]`; one leaf-pushed trie per band and hashed key; markers at 64.

use super::{BslHybrid, Config, HybridStats, LEAF};
use crate::algo::bsl::hash::{Bucket, OneLineTable};
use crate::algo::cpe::Levels;
use crate::algo::multibit::{LeafBuilder, StridePlan};
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::collections::HashMap;

type Route = (Prefix<u128>, NextHop);

/// Hashed key (the first `L` address bits, as a 128-bit prefix address) → hash value.
type KeyMap = HashMap<u128, u32>;

pub(super) fn build(rib: &Rib<u128>, cfg: &Config) -> Result<BslHybrid, BuildError> {
    check(rib, cfg)?;
    let strides = vec![cfg.stride; (32 / cfg.stride) as usize];
    let ends: Vec<u32> = (1..=strides.len() as u32).map(|i| i * cfg.stride).collect();
    let plan = StridePlan::Fixed { levels: Levels::new(&ends, 128)?, strides };
    let mut b = LeafBuilder::new(&plan, cfg.packed);
    let routes: Vec<Route> = rib.iter().filter(|(p, _)| p.len() > 0).collect();
    let default = rib.get(&Prefix::DEFAULT_ROUTE).map_or(0, NextHop::raw);
    let root = b.subtrie(&band(&routes, 0), Prefix::DEFAULT_ROUTE, 0, default)?;
    let mut maps: [KeyMap; 3] = Default::default();
    for (j, map) in maps.iter_mut().enumerate() {
        let start = 32 * (j as u32 + 1);
        let in_band = band(&routes, start);
        for group in in_band.chunk_by(|x, y| same_key(x, y, start)) {
            let key = group[0].0.truncated(start);
            map.insert(key.addr(), b.subtrie(group, key, 0, best_match(rib, key))?);
        }
    }
    add_markers(rib, &routes, &mut maps[1]);
    b.arena.shrink_to_fit();
    let [m32, m64, m96] = maps;
    let stats = HybridStats {
        keys: [m32.len(), m64.len(), m96.len()],
        markers: [&m32, &m64, &m96].map(|m| m.values().filter(|&&v| v & LEAF != 0).count()),
        nodes: b.nodes,
        packed_nodes: b.packed_nodes,
        node_bytes: b.arena.used_entries() * 4,
    };
    Ok(BslHybrid {
        root,
        t32: table(&m32, |k| (k >> 96) as u32),
        t64: table(&m64, |k| (k >> 64) as u64),
        t96: table(&m96, |k| k >> 32),
        nodes: b.arena,
        stats,
    })
}

/// Refuses strides other than 4 and 8 (16-bit nodes of 2^16 entries exhaust the arena on
/// real tables) and next-hop ids that reach the `LEAF` bit.
fn check(rib: &Rib<u128>, cfg: &Config) -> Result<(), BuildError> {
    if ![4, 8].contains(&cfg.stride) {
        return Err(BuildError::BadOption {
            algo: "bsl_hybrid",
            option: format!("stride={}", cfg.stride),
            reason: "expected 4 or 8 (a band of 32 bits in 8 or 4 equal levels)".into(),
        });
    }
    match rib.iter().map(|(_, h)| h.raw()).max() {
        Some(raw) if raw >= LEAF => Err(BuildError::LimitExceeded {
            algo: "bsl_hybrid",
            what: "next-hop id",
            limit: (LEAF - 1) as u64,
            found: raw as u64,
        }),
        _ => Ok(()),
    }
}

/// The routes of the band starting at `start`: lengths `(start, start + 32]` (band 0: 1..=32),
/// in the RIB's (address, length) order.
fn band(routes: &[Route], start: u32) -> Vec<Route> {
    routes.iter().copied().filter(|(p, _)| p.len() > start && p.len() <= start + 32).collect()
}

/// True when both routes extend the same `len`-bit key.
fn same_key(x: &Route, y: &Route, len: u32) -> bool {
    x.0.addr() >> (128 - len) == y.0.addr() >> (128 - len)
}

/// Raw next hop of the longest route covering `key` (0: none).
fn best_match(rib: &Rib<u128>, key: Prefix<u128>) -> u32 {
    rib.longest_covering(&key).map_or(0, |(_, h)| h.raw())
}

/// Markers at 64: every 64-bit key that a route longer than 96 extends has an entry, so the
/// search towards 96 turns right there; without a band-64 trie it holds `LEAF | best match`.
fn add_markers(rib: &Rib<u128>, routes: &[Route], m64: &mut KeyMap) {
    for (p, _) in routes.iter().filter(|(p, _)| p.len() > 96) {
        let key = p.truncated(64);
        m64.entry(key.addr()).or_insert_with(|| LEAF | best_match(rib, key));
    }
}

/// The one-line hash table of `map` with keys narrowed by `key`.
fn table<B: Bucket>(map: &KeyMap, key: impl Fn(u128) -> B::Key) -> OneLineTable<B> {
    OneLineTable::build(&map.iter().map(|(&k, &v)| (key(k), v)).collect())
}
