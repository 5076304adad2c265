//! Controlled prefix expansion with prefix capture, as the Bloom structures need it.
//!
//! A *group* `(lo, q]` gathers the routes whose length `l` satisfies `lo < l ≤ q`; each is
//! expanded to the `2^(q-l)` prefixes of length `q` it covers, and where several routes of the
//! group cover the same length-`q` prefix the longest one wins (prefix capture: a longer route
//! captures the expansions of a shorter one). Lookups search groups from the longest `q` down,
//! so a key found in group `(lo, q]` is the longest match (longer routes live in later groups
//! that were searched first).
//!
//! The expansion is computed exactly from the group's own route set as a RIB: its range
//! partition ([`Rib::ranges`]) gives every maximal run of addresses with one answer, and since
//! every route of the group has length ≤ `q`, each run is a whole number of length-`q` keys.
//!
//! This is a small, self-contained expansion for the Bloom filters; the general CPE module
//! (`algo/cpe`, written separately) was not in main when this was written — deduplicate once
//! both exist.

use crate::addr::Address;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// The routes of `rib` with `lo < len ≤ hi`, as their own RIB.
#[doc(hidden)]
pub fn group_rib<A: Address>(rib: &Rib<A>, lo: u32, hi: u32) -> Rib<A> {
    let mut sub = Rib::new();
    for (p, h) in rib.iter().filter(|(p, _)| p.len() > lo && p.len() <= hi) {
        sub.insert(p, h);
    }
    sub
}

/// Runs `[start, end]` of addresses with a route in `sub`, and that route's next hop.
fn runs<A: Address>(sub: &Rib<A>) -> impl Iterator<Item = (u128, u128, NextHop)> {
    let ranges = sub.ranges();
    let ends: Vec<u128> = ranges
        .iter()
        .skip(1)
        .map(|r| r.start.to_u128() - 1)
        .chain(std::iter::once(A::from_u128(u128::MAX).to_u128()))
        .collect();
    ranges.into_iter().zip(ends).filter_map(|(r, end)| r.hop.map(|h| (r.start.to_u128(), end, h)))
}

/// Number of length-`q` keys the routes of `sub` expand to, after capture (saturating).
#[doc(hidden)]
pub fn expanded_count<A: Address>(sub: &Rib<A>, q: u32) -> u128 {
    let shift = A::BITS - q;
    runs(sub).fold(0u128, |n, (start, end, _)| n.saturating_add(((end - start) >> shift) + 1))
}

/// The length-`q` keys of `sub` with their next hops, in address order.
pub(crate) fn expand<A: Address>(sub: &Rib<A>, q: u32) -> Vec<(A, NextHop)> {
    let shift = A::BITS - q;
    let mut out = Vec::new();
    for (start, end, hop) in runs(sub) {
        let count = ((end - start) >> shift) + 1;
        out.extend((0..count).map(|i| (A::from_u128(start + (i << shift)), hop)));
    }
    out
}

/// The value of key `key` (length `q`) for the routes of `rib` with `min_len ≤ len ≤ q`: its
/// longest covering route among them (group `(lo, q]` is `min_len = lo + 1`).
pub(crate) fn key_value<A: Address>(rib: &Rib<A>, key: A, min_len: u32, q: u32) -> Option<NextHop> {
    let p = Prefix::from_parts_unchecked(key, q);
    rib.covering(&p).filter(|(c, _)| c.len() >= min_len).last().map(|(_, h)| h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Prefix<u32> {
        s.parse().unwrap()
    }

    #[test]
    fn longer_routes_capture_expansions() {
        let mut rib = Rib::new();
        rib.insert(p("10.0.0.0/22"), NextHop::from_index(1));
        rib.insert(p("10.0.1.0/24"), NextHop::from_index(2));
        rib.insert(p("10.0.0.0/8"), NextHop::from_index(3)); // outside the group
        let sub = group_rib(&rib, 20, 24);
        assert_eq!(expanded_count(&sub, 24), 4);
        let keys = expand(&sub, 24);
        let hops: Vec<u32> = keys.iter().map(|(_, h)| h.index()).collect();
        assert_eq!(hops, [1, 2, 1, 1]);
        assert_eq!(keys[1].0, p("10.0.1.0/24").addr());
        assert_eq!(key_value(&rib, p("10.0.2.0/24").addr(), 21, 24), Some(NextHop::from_index(1)));
        assert_eq!(key_value(&rib, p("10.0.4.0/24").addr(), 21, 24), None);
    }

    #[test]
    fn host_routes_and_the_top_of_the_space() {
        let mut rib = Rib::new();
        rib.insert(p("255.255.255.254/31"), NextHop::from_index(0));
        rib.insert(p("255.255.255.255/32"), NextHop::from_index(1));
        let keys = expand(&group_rib(&rib, 24, 32), 32);
        assert_eq!(keys.len(), 2);
        assert_eq!(keys[1], (u32::MAX, NextHop::from_index(1)));
    }
}
