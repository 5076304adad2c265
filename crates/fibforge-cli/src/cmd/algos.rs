//! `fibforge algos`: the algorithm names, one per line, with their families and options (with
//! their defaults); then the many-table structures (`verify DIR`, `bench --multi`). Everything
//! printed comes from the registry's descriptors.

use fibforge::registry::{ALGORITHMS, MANY_TABLES};
use std::io::Write;
use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    let mut out = crate::out::stdout();
    for a in ALGORITHMS {
        writeln!(out, "{:<14}{:<11}{}", a.name, a.families(), a.summary)?;
        for o in a.options {
            let default = match o.default {
                d if d.is_empty() || o.help.contains("default") => String::new(),
                d => format!(" (default {d})"),
            };
            writeln!(out, "{:<25}{:<10} {}{default}", "", o.key, o.help)?;
        }
    }
    writeln!(out, "\nmany tables (fibforge verify DIR --algo NAME, fibforge bench --multi):")?;
    for m in MANY_TABLES {
        writeln!(out, "{:<14}{:<11}{}", m.name, "ipv4,ipv6", m.summary)?;
    }
    Ok(ExitCode::SUCCESS)
}
