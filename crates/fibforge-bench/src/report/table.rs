//! The terminal table, in the manner of Poptrie's Table 3: per table and family, one line per
//! algorithm and call mode with memory, build time, the lookup rate for each traffic pattern,
//! median and 99th-percentile cycles (first traffic pattern) and the rate relative to DPDK's
//! `rte_lpm` (`rte_lpm6` for IPv6) in single mode on the same traffic. Thread scaling and rows
//! without figures (not available, mismatches, errors) follow each table.

use super::json::{Row, Status};
use std::fmt::Write;

/// The DPDK row other rows are compared with, per family.
fn reference(family: &str) -> &'static str {
    if family == "ipv6" { "rte_lpm6" } else { "rte_lpm" }
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
    let ref_rate = rows
        .iter()
        .find(|r| {
            r.algo == reference(family)
                && r.mode == "single"
                && r.traffic == first
                && r.threads == 1
        })
        .and_then(|r| r.mlps);
    let _ = writeln!(
        out,
        "\n{table} — {family}  (Mlps: median of repeats; cycles: TSC ticks per lookup, {first})"
    );
    let mut header = format!(
        "{:<22} {:<16} {:<6} {:>9} {:>10}",
        "algorithm", "impl", "mode", "mem MiB", "build ms"
    );
    for t in &traffics {
        let _ = write!(header, " {:>12}", shorten(t, 12));
    }
    let _ = write!(header, " {:>6} {:>6} {:>8}", "p50", "p99", format!("×{}", reference(family)));
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
        let ratio = match (head.mlps, ref_rate) {
            (Some(a), Some(b)) if head.traffic == first => Some(a / b),
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
    render_threads(out, rows);
    render_notes(out, rows);
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
        let mut r = Row::empty("t.gz", "ipv4", algo, imp, "single", traffic, Status::Ok);
        r.mlps = Some(mlps);
        r.memory_bytes = Some(3 << 20);
        r
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
        assert!(text.contains("2t     19.0"), "{text}");
        assert!(text.contains("not available: go not found"));
    }
}
