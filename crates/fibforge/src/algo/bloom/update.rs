//! Incremental updates through the counting filters (§3.1–3.2).
//!
//! A changed route of length `l` touches exactly the keys it expands to in its group, or the
//! direct-array entries it covers. Each touched key is recomputed from the RIB (its longest
//! covering route within the group — prefix capture) and then stored, replaced or removed;
//! storing and removing a key adds or subtracts its filter counters. A large fan-out (a short
//! route over a long level) computes all its keys' values in one walk of the routes under
//! the changed prefix, sizes the table and filter once for the keys it may add, and stores
//! them with the next keys' slots and counters prefetched. Route lengths the plan
//! cannot absorb (longer than every level, a new length in a one-level-per-length structure,
//! a fan-out above 2^20 keys, or one that could take the structure past
//! [`Config::max_keys`](super::Config::max_keys)) rebuild the whole structure.

use super::build::build_direct;
use super::expand::key_value;
use super::{BloomFib, BloomKey, Level};
use crate::fib::{BuildError, Compile, Incremental};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// The largest expansion fan-out of one update applied in place (log2).
const MAX_FANOUT_BITS: u32 = 20;

/// Fan-outs (log2) from which [`key_values`] computes the values in one walk of the routes
/// under the prefix instead of one RIB descent per key: below it the walk would mostly visit
/// routes longer than the level, which the per-key descents never meet.
const SPAN_FILL_BITS: u32 = 4;

/// The value of every length-`q` key under `p` for the routes of lengths `min_len..=q` (as
/// [`key_value`] gives it), in key order. For a large fan-out: the longest such route
/// covering `p`, overwritten by those inside `p`, which the RIB yields shorter first.
fn key_values<A: BloomKey>(
    rib: &Rib<A>,
    p: &Prefix<A>,
    min_len: u32,
    q: u32,
) -> Vec<Option<NextHop>> {
    let (l, step) = (p.len(), A::BITS - q);
    if q - l < SPAN_FILL_BITS {
        let key = |i: u128| A::from_u128(p.addr().to_u128() + (i << step));
        return (0..1u128 << (q - l)).map(|i| key_value(rib, key(i), min_len, q)).collect();
    }
    let outer = rib.covering(p).filter(|(c, _)| c.len() >= min_len).last().map(|(_, h)| h);
    let mut values = vec![outer; 1 << (q - l)];
    for (r, hop) in rib.covered(p).filter(|(r, _)| r.len() > l && r.len() <= q) {
        let first = ((r.addr().to_u128() - p.addr().to_u128()) >> step) as usize;
        values[first..first + (1 << (q - r.len()))].fill(Some(hop));
    }
    values
}

impl<A: BloomKey> BloomFib<A> {
    /// Applies one changed route; false when it needs a rebuild.
    fn apply_one(&mut self, rib: &Rib<A>, p: &Prefix<A>) -> bool {
        let l = p.len();
        let bits = self.plan.direct_bits;
        if bits > 0 && l <= bits {
            self.refresh_direct(rib, p);
            return true;
        }
        if l == 0 {
            self.default = rib.get(p);
            return true;
        }
        let Some(index) = self.plan.levels.iter().position(|&q| q >= l) else { return false };
        let (lo, q) = self.plan.group(index);
        if (!self.plan.expand_new && q != l) || q - l > MAX_FANOUT_BITS {
            return false;
        }
        // Like a compile, the structure may hold at most `max_keys` keys: above that, rebuild
        // (a fresh plan may fit, or the rebuild reports the limit).
        let keys: usize = self.levels.iter().map(|level| level.keys()).sum();
        if (keys as u128) + (1u128 << (q - l)) > self.cfg.max_keys {
            return false;
        }
        let step = A::BITS - q;
        let key = |i: usize| A::from_u128(p.addr().to_u128() + ((i as u128) << step));
        let values = key_values(rib, p, lo + 1, q);
        let level = self.level_mut(q);
        level.reserve(values.iter().filter(|v| v.is_some()).count());
        let keys: Vec<_> = values.into_iter().enumerate().map(|(i, hop)| (key(i), hop)).collect();
        level.set_all(&keys);
        true
    }

    /// Recomputes the direct-array entries under `p` (length ≤ the array width).
    fn refresh_direct(&mut self, rib: &Rib<A>, p: &Prefix<A>) {
        let bits = self.plan.direct_bits;
        if p.len() == 0 {
            self.direct = build_direct(rib, bits);
            return;
        }
        let first = p.addr().bits(0, bits) as usize;
        let values = key_values(rib, p, 0, bits);
        let entries = &mut self.direct[first..first + values.len()];
        for (entry, hop) in entries.iter_mut().zip(values) {
            *entry = hop.map_or(0, |h| h.raw());
        }
    }

    /// The level of length `q`, created (small, growing on demand) when absent.
    fn level_mut(&mut self, q: u32) -> &mut Level<A> {
        let pos = match self.levels.iter().position(|l| l.len() <= q) {
            Some(i) if self.levels[i].len() == q => i,
            found => {
                let at = found.unwrap_or(self.levels.len());
                self.levels.insert(at, Level::new(q, 64, 64, self.cfg.fpr, self.scheme));
                at
            }
        };
        &mut self.levels[pos]
    }
}

impl<A: BloomKey> Incremental<A> for BloomFib<A> {
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        let mut todo = changed.to_vec();
        todo.sort_unstable_by_key(|p| (p.addr(), p.len()));
        todo.dedup();
        for p in &todo {
            if !self.apply_one(rib, p) {
                *self = Self::compile(rib, &self.cfg)?;
                return Ok(());
            }
        }
        Ok(())
    }
}
