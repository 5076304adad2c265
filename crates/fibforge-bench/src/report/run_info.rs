//! What a report needs to be traced back to its run: when it ran (UTC), which fibforge (version
//! and the git commit it was built from), the command line, and how busy the machine was
//! (`/proc/loadavg` before and after). Missing sources give `null`, never an error.

use serde::Serialize;
use std::time::SystemTime;

/// The circumstances of one benchmark run.
#[derive(Clone, Debug, Serialize)]
pub struct RunInfo {
    /// Start, RFC 3339 UTC to the second.
    pub started_utc: String,
    /// End (set by [`RunInfo::finish`]).
    pub finished_utc: Option<String>,
    /// The fibforge version.
    pub fibforge_version: &'static str,
    /// The git commit the benchmark was built from, when it was built in a git checkout.
    pub git_commit: Option<&'static str>,
    /// The command line, one argument per entry.
    pub argv: Vec<String>,
    /// 1-, 5- and 15-minute load averages at the start.
    pub load_before: Option<[f64; 3]>,
    /// The same at the end: a figure well above 0 means other work shared the CPUs.
    pub load_after: Option<[f64; 3]>,
}

impl RunInfo {
    /// The run starting now, with this process's command line.
    pub fn start() -> RunInfo {
        let commit = option_env!("FIBFORGE_GIT_COMMIT").filter(|c| !c.is_empty());
        RunInfo {
            started_utc: now_utc(),
            finished_utc: None,
            fibforge_version: env!("CARGO_PKG_VERSION"),
            git_commit: commit,
            argv: std::env::args().collect(),
            load_before: load_average(),
            load_after: None,
        }
    }

    /// Records the end of the run.
    pub fn finish(&mut self) {
        self.finished_utc = Some(now_utc());
        self.load_after = load_average();
    }
}

/// The current time as `2026-11-27T03:29:36Z`.
pub fn now_utc() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// The three load averages of `/proc/loadavg`; `None` where the file is missing or odd.
pub fn load_average() -> Option<[f64; 3]> {
    parse_loadavg(&std::fs::read_to_string("/proc/loadavg").ok()?)
}

/// The first three fields of `/proc/loadavg` text.
pub fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut f = text.split_whitespace().map(str::parse::<f64>);
    Some([f.next()?.ok()?, f.next()?.ok()?, f.next()?.ok()?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loadavg_and_dates() {
        assert_eq!(parse_loadavg("0.52 1.10 2.00 3/456 7890\n"), Some([0.52, 1.1, 2.0]));
        assert_eq!(parse_loadavg("0.52 x 2.00"), None);
        assert_eq!(parse_loadavg(""), None);
        let mut r = RunInfo::start();
        assert!(r.started_utc.ends_with('Z') && r.started_utc.len() == 20, "{}", r.started_utc);
        assert!(r.finished_utc.is_none());
        r.finish();
        assert!(r.finished_utc.as_deref().is_some_and(|f| f >= r.started_utc.as_str()));
        assert!(!r.fibforge_version.is_empty() && !r.argv.is_empty());
    }
}
