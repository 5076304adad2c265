//! Verification before timing: every structure, ours or a peer's, must give the RIB's answer
//! on a sample of addresses before any of its figures is reported.
//!
//! The sample holds the first and last address of sampled routes and their outside
//! neighbours (where answers change), uniform random and in-route addresses, and the first
//! addresses of every traffic pattern that will be timed. Out-of-process peers hand back
//! their answers for the same addresses, compared with [`compare`].

use crate::family::BenchAddress;
use crate::rng::XorShift64;
use crate::traffic::TrafficSource;
use fibforge::{Address, Lookup, NextHop, Rib};
use rayon::prelude::*;

/// Addresses and the RIB's answers for them.
pub struct Probes<A> {
    /// The addresses.
    pub addrs: Vec<A>,
    /// The oracle's answer for each address.
    pub expected: Vec<Option<NextHop>>,
}

/// Outcome of a check.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Check {
    /// Lookups compared (single and batch count separately).
    pub checked: u64,
    /// Lookups that differed from the oracle.
    pub mismatches: u64,
    /// The first few differences, readable.
    pub examples: Vec<String>,
}

const EXAMPLES: usize = 5;

impl<A: BenchAddress> Probes<A> {
    /// Route boundaries of up to `routes` routes (spread over the table), `random` uniform and
    /// as many in-route addresses, and the first `per_traffic` addresses of each source.
    pub fn build(
        rib: &Rib<A>,
        sources: &[&TrafficSource<A>],
        routes: usize,
        random: usize,
        per_traffic: usize,
        seed: u64,
    ) -> Self {
        let mut addrs = Vec::new();
        let step = (rib.len() / routes.max(1)).max(1);
        for (p, _) in rib.iter().step_by(step) {
            let (first, last) = (p.addr().to_u128(), p.last().to_u128());
            addrs.push(p.addr());
            addrs.push(p.last());
            addrs.push(A::from_u128(first.wrapping_sub(1)));
            addrs.push(A::from_u128(last.wrapping_add(1)));
        }
        let mut rng = XorShift64::new(seed ^ 0xC0FF_EE00);
        addrs.extend((0..random).map(|_| A::from_u128(rng.next_u128())));
        addrs.extend(TrafficSource::<A>::Random.sample(random, seed ^ 1));
        if !rib.is_empty() {
            addrs.extend(crate::traffic::draw_in_prefix(rib, random, seed ^ 2));
        }
        for src in sources {
            addrs.extend(src.sample(per_traffic, seed));
        }
        let expected = addrs.par_iter().map(|&a| rib.lookup(a)).collect();
        Probes { addrs, expected }
    }

    /// Probes from explicit addresses.
    pub fn from_addrs(rib: &Rib<A>, addrs: Vec<A>) -> Self {
        let expected = addrs.par_iter().map(|&a| rib.lookup(a)).collect();
        Probes { addrs, expected }
    }
}

/// Checks `fib` against the oracle through `lookup` (if `single`) and `lookup_batch` (if
/// `batch`).
pub fn check<A: Address>(
    fib: &dyn Lookup<A>,
    probes: &Probes<A>,
    single: bool,
    batch: bool,
) -> Check {
    let mut c = Check::default();
    if single {
        let got: Vec<Option<NextHop>> = probes.addrs.par_iter().map(|&a| fib.lookup(a)).collect();
        merge(&mut c, compare(&got, probes, "lookup"));
    }
    if batch {
        let mut got = vec![None; probes.addrs.len()];
        got.par_chunks_mut(4096)
            .zip(probes.addrs.par_chunks(4096))
            .for_each(|(out, addrs)| fib.lookup_batch(addrs, out));
        merge(&mut c, compare(&got, probes, "lookup_batch"));
    }
    c
}

fn merge(into: &mut Check, c: Check) {
    into.checked += c.checked;
    into.mismatches += c.mismatches;
    let room = EXAMPLES.saturating_sub(into.examples.len());
    into.examples.extend(c.examples.into_iter().take(room));
}

/// Compares answers given for `probes.addrs` (in order) with the oracle's. Missing answers
/// (a shorter `got`) count as mismatches.
pub fn compare<A: Address>(got: &[Option<NextHop>], probes: &Probes<A>, how: &str) -> Check {
    let mut c = Check { checked: probes.addrs.len() as u64, ..Default::default() };
    for (i, (&a, &want)) in probes.addrs.iter().zip(&probes.expected).enumerate() {
        let answer = got.get(i).copied();
        if answer != Some(want) {
            c.mismatches += 1;
            if c.examples.len() < EXAMPLES {
                let shown = answer
                    .map_or("no answer".to_string(), |h| format!("{:?}", h.map(|h| h.index())));
                c.examples.push(format!(
                    "{} ({how}): expected {:?}, got {shown}",
                    a.to_std(),
                    want.map(|h| h.index())
                ));
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibforge::{Compile, algo::radix::Radix};

    fn rib() -> Rib<u32> {
        ["0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "192.0.2.0/24"]
            .iter()
            .enumerate()
            .map(|(i, r)| (r.parse().unwrap(), NextHop::from_index(i as u32)))
            .collect()
    }

    /// A structure that is wrong for one /16.
    struct Broken(Radix<u32>);
    impl Lookup<u32> for Broken {
        fn lookup(&self, a: u32) -> Option<NextHop> {
            if a >> 16 == 0x0A01 { None } else { self.0.lookup(a) }
        }
        fn memory_bytes(&self) -> usize {
            0
        }
    }

    #[test]
    fn correct_structures_pass_and_wrong_ones_are_caught() {
        let rib = rib();
        let probes = Probes::build(&rib, &[&TrafficSource::Random], 100, 1000, 100, 1);
        assert!(probes.addrs.len() > 3000);
        let good = Radix::compile(&rib, &()).unwrap();
        let c = check(&good, &probes, true, true);
        assert_eq!(c.mismatches, 0);
        assert_eq!(c.checked, 2 * probes.addrs.len() as u64);
        let bad = Broken(good.clone());
        let c = check(&bad, &probes, true, true);
        assert!(c.mismatches > 0, "boundaries of 10.1.0.0/16 are probed");
        assert!(c.examples[0].contains("10.1."), "{:?}", c.examples);
    }

    #[test]
    fn compare_counts_missing_and_wrong_answers() {
        let rib = rib();
        let probes = Probes::from_addrs(&rib, vec![0x0A01_0101, 0x0A02_0000, 0xC000_0201]);
        let right: Vec<_> = probes.expected.clone();
        assert_eq!(compare(&right, &probes, "x").mismatches, 0);
        let mut wrong = right.clone();
        wrong[1] = None;
        assert_eq!(compare(&wrong, &probes, "x").mismatches, 1);
        assert_eq!(compare(&right[..1], &probes, "x").mismatches, 2);
    }
}
