//! Cost by binary-radix depth (Poptrie §4.6, Fig. 11): per depth, the quartiles and the 5th and
//! 95th percentiles of per-lookup cycles. The depth of an address is the length of the deepest
//! node of the uncompressed binary trie of the routes on its path ([`Rib::trie_depth`]).
//! Addresses are sorted by depth and timed in groups of dependent lookups of one depth
//! ([`CycleSamples::per_lookup`]), so that a group's mean belongs to one depth.

use crate::timing::{CycleSamples, Percentiles};
use fibforge::{Address, Lookup, Rib};
use rayon::prelude::*;
use serde::Serialize;

/// Cycles of the lookups whose addresses have one depth.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DepthCycles {
    /// Binary-radix depth.
    pub depth: u32,
    /// Distribution of the cycles at this depth.
    #[serde(flatten)]
    pub cycles: Percentiles,
}

/// The depth of each address.
pub fn depths<A: Address>(rib: &Rib<A>, addrs: &[A]) -> Vec<u8> {
    addrs.par_iter().map(|&a| rib.trie_depth(a) as u8).collect()
}

/// `addrs` and their depths, sorted by depth (generator order within a depth).
pub fn sorted_by_depth<A: Address>(rib: &Rib<A>, addrs: &[A]) -> (Vec<A>, Vec<u8>) {
    let d = depths(rib, addrs);
    let mut order: Vec<usize> = (0..addrs.len()).collect();
    order.sort_by_key(|&i| d[i]);
    (order.iter().map(|&i| addrs[i]).collect(), order.iter().map(|&i| d[i]).collect())
}

/// Cycles per depth of `addrs` (sorted by depth, as [`sorted_by_depth`] gives them), timed in
/// groups of `group` dependent lookups that never span two depths.
pub fn measure_by_depth<A: Address>(
    fib: &dyn Lookup<A>,
    addrs: &[A],
    depths: &[u8],
    group: usize,
) -> Vec<DepthCycles> {
    let mut ticks = Vec::with_capacity(addrs.len());
    let mut start = 0;
    while start < addrs.len().min(depths.len()) {
        let end = depths[start..]
            .iter()
            .position(|&d| d != depths[start])
            .map_or(depths.len(), |k| start + k);
        ticks.extend(CycleSamples::per_lookup(fib, &addrs[start..end], group));
        start = end;
    }
    by_depth(depths, &ticks)
}

/// Groups `ticks[i]` by `depths[i]` (equal lengths; extra entries of either are ignored).
pub fn by_depth(depths: &[u8], ticks: &[f64]) -> Vec<DepthCycles> {
    let mut groups: Vec<Vec<f64>> = vec![Vec::new(); 129];
    for (&d, &t) in depths.iter().zip(ticks) {
        groups[d as usize].push(t);
    }
    groups
        .iter()
        .enumerate()
        .filter_map(|(d, g)| {
            Percentiles::of(g).map(|cycles| DepthCycles { depth: d as u32, cycles })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibforge::{Compile, NextHop};

    #[test]
    fn groups_by_depth() {
        let rib: Rib<u32> = [("10.0.0.0/8", 0), ("10.1.0.0/16", 1)]
            .iter()
            .map(|(r, h)| (r.parse().unwrap(), NextHop::from_index(*h)))
            .collect();
        let addrs = [0x0A01_0000, 0x0A02_0000, 0x0B00_0000, 0x0A01_FFFF];
        let d = depths(&rib, &addrs);
        assert_eq!(d, vec![16, 14, 7, 16]);
        let g = by_depth(&d, &[10.0, 20.0, 30.0, 50.0]);
        assert_eq!(g.iter().map(|x| x.depth).collect::<Vec<_>>(), vec![7, 14, 16]);
        assert_eq!(g[2].cycles.count, 2);
        assert_eq!(g[2].cycles.mean, 30.0);
        let (sorted, sd) = sorted_by_depth(&rib, &addrs);
        assert_eq!(sd, vec![7, 14, 16, 16]);
        assert_eq!(sorted, vec![0x0B00_0000, 0x0A02_0000, 0x0A01_0000, 0x0A01_FFFF]);
        let fib = fibforge::algo::radix::Radix::compile(&rib, &()).unwrap();
        let m = measure_by_depth(&fib, &sorted, &sd, 32);
        if crate::timing::Tsc::available() {
            let counts: Vec<_> = m.iter().map(|x| (x.depth, x.cycles.count)).collect();
            assert_eq!(counts, vec![(7, 1), (14, 1), (16, 2)]);
        }
    }
}
