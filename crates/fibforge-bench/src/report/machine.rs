//! The machine description of a report: CPU model, flags, cores, caches (from `/proc/cpuinfo`
//! and `/sys`), TSC rate and resolution, kernel. Missing files give empty fields, never an error.

use serde::Serialize;
use std::collections::BTreeSet;
use std::fs;

/// One cache level.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Cache {
    /// 1, 2, 3.
    pub level: u32,
    /// `Data`, `Instruction` or `Unified`.
    pub kind: String,
    /// Size as written by the kernel (`48K`, `1024K`, `32768K`).
    pub size: String,
    /// CPUs sharing it (`0-1`).
    pub shared_cpus: String,
}

/// Where the benchmark ran.
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// CPU model name.
    pub cpu_model: String,
    /// Flags relevant to lookup code (AVX-512 family, BMI2, POPCNT, ...), as reported.
    pub flags: Vec<String>,
    /// Every flag the kernel reports.
    pub all_flags: Vec<String>,
    /// Logical CPUs usable by this process.
    pub logical_cpus: usize,
    /// Physical cores (distinct package/core ids), when known.
    pub physical_cores: Option<usize>,
    /// Caches of CPU 0.
    pub caches: Vec<Cache>,
    /// Time-stamp-counter ticks per second (cycles in reports are TSC ticks).
    pub tsc_hz: Option<f64>,
    /// The TSC's resolution and read cost (`resolution_ticks`: the finest difference one
    /// bracket can measure).
    pub timer: Option<crate::timing::TimerInfo>,
    /// Kernel release.
    pub kernel: String,
    /// Compiler that built the benchmark.
    pub rustc: String,
    /// Target architecture.
    pub arch: &'static str,
    /// Honest context for the figures.
    pub note: String,
}

/// Flags worth showing next to lookup figures.
const RELEVANT: &[&str] = &[
    "sse4_2",
    "popcnt",
    "avx",
    "avx2",
    "bmi1",
    "bmi2",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512dq",
    "avx512cd",
    "avx512_vpopcntdq",
    "avx512_vbmi",
    "avx512_vbmi2",
    "avx512_bitalg",
    "gfni",
    "constant_tsc",
    "nonstop_tsc",
    "rdtscp",
];

impl Machine {
    /// Describes this machine.
    pub fn describe() -> Machine {
        let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        Self::from_cpuinfo(&cpuinfo)
    }

    /// Parses `/proc/cpuinfo` text; caches and the rest come from the running system.
    pub fn from_cpuinfo(cpuinfo: &str) -> Machine {
        let field = |name: &str| {
            cpuinfo
                .lines()
                .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_default()
        };
        let all_flags: Vec<String> = field("flags").split_whitespace().map(String::from).collect();
        let flags = RELEVANT
            .iter()
            .filter(|f| all_flags.iter().any(|a| a == *f))
            .map(|f| f.to_string())
            .collect();
        Machine {
            cpu_model: field("model name"),
            flags,
            all_flags,
            logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            physical_cores: physical_cores(cpuinfo),
            caches: caches(),
            tsc_hz: crate::timing::Tsc::hz(),
            timer: crate::timing::Tsc::info(),
            kernel: fs::read_to_string("/proc/sys/kernel/osrelease")
                .unwrap_or_default()
                .trim()
                .into(),
            rustc: env!("FIBFORGE_RUSTC_VERSION").into(),
            arch: std::env::consts::ARCH,
            note: "machine possibly shared with other jobs: rates are medians of repeats; compare \
                   ratios measured in the same run"
                .into(),
        }
    }
}

fn physical_cores(cpuinfo: &str) -> Option<usize> {
    let mut ids = BTreeSet::new();
    let (mut package, mut core) = (None, None);
    for line in cpuinfo.lines().chain(std::iter::once("")) {
        if line.trim().is_empty() {
            if let (Some(p), Some(c)) = (package.take(), core.take()) {
                ids.insert((p, c));
            }
            continue;
        }
        if let Some((k, v)) = line.split_once(':') {
            match k.trim() {
                "physical id" => package = Some(v.trim().to_string()),
                "core id" => core = Some(v.trim().to_string()),
                _ => {}
            }
        }
    }
    (!ids.is_empty()).then_some(ids.len())
}

fn caches() -> Vec<Cache> {
    let base = "/sys/devices/system/cpu/cpu0/cache";
    let read = |dir: &str, f: &str| {
        fs::read_to_string(format!("{dir}/{f}")).unwrap_or_default().trim().to_string()
    };
    (0..8)
        .map(|i| format!("{base}/index{i}"))
        .filter(|d| fs::metadata(d).is_ok())
        .map(|d| Cache {
            level: read(&d, "level").parse().unwrap_or(0),
            kind: read(&d, "type"),
            size: read(&d, "size"),
            shared_cpus: read(&d, "shared_cpu_list"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cpuinfo() {
        let text = "processor\t: 0\nmodel name\t: Test CPU 9000\nflags\t\t: fpu popcnt avx512f bmi2\nphysical id\t: 0\ncore id\t\t: 0\n\nprocessor\t: 1\nmodel name\t: Test CPU 9000\nphysical id\t: 0\ncore id\t\t: 1\n\nprocessor\t: 2\nphysical id\t: 0\ncore id\t\t: 1\n";
        let m = Machine::from_cpuinfo(text);
        assert_eq!(m.cpu_model, "Test CPU 9000");
        assert_eq!(m.flags, vec!["popcnt", "bmi2", "avx512f"]);
        assert_eq!(m.all_flags.len(), 4);
        assert_eq!(m.physical_cores, Some(2));
        assert!(Machine::from_cpuinfo("").physical_cores.is_none());
    }
}
