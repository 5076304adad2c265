//! Address generators, resolved for one family and table, and dispatched to monomorphic
//! timing loops through [`GenUser`] (one compiled loop per generator, no call per address).

use super::{REPEAT, Traffic, generate_trace, read_trace};
use crate::family::BenchAddress;
use crate::rng::XorShift64;
use fibforge::Rib;
use std::sync::Arc;

/// A source of addresses, one per call, cheap enough to sit inside a timing loop.
pub trait AddrGen<A>: Send {
    /// The next address.
    fn next_addr(&mut self) -> A;
    /// The next `out.len()` addresses, in the order `next_addr` would give them (a batch's
    /// addresses; a generator may produce several at once).
    #[inline(always)]
    fn fill(&mut self, out: &mut [A]) {
        for a in out {
            *a = self.next_addr();
        }
    }
}

/// Code that runs with a concrete generator type (a generic "closure").
pub trait GenUser<A> {
    /// What the code returns.
    type Out;
    /// Runs with `addr_gen`.
    fn run<G: AddrGen<A>>(self, addr_gen: G) -> Self::Out;
}

/// A traffic pattern resolved for one family and table: what the generators need.
#[derive(Clone, Debug)]
pub enum TrafficSource<A> {
    /// Uniform random addresses.
    Random,
    /// Consecutive addresses.
    Sequential,
    /// Random addresses, each repeated.
    Repeated,
    /// A trace read in order and cycled.
    Array(Arc<[A]>),
}

impl<A: BenchAddress> TrafficSource<A> {
    /// Resolves `traffic` for the routes of `rib`; traces are read (addresses of the other
    /// family are skipped), generated traces drawn with `seed`.
    pub fn resolve(traffic: &Traffic, rib: &Rib<A>, seed: u64) -> Result<Self, String> {
        Ok(match traffic {
            Traffic::Random => TrafficSource::Random,
            Traffic::Sequential => TrafficSource::Sequential,
            Traffic::Repeated => TrafficSource::Repeated,
            Traffic::InPrefix => {
                if rib.is_empty() {
                    return Err("in-prefix traffic needs a table with routes".into());
                }
                TrafficSource::Array(
                    draw_in_prefix(rib, IN_PREFIX_BYTES / size_of::<A>(), seed).into(),
                )
            }
            Traffic::Trace(path) => {
                let addrs: Vec<A> = read_trace(path)?;
                if addrs.is_empty() {
                    return Err(format!("{}: no {} addresses", path.display(), A::FAMILY));
                }
                TrafficSource::Array(addrs.into())
            }
            Traffic::Generated(spec) => {
                TrafficSource::Array(generate_trace(spec, rib, seed)?.into())
            }
        })
    }

    /// Runs `user` with the generator of this traffic seeded with `seed`.
    pub fn with_gen<U: GenUser<A>>(&self, seed: u64, user: U) -> U::Out {
        let rng = XorShift64::new(seed);
        match self {
            TrafficSource::Random => user.run(RandomGen { rng }),
            TrafficSource::Sequential => user.run(SequentialGen { next: A::sequential_start() }),
            TrafficSource::Repeated => user.run(RepeatedGen { rng, current: A::ZERO, left: 0 }),
            TrafficSource::Array(addrs) => {
                let pos = (seed % addrs.len() as u64) as usize;
                user.run(ArrayGen { addrs: addrs.clone(), pos })
            }
        }
    }

    /// The first `n` addresses of the generator seeded with `seed`.
    pub fn sample(&self, n: usize, seed: u64) -> Vec<A> {
        struct Collect(usize);
        impl<A> GenUser<A> for Collect {
            type Out = Vec<A>;
            fn run<G: AddrGen<A>>(self, mut addr_gen: G) -> Vec<A> {
                (0..self.0).map(|_| addr_gen.next_addr()).collect()
            }
        }
        self.with_gen(seed, Collect(n))
    }
}

/// `random`.
pub struct RandomGen {
    rng: XorShift64,
}

impl<A: BenchAddress> AddrGen<A> for RandomGen {
    #[inline(always)]
    fn next_addr(&mut self) -> A {
        A::random(&mut self.rng)
    }
    #[inline(always)]
    fn fill(&mut self, out: &mut [A]) {
        A::fill_random(&mut self.rng, out)
    }
}

/// `sequential`.
pub struct SequentialGen<A> {
    next: A,
}

impl<A: BenchAddress> AddrGen<A> for SequentialGen<A> {
    #[inline(always)]
    fn next_addr(&mut self) -> A {
        let a = self.next;
        self.next = a.sequential_step();
        a
    }
}

/// `repeated`.
pub struct RepeatedGen<A> {
    rng: XorShift64,
    current: A,
    left: u32,
}

impl<A: BenchAddress> AddrGen<A> for RepeatedGen<A> {
    #[inline(always)]
    fn next_addr(&mut self) -> A {
        if self.left == 0 {
            self.current = A::random(&mut self.rng);
            self.left = REPEAT;
        }
        self.left -= 1;
        self.current
    }
}

/// Bytes of addresses drawn for `in-prefix` traffic (2^20 IPv4, 2^18 IPv6 addresses).
const IN_PREFIX_BYTES: usize = 4 << 20;

/// `n` `in-prefix` addresses (drawn before timing for the timed traffic): each a random
/// address inside a route chosen uniformly at random. Drawing one in the timed loop reads a
/// random entry of the route array (several MiB), a cache miss per address that would be
/// charged to the lookup. An empty table gives no addresses.
pub fn draw_in_prefix<A: BenchAddress>(rib: &Rib<A>, n: usize, seed: u64) -> Vec<A> {
    fibforge::verify::in_prefix(rib, &mut XorShift64::new(seed), n)
}

/// Traces: an array read in order, cycled.
pub struct ArrayGen<A> {
    addrs: Arc<[A]>,
    pos: usize,
}

impl<A: Copy + Send + Sync> AddrGen<A> for ArrayGen<A> {
    #[inline(always)]
    fn next_addr(&mut self) -> A {
        let a = self.addrs[self.pos];
        self.pos += 1;
        if self.pos == self.addrs.len() {
            self.pos = 0;
        }
        a
    }
    /// Copies runs of the array (wrapping around as often as needed), then asks for the
    /// lines of the next fill, as a poll loop prefetches the next burst's headers: a trace
    /// larger than L2 otherwise charges a miss per line to the copy, where no lookup overlaps
    /// it, and the faster the structure the larger that share of its batch rate
    /// (`fibforge-bench/examples/batch_feed.rs`; docs/lab/bench.md).
    #[inline(always)]
    fn fill(&mut self, out: &mut [A]) {
        let mut done = 0;
        while done < out.len() {
            let n = (out.len() - done).min(self.addrs.len() - self.pos);
            out[done..done + n].copy_from_slice(&self.addrs[self.pos..self.pos + n]);
            done += n;
            self.pos += n;
            if self.pos == self.addrs.len() {
                self.pos = 0;
            }
        }
        let next = self.pos..(self.pos + out.len()).min(self.addrs.len());
        prefetch_lines(&self.addrs[next]);
    }
}

/// Hints that every cache line of `items` will be read soon.
#[inline(always)]
fn prefetch_lines<T>(items: &[T]) {
    const LINE: usize = 64;
    let (start, bytes) = (items.as_ptr().cast::<u8>(), size_of_val(items));
    for offset in (0..bytes).step_by(LINE) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            // SAFETY: SSE is part of the x86_64 baseline, and a prefetch of any address is
            // only a hint: it cannot fault or change memory (this one lies inside `items`).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset).cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (start, offset);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibforge::{NextHop, Prefix};

    fn rib4(routes: &[&str]) -> Rib<u32> {
        routes.iter().map(|r| (r.parse::<Prefix<u32>>().unwrap(), NextHop::from_index(0))).collect()
    }

    #[test]
    fn generators_are_deterministic_per_seed() {
        let rib = rib4(&["10.0.0.0/8", "192.168.0.0/16"]);
        for t in [Traffic::Random, Traffic::Sequential, Traffic::Repeated, Traffic::InPrefix] {
            let src = TrafficSource::resolve(&t, &rib, 1).unwrap();
            assert_eq!(src.sample(1000, 5), src.sample(1000, 5), "{t}");
        }
        let src = TrafficSource::<u32>::Random;
        assert_ne!(src.sample(100, 5), src.sample(100, 6));
    }

    #[test]
    fn fill_gives_the_next_addr_order() {
        fn check<A: BenchAddress + std::fmt::Debug>() {
            /// 64 addresses, none, then 7 (a remainder shorter than the streams' chunk).
            struct Fill;
            impl<A: Copy + Default> GenUser<A> for Fill {
                type Out = Vec<A>;
                fn run<G: AddrGen<A>>(self, mut g: G) -> Vec<A> {
                    let mut filled = vec![A::default(); 64];
                    g.fill(&mut filled);
                    g.fill(&mut []);
                    let mut tail = vec![A::default(); 7];
                    g.fill(&mut tail);
                    filled.extend(tail);
                    filled
                }
            }
            let arrays = TrafficSource::Array((1..=10).map(A::from_u128).collect());
            for src in [TrafficSource::<A>::Random, arrays] {
                assert_eq!(src.with_gen(9, Fill), src.sample(71, 9));
            }
        }
        check::<u32>();
        check::<u128>();
    }

    #[test]
    fn sequential_counts_up() {
        let v4 = TrafficSource::<u32>::Sequential.sample(3, 9);
        assert_eq!(v4, vec![0, 1, 2]);
        let v6 = TrafficSource::<u128>::Sequential.sample(2, 9);
        assert_eq!(v6[1] - v6[0], 1 << 64);
        assert_eq!(v6[0] >> 125, 1);
    }

    #[test]
    fn repeated_repeats_each_address() {
        let s = TrafficSource::<u32>::Repeated.sample(REPEAT as usize * 4, 3);
        for chunk in s.chunks(REPEAT as usize) {
            assert!(chunk.iter().all(|&a| a == chunk[0]));
        }
        assert_ne!(s[0], s[REPEAT as usize]);
    }

    #[test]
    fn ipv6_random_stays_in_2000_slash_3() {
        let s = TrafficSource::<u128>::Random.sample(10_000, 1);
        assert!(s.iter().all(|a| a >> 125 == 1));
        // and still varies in the low bits
        assert!(s.iter().any(|a| a & 1 == 1) && s.iter().any(|a| a & 1 == 0));
    }

    #[test]
    fn in_prefix_addresses_fall_in_routes() {
        let rib = rib4(&["10.0.0.0/8", "192.168.0.0/16", "1.2.3.4/32"]);
        let src = TrafficSource::resolve(&Traffic::InPrefix, &rib, 1).unwrap();
        let s = src.sample(3000, 2);
        assert!(s.iter().all(|&a| rib.lookup(a).is_some()));
        assert!(s.contains(&0x0102_0304));
        assert!(TrafficSource::resolve(&Traffic::InPrefix, &Rib::<u32>::new(), 1).is_err());
        assert!(draw_in_prefix(&Rib::<u32>::new(), 10, 1).is_empty());
        assert_eq!(draw_in_prefix(&rib, 10, 1).len(), 10);
    }

    #[test]
    fn arrays_cycle() {
        let src = TrafficSource::Array(vec![1u32, 2, 3].into());
        assert_eq!(src.sample(5, 0), vec![1, 2, 3, 1, 2]);
        assert_eq!(src.sample(2, 1), vec![2, 3]);
    }
}
