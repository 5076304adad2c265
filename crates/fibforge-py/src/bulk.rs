//! `Table.from_arrays(prefixes, values)`: a table built in one pass from two columns of equal
//! length (lists, tuples, numpy arrays, pyarrow arrays, pandas or Polars Series: anything
//! with `to_pylist`, `to_list` or `tolist`, or iterable), instead of a Python loop of
//! `t[p] = v` that recompiles nothing but pays a call per route. The routes go to the RIBs,
//! each distinct value is stored once, and the structures are compiled once.

use crate::convert::{self, Mode};
use crate::values::{self, Values};
use fibforge::{AnyPrefix, Rib};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The IPv4 and IPv6 routes of `prefixes` with `values` (a later duplicate prefix wins), and
/// the values; ValueError naming the row for a bad prefix, one of a family `mode` leaves
/// out, or columns of different lengths.
pub fn ribs(
    py: Python<'_>,
    prefixes: &Bound<'_, PyAny>,
    values_in: &Bound<'_, PyAny>,
    mode: Mode,
) -> PyResult<(Rib<u32>, Rib<u128>, Values)> {
    let prefixes = as_list(prefixes)?;
    let values_in = as_list(values_in)?;
    let (n, m) = (prefixes.len()?, values_in.len()?);
    if n != m {
        return Err(PyValueError::new_err(format!(
            "prefixes and values differ in length ({n} and {m})"
        )));
    }
    let values = Values::new(py);
    let (mut v4, mut v6) = (Rib::with_capacity(n), Rib::new());
    for (row, (p, v)) in prefixes.try_iter()?.zip(values_in.try_iter()?).enumerate() {
        let prefix = convert::prefix(&p?)
            .map_err(|e| PyValueError::new_err(format!("row {row}: {}", e.value(py))))?;
        let id = values.intern(&v?)?;
        match (prefix, mode) {
            (AnyPrefix::V4(p), Mode::V4 | Mode::Auto) => {
                v4.insert(p, values::encode(id, p.len()));
            }
            (AnyPrefix::V6(p), Mode::V6 | Mode::Auto) => {
                v6.insert(p, values::encode(id, p.len()));
            }
            (p, _) => {
                return Err(PyValueError::new_err(format!(
                    "row {row}: {p} is not of this table's family ({})",
                    mode.name()
                )));
            }
        }
    }
    Ok((v4, v6, values))
}

/// A column as something cheap to iterate: its Python list when it converts to one.
fn as_list<'py>(column: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    for method in ["to_pylist", "to_list", "tolist"] {
        if column.hasattr(method)? {
            return column.call_method0(method);
        }
    }
    Ok(column.clone())
}
