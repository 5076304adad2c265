//! The fixed-stride dynamic program (§4.2, §5; Table 5): the level ends `L1 < … < Lk` of the
//! smallest trie whose nodes at one level all share a stride.
//!
//! A fixed-stride trie has one node at level `j` for every `L(j-1)`-bit string below which a
//! route longer than `L(j-1)` exists: `n(L(j-1))` nodes of `2^(Lj - L(j-1))` entries each
//! (`n(0) = 1`: the root always exists). With `D` the longest route length,
//! `C(d, r) = min over d < e <= min(d + S, D) of n(d)·2^(e-d)·entry + C(e, r - 1)`,
//! `C(D, r) = 0`, `C(d < D, 0) = ∞`; the answer is `C(0, k)`. `O(D²k)` steps: microseconds.

use super::cost::INFEASIBLE;
use super::levels::Levels;
use super::var_dp::MAX_STRIDE;
use crate::addr::Address;
use crate::rib::Rib;
use std::time::{Duration, Instant};

/// The shape of a table the fixed-stride program needs: nodes per depth.
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct DepthProfile {
    /// `nodes_at[d]`: distinct `d`-bit strings with a route longer than `d` below them
    /// (`nodes_at[0]` is always 1).
    pub nodes_at: Vec<u64>,
    /// Longest route length, at least 1 (a trie root has a stride of at least one bit).
    pub depth: u32,
    /// Address width.
    pub bits: u32,
}

impl DepthProfile {
    /// Counts the nodes per depth of `rib`'s 1-bit trie that have children.
    pub fn of<A: Address>(rib: &Rib<A>) -> Self {
        let w = A::BITS as usize;
        let mut nodes_at = vec![0u64; w + 1];
        let mut last: Vec<Option<u128>> = vec![None; w + 1];
        let mut depth = 1;
        for (p, _) in rib.iter() {
            depth = depth.max(p.len());
            let a = p.addr().to_u128();
            for d in 0..p.len() as usize {
                // Routes come in address order, so equal truncations are adjacent per depth.
                let t = super::expand::shr128(a, (w - d) as u32);
                if last[d] != Some(t) {
                    last[d] = Some(t);
                    nodes_at[d] += 1;
                }
            }
        }
        nodes_at[0] = 1;
        DepthProfile { nodes_at, depth, bits: A::BITS }
    }

    /// Entries of the fixed-stride trie with these level ends.
    pub fn entries(&self, levels: &Levels) -> u64 {
        let mut prev = 0;
        levels.lens().iter().fold(0u64, |acc, &l| {
            let e = self.nodes_at[prev as usize].saturating_mul(1u64 << (l - prev).min(63));
            prev = l;
            acc.saturating_add(e)
        })
    }
}

/// The results of the fixed-stride program for `1..=max_levels` levels.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct FixedStrideDp {
    /// `best[r - 1]`: (bytes, level ends) of the best trie with at most `r` levels.
    best: Vec<Option<(u64, Levels)>>,
    elapsed: Duration,
}

impl FixedStrideDp {
    /// Runs the program with `entry_bytes` per entry and strides up to `max_stride`
    /// (clamped to [`MAX_STRIDE`]).
    pub fn run(profile: &DepthProfile, max_levels: u32, entry_bytes: u64, max_stride: u32) -> Self {
        let start = Instant::now();
        let d_max = profile.depth as usize;
        let max_stride = max_stride.clamp(1, MAX_STRIDE) as usize;
        let k = max_levels as usize;
        // cost[r][d], next[r][d]: best bytes covering depths d..D with r levels, next cut.
        let mut cost = vec![vec![INFEASIBLE; d_max + 1]; k + 1];
        let mut next = vec![vec![0usize; d_max + 1]; k + 1];
        for row in cost.iter_mut() {
            row[d_max] = 0;
        }
        for r in 1..=k {
            for d in (0..d_max).rev() {
                for e in d + 1..=(d + max_stride).min(d_max) {
                    let here = profile.nodes_at[d]
                        .saturating_mul(1u64 << (e - d))
                        .saturating_mul(entry_bytes);
                    let c = here.saturating_add(cost[r - 1][e]);
                    if c < cost[r][d] {
                        cost[r][d] = c;
                        next[r][d] = e;
                    }
                }
            }
        }
        let best = (1..=k)
            .map(|r| {
                (cost[r][0] != INFEASIBLE).then(|| (cost[r][0], cuts(&next, r, d_max, profile)))
            })
            .collect();
        FixedStrideDp { best, elapsed: start.elapsed() }
    }

    /// Least bytes with at most `levels` levels, `None` when impossible.
    pub fn bytes(&self, levels: u32) -> Option<u64> {
        self.best.get(levels.checked_sub(1)? as usize)?.as_ref().map(|b| b.0)
    }

    /// The level ends of the best trie with at most `levels` levels.
    pub fn levels(&self, levels: u32) -> Option<&Levels> {
        self.best.get(levels.checked_sub(1)? as usize)?.as_ref().map(|b| &b.1)
    }

    /// Time the program took (all level counts at once).
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }
}

fn cuts(next: &[Vec<usize>], r: usize, d_max: usize, profile: &DepthProfile) -> Levels {
    let (mut d, mut r, mut out) = (0, r, vec![]);
    while d < d_max {
        d = next[r][d];
        r -= 1;
        out.push(d as u32);
    }
    Levels::new(&out, profile.bits).expect("cuts increase and end at the longest route")
}
