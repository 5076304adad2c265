//! `fibforge verify TABLE [--algo NAME|all] [--exhaustive] [--json]`: every algorithm against
//! the RIB oracle, through the library's [`fibforge::verify`].
//!
//! Checked addresses: the first and last address of every route and their outside neighbours,
//! random addresses, and random addresses inside random routes (uniform IPv6 addresses mostly
//! miss). With `--exhaustive`, IPv4 checks all 2^32 addresses against the RIB's range
//! partition (an independent form of the oracle) on all cores, through both `lookup` and
//! `lookup_batch`.
//!
//! A structure that cannot take the table (a structural limit, or routes it cannot represent,
//! such as SAIL_L and IPv6 routes longer than /64) is reported "not applicable" with its reason
//! and the others are checked. Exit status: 0 when every applicable structure agrees with the
//! RIB, 1 on any mismatch, 2 on an error — including a table with no routes, or one that no
//! requested structure can take: then nothing was verified, which is not a success.

use crate::load::{TableArgs, load_table};
use fibforge::registry::{ALGORITHMS, AlgoSpec, RegistryFamily, build};
use fibforge::verify::{self, Probes, Report};
use fibforge::{BuildError, Family, Rib};
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub(crate) table: TableArgs,
    /// Algorithms to check: `all`, or a comma-separated list (`name:key=value` for options).
    #[arg(long, default_value = "all")]
    pub(crate) algo: String,
    /// IPv4: check all 2^32 addresses. IPv6: ten times more random samples.
    #[arg(long)]
    pub(crate) exhaustive: bool,
    /// Random addresses to check besides the route boundaries.
    #[arg(long, default_value_t = 1_000_000)]
    pub(crate) samples: usize,
    /// Seed of the random addresses.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Print the JSON report instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

impl Args {
    /// Uniform (and as many in-route) probes for `A`: ten times more for an exhaustive run
    /// of a family too wide to walk.
    pub(crate) fn samples<A: fibforge::Address>(&self) -> usize {
        if self.exhaustive && A::BITS > 32 { self.samples * 10 } else { self.samples }
    }
}

/// One structure's verdict on one family of the table.
struct Outcome {
    algo: String,
    family: Family,
    /// The comparison, or why the structure cannot take this table.
    verdict: Result<Report, String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let table = load_table(&args.table)?;
    let path = args.table.path.display();
    anyhow::ensure!(
        !(table.v4.is_empty() && table.v6.is_empty()),
        "{path}: the table holds no routes: nothing to verify"
    );
    let specs = parse_specs(&args.algo)?;
    let mut out = crate::out::stdout();
    let mut outcomes = Vec::new();
    outcomes.extend(verify_family(&table.v4, &specs, &args, &mut out)?);
    outcomes.extend(verify_family(&table.v6, &specs, &args, &mut out)?);
    if let Some(s) = specs.iter().find(|s| !outcomes.iter().any(|o| o.algo == s.to_string()))
        && args.algo != "all"
    {
        anyhow::bail!("'{s}' is not available for the address families of this table");
    }
    if args.json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json_report(&path.to_string(), &outcomes))?
        )?;
    }
    for o in &outcomes {
        if let Ok(r) = &o.verdict
            && !r.is_ok()
        {
            crate::out::diag!(
                "{} {}: {} mismatches of {} checked; first ones:",
                o.algo,
                o.family,
                r.mismatches,
                r.checked
            );
            for e in &r.examples {
                crate::out::diag!("  {e}");
            }
        }
    }
    anyhow::ensure!(
        outcomes.iter().any(|o| o.verdict.is_ok()),
        "{path}: no requested structure can take this table: nothing to verify"
    );
    let failed = outcomes.iter().any(|o| o.verdict.as_ref().is_ok_and(|r| !r.is_ok()));
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn json_report(table: &str, outcomes: &[Outcome]) -> serde_json::Value {
    let results: Vec<_> = outcomes
        .iter()
        .map(|o| match &o.verdict {
            Ok(r) => json!({"algo": o.algo, "family": o.family.name(), "checked": r.checked, "mismatches": r.mismatches}),
            Err(why) => json!({"algo": o.algo, "family": o.family.name(), "not_applicable": why}),
        })
        .collect();
    json!({"table": table, "results": results})
}

fn parse_specs(list: &str) -> anyhow::Result<Vec<AlgoSpec>> {
    if list == "all" {
        return Ok(ALGORITHMS.iter().map(|a| AlgoSpec::named(a.name)).collect());
    }
    Ok(AlgoSpec::parse_list(list)?)
}

fn verify_family<A: RegistryFamily>(
    rib: &Rib<A>,
    specs: &[AlgoSpec],
    args: &Args,
    out: &mut impl Write,
) -> anyhow::Result<Vec<Outcome>> {
    if rib.is_empty() {
        return Ok(Vec::new());
    }
    let mut outcomes = Vec::new();
    let probes = Probes::new(rib, verify::probes(rib, 1, args.samples::<A>(), args.seed));
    for spec in specs {
        // Known algorithms skip the families they lack (a mixed table checks the other one);
        // unknown names reach the registry, which names them in its error.
        if fibforge::registry::info(&spec.name).is_some_and(|i| !i.supports(A::FAMILY)) {
            continue;
        }
        let algo = spec.to_string();
        let t0 = Instant::now();
        let fib = match build(spec, rib) {
            Ok(fib) => fib,
            Err(e @ (BuildError::Unsupported { .. } | BuildError::LimitExceeded { .. })) => {
                if !args.json {
                    writeln!(out, "{algo:<22} {}  not applicable: {e}", A::FAMILY)?;
                }
                outcomes.push(Outcome { algo, family: A::FAMILY, verdict: Err(e.to_string()) });
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let built = t0.elapsed();
        let mut r = verify::check(&*fib, &probes, true, true);
        if args.exhaustive
            && let Some(all) = exhaustive(rib, &*fib, &algo)
        {
            r.merge(all);
        }
        if !args.json {
            let status = if r.is_ok() { "ok" } else { "MISMATCH" };
            writeln!(
                out,
                "{algo:<22} {}  built in {:>8.1} ms  {:>12} lookups checked  {} mismatches  {status}",
                A::FAMILY,
                built.as_secs_f64() * 1e3,
                r.checked,
                r.mismatches
            )?;
        }
        outcomes.push(Outcome { algo, family: A::FAMILY, verdict: Ok(r) });
    }
    Ok(outcomes)
}

/// [`verify::exhaustive`] with a bar over the 2^32 addresses on a terminal.
fn exhaustive<A: RegistryFamily>(
    rib: &Rib<A>,
    fib: &(impl fibforge::Lookup<A> + ?Sized),
    algo: &str,
) -> Option<Report> {
    let done = std::sync::atomic::AtomicU64::new(0);
    let what = format!("{algo} {}: every address", A::FAMILY);
    crate::progress::follow(1 << 32, &what, &done, |_| verify::exhaustive_counted(rib, fib, &done))
}
