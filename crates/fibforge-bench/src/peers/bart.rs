//! The Go `github.com/gaissmai/bart` peer, out of process.
//!
//! The helper `tools/bart-peer` (pinned bart version in its `go.mod`/`go.sum`) is built with
//! `go build` into `target/bart-peer/` the first time it is needed; without `go` (or without
//! the module in the Go module cache and no network) the rows say "not available" and why.
//!
//! Exchange, through files in a fresh temporary directory: the routes (`prefix<TAB>raw`,
//! raw = next-hop index + 1), the verification addresses, and one address file per traffic
//! pattern that is not `random` ([`SAMPLE`] addresses of it, looked up round and round).
//! `random` is drawn by xorshift inside the helper's loop, like our own random traffic. The
//! helper writes its answers for the verification addresses, which are compared here with
//! the oracle like every other structure ([`compare`]): a mismatch is reported, not timed.
//! It prints JSON with its build time, heap growth and lookup rates per repeat; rates are
//! Go's (one `Lookup` call per address, `netip.Addr` inputs), so there are no cycle figures.

use crate::family::BenchAddress;
use crate::log::Log;
use crate::report::{Row, Status};
use crate::runner::measure::Ctx;
use crate::timing::{Mode, Spread};
use crate::verify::compare;
use fibforge::{Address, NextHop, Rib};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Addresses of each non-random traffic pattern handed to the helper.
pub const SAMPLE: usize = 1 << 20;

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/bart-peer")
}

fn binary() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"), PathBuf::from);
    target.join("bart-peer").join("bart-peer")
}

/// Builds the helper once per process: `Ok(path)` or why not.
fn helper() -> Result<PathBuf, String> {
    static HELPER: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    HELPER
        .get_or_init(|| {
            let src = source_dir();
            if !src.join("go.mod").exists() {
                return Err(format!("helper source {} not found", src.display()));
            }
            let out = binary();
            let built = Command::new("go")
                .args(["build", "-o"])
                .arg(&out)
                .arg(".")
                .current_dir(&src)
                .output()
                .map_err(|e| format!("`go` not runnable ({e})"))?;
            if !built.status.success() {
                let err = String::from_utf8_lossy(&built.stderr);
                return Err(format!("go build failed: {}", err.trim().replace('\n', " / ")));
            }
            Ok(out)
        })
        .clone()
}

/// `Ok(description)` when the helper builds, else why not.
pub fn availability() -> Result<String, String> {
    helper()?;
    let go = Command::new("go").arg("version").output().ok();
    let go = go.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    Ok(format!("gaissmai/bart (tools/bart-peer/go.mod) with {go}"))
}

/// What the helper printed.
#[derive(serde::Deserialize)]
struct Report {
    bart: String,
    build_ms: f64,
    memory_bytes: u64,
    #[serde(default)]
    results: Vec<Rates>,
}

#[derive(serde::Deserialize)]
struct Rates {
    traffic: String,
    mlps: Vec<f64>,
}

fn write_lines<T>(
    path: &Path,
    items: impl Iterator<Item = T>,
    f: impl Fn(&mut String, T),
) -> Result<(), String> {
    let mut s = String::new();
    for it in items {
        f(&mut s, it);
        s.push('\n');
    }
    std::fs::write(path, s).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// One run of the helper.
struct Job<'a, A: Address> {
    rib: &'a Rib<A>,
    probes: &'a [A],
    /// Traffic by name: `None` for `random` (drawn in the helper's loop).
    traffic: Vec<(String, Option<Vec<A>>)>,
    seconds: f64,
    repeats: usize,
}

/// Runs the helper: its report and its answers for the probes.
fn exchange<A: Address>(
    job: &Job<'_, A>,
    exe: &Path,
) -> Result<(Report, Vec<Option<NextHop>>), String> {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("fibforge-bart-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let result = exchange_in(job, exe, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn exchange_in<A: Address>(
    job: &Job<'_, A>,
    exe: &Path,
    dir: &Path,
) -> Result<(Report, Vec<Option<NextHop>>), String> {
    let routes = dir.join("routes.txt");
    write_lines(&routes, job.rib.iter(), |s, (p, h)| {
        let _ = write!(s, "{p}\t{}", h.raw());
    })?;
    let probes = dir.join("probes.txt");
    write_lines(&probes, job.probes.iter(), |s, a| {
        let _ = write!(s, "{}", a.to_std());
    })?;
    let answers = dir.join("answers.txt");
    let mut cmd = Command::new(exe);
    cmd.arg("-routes").arg(&routes).arg("-probes").arg(&probes).arg("-answers").arg(&answers);
    cmd.args(["-family", if A::BITS == 128 { "6" } else { "4" }]);
    cmd.args(["-duration", &job.seconds.to_string()]);
    cmd.args(["-repeats", &job.repeats.to_string()]);
    for (i, (name, addrs)) in job.traffic.iter().enumerate() {
        let Some(addrs) = addrs else {
            cmd.arg("-random");
            continue;
        };
        let file = dir.join(format!("traffic-{i}.txt"));
        write_lines(&file, addrs.iter(), |s, a| {
            let _ = write!(s, "{}", a.to_std());
        })?;
        cmd.arg("-traffic").arg(format!("{name}={}", file.display()));
    }
    let out = cmd.output().map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!("helper failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    let report: Report = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("helper printed unreadable JSON: {e}"))?;
    let text = std::fs::read_to_string(&answers)
        .map_err(|e| format!("cannot read {}: {e}", answers.display()))?;
    let got = text
        .lines()
        .map(|l| l.trim().parse::<u32>().map(NextHop::from_raw))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("helper answers: {e}"))?;
    Ok((report, got))
}

/// bart's answers for `addrs` on the routes of `rib` (no timing): for tests.
pub fn answers<A: Address>(rib: &Rib<A>, addrs: &[A]) -> Result<Vec<Option<NextHop>>, String> {
    let job = Job { rib, probes: addrs, traffic: Vec::new(), seconds: 0.0, repeats: 0 };
    exchange(&job, &helper()?).map(|(_, got)| got)
}

/// Rows of the bart peer for this table and family.
pub fn run<A: BenchAddress>(ctx: &Ctx<'_, A>, log: Log<'_>) -> Vec<Row> {
    let failed = |status: Status, why: String, log: Log<'_>| {
        log(&format!("  peer bart: {why}"));
        let mut r = ctx.row("bart", "bart", Mode::Single, ctx.first_traffic(), status);
        r.note = Some(why);
        vec![r]
    };
    let exe = match helper() {
        Ok(exe) => exe,
        Err(why) => return failed(Status::NotAvailable, why, log),
    };
    let traffic = ctx
        .sources
        .iter()
        .map(|(name, src)| {
            let addrs = (name != "random").then(|| src.sample(SAMPLE, ctx.s.seed));
            (name.clone(), addrs)
        })
        .collect();
    let job = Job {
        rib: ctx.rib,
        probes: &ctx.probes.addrs,
        traffic,
        seconds: ctx.duration.as_secs_f64(),
        repeats: ctx.s.repeats.max(1),
    };
    let (report, got) = match exchange(&job, &exe) {
        Ok(x) => x,
        Err(why) => return failed(Status::Error, why, log),
    };
    let checked = compare(&got, &ctx.probes, "bart Lookup");
    let note =
        format!("bart {} in a Go helper; non-random traffic: {SAMPLE} addresses", report.bart);
    let mut rows = Vec::new();
    let mut summary = Vec::new();
    for (name, _) in &ctx.sources {
        let status = if checked.mismatches > 0 { Status::Mismatch } else { Status::Ok };
        let mut r = ctx.row("bart", "bart", Mode::Single, name, status);
        r.memory_bytes = Some(report.memory_bytes);
        r.compile_ms = Some(report.build_ms);
        r.checked = Some(checked.checked);
        r.mismatches = Some(checked.mismatches);
        r.note =
            Some(if checked.mismatches > 0 { checked.examples.join("; ") } else { note.clone() });
        if checked.mismatches == 0
            && let Some(rates) = report.results.iter().find(|x| &x.traffic == name)
            && let Some(s) = Spread::of(&rates.mlps)
        {
            r.mlps = Some(s.median);
            r.mlps_min = Some(s.min);
            r.mlps_max = Some(s.max);
            r.repeats = rates.mlps.len();
            r.duration_s = Some(ctx.duration.as_secs_f64());
            summary.push(format!("{name}/single {:.1}", s.median));
        }
        rows.push(r);
    }
    if checked.mismatches > 0 {
        eprintln!(
            "MISMATCH: bart (bart) on {} {}: {} of {} lookups differ from the oracle; not timed. First: {}",
            ctx.table,
            A::FAMILY,
            checked.mismatches,
            checked.checked,
            checked.examples.join("; ")
        );
    }
    log(&format!(
        "  {:<20} {:<16} build {:>8.1} ms  {:>8.2} MiB  verified {} lookups  Mlps: {}",
        "bart",
        "bart",
        report.build_ms,
        report.memory_bytes as f64 / (1 << 20) as f64,
        checked.checked,
        summary.join(", ")
    ));
    rows
}
