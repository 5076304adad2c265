//! A concurrent table: one writer applies route changes while reader threads look up
//! lock-free, each answer coming from a complete version of the table.
//!
//! `cargo run -p fibforge --example concurrent`

use fibforge::{Interner, Rib, Table};
use std::net::Ipv6Addr;
use std::sync::atomic::{AtomicBool, Ordering};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut hops = Interner::new();
    let old = hops.intern("old")?;
    let new = hops.intern("new")?;
    let mut rib: Rib<u128> = Rib::new();
    rib.insert("2001:db8::/32".parse()?, old);
    let mut table = Table::new(rib)?; // Poptrie, the default structure

    let addr = u128::from("2001:db8:1::1".parse::<Ipv6Addr>()?);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| -> Result<(), Box<dyn std::error::Error>> {
        for _ in 0..2 {
            let mut reader = table.reader(); // one per thread
            let done = &done;
            scope.spawn(move || {
                reader.online();
                let mut seen = [0u64; 2];
                while !done.load(Ordering::Relaxed) {
                    let hop = reader.lookup(addr);
                    // Every answer is the old route or the new one, never anything else.
                    assert!(hop == Some(old) || hop == Some(new));
                    seen[usize::from(hop == Some(new))] += 1;
                    reader.quiescent(); // between bursts: retired versions may be freed
                }
                reader.offline();
                println!("reader: {} old answers, {} new", seen[0], seen[1]);
            });
        }
        // The writer: a more specific route, then withdraw it and insert it again.
        for _ in 0..100 {
            table.insert("2001:db8:1::/48".parse()?, new)?;
            table.remove(&"2001:db8:1::/48".parse()?)?;
        }
        table.insert("2001:db8:1::/48".parse()?, new)?;
        std::thread::sleep(std::time::Duration::from_millis(20)); // let the readers see it
        done.store(true, Ordering::Relaxed);
        Ok(())
    })?;
    assert_eq!(table.reader().lookup(addr), Some(new));
    println!("after the updates: {:?}", table.reader().lookup(addr).and_then(|h| hops.value(h)));
    Ok(())
}
