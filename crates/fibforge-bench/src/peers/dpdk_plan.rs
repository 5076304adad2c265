//! Sizing DPDK 22.11 structures from a table, and their limits (pure Rust, no DPDK needed).
//!
//! DPDK sizes its tables at creation time; too small fails an `add` with `-ENOSPC`, too large
//! wastes memory. The plan counts what the table needs:
//!
//! - `rte_lpm` / `rte_fib` DIR24_8: one tbl8 group (256 entries) per /24 that holds a route
//!   longer than /24;
//! - `rte_lpm6` / `rte_fib6` TRIE: a 24-bit first level, then 8-bit levels: one tbl8 group per
//!   distinct node at depth 24, 32, ... 120 that a longer route passes through.
//!
//! Limits of DPDK 22.11 checked here (a violation makes the row "not available: reason"):
//! `rte_lpm` next hops are 24 bits and depth 0 is rejected; `rte_lpm6` next hops are 21 bits
//! (the entry's `next_hop:21` field) and depth 0 is rejected; `rte_fib`/`rte_fib6` store next
//! hops and tbl8 indices in the same `8 * width - 1` bits, so the width must hold both.
//! A default route for `rte_lpm`/`rte_lpm6` is added as the /1 halves not already routed
//! (exactly the same answers); `rte_fib`/`rte_fib6` take it as `default_nh`.
//!
//! Every structure stores fibforge's raw next hop (index + 1); 0 means "no route".
//!
//! `rte_lpm_add` compares each new rule with every rule of its depth, so a full IPv4 table
//! takes a minute; [`dir24_8_image`] computes the tables those adds would produce, for the
//! shim to write into `rte_lpm` directly.

use fibforge::{Address, NextHop, Prefix, Rib};
use std::collections::HashSet;

/// `rte_lpm`: next hops are 24 bits.
pub const LPM_MAX_NH: u64 = (1 << 24) - 1;
/// `rte_lpm`: tbl8 group indices are 24 bits.
pub const LPM_MAX_TBL8: u64 = 1 << 24;
/// `rte_lpm6`: next hops (and tbl8 group indices) are 21 bits.
pub const LPM6_MAX_NH: u64 = (1 << 21) - 1;

/// What a DPDK structure needs for one table.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan<A: Address> {
    /// Routes to add, raw next hops, without the default route.
    pub routes: Vec<(Prefix<A>, u32)>,
    /// Raw next hop of the default route (0: none).
    pub default_raw: u32,
    /// The largest raw next hop (0: empty table).
    pub max_raw: u32,
    /// tbl8 groups the table needs.
    pub tbl8: u64,
}

impl<A: Address> Plan<A> {
    /// Counts what the routes of `rib` need; `boundaries` are the depths at which a tbl8
    /// level starts (24 for DIR24_8, 24, 32, ... for the IPv6 structures).
    pub fn of(rib: &Rib<A>, boundaries: &[u32]) -> Self {
        let mut routes = Vec::with_capacity(rib.len());
        let mut default_raw = 0;
        let mut max_raw = 0;
        let mut nodes: HashSet<(u32, u128)> = HashSet::new();
        for (p, hop) in rib.iter() {
            max_raw = max_raw.max(hop.raw());
            if p.len() == 0 {
                default_raw = hop.raw();
                continue;
            }
            for &b in boundaries.iter().filter(|&&b| b < p.len()) {
                nodes.insert((b, p.addr().truncate(b).to_u128()));
            }
            routes.push((p, hop.raw()));
        }
        Plan { routes, default_raw, max_raw, tbl8: nodes.len() as u64 }
    }

    /// The routes with the default route spelled as the /1 halves that hold no route of
    /// their own (for `rte_lpm` and `rte_lpm6`, which reject depth 0).
    pub fn routes_without_depth0(&self) -> Vec<(Prefix<A>, u32)> {
        let mut out = self.routes.clone();
        if self.default_raw != 0 {
            for half in [A::ZERO, A::from_u128(1u128 << (A::BITS - 1))] {
                let p = Prefix::new(half, 1).expect("a /1 is a valid prefix");
                if !self.routes.iter().any(|(q, _)| *q == p) {
                    out.push((p, self.default_raw));
                }
            }
        }
        out
    }

    /// Checks the largest raw next hop against `limit`.
    pub fn check_nh(&self, api: &str, limit: u64) -> Result<(), String> {
        if u64::from(self.max_raw) > limit {
            return Err(format!(
                "{api} next hops are limited to {limit} (the table uses {} distinct next-hop ids)",
                self.max_raw
            ));
        }
        Ok(())
    }

    /// tbl8 groups to allocate: the count plus a margin, at least 1.
    pub fn tbl8_with_margin(&self) -> u64 {
        self.tbl8 + self.tbl8 / 16 + 16
    }
}

/// tbl24 image entry flag: the low 24 bits are a tbl8 group.
pub const IMAGE_EXT: u32 = 1 << 31;

/// The DIR-24-8 image `rte_lpm` would hold for `rib` (see `ff_lpm_fill` in the shim):
/// `tbl24` (2^24 entries) and `tbl8` (256 per group), each entry the raw next hop (0: none)
/// with the route's depth in bits 24-29; extended tbl24 entries are `IMAGE_EXT | group`.
/// Routes come in (address, length) order, so painting each over its range in that order
/// leaves the longest match everywhere. The default route is depth 0 here; `rte_lpm` marks
/// nothing else.
pub fn dir24_8_image(rib: &Rib<u32>) -> (Vec<u32>, Vec<u32>) {
    let mut tbl24 = vec![0u32; 1 << 24];
    for (p, hop) in rib.iter().filter(|(p, _)| p.len() <= 24) {
        let (lo, hi) = ((p.addr() >> 8) as usize, (p.last() >> 8) as usize);
        tbl24[lo..=hi].fill(hop.raw() | p.len() << 24);
    }
    let mut tbl8: Vec<u32> = Vec::new();
    for (p, hop) in rib.iter().filter(|(p, _)| p.len() > 24) {
        let block = (p.addr() >> 8) as usize;
        if tbl24[block] & IMAGE_EXT == 0 {
            let group = (tbl8.len() / 256) as u32;
            tbl8.extend(std::iter::repeat_n(tbl24[block], 256));
            tbl24[block] = IMAGE_EXT | group;
        }
        let base = (tbl24[block] & !IMAGE_EXT) as usize * 256;
        let (lo, hi) = ((p.addr() & 0xff) as usize, (p.last() & 0xff) as usize);
        tbl8[base + lo..=base + hi].fill(hop.raw() | p.len() << 24);
    }
    (tbl24, tbl8)
}

/// A rough count of the comparisons `rte_lpm_add` makes for `routes`: each add scans the
/// rules already present at its depth.
pub fn lpm_add_cost<A: Address>(routes: &[(Prefix<A>, u32)]) -> u64 {
    let mut per_depth = [0u64; 129];
    for (p, _) in routes {
        per_depth[p.len() as usize] += 1;
    }
    per_depth.iter().map(|n| n * n / 2).sum()
}

/// tbl8 groups `rte_fib6` TRIE reserves while the routes are added in (address, length)
/// order (covering routes first), plus one: DPDK 22.11 refuses a route of depth `d > 24`
/// unless `reserved + diff < number_tbl8s`, where `diff` counts the 8-bit levels between the
/// route and its longest covering route (at least /24), both rounded up to a multiple of 8 —
/// unless a route already lies inside the route's block rounded down to 8 bits (then 0).
/// Ignoring that exception gives this upper bound, which is exact for a table without
/// neighbours sharing such blocks.
pub fn trie_reservation(rib: &Rib<u128>) -> u64 {
    let ceil8 = |d: u32| d.div_ceil(8) * 8;
    let mut reserved = 0u64;
    for (p, _) in rib.iter().filter(|(p, _)| p.len() > 24) {
        let parent = rib
            .covering(&p)
            .filter(|(q, _)| q.len() < p.len())
            .last()
            .map_or(24, |(q, _)| q.len().max(24));
        reserved += u64::from((ceil8(p.len()) - ceil8(parent)) / 8);
    }
    reserved + 1
}

/// The smallest `rte_fib`/`rte_fib6` next-hop width (bytes 1, 2, 4, 8) whose `8 * w - 1`
/// bits hold both the largest raw next hop and the tbl8 count; `min` is 1 for DIR24_8 and 2
/// for TRIE (which has no 1-byte entries).
pub fn fib_width(max_raw: u32, tbl8: u64, min: u32) -> Option<u32> {
    [1u32, 2, 4, 8].into_iter().filter(|&w| w >= min).find(|&w| {
        let max = (1u64 << (8 * w - 1)) - 1;
        u64::from(max_raw) <= max && tbl8 <= max
    })
}

/// DPDK's `nh_sz` enum value for a width: DIR24_8 counts 1B as 0, TRIE counts 2B as 1.
pub fn nh_sz(width: u32) -> i32 {
    width.trailing_zeros() as i32
}

/// Converts DPDK's raw answer back (0: no route).
#[inline(always)]
pub fn hop(raw: u32) -> Option<NextHop> {
    NextHop::from_raw(raw)
}

/// tbl8 level starts of the DIR24_8 structures.
pub const V4_BOUNDARIES: [u32; 1] = [24];
/// tbl8 level starts of `rte_lpm6` and `rte_fib6` TRIE.
pub const V6_BOUNDARIES: [u32; 13] = [24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120];

#[cfg(test)]
mod tests {
    use super::*;

    fn rib4(routes: &[(&str, u32)]) -> Rib<u32> {
        routes.iter().map(|(p, h)| (p.parse().unwrap(), NextHop::from_index(*h))).collect()
    }

    #[test]
    fn tbl8_counts_distinct_slash24s_of_long_routes() {
        let rib = rib4(&[
            ("0.0.0.0/0", 0),
            ("10.0.0.0/8", 1),
            ("10.0.0.0/25", 2),
            ("10.0.0.128/26", 3),
            ("10.0.1.1/32", 4),
        ]);
        let plan = Plan::of(&rib, &V4_BOUNDARIES);
        assert_eq!(plan.tbl8, 2);
        assert_eq!(plan.default_raw, 1);
        assert_eq!(plan.max_raw, 5);
        assert_eq!(plan.routes.len(), 4);
        let spelled = plan.routes_without_depth0();
        assert_eq!(spelled.len(), 6, "both /1 halves added");
    }

    #[test]
    fn image_holds_the_longest_match() {
        let rib = rib4(&[
            ("0.0.0.0/0", 0),
            ("10.0.0.0/8", 1),
            ("10.1.2.0/24", 2),
            ("10.1.2.128/25", 3),
            ("10.1.2.200/32", 4),
        ]);
        let (t24, t8) = dir24_8_image(&rib);
        let look = |a: u32| {
            let e = t24[(a >> 8) as usize];
            let e = if e & IMAGE_EXT != 0 {
                t8[(e & 0xff_ffff) as usize * 256 + (a & 0xff) as usize]
            } else {
                e
            };
            NextHop::from_raw(e & 0xff_ffff)
        };
        assert_eq!(t8.len(), 256);
        for a in [0u32, 0x0A00_0000, 0x0A01_0200, 0x0A01_0280, 0x0A01_02C8, 0x0A01_02C9, !0] {
            assert_eq!(look(a), rib.lookup(a), "{a:#x}");
        }
        assert_eq!(t24[0x0A_0000] >> 24, 8, "depth recorded");
    }

    #[test]
    fn default_route_halves_skip_routed_halves() {
        let rib = rib4(&[("0.0.0.0/0", 0), ("128.0.0.0/1", 1)]);
        let spelled = Plan::of(&rib, &V4_BOUNDARIES).routes_without_depth0();
        assert_eq!(spelled.len(), 2);
        assert!(spelled.contains(&("0.0.0.0/1".parse().unwrap(), 1)));
        assert!(spelled.contains(&("128.0.0.0/1".parse().unwrap(), 2)));
    }

    #[test]
    fn widths_hold_next_hops_and_tbl8() {
        assert_eq!(fib_width(100, 100, 1), Some(1));
        assert_eq!(fib_width(100, 200, 1), Some(2));
        assert_eq!(fib_width(100, 200, 2), Some(2));
        assert_eq!(fib_width(40_000, 10, 1), Some(4));
        assert_eq!(fib_width(u32::MAX, 10, 1), Some(8));
        assert_eq!(nh_sz(1), 0);
        assert_eq!(nh_sz(2), 1);
        assert_eq!(nh_sz(8), 3);
    }

    #[test]
    fn next_hop_limits_are_reported() {
        let rib = rib4(&[("10.0.0.0/8", (1 << 24) - 1)]);
        let plan = Plan::of(&rib, &V4_BOUNDARIES);
        let e = plan.check_nh("rte_lpm", LPM_MAX_NH).unwrap_err();
        assert!(e.contains("rte_lpm next hops are limited to 16777215"), "{e}");
    }

    #[test]
    fn ipv6_nodes_count_every_level() {
        let rib: Rib<u128> =
            [("2001:db8::/48", 0u32), ("2001:db8::/64", 1), ("2001:db8:1::/48", 2)]
                .iter()
                .map(|(p, h)| (p.parse().unwrap(), NextHop::from_index(*h)))
                .collect();
        let plan = Plan::of(&rib, &V6_BOUNDARIES);
        // The /48s share their nodes at 24, 32 and 40 (they differ in bit 47); the /64 adds
        // nodes at 48 and 56.
        assert_eq!(plan.tbl8, 3 + 2);
        // /48s under nothing: 3 levels each (24 -> 48); the /64 under a /48: 2 more.
        assert_eq!(trie_reservation(&rib), 3 + 3 + 2 + 1);
    }
}
