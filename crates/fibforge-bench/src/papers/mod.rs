//! The papers' structural experiments: counts, sizes, build and update times, heat maps —
//! the figures that are not lookup-rate rows of the runner.
//!
//! Each study takes the loaded tables (and, for update studies, an update stream) and returns
//! [`Study`] tables: column names and rows of already-formatted cells, printed as Markdown
//! and kept in the JSON report. Layout: [`poptrie`] (Table 2, §4.9, Fig. 7), [`sail`]
//! (on-chip and off-chip bytes, update speed), [`cpe`] (Tables 3, 5–8), [`cpe_bsl`] (Table 11), [`bloom`] (Table 3
//! counts before and after CPE), [`loop_`] (Fig. 9/10 and the 18-table headline),
//! [`loop_updates`] (Fig. 13 and 14, with SAIL_M and a rebuilt comparator).
//!
//! The command's side lives here too: [`presets`] (each `--preset` as bench settings),
//! [`studies`] (running a study part, the many-table presets) and [`locate`] (where the
//! default and shared tables are), so that `fibforge bench` only parses arguments.
//!
//! Studies are sized to run in seconds on a loaded 2-core machine: lookup rates are timed
//! for [`StudyInput::seconds`], sampled figures (Fig. 7) draw a stated number of addresses.

pub mod bloom;
pub mod cpe;
pub mod cpe_bsl;
mod heatmap;
pub mod locate;
pub mod loop_;
pub mod loop_updates;
pub mod poptrie;
pub mod presets;
pub mod sail;
pub mod studies;
mod util;

pub use crate::report::Study;
use crate::runner::NamedTable;
use std::path::PathBuf;

/// What a study runs on.
pub struct StudyInput<'a> {
    /// The tables (the preset's or `--table`'s).
    pub tables: &'a [NamedTable],
    /// Update stream for the update studies (text or MRT).
    pub updates: Option<PathBuf>,
    /// Directory for figures (PNG); `None`: write none.
    pub out: Option<PathBuf>,
    /// Seconds per lookup-rate measurement.
    pub seconds: f64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Directory of `shared/data` (many-table sets), when found.
    pub shared: Option<PathBuf>,
}

/// Every study preset with the experiment it reproduces.
pub const STUDIES: &[(&str, &str)] = &[
    ("poptrie-table2", "Poptrie Table 2: inodes, leaves, memory, compile, rate by option and s"),
    ("poptrie-updates", "Poptrie §4.9: µs per update (stream) and per prefix (random order)"),
    ("poptrie-fig7", "Poptrie Fig. 7: binary radix depth by matched length (heat map PNG)"),
    ("sail-memory", "SAIL: on-chip (bitmap) and off-chip bytes, update speed"),
    ("cpe-table3", "CPE Table 3: 8-8-8-8 trie nodes, memory, build and leaf-push time"),
    ("cpe-tables", "CPE Tables 5-8: memory by levels, fixed and variable strides, packed"),
    ("cpe-table11", "CPE Table 11: binary search on lengths, 3 levels, first level an array"),
    ("bloomfwd-table3", "Bloomfwd Table 3: keys per level before and after CPE"),
    ("loop-fig9", "LOOP Fig. 9/10: storage by number of FIBs against the baselines"),
    ("loop-fig13", "LOOP Fig. 13: update time and updates/s"),
    ("loop-fig14", "LOOP Fig. 14: FIB insertion and deletion time"),
    ("loop-headline", "LOOP headline: 18 tables, bytes per prefix"),
];

/// True when `name` is a study preset.
pub fn is_study(name: &str) -> bool {
    STUDIES.iter().any(|s| s.0 == name)
}

/// Runs the study `name`; progress goes to `log`.
pub fn run(
    name: &str,
    input: &StudyInput,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<Study>, String> {
    match name {
        "poptrie-table2" => poptrie::table2(input, log),
        "poptrie-updates" => poptrie::updates(input, log),
        "poptrie-fig7" => poptrie::fig7(input, log),
        "sail-memory" => sail::memory(input, log),
        "cpe-table3" => cpe::table3(input, log),
        "cpe-tables" => cpe::tables(input, log),
        "cpe-table11" => cpe_bsl::table11(input, log),
        "bloomfwd-table3" => bloom::table3(input),
        "loop-fig9" => loop_::fig9(input, log),
        "loop-fig13" => loop_updates::fig13(input, log),
        "loop-fig14" => loop_updates::fig14(input, log),
        "loop-headline" => loop_::headline(input, log),
        _ => Err(format!("'{name}' is not a study preset")),
    }
}

#[cfg(test)]
mod tests;
