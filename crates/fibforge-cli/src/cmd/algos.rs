//! `fibforge algos`: the algorithm names, one per line, with their families.

use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    for a in fibforge::registry::ALGORITHMS {
        println!("{:<14}{:<11}{}", a.name, a.families(), a.summary);
        for o in a.options {
            println!("{:<25}{:<10} {}", "", o.key, o.help);
        }
    }
    Ok(ExitCode::SUCCESS)
}
