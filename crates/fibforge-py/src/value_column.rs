//! A file's value column as Python values: the name `value=` gives it ([`value_column`]) and
//! the Python object of one value text ([`value_object`]). Shared by `Table.load`
//! ([`crate::load`]) and export files ([`crate::compiled`]), in a file of its own so that
//! neither imports the other.

use fibforge_io::ValueColumn;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyInt;

/// The value column `value=` names; ValueError for another name.
pub fn value_column(value: &str) -> PyResult<ValueColumn> {
    match value {
        "next_hop" => Ok(ValueColumn::NextHop),
        "origin_as" => Ok(ValueColumn::OriginAs),
        _ => Err(PyValueError::new_err(format!(
            "value must be 'next_hop' or 'origin_as', not {value:?}"
        ))),
    }
}

/// The Python value of a file's value text: the text itself, or an int AS number.
pub fn value_object<'py>(
    py: Python<'py>,
    text: &str,
    column: ValueColumn,
) -> PyResult<Bound<'py, PyAny>> {
    match column {
        ValueColumn::NextHop => Ok(text.into_pyobject(py)?.into_any()),
        // A route without AS path (fibforge-io's `-`) has no origin AS.
        ValueColumn::OriginAs if text == "-" => Ok(py.None().into_bound(py)),
        ValueColumn::OriginAs => {
            let asn: u32 = text.parse().map_err(|_| {
                PyValueError::new_err(format!("origin AS {text:?} is not a number"))
            })?;
            Ok(PyInt::new(py, asn).into_any())
        }
    }
}
