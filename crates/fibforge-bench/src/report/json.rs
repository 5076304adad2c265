//! The JSON report of `fibforge bench` (DESIGN.md, command-line contract):
//!
//! ```text
//! {"machine": {...}, "results": [{"table", "family", "algo", "impl", "mode", "traffic",
//!   "threads", "mlps", "cycles_p50", "cycles_p99", "memory_bytes", "compile_ms",
//!   "mismatches", ...}]}
//! ```
//!
//! One object per measured row; a figure that does not apply is `null`. Rows carry more than
//! the contract's keys (the spread of repeats, all percentiles, the cycles CDF and per-depth
//! figures of the `random` rows, a status), and the document adds the run (date, version,
//! commit, command line, load averages), the tables, the peers and the settings (with the
//! timer's resolution). Keys are only ever added.

use crate::depth::DepthCycles;
use crate::report::Machine;
use serde::Serialize;

/// Whether a row holds figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Verified and measured.
    Ok,
    /// Answers differed from the oracle: not timed.
    Mismatch,
    /// The peer or feature is not built in or not installed.
    NotAvailable,
    /// Building or running failed (the note says why).
    Error,
}

/// One measured row.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// Table name (file name, with a `+syn1`-style suffix for growth tables).
    pub table: String,
    /// `ipv4` or `ipv6`.
    pub family: &'static str,
    /// Algorithm (registry spec) or peer API name.
    pub algo: String,
    /// `fibforge` or the peer's name.
    #[serde(rename = "impl")]
    pub implementation: String,
    /// `single` or `batch`.
    pub mode: &'static str,
    /// Traffic pattern.
    pub traffic: String,
    /// Threads looking up at once.
    pub threads: usize,
    /// Median lookup rate over the repeats, million lookups per second.
    pub mlps: Option<f64>,
    /// Slowest repeat.
    pub mlps_min: Option<f64>,
    /// Fastest repeat.
    pub mlps_max: Option<f64>,
    /// Number of timed repeats.
    pub repeats: usize,
    /// Seconds per repeat.
    pub duration_s: Option<f64>,
    /// Mean TSC cycles per lookup.
    pub cycles_mean: Option<f64>,
    /// Median cycles per lookup.
    pub cycles_p50: Option<f64>,
    /// 75th percentile.
    pub cycles_p75: Option<f64>,
    /// 95th percentile.
    pub cycles_p95: Option<f64>,
    /// 99th percentile.
    pub cycles_p99: Option<f64>,
    /// Timed samples (groups or batches) in the cycle distribution.
    pub cycles_samples: Option<usize>,
    /// Lookups per timed sample: dependent lookups of a group (single) or a batch's size.
    pub cycles_group: Option<usize>,
    /// Resolution of the cycle figures in ticks per lookup (the timer's, divided by
    /// `cycles_group`): a percentile below it is not a measurement.
    pub cycles_resolution: Option<f64>,
    /// Bytes of the structure.
    pub memory_bytes: Option<u64>,
    /// Build time.
    pub compile_ms: Option<f64>,
    /// Lookups compared with the oracle before timing.
    pub checked: Option<u64>,
    /// Differences from the oracle (must be 0).
    pub mismatches: Option<u64>,
    /// Outcome.
    pub status: Status,
    /// Why a row has no figures, limits hit, code paths selected.
    pub note: Option<String>,
    /// CDF of cycles per lookup as `[cycles, share]` (random traffic, single mode, 1 thread).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles_cdf: Option<Vec<(f64, f64)>>,
    /// Cycles per binary-radix depth (same rows as the CDF).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles_by_depth: Option<Vec<DepthCycles>>,
    /// Many-table rows (`bench --multi`): number of tables (VRFs) in the structure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vrfs: Option<usize>,
    /// Many-table rows: total prefixes over all tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefixes: Option<u64>,
    /// Many-table rows: `memory_bytes` divided by `prefixes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_per_prefix: Option<f64>,
}

impl Row {
    /// Fills the cycle columns from a cycle measurement (left empty when it has no samples).
    pub fn set_cycles(&mut self, cycles: &crate::timing::CycleSamples) {
        if let Some(p) = crate::timing::Percentiles::of(&cycles.ticks) {
            self.cycles_mean = Some(p.mean);
            self.cycles_p50 = Some(p.p50);
            self.cycles_p75 = Some(p.p75);
            self.cycles_p95 = Some(p.p95);
            self.cycles_p99 = Some(p.p99);
            self.cycles_samples = Some(p.count);
            self.cycles_group = Some(cycles.group);
            self.cycles_resolution = Some(cycles.resolution);
        }
    }

    /// A row with identity only, every figure null.
    pub fn empty(
        table: &str,
        family: &'static str,
        algo: &str,
        implementation: &str,
        mode: &'static str,
        traffic: &str,
        status: Status,
    ) -> Row {
        Row {
            table: table.into(),
            family,
            algo: algo.into(),
            implementation: implementation.into(),
            mode,
            traffic: traffic.into(),
            threads: 1,
            mlps: None,
            mlps_min: None,
            mlps_max: None,
            repeats: 0,
            duration_s: None,
            cycles_mean: None,
            cycles_p50: None,
            cycles_p75: None,
            cycles_p95: None,
            cycles_p99: None,
            cycles_samples: None,
            cycles_group: None,
            cycles_resolution: None,
            memory_bytes: None,
            compile_ms: None,
            checked: None,
            mismatches: None,
            status,
            note: None,
            cycles_cdf: None,
            cycles_by_depth: None,
            vrfs: None,
            prefixes: None,
            bytes_per_prefix: None,
        }
    }
}

/// A table that was benchmarked.
#[derive(Clone, Debug, Serialize)]
pub struct TableInfo {
    /// Name used in rows.
    pub name: String,
    /// File it was read from.
    pub path: String,
    /// IPv4 routes.
    pub ipv4_prefixes: usize,
    /// IPv6 routes.
    pub ipv6_prefixes: usize,
    /// Distinct next hops.
    pub next_hops: usize,
    /// Seconds to read the file.
    pub load_s: f64,
}

/// Whether a peer could be used in this run.
#[derive(Clone, Debug, Serialize)]
pub struct PeerStatus {
    /// Peer name (`dpdk`, `bart`, ...).
    pub name: String,
    /// Usable in this build on this machine.
    pub available: bool,
    /// Version, or why it is not available.
    pub detail: String,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Where it ran.
    pub machine: Machine,
    /// The command line.
    pub command: String,
    /// Date, fibforge version and commit, argv, load averages before and after.
    pub run: crate::report::RunInfo,
    /// Tables measured.
    pub tables: Vec<TableInfo>,
    /// Peers asked for, with availability.
    pub peers: Vec<PeerStatus>,
    /// Settings: durations, repeats, seed, batch size.
    pub settings: serde_json::Value,
    /// One object per measured row.
    pub results: Vec<Row>,
    /// Update replays run with the benchmark (`--updates`), as `fibforge replay` reports them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replays: Vec<serde_json::Value>,
    /// Structural experiments of the papers (`--preset` study names), as their tables.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub studies: Vec<super::Study>,
    /// Seconds the whole benchmark took.
    pub elapsed_s: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_have_the_contract_keys() {
        let mut r = Row::empty("t", "ipv4", "radix", "fibforge", "single", "random", Status::Ok);
        r.mlps = Some(1.5);
        r.mismatches = Some(0);
        let v = serde_json::to_value(&r).unwrap();
        let keys = [
            "table",
            "family",
            "algo",
            "impl",
            "mode",
            "traffic",
            "threads",
            "mlps",
            "cycles_p50",
            "cycles_p99",
            "memory_bytes",
            "compile_ms",
            "mismatches",
        ];
        for k in keys {
            assert!(v.get(k).is_some(), "missing {k}");
        }
        assert_eq!(v["impl"], "fibforge");
        assert_eq!(v["threads"], 1);
        assert_eq!(v["mlps"], 1.5);
        assert!(v["cycles_p50"].is_null());
        assert_eq!(v["status"], "ok");
        assert!(v.get("cycles_cdf").is_none());
        let s = serde_json::to_value(Status::NotAvailable).unwrap();
        assert_eq!(s, "not_available");
    }
}
