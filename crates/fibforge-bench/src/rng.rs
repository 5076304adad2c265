//! The random number generator of the benchmarks: Marsaglia's xorshift (2003), as in the
//! Poptrie paper (§4.2): a few register operations per address, no memory beyond its state, so
//! generating an address right before each lookup does not pollute the cache.
//!
//! `xorshift64` with the (13, 7, 17) triple; IPv4 addresses take the high 32 bits of one step,
//! IPv6 addresses two steps. The Go peer (`tools/bart-peer`) implements the same steps.

/// xorshift64 state (never zero).
#[derive(Clone, Debug)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// A generator from `seed` (0 is replaced by a fixed non-zero value).
    pub fn new(seed: u64) -> Self {
        XorShift64(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// The next 64 random bits.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
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
