//! Compiling a RIB: plan the levels, fill the direct array, expand and load each level.

use super::dpcpe::{choose_levels, length_counts};
use super::expand::{expand, expanded_count, group_rib};
use super::hash::{HashFn, Scheme};
use super::{BloomFib, BloomKey, Config, Expansion, Level, Plan, Variant};
use crate::addr::{Address, Family};
use crate::cpu::Isa;
use crate::fib::{BuildError, Compile};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// Width of the IPv4 direct lookup array (§3.2: lengths ≤ 20).
pub(super) const IPV4_DIRECT_BITS: u32 = 20;
/// DPCPE levels when none are given (the paper's best, §6.6).
pub(super) const DEFAULT_LEVELS: usize = 5;

impl Config {
    /// The registry name of the variant.
    #[doc(hidden)]
    pub fn algo_name(&self) -> &'static str {
        match self.variant {
            Variant::Naive => "bloom_naive",
            Variant::Baseline => "bloom_base",
            Variant::Bloomfwd => "bloomfwd",
        }
    }

    fn scheme(&self, family: Family) -> Scheme {
        match (self.variant, self.hash) {
            (_, Some(f)) => Scheme::Double(f),
            (Variant::Bloomfwd, None) if family == Family::Ipv4 => Scheme::Double(HashFn::H2),
            (Variant::Bloomfwd, None) => Scheme::Double(HashFn::Murmur),
            _ => Scheme::Independent,
        }
    }

    fn expansion(&self, family: Family) -> Expansion {
        match (self.expansion, family, self.variant) {
            (Expansion::FamilyDefault, _, Variant::Naive) => Expansion::None,
            (Expansion::FamilyDefault, Family::Ipv4, _) => Expansion::Ipv4Groups,
            (Expansion::FamilyDefault, Family::Ipv6, Variant::Bloomfwd) => {
                Expansion::Levels(DEFAULT_LEVELS)
            }
            (Expansion::FamilyDefault, Family::Ipv6, _) => Expansion::None,
            (e, _, _) => e,
        }
    }

    fn check(&self, family: Family) -> Result<(), BuildError> {
        let algo = self.algo_name();
        if !(self.fpr > 0.0 && self.fpr < 1.0) {
            let reason = "the false-positive rate must be in (0, 1)".into();
            return Err(BuildError::BadOption {
                algo,
                option: format!("fpr={}", self.fpr),
                reason,
            });
        }
        if family == Family::Ipv6 && self.expansion == Expansion::Ipv4Groups {
            let reason = "the /20 + /24 + /32 grouping is for IPv4 only".into();
            return Err(BuildError::BadOption { algo, option: "cpe=ipv4".into(), reason });
        }
        Ok(())
    }
}

impl Plan {
    fn new<A: Address>(rib: &Rib<A>, expansion: Expansion) -> Plan {
        let counts = length_counts(rib);
        match expansion {
            Expansion::Ipv4Groups => {
                Plan { direct_bits: IPV4_DIRECT_BITS, levels: vec![24, 32], expand_new: true }
            }
            Expansion::Levels(n) if n > 0 => {
                Plan { direct_bits: 0, levels: choose_levels(&counts, n), expand_new: true }
            }
            _ => Plan {
                direct_bits: 0,
                levels: choose_levels(&counts, usize::MAX),
                expand_new: false,
            },
        }
    }

    /// The group `(lo, q]` of a level index.
    pub(super) fn group(&self, index: usize) -> (u32, u32) {
        let lo = if index == 0 { self.direct_bits } else { self.levels[index - 1] };
        (lo, self.levels[index])
    }
}

/// The direct array: entry `i` = longest route of length ≤ `bits` covering the `/bits` `i`.
pub(super) fn build_direct<A: Address>(rib: &Rib<A>, bits: u32) -> Vec<u32> {
    let mut direct = crate::algo::huge::zeroed::<u32>(1 << bits);
    let sub = group_rib_with_default(rib, bits);
    for (p, h) in sub.iter() {
        // Routes in (address, length) order: nested (longer) routes overwrite their covers.
        let first = p.addr().bits(0, bits) as usize;
        direct[first..first + (1 << (bits - p.len()))].fill(h.raw());
    }
    direct
}

fn group_rib_with_default<A: Address>(rib: &Rib<A>, bits: u32) -> Rib<A> {
    let mut sub = group_rib(rib, 0, bits);
    if let Some(h) = rib.get(&Prefix::from_parts_unchecked(A::ZERO, 0)) {
        sub.insert(Prefix::from_parts_unchecked(A::ZERO, 0), h);
    }
    sub
}

/// One level's length and its expanded `(key, next hop)` pairs.
type ExpandedLevel<A> = (u32, Vec<(A, NextHop)>);

/// Expanded keys of every level (ascending lengths), checked against [`MAX_KEYS`].
fn expand_levels<A: Address>(
    rib: &Rib<A>,
    plan: &Plan,
    cfg: &Config,
) -> Result<Vec<ExpandedLevel<A>>, BuildError> {
    let subs: Vec<(u32, Rib<A>)> = (0..plan.levels.len())
        .map(|i| {
            let (lo, q) = plan.group(i);
            (q, group_rib(rib, lo, q))
        })
        .collect();
    let total = subs.iter().fold(0u128, |n, (q, sub)| n.saturating_add(expanded_count(sub, *q)));
    if total > cfg.max_keys {
        let (algo, limit) = (cfg.algo_name(), cfg.max_keys.min(u64::MAX as u128) as u64);
        let found = total.min(u64::MAX as u128) as u64;
        return Err(BuildError::LimitExceeded { algo, what: "expanded prefixes", limit, found });
    }
    Ok(subs.into_iter().map(|(q, sub)| (q, expand(&sub, q))).collect())
}

impl<A: BloomKey> Compile<A> for BloomFib<A> {
    type Config = Config;

    fn compile(rib: &Rib<A>, cfg: &Config) -> Result<Self, BuildError> {
        cfg.check(A::FAMILY)?;
        Self::compile_planned(rib, cfg, Plan::new(rib, cfg.expansion(A::FAMILY)))
    }
}

impl<A: BloomKey> BloomFib<A> {
    /// Compiles `rib` into the levels of `plan` (a fresh plan, or for tests the plan an
    /// updated structure kept).
    pub(super) fn compile_planned(
        rib: &Rib<A>,
        cfg: &Config,
        plan: Plan,
    ) -> Result<Self, BuildError> {
        let scheme = cfg.scheme(A::FAMILY);
        let groups = expand_levels(rib, &plan, cfg)?;
        let largest = groups.iter().map(|(_, keys)| keys.len()).max().unwrap_or(0);
        let mut levels = Vec::with_capacity(groups.len());
        for (q, keys) in groups.into_iter().rev().filter(|(_, keys)| !keys.is_empty()) {
            let sized_for = if cfg.variant == Variant::Naive { largest } else { keys.len() };
            // Symmetric (naive) filters are all sized for the largest level; tables always hold
            // their own keys only.
            let mut level = Level::new(q, sized_for, keys.len(), cfg.fpr, scheme);
            for (key, hop) in keys {
                level.set(key, Some(hop));
            }
            levels.push(level);
        }
        let (direct, default) = match plan.direct_bits {
            0 => (Vec::new(), rib.get(&Prefix::from_parts_unchecked(A::ZERO, 0))),
            bits => (build_direct(rib, bits), None),
        };
        let isa = Isa::resolve(cfg.algo_name(), cfg.isa)?;
        Ok(BloomFib { levels, direct, default, plan, scheme, isa, cfg: cfg.clone() })
    }
}
