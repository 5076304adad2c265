//! How many prefixes an expansion produces, for every (previous level, level) pair, and the
//! target lengths that minimise it (the choice binary search on lengths and Bloom-filter
//! schemes need: §6.2).
//!
//! `E(y, x)`, the number of `x`-bit prefixes that the routes of window `(y, x]` expand to,
//! is the sum of `2^(x - l)` over the routes of the window that no other route of the window
//! covers. A route of length `l` whose longest covering route has length `a` is such a
//! *maximal* route exactly when `a <= y`; so one histogram `H[l][a]` gives every `E(y, x)`.

use super::cost::INFEASIBLE;
use super::levels::Levels;
use crate::addr::Address;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// `E(y, x)` for a table; see the module doc.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct ExpansionCosts {
    bits: u32,
    /// `below[l][t]`: routes of length `l` whose covering index is below `t`, the covering
    /// index being `a + 1` for a longest covering route of length `a`, and 0 for none.
    below: Vec<Vec<u64>>,
}

impl ExpansionCosts {
    /// Builds the histogram of (length, longest covering route length) pairs.
    pub fn of<A: Address>(rib: &Rib<A>) -> Self {
        let w = A::BITS as usize;
        let mut hist = vec![vec![0u64; w + 2]; w + 1];
        let mut stack: Vec<Prefix<A>> = Vec::with_capacity(w + 1);
        for (p, _) in rib.iter() {
            while stack.last().is_some_and(|top| !top.covers(&p)) {
                stack.pop();
            }
            let idx = stack.last().map_or(0, |top| top.len() as usize + 1);
            hist[p.len() as usize][idx] += 1;
            stack.push(p);
        }
        let below = hist
            .iter()
            .map(|row| {
                let mut acc = 0;
                let mut cum = vec![0u64; w + 3];
                for (t, &h) in row.iter().enumerate() {
                    cum[t] = acc;
                    acc += h;
                }
                cum[w + 2] = acc;
                cum
            })
            .collect();
        ExpansionCosts { bits: A::BITS, below }
    }

    /// `E(prev, level)`: prefixes of length `level` that the routes of window
    /// `(prev, level]` (`[0, level]` when `prev` is `None`) expand to (saturating).
    pub fn expanded(&self, prev: Option<u32>, level: u32) -> u64 {
        let lo = prev.map_or(0, |y| y + 1);
        (lo..=level).fold(0u64, |acc, l| {
            let n = self.below[l as usize][lo as usize + 1];
            let e = if n == 0 { 0 } else { pow2_times(n, level - l) };
            acc.saturating_add(e)
        })
    }

    /// Address width.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Longest route length (0 for an empty table).
    pub fn depth(&self) -> u32 {
        (0..=self.bits).rev().find(|&l| self.below[l as usize].last() > Some(&0)).unwrap_or(0)
    }
}

/// `n · 2^e`, saturating.
fn pow2_times(n: u64, e: u32) -> u64 {
    if e >= 64 { INFEASIBLE } else { n.saturating_mul(1u64 << e) }
}

/// The at most `k` target lengths, the last one the longest route length, that minimise the
/// number of expanded prefixes; with that number. `None` for `k = 0`.
#[doc(hidden)]
pub fn min_expansion_levels(costs: &ExpansionCosts, k: u32) -> Option<(u64, Levels)> {
    let d = costs.depth() as usize;
    let k = k as usize;
    if k == 0 {
        return None;
    }
    // f[r][x]: least prefixes with r levels, the last at x; from[r][x]: the level before.
    let mut f = vec![vec![INFEASIBLE; d + 1]; k + 1];
    let mut from = vec![vec![None; d + 1]; k + 1];
    for (x, cost) in f[1].iter_mut().enumerate() {
        *cost = costs.expanded(None, x as u32);
    }
    for r in 2..=k {
        for x in 0..=d {
            for y in 0..x {
                let c = f[r - 1][y].saturating_add(costs.expanded(Some(y as u32), x as u32));
                if c < f[r][x] {
                    f[r][x] = c;
                    from[r][x] = Some(y);
                }
            }
        }
    }
    let r = (1..=k).min_by_key(|&r| (f[r][d], r))?;
    let mut lens = vec![d as u32];
    let (mut x, mut r_left) = (d, r);
    while let Some(y) = from[r_left][x] {
        lens.push(y as u32);
        (x, r_left) = (y, r_left - 1);
    }
    lens.reverse();
    Some((f[r][d], Levels::new(&lens, costs.bits).ok()?))
}
