//! Verification before timing: every structure, ours or a peer's, must give the RIB's answer
//! on a sample of addresses before any of its figures is reported. The checking itself is the
//! library's [`fibforge::verify`]; this module adds the traffic to the sample.
//!
//! The sample holds the first and last address of sampled routes and their outside
//! neighbours (where answers change), uniform random and in-route addresses, and the first
//! addresses of every traffic pattern that will be timed. Out-of-process peers hand back
//! their answers for the same addresses, compared with [`compare`].

use crate::family::BenchAddress;
use crate::traffic::TrafficSource;
use fibforge::Rib;
use fibforge::verify::{XorShift64, in_prefix, route_edges, uniform};

pub use fibforge::verify::{Probes, Report, check, compare};

/// Route boundaries of up to `routes` routes (spread over the table), `random` uniform
/// addresses, `random` addresses of the bench's own random traffic and as many in-route ones,
/// and the first `per_traffic` addresses of each source, with the RIB's answers.
pub fn probes<A: BenchAddress>(
    rib: &Rib<A>,
    sources: &[&TrafficSource<A>],
    routes: usize,
    random: usize,
    per_traffic: usize,
    seed: u64,
) -> Probes<A> {
    let mut addrs = route_edges(rib, rib.len() / routes.max(1));
    addrs.extend(uniform::<A>(&mut XorShift64::new(seed ^ 0xC0FF_EE00), random));
    addrs.extend(TrafficSource::<A>::Random.sample(random, seed ^ 1));
    addrs.extend(in_prefix(rib, &mut XorShift64::new(seed ^ 2), random));
    for src in sources {
        addrs.extend(src.sample(per_traffic, seed));
    }
    Probes::new(rib, addrs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fibforge::{Compile, NextHop, algo::radix::Radix};

    #[test]
    fn the_sample_holds_route_edges_random_and_traffic_addresses() {
        let rib: Rib<u32> = ["0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "192.0.2.0/24"]
            .iter()
            .enumerate()
            .map(|(i, r)| (r.parse().unwrap(), NextHop::from_index(i as u32)))
            .collect();
        let p = probes(&rib, &[&TrafficSource::Random], 100, 1000, 100, 1);
        assert_eq!(p.addrs.len(), 4 * 4 + 3 * 1000 + 100);
        assert!(p.addrs.contains(&0x0A01_0000) && p.addrs.contains(&0x0A00_FFFF));
        let good = Radix::compile(&rib, &()).unwrap();
        assert_eq!(check(&good, &p, true, true).mismatches, 0);
    }
}
