//! Plots of a bench report (`fibforge bench --out DIR`), each written as PNG and SVG:
//!
//! | file | what |
//! |---|---|
//! | `rate-<table>-<traffic>` | lookup rate of every algorithm and peer, one thread (Poptrie Table 3) |
//! | `memory-<table>` | bytes of every structure |
//! | `cycles-cdf-<table>` | CDF of cycles per lookup, random traffic (Poptrie Fig. 10) |
//! | `cycles-depth-<table>` | median cycles per lookup by binary-radix depth (Poptrie Fig. 11) |
//! | `threads-<table>` | lookup rate against threads sharing one structure (Poptrie Fig. 8) |
//!
//! Bars are sorted by value (fastest or smallest first) and coloured by family of structure
//! ([`family_of`]), with the families in a legend; line charts keep their legend right of the
//! plot, the cycles CDF has a logarithmic cycles axis and the thread axis shows whole numbers.
//! Labels are drawn with an embedded DejaVu Sans (`assets/`), so PNGs render the same on
//! machines without system fonts. A plot whose rows are absent is not written; each file is
//! drawn into a temporary file beside it and renamed over it (`atomically`), so an old plot
//! is replaced whole or left as it was.

use super::json::{Row, Status};
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Once;

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
const WIDTH: u32 = 1000;

/// One series of a line chart: a name and its points.
struct Series {
    name: String,
    points: Vec<(f64, f64)>,
}

/// Writes every plot the rows allow into `dir`; returns the files written.
pub fn write_all(rows: &[Row], dir: &Path) -> Result<Vec<PathBuf>, String> {
    register_font()?;
    let mut written = Vec::new();
    for table in distinct(rows.iter().map(|r| r.table.clone())) {
        let rows: Vec<&Row> =
            rows.iter().filter(|r| r.table == table && r.status == Status::Ok).collect();
        let slug = slug(&table);
        for traffic in distinct(rows.iter().map(|r| r.traffic.clone())) {
            let bars = rate_bars(&rows, &traffic);
            let name = format!("rate-{slug}-{}", slug_str(&traffic));
            let title = format!("{table}: lookups, {traffic} traffic, 1 thread");
            written.extend(bar_chart(dir, &name, &title, "million lookups per second", &bars)?);
        }
        let memory = memory_bars(&rows);
        let title = format!("{table}: memory");
        written.extend(bar_chart(dir, &format!("memory-{slug}"), &title, "MiB", &memory)?);
        let charts = [
            ("cycles-cdf", "cycles per lookup", "share of lookups", cdf_series(&rows)),
            ("cycles-depth", "binary-radix depth", "median cycles per lookup", depth_series(&rows)),
            ("threads", "threads", "million lookups per second (sum)", thread_series(&rows)),
        ];
        for (kind, x, y, series) in charts {
            let title = format!("{table}: {y} by {x}");
            written.extend(line_chart(dir, &format!("{kind}-{slug}"), &title, (x, y), &series)?);
        }
    }
    Ok(written)
}

pub(crate) fn register_font() -> Result<(), String> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
            .map_err(|_| "the embedded plot font is invalid".to_string());
    });
    result
}

fn distinct(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = Vec::new();
    for i in items {
        if !seen.contains(&i) {
            seen.push(i);
        }
    }
    seen
}

/// The name of a row in a legend: `poptrie`, `poptrie (batch)`, `rte_lpm [dpdk]`.
fn label(r: &Row) -> String {
    let mut s = r.algo.clone();
    if r.mode != "single" {
        s.push_str(&format!(" ({})", r.mode));
    }
    if r.implementation != "fibforge" {
        s.push_str(&format!(" [{}]", r.implementation));
    }
    s
}

/// Families of structure, in legend order, and the algorithm-name prefixes that belong to
/// each (fibforge's and the peers' names alike).
const FAMILIES: [(&str, &[&str]); 5] = [
    ("Poptrie", &["poptrie"]),
    ("direct tables: DIR-24-8, SAIL, DXR", &["dir24_8", "sail_", "dxr", "rte_lpm", "rte_fib"]),
    (
        "tries: radix, Tree Bitmap, CPE, bart",
        &["radix", "treebitmap", "cpe_", "bart", "prefix_trie", "ip_network_table"],
    ),
    ("search on lengths: BSL, MIHT, Bloom", &["bsl", "miht", "bloom"]),
    ("many tables", &["loop", "per_table"]),
];

/// The family index of an algorithm (`FAMILIES.len()`: other).
pub fn family_of(algo: &str) -> usize {
    // A many-table structure (the registry says: sail_m despite its prefix).
    if fibforge::registry::info(algo).is_some_and(|r| r.caps.many_tables) {
        return 4;
    }
    FAMILIES
        .iter()
        .position(|(_, prefixes)| prefixes.iter().any(|p| algo.starts_with(p)))
        .unwrap_or(FAMILIES.len())
}

fn family_name(i: usize) -> &'static str {
    FAMILIES.get(i).map_or("other", |f| f.0)
}

/// A bar: label, value, family index.
type Bar = (String, f64, usize);

/// Sorts bars by value, largest first when `descending`.
fn sorted(mut bars: Vec<Bar>, descending: bool) -> Vec<Bar> {
    bars.sort_by(|a, b| if descending { b.1.total_cmp(&a.1) } else { a.1.total_cmp(&b.1) });
    bars
}

fn rate_bars(rows: &[&Row], traffic: &str) -> Vec<Bar> {
    let bars = rows
        .iter()
        .filter(|r| r.traffic == traffic && r.threads == 1)
        .filter_map(|r| Some((label(r), r.mlps?, family_of(&r.algo))))
        .collect();
    sorted(bars, true)
}

fn memory_bars(rows: &[&Row]) -> Vec<Bar> {
    let mut by_algo: BTreeMap<String, Bar> = BTreeMap::new();
    for r in rows {
        if let Some(m) = r.memory_bytes {
            let name = match r.implementation.as_str() {
                "fibforge" => r.algo.clone(),
                peer => format!("{} [{peer}]", r.algo),
            };
            let bar = (name.clone(), m as f64 / (1 << 20) as f64, family_of(&r.algo));
            by_algo.insert(name, bar);
        }
    }
    sorted(by_algo.into_values().collect(), false)
}

fn cdf_series(rows: &[&Row]) -> Vec<Series> {
    rows.iter()
        .filter_map(|r| Some(Series { name: label(r), points: r.cycles_cdf.clone()? }))
        .collect()
}

/// 1.5 × the largest 99th percentile of the CDFs: the far tail (interrupts, page faults)
/// would otherwise squash every curve against the y axis.
fn cdf_x_limit(series: &[Series]) -> f64 {
    let p99 = |s: &Series| s.points.iter().find(|p| p.1 >= 0.99).map_or(0.0, |p| p.0);
    series.iter().map(p99).fold(1.0, f64::max) * 1.5
}

fn depth_series(rows: &[&Row]) -> Vec<Series> {
    rows.iter()
        .filter_map(|r| {
            let points = r.cycles_by_depth.as_ref()?;
            let points = points.iter().map(|d| (d.depth as f64, d.cycles.p50)).collect();
            Some(Series { name: label(r), points })
        })
        .collect()
}

/// Rate against threads for every (algo, impl, mode, traffic) measured at more than one count.
fn thread_series(rows: &[&Row]) -> Vec<Series> {
    let mut groups: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows {
        if let Some(m) = r.mlps {
            let key = format!("{} {}", label(r), r.traffic);
            groups.entry(key).or_default().push((r.threads as f64, m));
        }
    }
    groups
        .into_iter()
        .filter(|(_, p)| p.len() > 1)
        .map(|(name, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series { name, points }
        })
        .collect()
}

fn slug(table: &str) -> String {
    let stem = table.split(['.', '+']).next().unwrap_or(table);
    let suffix = table.split_once('+').map(|(_, s)| format!("-{s}")).unwrap_or_default();
    slug_str(&format!("{stem}{suffix}"))
}

fn slug_str(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// Draws one figure as `<name>.png` and `<name>.svg`.
fn both(dir: &Path, name: &str, height: u32, painter: impl Paint) -> Result<Vec<PathBuf>, String> {
    let png = dir.join(format!("{name}.png"));
    let svg = dir.join(format!("{name}.svg"));
    atomically(&png, |temp| {
        let area = BitMapBackend::new(temp, (WIDTH, height)).into_drawing_area();
        painter.paint_on(&area)?;
        area.present().map_err(|e| format!("{}: {e}", png.display()))
    })?;
    atomically(&svg, |temp| {
        let area = SVGBackend::new(temp, (WIDTH, height)).into_drawing_area();
        painter.paint_on(&area)?;
        area.present().map_err(|e| format!("{}: {e}", svg.display()))
    })?;
    Ok(vec![png, svg])
}

/// Draws `file` through `draw`, which writes the temporary path it is given (named with
/// `file`'s extension, from which the encoders choose the format), then renames it over
/// `file`; on any error `file` is left as it was and the temporary file removed
/// (`fibforge_io::atomic`).
pub(crate) fn atomically(
    file: &Path,
    draw: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("{}: {e}", file.display());
    let temp = fibforge_io::atomic::AtomicFile::create(file).map_err(failed)?;
    draw(temp.temp_path())?;
    temp.commit().map_err(failed)
}

fn bar_chart(
    dir: &Path,
    name: &str,
    title: &str,
    x_desc: &str,
    bars: &[Bar],
) -> Result<Vec<PathBuf>, String> {
    if bars.is_empty() {
        return Ok(Vec::new());
    }
    let height = 120 + 24 * bars.len() as u32;
    let painter = BarPainter { title, x_desc, bars };
    both(dir, name, height, painter)
}

fn line_chart(
    dir: &Path,
    name: &str,
    title: &str,
    axes: (&str, &str),
    series: &[Series],
) -> Result<Vec<PathBuf>, String> {
    if series.is_empty() {
        return Ok(Vec::new());
    }
    let cdf = name.starts_with("cycles-cdf");
    let x_limit = cdf.then(|| cdf_x_limit(series));
    let integer_x = name.starts_with("threads");
    both(dir, name, 600, LinePainter { title, x_limit, log_x: cdf, integer_x, axes, series })
}

/// Bars drawn top to bottom in the given order.
struct BarPainter<'a> {
    title: &'a str,
    x_desc: &'a str,
    bars: &'a [Bar],
}

struct LinePainter<'a> {
    title: &'a str,
    /// Right end of the x axis when not the largest x (CDFs stop at the slowest p99).
    x_limit: Option<f64>,
    /// A logarithmic x axis (cycles spread over orders of magnitude).
    log_x: bool,
    /// Whole-number x labels only (threads).
    integer_x: bool,
    axes: (&'a str, &'a str),
    series: &'a [Series],
}

fn err<E: std::fmt::Display>(e: E) -> String {
    format!("plot: {e}")
}

impl BarPainter<'_> {
    fn paint<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        area.fill(&WHITE).map_err(err)?;
        let max = self.bars.iter().map(|b| b.1).fold(0.0, f64::max).max(1e-9) * 1.1;
        let n = self.bars.len();
        let mut chart = ChartBuilder::on(area)
            .caption(self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(260)
            .build_cartesian_2d(0.0..max, (0..n).into_segmented())
            .map_err(err)?;
        // Segment 0 is at the bottom: bar i goes to segment n - 1 - i.
        let names: Vec<&str> = self.bars.iter().rev().map(|b| b.0.as_str()).collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc(self.x_desc)
            .y_labels(n)
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => names.get(*i).unwrap_or(&"").to_string(),
                _ => String::new(),
            })
            .draw()
            .map_err(err)?;
        let mut families: Vec<usize> = self.bars.iter().map(|b| b.2).collect();
        families.sort_unstable();
        families.dedup();
        for f in families {
            let color = Palette99::pick(f).to_rgba();
            let bars = self.bars.iter().enumerate().filter(|(_, b)| b.2 == f).map(|(i, b)| {
                let at = n - 1 - i;
                let mut r = Rectangle::new(
                    [(0.0, SegmentValue::Exact(at)), (b.1, SegmentValue::Exact(at + 1))],
                    color.filled(),
                );
                r.set_margin(3, 3, 0, 0);
                r
            });
            chart.draw_series(bars).map_err(err)?.label(family_name(f)).legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
            });
        }
        // The legend goes where the bars are short.
        let short_at_bottom =
            self.bars.first().zip(self.bars.last()).is_some_and(|(a, b)| a.1 >= b.1);
        let position = if short_at_bottom {
            SeriesLabelPosition::LowerRight
        } else {
            SeriesLabelPosition::UpperRight
        };
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(position)
            .draw()
            .map_err(err)?;
        Ok(())
    }
}

/// Width of the legend panel right of a line chart.
const LEGEND_WIDTH: u32 = 280;

impl LinePainter<'_> {
    fn paint<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        area.fill(&WHITE).map_err(err)?;
        let (plot, side) = area.split_horizontally(WIDTH - LEGEND_WIDTH);
        let points = self.series.iter().flat_map(|s| s.points.iter());
        let (xmin, xmax, ymax) = points.fold((f64::MAX, 1e-9f64, 1e-9f64), |(a, x, y), p| {
            (if p.0 > 0.0 { a.min(p.0) } else { a }, x.max(p.0), y.max(p.1))
        });
        let xmax = self.x_limit.unwrap_or(xmax);
        let mut builder = ChartBuilder::on(&plot);
        builder.caption(self.title, ("sans-serif", 20)).margin(12);
        builder.x_label_area_size(40).y_label_area_size(60);
        let y = 0.0..ymax * 1.08;
        if self.log_x {
            // Zero cycles (below the resolution) cannot sit on a log axis: start at the
            // smallest positive value.
            let lo = if xmin < xmax { xmin * 0.9 } else { xmax / 10.0 };
            let chart = builder.build_cartesian_2d((lo..xmax * 1.1).log_scale(), y).map_err(err)?;
            self.lines(chart, xmax, lo)?;
        } else if self.integer_x {
            // Half a step of margin on both sides, labels only on whole numbers.
            let chart = builder.build_cartesian_2d(0.5..xmax + 0.5, y).map_err(err)?;
            self.lines(chart, xmax, f64::MIN)?;
        } else {
            let chart = builder.build_cartesian_2d(0.0..xmax * 1.02, y).map_err(err)?;
            self.lines(chart, xmax, f64::MIN)?;
        }
        for (i, s) in self.series.iter().enumerate() {
            let y = 50 + 20 * i as i32;
            let color = Palette99::pick(i).to_rgba();
            side.draw(&PathElement::new([(6, y), (26, y)], color.stroke_width(2))).map_err(err)?;
            side.draw(&Text::new(s.name.as_str(), (32, y - 8), ("sans-serif", 14))).map_err(err)?;
        }
        Ok(())
    }

    /// The mesh and the series on a built chart (linear or logarithmic x); points outside
    /// `lo..=hi` on x are left out.
    fn lines<DB: DrawingBackend, X: Ranged<ValueType = f64> + ValueFormatter<f64>>(
        &self,
        mut chart: ChartContext<'_, DB, Cartesian2d<X, RangedCoordf64>>,
        hi: f64,
        lo: f64,
    ) -> Result<(), String> {
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(self.axes.0).y_desc(self.axes.1);
        let whole = |v: &f64| if v.fract() == 0.0 { format!("{v:.0}") } else { String::new() };
        if self.integer_x {
            // Twice the whole numbers: the "nice" steps then include 1.
            mesh.x_labels((2 * hi as usize + 1).min(129)).x_label_formatter(&whole);
        }
        mesh.draw().map_err(err)?;
        for (i, s) in self.series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let inside = s.points.iter().copied().filter(|p| p.0 <= hi && p.0 >= lo);
            chart.draw_series(LineSeries::new(inside, color.stroke_width(2))).map_err(err)?;
        }
        Ok(())
    }
}

/// Lets [`both`] take one painter for both backends.
trait Paint {
    fn paint_on<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

impl Paint for BarPainter<'_> {
    fn paint_on<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        self.paint(area)
    }
}

impl Paint for LinePainter<'_> {
    fn paint_on<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        self.paint(area)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(algo: &str, traffic: &str, threads: usize, mlps: f64) -> Row {
        let mut r = Row::empty("t.tsv.gz", "ipv4", algo, "fibforge", "single", traffic, Status::Ok);
        r.threads = threads;
        r.mlps = Some(mlps);
        r.memory_bytes = Some(3 << 20);
        r
    }

    #[test]
    fn writes_the_plots_its_rows_allow() {
        let dir = std::env::temp_dir().join(format!("fibforge-plots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut a = row("poptrie", "random", 1, 200.0);
        a.cycles_cdf = Some(vec![(10.0, 0.5), (20.0, 0.99), (5000.0, 1.0)]);
        let rows = [a, row("poptrie", "random", 2, 390.0), row("radix", "repeated", 1, 9.0)];
        let files = write_all(&rows, &dir).unwrap();
        let names: Vec<String> =
            files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into()).collect();
        for want in ["rate-t-random.png", "rate-t-repeated.svg", "memory-t.png", "cycles-cdf-t.svg"]
        {
            assert!(names.iter().any(|n| n == want), "{want} missing from {names:?}");
        }
        assert!(names.iter().any(|n| n == "threads-t.png"));
        assert!(!names.iter().any(|n| n.starts_with("cycles-depth")), "no depth rows: {names:?}");
        // Each drawn into a temporary file renamed over it: nothing else is left.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), files.len());
        for f in &files {
            assert!(std::fs::metadata(f).unwrap().len() > 100, "{} is empty", f.display());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bars_are_sorted_and_coloured_by_family() {
        let rows = [
            row("radix", "random", 1, 9.0),
            row("poptrie", "random", 1, 200.0),
            row("rte_fib_avx512", "random", 1, 120.0),
        ];
        let refs: Vec<&Row> = rows.iter().collect();
        let bars = rate_bars(&refs, "random");
        let order: Vec<(&str, usize)> = bars.iter().map(|b| (b.0.as_str(), b.2)).collect();
        assert_eq!(order, [("poptrie", 0), ("rte_fib_avx512", 1), ("radix", 2)]);
        let mem: Vec<f64> = memory_bars(&refs).iter().map(|b| b.1).collect();
        assert!(mem.windows(2).all(|w| w[0] <= w[1]), "{mem:?}");
        assert_eq!((family_of("sail_m"), family_of("sail_u"), family_of("bsl_hybrid")), (4, 1, 3));
        assert_eq!(family_name(family_of("mystery")), "other");
    }

    #[test]
    fn cdf_axis_stops_after_the_slowest_p99() {
        let s = |p99: f64| Series { name: "x".into(), points: vec![(p99, 0.995), (1e7, 1.0)] };
        assert_eq!(cdf_x_limit(&[s(100.0), s(400.0)]), 600.0);
    }

    #[test]
    fn slugs_keep_the_table_stem_and_growth_suffix() {
        assert_eq!(slug("ris2015-as3856.tsv.gz"), "ris2015-as3856");
        assert_eq!(slug("ris2015-as3856.tsv.gz+syn1"), "ris2015-as3856-syn1");
        assert_eq!(slug_str("trace:a/b"), "trace_a_b");
    }
}
