//! Reports: the JSON document (the contract of `fibforge bench --json`), the terminal table,
//! the machine description, the run's circumstances and the plots.

pub mod json;
pub mod machine;
pub mod plots;
pub mod run_info;
pub mod study;

pub mod table;

pub use json::{PeerStatus, Report, Row, Status, TableInfo};
pub use machine::Machine;
pub use run_info::RunInfo;
pub use study::Study;
