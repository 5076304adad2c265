//! DPCPE: choosing the expansion lengths for IPv6 (Lucchesi et al. §4.2, Table 4).
//!
//! Given the length histogram `L` (routes per length, the default route excluded) and a number
//! of levels `n`, pick `n` lengths `S`, always including the longest length present, so that
//! the *estimated* number of prefixes after expanding every route to the next level at or above
//! its length, `Σ_i L[i]·2^(q(i)−i)`, is smallest. Like the paper's estimate it ignores prefix
//! capture, so it is an upper bound on the real count of keys (overlapping routes of one group
//! share keys), which [`dpcpe_table`] reports beside it.
//!
//! The paper describes a greedy loop (add the length that lowers the cost most, one at a
//! time); [`choose_levels`] solves the same objective exactly by dynamic programming over the
//! present lengths (a level at an absent length never beats the longest present length below
//! it), `O(n·P²)` for `P ≤ 128` present lengths. [`choose_levels_greedy`] is the paper's loop,
//! kept for comparison.

use super::expand::{expanded_count, group_rib};
use crate::addr::Address;
use crate::rib::Rib;

/// Routes per length `0..=BITS`, length 0 (the default route) set to zero.
pub fn length_counts<A: Address>(rib: &Rib<A>) -> Vec<u64> {
    let mut counts = vec![0u64; A::BITS as usize + 1];
    for (p, _) in rib.iter() {
        counts[p.len() as usize] += 1;
    }
    counts[0] = 0;
    counts
}

/// Estimated keys after expanding to `levels` (ascending), ignoring capture; saturating.
pub fn estimate(counts: &[u64], levels: &[u32]) -> u128 {
    let mut total = 0u128;
    for (len, &c) in counts.iter().enumerate().filter(|&(_, &c)| c > 0) {
        let Some(&q) = levels.iter().find(|&&q| q as usize >= len) else {
            return u128::MAX; // a length above every level cannot be represented
        };
        let fan = 1u128 << (q - len as u32); // q - len <= 127
        total = total.saturating_add(fan.saturating_mul(c as u128));
    }
    total
}

fn cost(counts: &[u64], present: &[u32], from: usize, to: usize) -> f64 {
    let q = present[to];
    present[from..=to].iter().map(|&l| counts[l as usize] as f64 * 2f64.powi((q - l) as i32)).sum()
}

/// The `n` expansion lengths (ascending) minimising the estimate, by dynamic programming.
/// With `n` at least the number of present lengths, every present length is a level.
pub fn choose_levels(counts: &[u64], n: usize) -> Vec<u32> {
    let present: Vec<u32> = (1..counts.len() as u32).filter(|&l| counts[l as usize] > 0).collect();
    let p = present.len();
    let n = n.max(1);
    if n >= p {
        return present;
    }
    // best[j][t]: least cost covering lengths up to present[t] with j+1 levels, the last at t.
    let mut best = vec![vec![f64::INFINITY; p]; n];
    let mut from = vec![vec![usize::MAX; p]; n];
    for (t, b) in best[0].iter_mut().enumerate() {
        *b = cost(counts, &present, 0, t);
    }
    for j in 1..n {
        for t in j..p {
            for u in j - 1..t {
                let c = best[j - 1][u] + cost(counts, &present, u + 1, t);
                if c < best[j][t] {
                    best[j][t] = c;
                    from[j][t] = u;
                }
            }
        }
    }
    let mut levels = vec![present[p - 1]];
    let mut t = p - 1;
    for j in (1..n).rev() {
        t = from[j][t];
        levels.push(present[t]);
    }
    levels.reverse();
    levels
}

/// The paper's greedy selection: start from the longest length, add the length that lowers
/// the estimate most until there are `n`.
pub fn choose_levels_greedy(counts: &[u64], n: usize) -> Vec<u32> {
    let present: Vec<u32> = (1..counts.len() as u32).filter(|&l| counts[l as usize] > 0).collect();
    let Some(&longest) = present.last() else { return Vec::new() };
    let mut levels = vec![longest];
    while levels.len() < n.min(present.len()) {
        let pick = present
            .iter()
            .filter(|l| !levels.contains(l))
            .map(|&l| {
                let mut s = levels.clone();
                s.push(l);
                s.sort_unstable();
                (estimate(counts, &s), l)
            })
            .min();
        let Some((_, l)) = pick else { break };
        levels.push(l);
        levels.sort_unstable();
    }
    levels
}

/// One row of the paper's Table 4: `n` levels, the lengths chosen, estimated and actual keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DpcpeRow {
    /// Number of levels asked for.
    pub n: usize,
    /// The expansion lengths, ascending.
    pub levels: Vec<u32>,
    /// Estimated keys (no prefix capture), saturating.
    pub estimated: u128,
    /// Keys after expansion with prefix capture (counted, not materialised), saturating.
    pub actual: u128,
}

/// Actual keys after expanding the routes of `rib` (default route excluded) to `levels`.
pub fn actual_count<A: Address>(rib: &Rib<A>, levels: &[u32]) -> u128 {
    let mut lo = 0;
    let mut total = 0u128;
    for &q in levels {
        total = total.saturating_add(expanded_count(&group_rib(rib, lo, q), q));
        lo = q;
    }
    total
}

/// Table 4 for `rib`: one row per `n` in `ns`.
pub fn dpcpe_table<A: Address>(rib: &Rib<A>, ns: impl IntoIterator<Item = usize>) -> Vec<DpcpeRow> {
    let counts = length_counts(rib);
    ns.into_iter()
        .map(|n| {
            let levels = choose_levels(&counts, n);
            DpcpeRow {
                n,
                estimated: estimate(&counts, &levels),
                actual: actual_count(rib, &levels),
                levels,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts_of(pairs: &[(usize, u64)]) -> Vec<u64> {
        let mut c = vec![0; 129];
        for &(l, n) in pairs {
            c[l] = n;
        }
        c
    }

    #[test]
    fn always_keeps_the_longest_length() {
        let c = counts_of(&[(32, 1000), (48, 5000), (64, 10), (128, 3)]);
        for n in 1..=4 {
            let levels = choose_levels(&c, n);
            assert_eq!(levels.len(), n);
            assert_eq!(*levels.last().unwrap(), 128);
        }
        assert_eq!(choose_levels(&c, 9), [32, 48, 64, 128]);
    }

    #[test]
    fn dynamic_programming_is_never_worse_than_greedy_or_brute_force() {
        let c = counts_of(&[
            (20, 3),
            (24, 40),
            (29, 900),
            (32, 9000),
            (36, 700),
            (40, 3000),
            (44, 2000),
            (48, 20000),
            (64, 30),
        ]);
        let present: Vec<u32> = (1..129).filter(|&l| c[l as usize] > 0).collect();
        for n in 1..=6 {
            let dp = estimate(&c, &choose_levels(&c, n));
            assert!(dp <= estimate(&c, &choose_levels_greedy(&c, n)));
            // Brute force over all subsets of present lengths that contain the longest.
            let rest = present.len() - 1;
            let best = (0u32..1 << rest)
                .filter(|m| m.count_ones() as usize == n - 1)
                .map(|m| {
                    let mut s: Vec<u32> =
                        (0..rest).filter(|i| m >> i & 1 == 1).map(|i| present[i]).collect();
                    s.push(64);
                    estimate(&c, &s)
                })
                .min()
                .unwrap();
            assert_eq!(dp, best, "n = {n}");
        }
    }

    #[test]
    fn estimate_counts_expansions_and_saturates() {
        let c = counts_of(&[(30, 2), (32, 5)]);
        assert_eq!(estimate(&c, &[32]), 2 * 4 + 5);
        assert_eq!(estimate(&c, &[30, 32]), 7);
        let wide = counts_of(&[(1, 1), (128, 1)]);
        assert_eq!(estimate(&wide, &[128]), (1u128 << 127) + 1);
        assert_eq!(estimate(&counts_of(&[(1, 3), (128, 1)]), &[128]), u128::MAX);
        assert_eq!(estimate(&c, &[30]), u128::MAX, "lengths above every level");
    }
}
