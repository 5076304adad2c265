#![warn(clippy::undocumented_unsafe_blocks)]
//! fibforge-py: the `fibforge` Python module (PyO3 + numpy), built with maturin
//! (`pyproject.toml` in this folder).
//!
//! - [`table`]: `fibforge.Table`, the user-facing class, and `_rebuild` for unpickling;
//! - [`algos`]: the `algo=` argument (its default, the structures it names);
//! - [`side`]: one address family (writer behind a mutex, lock-free reader);
//! - [`batch`]: numpy batch lookups with the GIL released;
//! - [`columns`]: other integer dtypes and text columns (parsed in Rust) for the batches;
//! - [`texts`]: text columns read where they lie (Arrow buffers, numpy buffers, joined str);
//! - [`in_place`]: lists and tuples of str parsed from the str objects' own texts;
//! - [`arrow`]: pyarrow string columns' buffers, for [`texts`];
//! - [`parse_ip`]: address texts to addresses, in parallel;
//! - [`convert`]: Python objects to addresses and prefixes;
//! - [`ids`]: the value ids `values_of` takes;
//! - [`values`]: the table's Python values, and the value id and prefix length inside next hops;
//! - [`load`]: `Table.load` (files, value columns, peers);
//! - [`compiled`]: `CompiledTable`, the read-only table `Table.load` returns for an export
//!   file (no compile);
//! - [`export`]: `fibforge.export`, a table compiled into an export file;
//! - [`state`]: the compact pickled form of the routes.
//!
//! Python tests: `crates/fibforge-py/tests` (pytest), run by `./test.sh`.

pub mod algos;
pub mod arrow;
pub mod batch;
pub mod bulk;
pub mod columns;
pub mod compiled;
pub mod convert;
pub mod export;
pub mod ids;
pub mod in_place;
pub mod load;
pub mod parse_ip;
pub mod rows;
pub mod side;
pub mod state;
pub mod table;
pub mod texts;
pub mod value_column;
pub mod values;

use pyo3::prelude::*;

/// Longest-prefix-match (IP routing table) lookups: Poptrie or interval B+-tree tables with
/// numpy batch lookups.
#[pymodule]
#[pyo3(name = "fibforge")]
fn fibforge_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<table::PyTable>()?;
    m.add_class::<compiled::PyCompiled>()?;
    m.add_function(wrap_pyfunction!(table::rebuild, m)?)?;
    m.add_function(wrap_pyfunction!(export::export, m)?)?;
    m.add("NO_ROUTE", values::NO_ROUTE)?;
    m.add("NO_LENGTH", values::NO_LENGTH)?;
    m.add("MAX_VALUES", values::MAX_VALUES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
