//! `values_of`'s `ids`: the value ids `lookup_batch` answers (a numpy `uint32` array), or
//! any 1-D column of integers (other integer dtypes, lists and tuples of ints, pandas
//! Series), each a value id or `NO_ROUTE`. Anything else raises TypeError, and an integer
//! that cannot be a value id ValueError, each saying what is expected (issue 56: numpy's
//! own conversion errors read "'list' object cannot be converted to 'PyArray<T, D>'").

use crate::columns::{dtype_kind, to_u32};
use crate::values::NO_ROUTE;
use numpy::{PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// What `ids` must be, for messages.
const EXPECTED: &str = "ids must be a 1-D column of value ids as lookup_batch answers (a numpy \
                        uint32 array, or any integers: a list of ints, an int64 array)";

/// The value ids of `obj` (see the module docs).
pub fn value_ids(obj: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    if let Ok(a) = obj.extract::<PyReadonlyArray1<'_, u32>>() {
        return Ok(a.as_array().to_vec());
    }
    let np = obj.py().import("numpy")?;
    let array = match dtype_kind(obj)? {
        Some(_) => obj.clone(),
        None => np.call_method1("asarray", (obj,)).map_err(|_| not_ids(obj, None))?,
    };
    let Some((kind, ndim)) = dtype_kind(&array)? else { return Err(not_ids(obj, None)) };
    if ndim != 1 {
        return Err(not_ids(obj, Some(&array)));
    }
    if array.len()? == 0 {
        // `numpy.asarray([])` is a float64 array.
        return Ok(Vec::new());
    }
    if kind != 'i' && kind != 'u' {
        return Err(not_ids(obj, Some(&array)));
    }
    to_u32(&array, kind, |i, v| {
        PyValueError::new_err(format!(
            "ids[{i}]: {v} is not a value id (0 to the table's value count - 1, or NO_ROUTE = \
             {NO_ROUTE})"
        ))
    })
}

/// The TypeError of `obj`, which is not a column of integers (`array`: numpy's view of it).
fn not_ids(obj: &Bound<'_, PyAny>, array: Option<&Bound<'_, PyAny>>) -> PyErr {
    let kind = obj.get_type().name().map_or("?".into(), |n| n.to_string());
    let what = match array.and_then(|a| a.cast::<numpy::PyUntypedArray>().ok()) {
        Some(a) => format!("a {kind} of dtype {} and shape {:?}", a.dtype(), a.shape()),
        None => format!("a {kind}"),
    };
    PyTypeError::new_err(format!("{EXPECTED}, not {what}"))
}
