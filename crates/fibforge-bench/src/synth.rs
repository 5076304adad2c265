//! Growth tables: Poptrie's SYN1 and SYN2 (§4.1), made from any IPv4 or IPv6 table.
//!
//! - **SYN1**: every prefix of length ≤ 16 is split into 4 (two more bits), every prefix of
//!   length 17..=24 into 2;
//! - **SYN2**: ≤ 16 into 8, 17..=20 into 4, 21..=24 into 2.
//!
//! The `i`-th part (`i` = 1..k) of a prefix with next hop `n` gets the next hop `n + i`, as
//! the paper says: the parts differ from their parent and from one another, which makes leaf
//! aggregation harder, and the table gains at most `k` next hops (k ≤ 8). The paper's next
//! hops were sparse, so `n + i` met no existing one; our indices are dense, so `n + i` may
//! equal another route's next hop (the counts of Table 1, 13 → 45 and 87, are therefore not
//! reproduced: a table keeps about its number of next hops, plus at most 8). A part that is
//! already a route of the input keeps the input's route. The default route (/0) is kept whole. Lengths are in bits from the top
//! for both families (the paper's rules are for IPv4; IPv6 tables get the same treatment).

use fibforge::{Address, NextHop, Prefix, Rib};
use std::fmt;
use std::str::FromStr;

/// Which growth table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Synth {
    /// SYN1.
    Syn1,
    /// SYN2.
    Syn2,
}

impl FromStr for Synth {
    type Err = String;
    fn from_str(s: &str) -> Result<Synth, String> {
        match s {
            "syn1" => Ok(Synth::Syn1),
            "syn2" => Ok(Synth::Syn2),
            _ => Err(format!("unknown growth table '{s}' (known: syn1, syn2)")),
        }
    }
}

impl fmt::Display for Synth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Synth::Syn1 => "syn1",
            Synth::Syn2 => "syn2",
        })
    }
}

impl Synth {
    /// Extra bits a prefix of length `len` is split by (0: kept).
    pub fn split_bits(self, len: u32) -> u32 {
        match (self, len) {
            (_, 0) => 0,
            (Synth::Syn1, 1..=16) => 2,
            (Synth::Syn1, 17..=24) => 1,
            (Synth::Syn2, 1..=16) => 3,
            (Synth::Syn2, 17..=20) => 2,
            (Synth::Syn2, 21..=24) => 1,
            _ => 0,
        }
    }

    /// The growth table of `rib`.
    pub fn apply<A: Address>(self, rib: &Rib<A>) -> Rib<A> {
        let mut out = Rib::with_capacity(rib.len() * 2);
        for (p, h) in rib.iter() {
            let bits = self.split_bits(p.len()).min(A::BITS - p.len());
            if bits == 0 {
                out.insert(p, h);
                continue;
            }
            for i in 0..(1u32 << bits) {
                let part = part_of(p, bits, i);
                if rib.get(&part).is_none() {
                    out.insert(part, part_hop(h, i + 1));
                }
            }
        }
        let end = out.change_mark();
        out.trim_changes(end);
        out
    }
}

/// The next hop of part `i` (1-based) of a route to `n`: `n + i`, held at the largest index
/// (a table never has next hops within 8 of 2^32).
fn part_hop(n: NextHop, i: u32) -> NextHop {
    NextHop::from_index(n.index().saturating_add(i).min(NextHop::MAX_INDEX))
}

/// The `i`-th of the `2^bits` sub-prefixes of `p` (0-based).
fn part_of<A: Address>(p: Prefix<A>, bits: u32, i: u32) -> Prefix<A> {
    let len = p.len() + bits;
    let shift = A::BITS - len;
    let addr = p.addr().to_u128() | ((i as u128) << shift);
    Prefix::from_parts_unchecked(A::from_u128(addr), len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rib(routes: &[(&str, u32)]) -> Rib<u32> {
        routes.iter().map(|(r, h)| (r.parse().unwrap(), NextHop::from_index(*h))).collect()
    }

    #[test]
    fn syn1_splits_by_length() {
        let r = rib(&[("0.0.0.0/0", 0), ("10.0.0.0/8", 1), ("10.1.0.0/20", 2), ("10.2.3.0/25", 1)]);
        let s = Synth::Syn1.apply(&r);
        // /0 kept, /8 -> 4 x /10, /20 -> 2 x /21, /25 kept
        assert_eq!(s.len(), 1 + 4 + 2 + 1);
        // part i (1-based) of a route to n gets n + i
        let hop = |p: &str| s.get(&p.parse().unwrap()).map(|h| h.index());
        let tens = ["10.0.0.0/10", "10.64.0.0/10", "10.128.0.0/10", "10.192.0.0/10"];
        assert_eq!(tens.map(hop), [Some(2), Some(3), Some(4), Some(5)]);
        assert_eq!((hop("10.1.0.0/21"), hop("10.1.8.0/21")), (Some(3), Some(4)));
        assert_eq!(hop("10.2.3.0/25"), Some(1));
        assert_eq!(hop("0.0.0.0/0"), Some(0));
        assert!(s.get(&"10.0.0.0/8".parse().unwrap()).is_none());
        // a table gains at most 2^bits next hops, not a multiple of its count
        let r = rib(&[("10.0.0.0/8", 0), ("11.0.0.0/8", 1000), ("12.0.0.0/24", 7)]);
        let mut hops: Vec<_> = Synth::Syn2.apply(&r).iter().map(|(_, h)| h.index()).collect();
        hops.sort_unstable();
        hops.dedup();
        assert_eq!(
            hops,
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008]
        );
        assert_eq!(
            part_hop(NextHop::from_index(NextHop::MAX_INDEX - 1), 4).index(),
            NextHop::MAX_INDEX
        );
    }

    #[test]
    fn syn2_splits_more_and_keeps_existing_parts() {
        let r =
            rib(&[("10.0.0.0/16", 0), ("10.0.0.0/19", 5), ("10.1.0.0/17", 1), ("10.2.0.0/22", 2)]);
        let s = Synth::Syn2.apply(&r);
        // /16 -> 8 x /19 but 10.0.0.0/19 exists: 7 parts + the existing /19 split into 4 /21s
        // /17 -> 4 x /19; /22 -> 2 x /23
        assert_eq!(s.len(), 7 + 4 + 4 + 2);
        assert!(s.get(&"10.0.0.0/19".parse().unwrap()).is_none());
        assert!(s.get(&"10.0.0.0/21".parse().unwrap()).is_some());
        // the address space covered is unchanged
        for a in [0x0A00_0001u32, 0x0A00_2001, 0x0A01_8000, 0x0A02_0201, 0x0B00_0000] {
            assert_eq!(r.lookup(a).is_some(), s.lookup(a).is_some(), "{a:#x}");
        }
    }

    #[test]
    fn names_parse() {
        assert_eq!("syn1".parse::<Synth>().unwrap(), Synth::Syn1);
        assert_eq!(Synth::Syn2.to_string(), "syn2");
        assert!("syn3".parse::<Synth>().is_err());
    }
}
