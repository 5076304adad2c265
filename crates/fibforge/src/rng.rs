//! The one pseudo-random generator of the workspace's checks, tests and benchmarks: Marsaglia's
//! xorshift (2003), as in the Poptrie paper (§4.2). A few register operations per number and no
//! memory beyond its state, so a benchmark can draw an address right before each lookup without
//! polluting the cache.
//!
//! `xorshift64` with the (13, 7, 17) triple ([`xorshift64_step`]), run as [`STREAMS`]
//! independent streams used in turn: one stream is a chain of six dependent operations per
//! step, which would set the pace of a timed loop; interleaved streams cut the chain while the
//! numbers stay xorshift numbers (measurements: `docs/lab/bench.md`). The Go peer of the
//! bench (`tools/bart-peer`) implements the same steps.

/// Independent xorshift64 streams used in turn.
pub const STREAMS: usize = 4;

/// [`STREAMS`] xorshift64 states (never zero), the next to step first.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct XorShift64([u64; STREAMS]);

/// One xorshift64 step with Marsaglia's (13, 7, 17) triple; a non-zero state stays non-zero.
#[inline(always)]
#[doc(hidden)]
pub fn xorshift64_step(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

impl XorShift64 {
    /// A generator from `seed` (0 is replaced by a fixed non-zero value); the streams start
    /// at `seed`'s first steps, so they never coincide.
    pub fn new(seed: u64) -> Self {
        let mut x = if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed };
        XorShift64(std::array::from_fn(|_| {
            x = xorshift64_step(x);
            x
        }))
    }

    /// The next 64 random bits: the oldest stream steps and becomes the newest.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let [a, b, c, d] = self.0;
        let x = xorshift64_step(a);
        self.0 = [b, c, d, x];
        x
    }

    /// The next [`STREAMS`] outputs of [`XorShift64::next_u64`] at once (every stream steps).
    #[inline(always)]
    pub fn next_all(&mut self) -> [u64; STREAMS] {
        self.0 = self.0.map(xorshift64_step);
        self.0
    }

    /// 128 random bits from two steps.
    #[inline(always)]
    pub fn next_u128(&mut self) -> u128 {
        ((self.next_u64() as u128) << 64) | self.next_u64() as u128
    }

    /// A value in `0..n` (multiply-shift, no division; 0 when `n` is 0).
    #[inline(always)]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A float in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `true` with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_nonzero() {
        let mut a = XorShift64::new(7);
        let mut b = XorShift64::new(7);
        for _ in 0..1000 {
            let x = a.next_u64();
            assert_eq!(x, b.next_u64());
            assert_ne!(x, 0);
        }
        assert_ne!(XorShift64::new(0).next_u64(), 0);
    }

    #[test]
    fn streams_are_xorshift64_steps_taken_in_turn() {
        let mut r = XorShift64::new(5);
        let first: Vec<u64> = (0..STREAMS).map(|_| r.next_u64()).collect();
        // Stream i starts at seed's step i + 1 and its first output is one step further.
        let mut x = 5;
        let starts: Vec<u64> = (0..STREAMS)
            .map(|_| {
                x = xorshift64_step(x);
                x
            })
            .collect();
        assert_eq!(first, starts.iter().map(|&s| xorshift64_step(s)).collect::<Vec<_>>());
        assert_eq!(r.next_u64(), xorshift64_step(first[0]));
        // Marsaglia's (13, 7, 17) step, worked by hand from 1.
        assert_eq!(xorshift64_step(1), 0x4082_2041);
    }

    #[test]
    fn next_all_is_next_u64_in_order() {
        let (mut a, mut b) = (XorShift64::new(11), XorShift64::new(11));
        for _ in 0..10 {
            let one_by_one: Vec<u64> = (0..STREAMS).map(|_| a.next_u64()).collect();
            assert_eq!(b.next_all().to_vec(), one_by_one);
        }
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = XorShift64::new(3);
        let mut seen = [false; 10];
        for _ in 0..10_000 {
            let v = r.below(10) as usize;
            seen[v] = true;
        }
        assert!(seen.iter().all(|&s| s));
        let u = r.unit();
        assert!((0.0..1.0).contains(&u));
    }
}
