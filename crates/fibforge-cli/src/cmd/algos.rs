//! `fibforge algos`: the algorithm names, one per line, with their families and options (with
//! their defaults); then the many-table structures (`verify DIR`, `bench --multi`). Everything
//! printed comes from the registry's descriptors.

use fibforge::registry::{ALGORITHMS, MANY_TABLES, Opt};
use std::io::{self, Write};
use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    let mut out = crate::out::stdout();
    for a in ALGORITHMS {
        writeln!(out, "{:<14}{:<11}{}", a.name, a.families(), a.summary)?;
        write_options(&mut out, a.options)?;
    }
    writeln!(out, "\nmany tables (fibforge verify DIR --algo NAME, fibforge bench --multi):")?;
    for m in MANY_TABLES {
        writeln!(out, "{:<14}{:<11}{}", m.name, "ipv4,ipv6", m.summary)?;
        match m.options {
            Some(options) => write_options(&mut out, options)?,
            None => writeln!(out, "{:<25}the options of its one-table row above", "")?,
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per option: key, help and, where it has one, its default.
fn write_options(out: &mut impl Write, options: &[Opt]) -> io::Result<()> {
    for o in options {
        let default = match o.default {
            "" => String::new(),
            d => format!(" (default {d})"),
        };
        writeln!(out, "{:<25}{:<10} {}{default}", "", o.key, o.help)?;
    }
    Ok(())
}
