//! The algorithm-spec grammar (`name:key=value,...`) and the registry build on a tiny RIB of
//! each family: a spec parses or is refused, prints back to itself, and what builds answers
//! like the RIB; never a panic or an allocation the options alone make unbounded.
#![no_main]
use fibforge::registry::{self, AlgoSpec, RegistryFamily};
use fibforge::verify::{Probes, check, route_edges};
use fibforge::{Address, NextHop, Prefix, Rib};
use libfuzzer_sys::fuzz_target;

/// A default route, a route 8 bits short of a host route and a host route: every structure's
/// levels are reached, while expansions (`levels=1`) stay at 256 entries (a /8 would be
/// expanded to 2^24 entries, within the structures' documented bounds but seconds per input).
fn tiny<A: Address>() -> Rib<A> {
    let top = A::from_u128(u128::MAX);
    [(A::ZERO, 0, 0), (A::from_u128(0x0a << 120 >> (128 - A::BITS)), A::BITS - 8, 1), (top, A::BITS, 2)]
        .into_iter()
        .map(|(a, l, h)| (Prefix::new_masked(a, l).unwrap(), NextHop::from_index(h)))
        .collect()
}

fn build<A: RegistryFamily>(spec: &AlgoSpec) {
    let rib = tiny::<A>();
    if let Ok(fib) = registry::build::<A>(spec, &rib) {
        let probes = Probes::new(&rib, route_edges(&rib, 1));
        check(fib.as_ref(), &probes, true, true).assert_ok(&spec.to_string());
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(spec) = text.parse::<AlgoSpec>() else { return };
    assert_eq!(spec.to_string().parse::<AlgoSpec>().as_ref(), Ok(&spec), "{text:?}");
    build::<u32>(&spec);
    build::<u128>(&spec);
});
