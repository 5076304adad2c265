//! What the benchmarks need of an address family beyond [`RegistryFamily`]: random and
//! sequential addresses and the peers that handle it.

use crate::rng::{STREAMS, XorShift64};
use fibforge::registry::RegistryFamily;

/// IPv4 (`u32`) or IPv6 (`u128`) as seen by the benchmarks.
pub trait BenchAddress: RegistryFamily {
    /// A uniform random address of the benchmark space: all of IPv4, or 2000::/3 for IPv6
    /// (the global unicast space, as Poptrie §4.10 draws from the routed space).
    fn random(rng: &mut XorShift64) -> Self;
    /// `out.len()` addresses of [`BenchAddress::random`], in its order.
    #[inline(always)]
    fn fill_random(rng: &mut XorShift64, out: &mut [Self]) {
        for a in out {
            *a = Self::random(rng);
        }
    }
    /// Where `sequential` traffic starts: 0.0.0.0, or 2000:: for IPv6.
    fn sequential_start() -> Self;
    /// The next address of `sequential` traffic: +1 for IPv4, the next /64 for IPv6.
    fn sequential_step(self) -> Self;
}

impl BenchAddress for u32 {
    #[inline(always)]
    fn random(rng: &mut XorShift64) -> u32 {
        (rng.next_u64() >> 32) as u32
    }
    /// Every stream steps at once (independent lanes the compiler can vectorise).
    #[inline(always)]
    fn fill_random(rng: &mut XorShift64, out: &mut [u32]) {
        let mut chunks = out.chunks_exact_mut(STREAMS);
        for c in &mut chunks {
            for (a, x) in c.iter_mut().zip(rng.next_all()) {
                *a = (x >> 32) as u32;
            }
        }
        for a in chunks.into_remainder() {
            *a = Self::random(rng);
        }
    }
    fn sequential_start() -> u32 {
        0
    }
    #[inline(always)]
    fn sequential_step(self) -> u32 {
        self.wrapping_add(1)
    }
}

/// 2000::/3: the first three bits are 001.
const GLOBAL_UNICAST: u128 = 1 << 125;

impl BenchAddress for u128 {
    #[inline(always)]
    fn random(rng: &mut XorShift64) -> u128 {
        (rng.next_u128() >> 3) | GLOBAL_UNICAST
    }
    /// Every stream steps at once, two steps (high and low half, in the order of
    /// [`XorShift64::next_u128`]) per address, and the halves are shifted as 64-bit lanes:
    /// the compiler vectorises it. The element-wise version (128-bit shifts) made this fill
    /// about 60 % of the time of a uniform random IPv6 batch of Poptrie.
    #[inline(always)]
    fn fill_random(rng: &mut XorShift64, out: &mut [u128]) {
        const PER_STEP: usize = STREAMS / 2;
        const TOP: u64 = (GLOBAL_UNICAST >> 64) as u64;
        let mut chunks = out.chunks_exact_mut(PER_STEP);
        for c in &mut chunks {
            let x = rng.next_all();
            for (j, a) in c.iter_mut().enumerate() {
                let (hi, lo) = (x[2 * j], x[2 * j + 1]);
                let (hi, lo) = ((hi >> 3) | TOP, (lo >> 3) | (hi << 61));
                *a = ((hi as u128) << 64) | lo as u128;
            }
        }
        for a in chunks.into_remainder() {
            *a = Self::random(rng);
        }
    }
    fn sequential_start() -> u128 {
        GLOBAL_UNICAST
    }
    #[inline(always)]
    fn sequential_step(self) -> u128 {
        self.wrapping_add(1 << 64)
    }
}
