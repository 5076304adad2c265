//! Build a RIB from a few routes, compile it into a lookup structure and look addresses up.
//!
//! `cargo run -p fibforge --example basic`

use fibforge::algo::poptrie::Poptrie;
use fibforge::{Compile, Interner, Lookup, Rib};
use std::net::Ipv4Addr;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Next hops are dense ids; the interner maps your own values (names, addresses) to them.
    let mut hops = Interner::new();
    let mut rib: Rib<u32> = Rib::new();
    for (prefix, gateway) in [
        ("0.0.0.0/0", "upstream"),
        ("10.0.0.0/8", "core"),
        ("10.1.0.0/16", "branch"),
        ("192.0.2.0/24", "lab"),
    ] {
        rib.insert(prefix.parse()?, hops.intern(gateway)?);
    }

    // The RIB is the truth; a compiled structure answers the same, only faster.
    let fib = Poptrie::compile(&rib, &Default::default())?;
    for text in ["10.1.2.3", "10.200.0.1", "192.0.2.77", "8.8.8.8"] {
        let addr = u32::from(text.parse::<Ipv4Addr>()?);
        let hop = fib.lookup(addr).and_then(|h| hops.value(h));
        println!("{text:>12} -> {}", hop.unwrap_or(&"no route"));
        assert_eq!(fib.lookup(addr), rib.lookup(addr), "the structure agrees with the RIB");
    }
    Ok(())
}
