//! The `algo=` argument of `Table`, `Table.load` and unpickling: its default and the
//! structures it names. Used by [`table`](crate::table) and [`load`](crate::load), neither of
//! which the other needs for it.

use crate::convert::Mode;
use fibforge::sync::{AnyKey, Structure};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The `algo` argument's default.
pub const DEFAULT_ALGO: &str = fibforge::registry::DEFAULT;

/// The structures `algo` names for the families `mode` holds (None for a family it drops);
/// ValueError naming the valid choices when the name or an option is bad.
pub fn structures(mode: Mode, algo: &str) -> PyResult<(Option<Structure>, Option<Structure>)> {
    fn one<A: AnyKey>(keep: bool, algo: &str) -> PyResult<Option<Structure>> {
        keep.then(|| Structure::parse::<A>(algo))
            .transpose()
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
    Ok((one::<u32>(mode != Mode::V6, algo)?, one::<u128>(mode != Mode::V4, algo)?))
}
