//! The Fig. 7 heat map: matched prefix length (x) against binary radix depth (y), the colour
//! the log of the count, as in the Poptrie paper.

use plotters::prelude::*;
use std::path::Path;

/// Writes `grid[len][depth]` as a PNG heat map to `file`, whole or not at all.
pub fn write(grid: &[[u64; 33]], file: &Path, table: &str) -> Result<(), String> {
    crate::report::plots::register_font()?;
    crate::report::plots::atomically(file, |temp| draw(grid, file, temp, table))
}

/// Draws the heat map into `temp`, the temporary file of `file` (named in errors).
fn draw(grid: &[[u64; 33]], file: &Path, temp: &Path, table: &str) -> Result<(), String> {
    let max = grid.iter().flat_map(|r| r.iter()).copied().max().unwrap_or(0).max(1) as f64;
    let root = BitMapBackend::new(temp, (820, 760)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", file.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("binary radix depth by matched length, {table}"), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0u32..33u32, 0u32..33u32)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("matched prefix length")
        .y_desc("checked bits (binary radix depth)")
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| err(&e))?;
    let cells = grid.iter().enumerate().flat_map(|(x, row)| {
        row.iter().enumerate().filter(|(_, c)| **c > 0).map(move |(y, &c)| {
            // Log scale: a count of 1 is pale, the largest cell dark red.
            let t = (c as f64).ln() / max.ln().max(1.0);
            let color = HSLColor(0.0, 0.85, 0.92 - 0.62 * t);
            Rectangle::new([(x as u32, y as u32), (x as u32 + 1, y as u32 + 1)], color.filled())
        })
    });
    chart.draw_series(cells).map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
