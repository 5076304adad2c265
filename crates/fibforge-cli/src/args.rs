//! Value parsers for numeric options, with the bounds each one states in its error: a
//! non-finite, negative or absurd value is a usage error (exit 2) before any work, never a
//! panic or a silent clamp. The `bench` options' parsers exist with the `bench` feature.

/// Seconds from `min` to `max` (finite; `inf`, `nan` and negative values refused).
fn seconds(text: &str, min: f64, max: f64) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (min..=max).contains(&x) => Ok(x),
        _ => Err(format!("'{text}': expected a number of seconds from {min} to {max}")),
    }
}

/// `bench --duration`: seconds per timed repeat.
#[cfg(feature = "bench")]
pub fn repeat_seconds(text: &str) -> Result<f64, String> {
    seconds(text, 0.001, 3600.0)
}

/// `bench --budget`: seconds of measurement in total.
#[cfg(feature = "bench")]
pub fn budget_seconds(text: &str) -> Result<f64, String> {
    seconds(text, 0.001, 86_400.0)
}

/// `replay --idle`, `replay --compare`: seconds of a measurement, 0 to skip it.
pub fn measure_seconds(text: &str) -> Result<f64, String> {
    seconds(text, 0.0, 3600.0)
}

/// The most threads `--threads` and `--readers` accept (far above any machine's cores, far
/// below what would exhaust the process's threads or stacks).
pub const MAX_THREADS: usize = 1024;

/// An integer from `min` to `max`.
fn bounded(text: &str, min: usize, max: usize, what: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("'{text}': expected {what} from {min} to {max}")),
    }
}

/// `bench --threads`.
#[cfg(feature = "bench")]
pub fn threads(text: &str) -> Result<usize, String> {
    bounded(text, 1, MAX_THREADS, "a thread count")
}

/// `replay --readers` (0: no readers).
pub fn readers(text: &str) -> Result<usize, String> {
    bounded(text, 0, MAX_THREADS, "a reader-thread count")
}

/// `bench --repeats`.
#[cfg(feature = "bench")]
pub fn repeats(text: &str) -> Result<usize, String> {
    bounded(text, 1, 1000, "a repeat count")
}

/// `bench --cycle-samples`.
#[cfg(feature = "bench")]
pub fn cycle_samples(text: &str) -> Result<usize, String> {
    bounded(text, 1, 1 << 26, "a sample count")
}

/// `bench --cycle-group`.
#[cfg(feature = "bench")]
pub fn cycle_group(text: &str) -> Result<usize, String> {
    bounded(text, 1, fibforge_bench::timing::cycles::MAX_GROUP, "a group size")
}

// Exercises the `bench` options' parsers too: run with the feature, as ./test.sh does.
#[cfg(all(test, feature = "bench"))]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_values_are_refused_with_their_bounds() {
        for bad in ["inf", "-inf", "1e300", "-1", "nan", "NaN", "", "x", "0"] {
            let e = repeat_seconds(bad).unwrap_err();
            assert!(e.contains("from 0.001 to 3600"), "{bad}: {e}");
        }
        assert_eq!(repeat_seconds("0.3"), Ok(0.3));
        for bad in ["inf", "1e30", "-0.5", "nan"] {
            assert!(measure_seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(measure_seconds("0"), Ok(0.0));
        assert!(threads("100000").unwrap_err().contains("from 1 to 1024"));
        assert!(threads("0").is_err() && threads("-1").is_err());
        assert_eq!(threads("4"), Ok(4));
        assert_eq!(readers("0"), Ok(0));
        assert!(budget_seconds("inf").is_err());
        assert!(repeats("0").is_err() && cycle_samples("0").is_err());
        assert!(cycle_group("0").is_err() && cycle_group("1025").is_err());
        assert_eq!(cycle_group("32"), Ok(32));
    }
}
