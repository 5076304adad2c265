//! `fibforge algos`: the algorithm names, one per line, with their families and options;
//! then the many-table structures (`verify DIR`, `bench --multi`).

use std::process::ExitCode;

/// The many-table structures besides LOOP's comparators (`fibforge::multi::baselines`).
const MANY_TABLES: &[(&str, &str)] = &[
    ("loop", "LOOP (Mi, Yang et al.): one layered overlay structure for all tables"),
    ("sail_m", "SAIL_M (Yang 2014): SAIL_L over the merged trie of all tables"),
    ("per_table", "one structure per table; algo=NAME (default poptrie)"),
];

pub fn run() -> anyhow::Result<ExitCode> {
    for a in fibforge::registry::ALGORITHMS {
        println!("{:<14}{:<11}{}", a.name, a.families(), a.summary);
        for o in a.options {
            println!("{:<25}{:<10} {}", "", o.key, o.help);
        }
    }
    println!("\nmany tables (fibforge verify DIR --algo NAME, fibforge bench --multi):");
    for (name, summary) in MANY_TABLES.iter().chain(fibforge::multi::baselines::NAMES) {
        println!("{name:<14}{:<11}{summary}", "ipv4,ipv6");
    }
    Ok(ExitCode::SUCCESS)
}
