//! Summaries of measurements: percentiles (nearest rank), CDFs, medians of repeats.

use serde::Serialize;

/// Distribution of per-lookup costs (Poptrie Table 4: mean, 50th, 75th, 95th, 99th).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Percentiles {
    /// Number of samples.
    pub count: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// 5th percentile.
    pub p5: f64,
    /// 25th percentile.
    pub p25: f64,
    /// Median.
    pub p50: f64,
    /// 75th percentile.
    pub p75: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest sample.
    pub max: f64,
}

/// The `p`-th percentile of sorted samples by nearest rank: the smallest value such that at
/// least `p` percent of the samples are no larger (the paper's definition).
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Percentiles {
    /// Summarises `samples` (order does not matter); `None` when empty.
    pub fn of(samples: &[f64]) -> Option<Percentiles> {
        if samples.is_empty() {
            return None;
        }
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let at = |p| percentile_sorted(&s, p);
        Some(Percentiles {
            count: s.len(),
            mean: s.iter().sum::<f64>() / s.len() as f64,
            p5: at(5.0),
            p25: at(25.0),
            p50: at(50.0),
            p75: at(75.0),
            p95: at(95.0),
            p99: at(99.0),
            max: s[s.len() - 1],
        })
    }
}

/// The empirical CDF as `(value, share of samples <= value)` at most `points` points, always
/// including the smallest and largest value.
pub fn cdf(samples: &[f64], points: usize) -> Vec<(f64, f64)> {
    if samples.is_empty() || points == 0 {
        return Vec::new();
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    // the last index of each distinct value
    let mut steps: Vec<(f64, f64)> = Vec::new();
    for i in 0..n {
        if i + 1 == n || s[i + 1] != s[i] {
            steps.push((s[i], (i + 1) as f64 / n as f64));
        }
    }
    if steps.len() <= points {
        return steps;
    }
    let stride = (steps.len() - 1) as f64 / (points - 1).max(1) as f64;
    let mut out: Vec<(f64, f64)> = (0..points)
        .map(|k| steps[((k as f64 * stride).round() as usize).min(steps.len() - 1)])
        .collect();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// Median, minimum and maximum of repeated measurements.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    /// Median (mean of the two middle values for an even count).
    pub median: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
}

impl Spread {
    /// Of `values`; `None` when empty.
    pub fn of(values: &[f64]) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        Some(Spread { median, min: v[0], max: v[n - 1] })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let p = Percentiles::of(&v).unwrap();
        assert_eq!((p.p50, p.p75, p.p95, p.p99, p.max), (50.0, 75.0, 95.0, 99.0, 100.0));
        assert_eq!(p.mean, 50.5);
        assert_eq!(p.p5, 5.0);
        // small and unsorted samples
        let p = Percentiles::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((p.p5, p.p50, p.p99), (1.0, 2.0, 3.0));
        assert_eq!(percentile_sorted(&[7.0], 0.0), 7.0);
        assert!(Percentiles::of(&[]).is_none());
    }

    #[test]
    fn cdf_is_monotone_and_ends_at_one() {
        let v: Vec<f64> = (0..10_000).map(|i| ((i * 7919) % 1000) as f64).collect();
        let c = cdf(&v, 50);
        assert!(c.len() <= 50 && c.len() > 10);
        assert!(c.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
        assert_eq!(c.last().unwrap(), &(999.0, 1.0));
        assert_eq!(c[0], (0.0, 0.001));
        assert_eq!(cdf(&[1.0, 1.0, 2.0], 10), vec![(1.0, 2.0 / 3.0), (2.0, 1.0)]);
    }

    #[test]
    fn spread_of_repeats() {
        let s = Spread::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        assert_eq!(Spread::of(&[1.0, 2.0]).unwrap().median, 1.5);
        assert!(Spread::of(&[]).is_none());
    }
}
