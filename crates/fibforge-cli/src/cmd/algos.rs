//! `fibforge algos`: the algorithm names, one per line, with their families.

use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    for a in fibforge::registry::ALGORITHMS {
        let fams = match (a.ipv4, a.ipv6) {
            (true, true) => "ipv4,ipv6",
            (true, false) => "ipv4",
            (false, true) => "ipv6",
            (false, false) => "-",
        };
        println!("{:<14}{:<11}{}", a.name, fams, a.summary);
    }
    Ok(ExitCode::SUCCESS)
}
