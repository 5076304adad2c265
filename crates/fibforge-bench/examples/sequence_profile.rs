//! Time per structure of the differential update sequences (`fibforge::verify::sequence`),
//! the work of one `diff_updates_*` fuzz input: which structure's compile and updates dominate.
//!
//! `cargo run --release -p fibforge-bench --example sequence_profile -- [--only NAME] FILE...` (fuzz
//! inputs, e.g. `fuzz/seeds/diff_updates_v4/*`); prints microseconds per input for each
//! structure (those whose name contains NAME with `--only`), IPv4 then IPv6, slowest first,
//! and how many inputs ended at the structure's documented limit (`Outcome::at_limit`).

use fibforge::verify::sequence::{SequenceFamily, run_with};
use std::time::Instant;

fn profile<A: SequenceFamily>(family: &str, only: &str, inputs: &[Vec<u8>]) {
    let mut rows: Vec<(f64, &str, usize)> = A::subjects()
        .into_iter()
        .filter(|(name, _)| name.contains(only))
        .map(|(name, build)| {
            let start = Instant::now();
            // A fuzz input's first byte picks the structure (`run_one`); the sequence is the
            // rest, decoded as the fuzzer decodes it.
            let at_limit: usize = inputs
                .iter()
                .map(|input| {
                    run_with::<A>(input.get(1..).unwrap_or_default(), vec![(name, build)]).at_limit
                })
                .sum();
            (start.elapsed().as_secs_f64() * 1e6 / inputs.len() as f64, name, at_limit)
        })
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    let total: f64 = rows.iter().map(|r| r.0).sum();
    println!("{family}: {total:.0} us per input in all");
    for (us, name, at_limit) in rows {
        let share = us * 100.0 / total;
        println!("  {name:<28} {us:>10.0} us  {share:>5.1} %  {at_limit} inputs ended at a limit");
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let only = match args.iter().position(|a| a == "--only") {
        Some(i) if i + 1 < args.len() => args.drain(i..i + 2).nth(1).unwrap_or_default(),
        _ => String::new(),
    };
    let inputs: Vec<Vec<u8>> =
        args.iter().map(|f| std::fs::read(f).unwrap_or_else(|e| panic!("{f}: {e}"))).collect();
    if inputs.is_empty() {
        eprintln!("usage: sequence_profile [--only NAME] FILE...");
        std::process::exit(2);
    }
    profile::<u32>("IPv4", &only, &inputs);
    profile::<u128>("IPv6", &only, &inputs);
}
