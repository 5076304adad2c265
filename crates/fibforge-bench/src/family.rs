//! What the benchmarks need of an address family beyond [`RegistryFamily`]: random and
//! sequential addresses and the peers that handle it.

use crate::rng::XorShift64;
use fibforge::registry::RegistryFamily;

/// IPv4 (`u32`) or IPv6 (`u128`) as seen by the benchmarks.
pub trait BenchAddress: RegistryFamily {
    /// A uniform random address of the benchmark space: all of IPv4, or 2000::/3 for IPv6
    /// (the global unicast space, as Poptrie §4.10 draws from the routed space).
    fn random(rng: &mut XorShift64) -> Self;
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
    fn sequential_start() -> u128 {
        GLOBAL_UNICAST
    }
    #[inline(always)]
    fn sequential_step(self) -> u128 {
        self.wrapping_add(1 << 64)
    }
}
