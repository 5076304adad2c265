//! One table of a paper's structural experiment (`crate::papers`), as it goes into the report.

use serde::Serialize;

/// One table of a study, as the paper prints it.
#[derive(Clone, Debug, Serialize)]
pub struct Study {
    /// The preset that made it.
    pub preset: String,
    /// What it reproduces and on which table.
    pub title: String,
    /// Column names.
    pub columns: Vec<String>,
    /// Formatted cells, one `Vec` per row (as many cells as columns).
    pub rows: Vec<Vec<String>>,
    /// Method notes (sample sizes, what a column counts).
    pub notes: Vec<String>,
}

impl Study {
    /// A study with no rows yet.
    pub fn new(preset: &str, title: String, columns: &[&str]) -> Study {
        Study {
            preset: preset.into(),
            title,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Adds a row (the caller keeps it as wide as the columns).
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.columns.len(), "{}: row width", self.title);
        self.rows.push(cells);
    }

    /// The study as a Markdown section: title, table, notes.
    pub fn markdown(&self) -> String {
        let mut s = format!("### {}\n\n| {} |\n|", self.title, self.columns.join(" | "));
        s.push_str(&"---|".repeat(self.columns.len()));
        s.push('\n');
        for r in &self.rows {
            s.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        for n in &self.notes {
            s.push_str(&format!("\n{n}\n"));
        }
        s
    }
}
