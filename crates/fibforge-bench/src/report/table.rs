//! The terminal table, in the manner of Poptrie's Table 3: per table and family, one line per
//! algorithm and call mode with memory, build time, the lookup rate for each traffic pattern,
//! median and 99th-percentile cycles (first traffic pattern) and `×dpdk`, the rate relative to
//! DPDK's reference row of the same call mode on the first traffic pattern ([`references`]):
//! single rows against `rte_lpm` (`rte_lpm6`) single, batch rows against the fastest DPDK batch
//! row. A legend under each table names the references and their rates, then the rows whose
//! repeats spread widely (a shared machine's disturbed runs). Thread scaling and rows without
//! figures (not available, mismatches, errors) follow each table.

use super::json::{Row, Status};
use std::fmt::Write;

/// DPDK's single-lookup API, the reference of single rows, per family.
fn single_reference(family: &str) -> &'static str {
    if family == "ipv6" { "rte_lpm6" } else { "rte_lpm" }
}

/// The implementation name of DPDK rows.
const DPDK: &str = "dpdk";

/// A row that others of its call mode are divided by.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    /// The DPDK API (`rte_lpm`, `rte_fib_avx512`, ...).
    pub algo: String,
    /// Its rate on the traffic compared.
    pub mlps: f64,
}

/// The references of one table and family on `traffic` (one thread): for single rows DPDK's
/// single lookup (`rte_lpm`, `rte_lpm6`), for batch rows the fastest DPDK batch row (`rte_lpm`
/// bulk, `rte_lpm_x4`, `rte_fib`, `rte_fib_avx512`; IPv6: `rte_lpm6`, `rte_fib6`,
/// `rte_fib6_avx512`) — a batch is compared with a batch, a single lookup with a single one.
pub fn references(rows: &[&Row], family: &str, traffic: &str) -> [Option<Reference>; 2] {
    let dpdk = |mode: &'static str| {
        rows.iter().filter(move |r| {
            r.implementation == DPDK && r.mode == mode && r.traffic == traffic && r.threads == 1
        })
    };
    let pick = |r: &&Row| r.mlps.map(|mlps| Reference { algo: r.algo.clone(), mlps });
    let single = dpdk("single").find(|r| r.algo == single_reference(family)).and_then(pick);
    let batch = dpdk("batch").filter_map(pick).max_by(|a, b| a.mlps.total_cmp(&b.mlps));
    [single, batch]
}

/// The reference of a row's mode.
fn reference_of<'a>(refs: &'a [Option<Reference>; 2], mode: &str) -> Option<&'a Reference> {
    refs[usize::from(mode == "batch")].as_ref()
}

/// Formats every table of the report.
pub fn render(rows: &[Row]) -> String {
    let mut out = String::new();
    let mut groups: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        if !groups.contains(&(r.table.as_str(), r.family)) {
            groups.push((&r.table, r.family));
        }
    }
    for (table, family) in groups {
        let rows: Vec<&Row> =
            rows.iter().filter(|r| r.table == table && r.family == family).collect();
        render_group(&mut out, table, family, &rows);
    }
    out
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// A cycles percentile as the resolution allows: `<r` when below the resolution `r` (ticks
/// per lookup), no decimals a resolution of one tick or more cannot give, `-` when missing.
pub fn cycles(v: Option<f64>, resolution: Option<f64>) -> String {
    let Some(v) = v else { return "-".into() };
    let r = resolution.unwrap_or(1.0).max(0.0);
    let digits = if r >= 1.0 || r == 0.0 { 0 } else { (-r.log10()).ceil() as usize };
    if v < r { format!("<{r:.digits$}") } else { format!("{v:.digits$}") }
}

fn render_group(out: &mut String, table: &str, family: &str, rows: &[&Row]) {
    let mut traffics: Vec<&str> = Vec::new();
    for r in rows {
        if !traffics.contains(&r.traffic.as_str()) {
            traffics.push(&r.traffic);
        }
    }
    let first = traffics.first().copied().unwrap_or("random");
    let refs = references(rows, family, first);
    let _ = writeln!(
        out,
        "\n{table} — {family}  (Mlps: median of repeats; p50/p99: TSC ticks per lookup, {first})"
    );
    let mut header = format!(
        "{:<22} {:<16} {:<6} {:>9} {:>10}",
        "algorithm", "impl", "mode", "mem MiB", "build ms"
    );
    for t in &traffics {
        let _ = write!(header, " {:>12}", shorten(t, 12));
    }
    let _ = write!(header, " {:>6} {:>6} {:>8}", "p50", "p99", "×dpdk");
    let _ = writeln!(out, "{header}");
    let _ = writeln!(out, "{}", "-".repeat(header.chars().count()));
    let mut seen: Vec<(&str, &str, &str)> = Vec::new();
    for r in rows.iter().filter(|r| r.threads == 1 && r.status == Status::Ok) {
        let key = (r.algo.as_str(), r.implementation.as_str(), r.mode);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let same: Vec<&&Row> = rows
            .iter()
            .filter(|x| {
                x.threads == 1 && (x.algo.as_str(), x.implementation.as_str(), x.mode) == key
            })
            .collect();
        let head = same.iter().find(|x| x.traffic == first).copied().unwrap_or(same[0]);
        let mut line = format!(
            "{:<22} {:<16} {:<6} {:>9} {:>10}",
            shorten(&r.algo, 22),
            shorten(&r.implementation, 16),
            r.mode,
            opt(head.memory_bytes.map(|b| b as f64 / (1 << 20) as f64), 2),
            opt(head.compile_ms, 1),
        );
        for t in &traffics {
            let rate = same.iter().find(|x| x.traffic == *t).and_then(|x| x.mlps);
            let _ = write!(line, " {:>12}", opt(rate, 1));
        }
        let ratio = match (head.mlps, reference_of(&refs, r.mode)) {
            (Some(a), Some(b)) if head.traffic == first => Some(a / b.mlps),
            _ => None,
        };
        let _ = write!(
            line,
            " {:>6} {:>6} {:>8}",
            cycles(head.cycles_p50, head.cycles_resolution),
            cycles(head.cycles_p99, head.cycles_resolution),
            opt(ratio, 2)
        );
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{}", legend(&refs, first, rows));
    render_unsteady(out, rows);
    render_threads(out, rows);
    render_notes(out, rows);
}

/// Repeats of one row whose fastest is more than this times the slowest are flagged.
const UNSTEADY: f64 = 1.25;

/// The rows whose repeats spread widely (fastest ÷ slowest above [`UNSTEADY`]): on a shared
/// machine their medians, and the ratios taken from them, deserve another run.
fn render_unsteady(out: &mut String, rows: &[&Row]) {
    let spread = |r: &Row| match (r.mlps_min, r.mlps_max) {
        (Some(lo), Some(hi)) if r.repeats > 1 && lo > 0.0 => Some(hi / lo),
        _ => None,
    };
    let flagged: Vec<String> = rows
        .iter()
        .filter(|r| r.threads == 1 && r.status == Status::Ok)
        .filter_map(|r| {
            let s = spread(r).filter(|&s| s > UNSTEADY)?;
            Some(format!("{} {} {} {s:.2}×", r.algo, r.mode, r.traffic))
        })
        .collect();
    if flagged.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "unsteady repeats (fastest ÷ slowest above {UNSTEADY}; rerun before trusting their \
         ratios):"
    );
    let mut line = String::from(" ");
    for item in flagged {
        if line.len() + item.len() > 96 {
            let _ = writeln!(out, "{}", line.trim_end_matches(','));
            line = String::from(" ");
        }
        let _ = write!(line, " {item},");
    }
    let _ = writeln!(out, "{}", line.trim_end_matches(','));
}

/// What `×dpdk` and the cycle columns mean, under the table.
fn legend(refs: &[Option<Reference>; 2], first: &str, rows: &[&Row]) -> String {
    let name = |r: &Option<Reference>, mode: &str| match r {
        Some(r) => format!("{} {mode}, {:.1} Mlps", r.algo, r.mlps),
        None => "no DPDK row".into(),
    };
    let group = |mode: &str| {
        rows.iter().find(|r| r.mode == mode && r.cycles_group.is_some()).map(|r| {
            let res = r.cycles_resolution.map_or(String::new(), |x| format!(", resolution {x:.2}"));
            format!("{mode}: mean of {} lookups{res}", r.cycles_group.unwrap_or(1))
        })
    };
    let groups: Vec<String> = ["single", "batch"].into_iter().filter_map(group).collect();
    let mut text = format!(
        "×dpdk = rate ÷ DPDK's rate in the same mode on {first}: single rows ÷ {};\n  batch \
         rows ÷ the fastest DPDK batch row, {}",
        name(&refs[0], "single"),
        name(&refs[1], "batch")
    );
    if !groups.is_empty() {
        let _ = write!(
            text,
            "\np50/p99 = percentiles of timed samples, per lookup ({}; the lookups of a single-mode \
             sample depend on one another; '<r': below the resolution r)",
            groups.join("; ")
        );
    }
    text
}

fn render_threads(out: &mut String, rows: &[&Row]) {
    let scaled: Vec<&&Row> = rows.iter().filter(|r| r.threads > 1 && r.mlps.is_some()).collect();
    if scaled.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "thread scaling ({}, {}; Mlps summed over threads):",
        scaled[0].traffic, scaled[0].mode
    );
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for r in &scaled {
        let key = (r.algo.as_str(), r.implementation.as_str());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let mut line = format!("  {:<22} {:<16}", shorten(key.0, 22), shorten(key.1, 16));
        let base = rows.iter().find(|x| {
            (x.algo.as_str(), x.implementation.as_str()) == key
                && x.threads == 1
                && x.traffic == r.traffic
                && x.mode == r.mode
        });
        if let Some(b) = base.and_then(|b| b.mlps) {
            let _ = write!(line, " 1t {b:>8.1}");
        }
        for x in scaled.iter().filter(|x| (x.algo.as_str(), x.implementation.as_str()) == key) {
            let _ = write!(line, "  {}t {:>8.1}", x.threads, x.mlps.unwrap_or(0.0));
        }
        let _ = writeln!(out, "{line}");
    }
}

fn render_notes(out: &mut String, rows: &[&Row]) {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for r in rows.iter().filter(|r| r.status != Status::Ok) {
        let key = (r.algo.as_str(), r.implementation.as_str());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let what = match r.status {
            Status::Mismatch => format!(
                "MISMATCH: {} of {} lookups differ from the oracle",
                r.mismatches.unwrap_or(0),
                r.checked.unwrap_or(0)
            ),
            Status::NotAvailable => "not available".into(),
            Status::Error => "error".into(),
            Status::Ok => continue,
        };
        let note = r.note.as_deref().map(|n| format!(": {n}")).unwrap_or_default();
        let _ =
            writeln!(out, "  {:<22} {:<16} {what}{note}", shorten(key.0, 22), shorten(key.1, 16));
    }
    for r in rows.iter().filter(|r| r.status == Status::Ok && r.threads == 1 && r.note.is_some()) {
        let key = (r.algo.as_str(), r.implementation.as_str());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let _ = writeln!(
            out,
            "  {:<22} {:<16} note: {}",
            shorten(key.0, 22),
            shorten(key.1, 16),
            r.note.as_deref().unwrap_or("")
        );
    }
}

fn shorten(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(width - 1).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(algo: &str, imp: &str, traffic: &str, mlps: f64) -> Row {
        moded(algo, imp, "single", traffic, mlps)
    }

    fn moded(algo: &str, imp: &str, mode: &'static str, traffic: &str, mlps: f64) -> Row {
        let mut r = Row::empty("t.gz", "ipv4", algo, imp, mode, traffic, Status::Ok);
        r.mlps = Some(mlps);
        r.memory_bytes = Some(3 << 20);
        r
    }

    #[test]
    fn batch_rows_are_divided_by_the_fastest_dpdk_batch_row() {
        let rows = vec![
            row("rte_lpm", "dpdk", "random", 40.0),
            moded("rte_lpm", "dpdk", "batch", "random", 120.0),
            moded("rte_fib_avx512", "dpdk", "batch", "random", 150.0),
            moded("rte_fib_avx512", "dpdk", "batch", "repeated", 900.0),
            moded("fast", "fibforge", "batch", "random", 999.0),
            row("poptrie", "fibforge", "random", 200.0),
            moded("poptrie", "fibforge", "batch", "random", 450.0),
        ];
        let refs: Vec<&Row> = rows.iter().collect();
        let [single, batch] = references(&refs, "ipv4", "random");
        assert_eq!(single, Some(Reference { algo: "rte_lpm".into(), mlps: 40.0 }));
        assert_eq!(batch, Some(Reference { algo: "rte_fib_avx512".into(), mlps: 150.0 }));
        let text = render(&rows);
        let line = |mode: &str| {
            text.lines().find(|l| l.starts_with("poptrie") && l.contains(mode)).unwrap()
        };
        assert!(line("single").trim_end().ends_with("5.00"), "{text}");
        assert!(line("batch").trim_end().ends_with("3.00"), "{text}");
        assert!(text.contains("batch row, rte_fib_avx512 batch, 150.0 Mlps"), "{text}");
        // IPv6 single rows are divided by rte_lpm6, never by an IPv4 API
        let v6 = [&rows[0]];
        assert_eq!(references(&v6, "ipv6", "random")[0], None);
    }

    #[test]
    fn rows_with_widely_spread_repeats_are_flagged() {
        let spread = |algo: &str, lo: f64, hi: f64, repeats: usize| {
            let mut r = row(algo, "fibforge", "random", (lo + hi) / 2.0);
            (r.mlps_min, r.mlps_max, r.repeats) = (Some(lo), Some(hi), repeats);
            r
        };
        let rows = vec![
            spread("steady", 100.0, 120.0, 3),
            spread("noisy", 60.0, 99.0, 3),
            spread("once", 10.0, 90.0, 1),
        ];
        let text = render(&rows);
        assert!(text.contains("unsteady repeats"), "{text}");
        assert!(text.contains("noisy single random 1.65×"), "{text}");
        assert!(!text.contains("steady single") && !text.contains("once single"), "{text}");
        let calm = render(&rows[..1]);
        assert!(!calm.contains("unsteady"), "{calm}");
    }

    #[test]
    fn cycles_never_finer_than_the_resolution() {
        assert_eq!(cycles(Some(26.0), Some(25.0)), "26");
        assert_eq!(cycles(Some(1.0), Some(25.0)), "<25");
        assert_eq!(cycles(Some(0.0), Some(0.78125)), "<0.8");
        assert_eq!(cycles(Some(3.4567), Some(0.78125)), "3.5");
        assert_eq!(cycles(Some(3.4567), Some(0.05)), "3.46");
        assert_eq!(cycles(Some(12.4), None), "12");
        assert_eq!(cycles(None, Some(1.0)), "-");
    }

    #[test]
    fn table_shows_rates_ratios_and_notes() {
        let mut missing =
            Row::empty("t.gz", "ipv4", "bart", "bart", "single", "random", Status::NotAvailable);
        missing.note = Some("go not found".into());
        let mut two = row("radix", "fibforge", "random", 19.0);
        two.threads = 2;
        let rows = vec![
            row("radix", "fibforge", "random", 10.0),
            row("radix", "fibforge", "repeated", 30.0),
            row("rte_lpm", "dpdk", "random", 100.0),
            moded("radix", "fibforge", "batch", "random", 12.0),
            two,
            missing,
        ];
        let text = render(&rows);
        assert!(text.contains("t.gz — ipv4"), "{text}");
        let radix = text.lines().find(|l| l.starts_with("radix")).unwrap();
        assert!(
            radix.contains("10.0") && radix.contains("30.0") && radix.contains("0.10"),
            "{radix}"
        );
        assert!(radix.contains("3.00"));
        // no DPDK batch row: the batch row has no ratio, and the legend says so
        let batch = text.lines().find(|l| l.starts_with("radix") && l.contains("batch")).unwrap();
        assert!(batch.trim_end().ends_with('-'), "{batch}");
        assert!(text.contains("batch row, no DPDK row"), "{text}");
        assert!(text.contains("2t     19.0"), "{text}");
        assert!(text.contains("not available: go not found"));
    }
}
