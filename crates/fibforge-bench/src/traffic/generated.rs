//! Generated traces "according to the FIB" (SAIL §6; Bloomfwd §6.4 for the matching ratio).
//!
//! No large real packet trace can be shipped, so traces with realistic locality are made from
//! the table itself:
//! - a **flow** goes to one address inside one route; routes are ranked by a seeded random
//!   permutation and chosen with Zipf popularity (weight of rank `k` is `1/k^s`; `s = 0` is
//!   uniform over routes, as Bloomfwd's "same probability to match any prefix");
//! - `flows` flows are active at once; each packet comes from a random active flow, and a flow
//!   sends a burst of 1 to `2·burst - 1` packets (mean `burst`) before a new flow replaces it;
//! - a share `1 - match` of flows goes to addresses that match no route, or only the default
//!   route (Bloomfwd's matching ratio: such packets "end up forwarded to the default route").
//!
//! The trace is an array of `TRACE_LEN` addresses, looked up in order.

use crate::family::BenchAddress;
use crate::rng::XorShift64;
use fibforge::{Prefix, Rib};
use std::fmt;

/// Addresses in a generated trace.
pub const TRACE_LEN: usize = 1 << 20;

/// Random draws tried per non-matching address before giving up.
const MISS_ATTEMPTS: u32 = 10_000;

/// Parameters of a generated trace.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedSpec {
    /// Zipf exponent of route popularity (0 = uniform).
    pub s: f64,
    /// Flows active at once.
    pub flows: u32,
    /// Mean packets per flow burst.
    pub burst: u32,
    /// Share of packets whose destination matches a route other than the default.
    pub matching: f64,
}

impl Default for GeneratedSpec {
    fn default() -> Self {
        GeneratedSpec { s: 1.0, flows: 64, burst: 8, matching: 1.0 }
    }
}

impl GeneratedSpec {
    /// Parses `key=value` options separated by `:` (`s=1.2:burst=4:match=0.8`).
    pub fn parse(options: &str) -> Result<Self, String> {
        let mut spec = GeneratedSpec::default();
        for kv in options.split(':').filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=').ok_or(format!("'{kv}': options are key=value"))?;
            let num: f64 = v.parse().map_err(|_| format!("'{kv}': not a number"))?;
            match k {
                "s" if num >= 0.0 => spec.s = num,
                "flows" if num >= 1.0 => spec.flows = num as u32,
                "burst" if num >= 1.0 => spec.burst = num as u32,
                "match" if (0.0..=1.0).contains(&num) => spec.matching = num,
                "s" | "flows" | "burst" | "match" => return Err(format!("'{kv}': out of range")),
                _ => return Err(format!("unknown option '{k}' (known: s, flows, burst, match)")),
            }
        }
        Ok(spec)
    }
}

impl fmt::Display for GeneratedSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "zipf:s={}:flows={}:burst={}:match={}",
            self.s, self.flows, self.burst, self.matching
        )
    }
}

/// Zipf-weighted choice among the non-default routes.
struct Popularity<A: BenchAddress> {
    routes: Vec<Prefix<A>>,
    cumulative: Vec<f64>,
}

impl<A: BenchAddress> Popularity<A> {
    fn new(rib: &Rib<A>, s: f64, rng: &mut XorShift64) -> Self {
        let mut routes: Vec<Prefix<A>> =
            rib.iter().map(|(p, _)| p).filter(|p| p.len() > 0).collect();
        for i in (1..routes.len()).rev() {
            routes.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut total = 0.0;
        let cumulative = (1..=routes.len())
            .map(|rank| {
                total += (rank as f64).powf(-s);
                total
            })
            .collect();
        Popularity { routes, cumulative }
    }

    fn pick(&self, rng: &mut XorShift64) -> Prefix<A> {
        let total = *self.cumulative.last().expect("non-empty");
        let u = rng.unit() * total;
        let i = self.cumulative.partition_point(|&c| c <= u).min(self.routes.len() - 1);
        self.routes[i]
    }
}

/// True when `a` matches a route other than the default route.
fn matches_specific<A: BenchAddress>(rib: &Rib<A>, a: A) -> bool {
    rib.longest_match(a).is_some_and(|(p, _)| p.len() > 0)
}

fn miss_address<A: BenchAddress>(rib: &Rib<A>, rng: &mut XorShift64) -> Result<A, String> {
    for _ in 0..MISS_ATTEMPTS {
        let a = A::random(rng);
        if !matches_specific(rib, a) {
            return Ok(a);
        }
    }
    Err(format!(
        "no address outside the routes found in {MISS_ATTEMPTS} draws: match < 1 impossible"
    ))
}

/// Draws a trace of `TRACE_LEN` (2^20) addresses for the routes of `rib`.
pub fn generate_trace<A: BenchAddress>(
    spec: &GeneratedSpec,
    rib: &Rib<A>,
    seed: u64,
) -> Result<Vec<A>, String> {
    generate(spec, rib, seed, TRACE_LEN)
}

fn generate<A: BenchAddress>(
    spec: &GeneratedSpec,
    rib: &Rib<A>,
    seed: u64,
    len: usize,
) -> Result<Vec<A>, String> {
    let mut rng = XorShift64::new(seed ^ 0x5EED_7ACE);
    let popularity = Popularity::new(rib, spec.s, &mut rng);
    if popularity.routes.is_empty() && spec.matching > 0.0 {
        return Err("the table has no route besides the default: match must be 0".into());
    }
    let new_flow = |rng: &mut XorShift64| -> Result<(A, u32), String> {
        let packets = 1 + rng.below(2 * spec.burst as u64 - 1) as u32;
        if rng.unit() < spec.matching {
            let p = popularity.pick(rng);
            let host = rng.next_u128() & !A::netmask(p.len()).to_u128();
            Ok((A::from_u128(p.addr().to_u128() | host), packets))
        } else {
            Ok((miss_address(rib, rng)?, packets))
        }
    };
    let mut active = Vec::with_capacity(spec.flows as usize);
    for _ in 0..spec.flows {
        active.push(new_flow(&mut rng)?);
    }
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let slot = rng.below(active.len() as u64) as usize;
        let (addr, left) = &mut active[slot];
        out.push(*addr);
        *left -= 1;
        if *left == 0 {
            active[slot] = new_flow(&mut rng)?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibforge::NextHop;

    fn table() -> Rib<u32> {
        let routes = ["0.0.0.0/0", "10.0.0.0/8", "11.0.0.0/8", "12.0.0.0/9", "1.2.3.0/24"];
        routes.iter().map(|r| (r.parse().unwrap(), NextHop::from_index(0))).collect()
    }

    #[test]
    fn matching_ratio_is_honoured() {
        let rib = table();
        for matching in [1.0, 0.8, 0.5, 0.0] {
            let spec = GeneratedSpec { matching, ..Default::default() };
            let t = generate(&spec, &rib, 3, 50_000).unwrap();
            let hit =
                t.iter().filter(|&&a| matches_specific(&rib, a)).count() as f64 / t.len() as f64;
            assert!((hit - matching).abs() < 0.05, "asked {matching}, got {hit}");
        }
    }

    #[test]
    fn deterministic_and_bursty() {
        let rib = table();
        let spec = GeneratedSpec { flows: 1, burst: 8, ..Default::default() };
        let a = generate(&spec, &rib, 1, 10_000).unwrap();
        assert_eq!(a, generate(&spec, &rib, 1, 10_000).unwrap());
        assert_ne!(a, generate(&spec, &rib, 2, 10_000).unwrap());
        // one flow at a time: consecutive repeats average about `burst`
        let runs = 1 + a.windows(2).filter(|w| w[0] != w[1]).count();
        let mean = a.len() as f64 / runs as f64;
        assert!((5.0..11.0).contains(&mean), "mean burst {mean}");
    }

    #[test]
    fn zipf_concentrates_on_few_routes() {
        let rib: Rib<u32> = (0..1000u32)
            .map(|i| (Prefix::new(i << 12, 20).unwrap(), NextHop::from_index(0)))
            .collect();
        let count_top = |s: f64| {
            let spec = GeneratedSpec { s, flows: 1, burst: 1, matching: 1.0 };
            let t = generate(&spec, &rib, 7, 20_000).unwrap();
            let mut per = std::collections::HashMap::new();
            for a in t {
                *per.entry(a >> 12).or_insert(0u32) += 1;
            }
            let mut v: Vec<u32> = per.into_values().collect();
            v.sort_unstable_by(|a, b| b.cmp(a));
            v.iter().take(10).sum::<u32>()
        };
        assert!(count_top(1.2) > 3 * count_top(0.0));
    }

    #[test]
    fn impossible_ratios_are_errors() {
        let all: Rib<u32> = [("0.0.0.0/1", 0), ("128.0.0.0/1", 0)]
            .iter()
            .map(|(r, h)| (r.parse().unwrap(), NextHop::from_index(*h)))
            .collect();
        let spec = GeneratedSpec { matching: 0.5, ..Default::default() };
        assert!(generate(&spec, &all, 1, 1000).is_err());
        let default_only: Rib<u32> =
            [("0.0.0.0/0".parse().unwrap(), NextHop::from_index(0))].into_iter().collect();
        assert!(generate(&GeneratedSpec::default(), &default_only, 1, 10).is_err());
        let spec0 = GeneratedSpec { matching: 0.0, ..Default::default() };
        assert_eq!(generate(&spec0, &default_only, 1, 10).unwrap().len(), 10);
    }
}
