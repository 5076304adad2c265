//! `Table.lookup_arrow`: an Arrow column of addresses ([`crate::arrow_in`]) to typed Arrow
//! answers, exported through the Arrow C data interface ([`ArrowColumn`]).
//!
//! Fields: `id` (value ids, `uint32`), `length` (matched prefix lengths, `uint8`), `prefix`
//! (the matched prefixes as text, `string`, built here row by row) and `value` (the values:
//! `int64` when every value is an int, `float64` when every one is a float, `string` when
//! every one is a str, else the `str()` of each, as `string`; None values are nulls). A row
//! with no route (null rows included) is null in every field.

use crate::arrow_in::{Column, Keys};
use crate::side::{Answers, Sides};
use crate::values::{NO_LENGTH, Values};
use arrow_array::builder::StringBuilder;
use arrow_array::{
    Array, ArrayRef, Float64Array, Int64Array, StringArray, StructArray, UInt8Array, UInt32Array,
    new_null_array,
};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::{DataType, Field, FieldRef, Fields};
use fibforge::Prefix;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyFloat, PyInt, PyString, PyTuple};
use pyo3_arrow::ffi::{
    ArrayIterator, to_array_pycapsules, to_schema_pycapsule, to_stream_pycapsule,
};
use std::fmt::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// The fields `lookup_arrow` can answer.
const FIELDS: [&str; 4] = ["id", "length", "prefix", "value"];

/// An Arrow array of answers (`fibforge.ArrowColumn`), exported through the Arrow PyCapsule
/// interface: `pyarrow.array(c)`, `polars.Series(c)`, `nanoarrow.c_array(c)` take it as is.
#[pyclass(frozen, module = "fibforge", name = "ArrowColumn")]
pub struct ArrowColumn {
    array: ArrayRef,
    field: FieldRef,
}

#[pymethods]
impl ArrowColumn {
    fn __len__(&self) -> usize {
        self.array.len()
    }

    fn __repr__(&self) -> String {
        format!("fibforge.ArrowColumn({}, len={})", self.field.data_type(), self.array.len())
    }

    /// The Arrow type, as Arrow writes it.
    #[getter]
    fn r#type(&self) -> String {
        self.field.data_type().to_string()
    }

    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        Ok(to_schema_pycapsule(py, self.field.as_ref())?)
    }

    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        Ok(to_array_pycapsules(py, self.field.clone(), &self.array, requested_schema)?)
    }

    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyCapsule>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let chunks = ArrayIterator::new(vec![Ok(self.array.clone())], self.field.clone());
        Ok(to_stream_pycapsule(py, Box::new(chunks), requested_schema)?)
    }
}

/// The field names `fields` asks for (a str: one field, a plain array; a sequence: a
/// struct of them), checked.
fn field_names(fields: Option<&Bound<'_, PyAny>>) -> PyResult<(Vec<String>, bool)> {
    let Some(fields) = fields else { return Ok((vec!["prefix".into(), "value".into()], false)) };
    let (names, single) = match fields.cast::<PyString>() {
        Ok(s) => (vec![s.to_cow()?.into_owned()], true),
        Err(_) => (fields.extract::<Vec<String>>()?, false),
    };
    if names.is_empty() {
        return Err(PyValueError::new_err("fields must name at least one field"));
    }
    if let Some(bad) = names.iter().find(|n| !FIELDS.contains(&n.as_str())) {
        return Err(PyValueError::new_err(format!(
            "fields: {bad:?} is not one of 'id', 'length', 'prefix', 'value'"
        )));
    }
    Ok((names, single))
}

/// A table's values as one Arrow array (`value_array`), made again only when values
/// were added since (a value id never changes its value, so the count tells).
#[derive(Default)]
pub struct ValueCache(Mutex<Option<(usize, ArrayRef)>>);

/// `Table.lookup_arrow` (see the module docs and `__init__.pyi`).
pub fn lookup_arrow(
    sides: Sides<'_>,
    values: (&Values, &ValueCache),
    addrs: &Bound<'_, PyAny>,
    fields: Option<&Bound<'_, PyAny>>,
    threads: i64,
) -> PyResult<ArrowColumn> {
    let py = addrs.py();
    let (names, single) = field_names(fields)?;
    let threads = crate::batch::thread_count(threads)?;
    let column = crate::arrow_in::column(addrs, true)?.ok_or_else(|| {
        PyTypeError::new_err(
            "lookup_arrow takes an Arrow column (an object with __arrow_c_array__ or \
             __arrow_c_stream__: pyarrow, Polars, DuckDB, nanoarrow)",
        )
    })?;
    let want_value = names.iter().any(|n| n == "value");
    let value_list = if want_value { Some(value_array(py, values)?) } else { None };
    let want_prefix = names.iter().any(|n| n == "prefix");
    let arrays = py.detach(|| -> Result<Vec<ArrayRef>, String> {
        let n = column.len();
        let (mut ids, mut lens) = (vec![0u32; n], vec![0u8; n]);
        let keys =
            column.lookup(&sides, Answers { ids: &mut ids, lens: Some(&mut lens) }, threads)?;
        let found = BooleanBuffer::collect_bool(n, |i| lens[i] != NO_LENGTH);
        let nulls = Some(NullBuffer::new(found)).filter(|b| b.null_count() > 0);
        let prefixes = want_prefix.then(|| prefixes(&column, &keys, &lens));
        let mut out = Vec::with_capacity(names.len());
        for name in &names {
            out.push(match name.as_str() {
                "id" => Arc::new(UInt32Array::new(ids.clone().into(), nulls.clone())) as ArrayRef,
                "length" => Arc::new(UInt8Array::new(lens.clone().into(), nulls.clone())),
                "prefix" => prefixes.clone().expect("prefixes built"),
                _ => taken(value_list.as_ref().expect("values listed"), &ids, nulls.as_ref())?,
            });
        }
        Ok(out)
    });
    let arrays = arrays.map_err(PyValueError::new_err)?;
    let fields: Vec<FieldRef> = names
        .iter()
        .zip(&arrays)
        .map(|(n, a)| Arc::new(Field::new(n, a.data_type().clone(), true)))
        .collect();
    if single {
        return Ok(ArrowColumn { array: arrays[0].clone(), field: fields[0].clone() });
    }
    let array = StructArray::try_new(Fields::from(fields), arrays, None)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let field = Arc::new(Field::new("", array.data_type().clone(), true));
    Ok(ArrowColumn { array: Arc::new(array), field })
}

/// The table's values as one Arrow array, index = value id (see the module docs), from the
/// cache when no value was added since it was made.
fn value_array(py: Python<'_>, (values, cache): (&Values, &ValueCache)) -> PyResult<ArrayRef> {
    let count = values.len(py);
    let lock = || cache.0.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((n, array)) = lock().as_ref().filter(|(n, _)| *n == count) {
        debug_assert_eq!(*n, count);
        return Ok(array.clone());
    }
    // Made without the cache's lock: `str()` of a value runs Python code.
    let array = make_value_array(py, values)?;
    *lock() = Some((array.len(), array.clone()));
    Ok(array)
}

fn make_value_array(py: Python<'_>, values: &Values) -> PyResult<ArrayRef> {
    let list = values.to_list(py)?;
    let items: Vec<Bound<'_, PyAny>> = list.iter().collect();
    let present = || items.iter().filter(|v| !v.is_none());
    let is_int = |v: &&Bound<'_, PyAny>| v.is_exact_instance_of::<PyInt>();
    if present().all(|v| is_int(&v)) && present().all(|v| v.extract::<i64>().is_ok()) {
        let ints: Vec<Option<i64>> = items.iter().map(|v| v.extract().ok()).collect();
        return Ok(Arc::new(Int64Array::from(ints)));
    }
    if present().all(|v| v.is_exact_instance_of::<PyFloat>()) {
        let floats: Vec<Option<f64>> = items.iter().map(|v| v.extract().ok()).collect();
        return Ok(Arc::new(Float64Array::from(floats)));
    }
    let texts = items
        .iter()
        .map(|v| {
            if v.is_none() {
                return Ok(None);
            }
            match v.cast::<PyString>() {
                Ok(s) => Ok(Some(s.to_cow()?.into_owned())),
                Err(_) => Ok(Some(v.str()?.to_cow()?.into_owned())),
            }
        })
        .collect::<PyResult<Vec<Option<String>>>>()?;
    Ok(Arc::new(StringArray::from(texts)))
}

/// The values of `ids` (null where `nulls` says no route).
fn taken(values: &ArrayRef, ids: &[u32], nulls: Option<&NullBuffer>) -> Result<ArrayRef, String> {
    if values.is_empty() {
        return Ok(new_null_array(values.data_type(), ids.len()));
    }
    // Index 0 in the rows without a route (null in the index array, never read as a value).
    let index: Vec<u32> = match nulls {
        Some(n) => ids.iter().zip(n.iter()).map(|(&id, ok)| if ok { id } else { 0 }).collect(),
        None => ids.to_vec(),
    };
    let index = UInt32Array::new(index.into(), nulls.cloned());
    arrow_select::take::take(values.as_ref(), &index, None).map_err(|e| e.to_string())
}

/// The matched prefix of every row as text (null where `lens` is `NO_LENGTH`).
fn prefixes(column: &Column, keys: &Keys<'_>, lens: &[u8]) -> ArrayRef {
    let n = lens.len();
    let mut out = StringBuilder::with_capacity(n, n * 16);
    let mut text = Vec::with_capacity(64);
    let mut v4_prefix = |out: &mut StringBuilder, addr: u32, len: u8| {
        text.clear();
        write_v4_prefix(&mut text, addr, len);
        // Only ASCII digits, dots and a slash.
        out.append_value(std::str::from_utf8(&text).unwrap_or_default());
    };
    match keys {
        Keys::Ints(_) => {
            for (addr, &len) in column.int_rows().zip(lens) {
                if len == NO_LENGTH {
                    out.append_null();
                } else {
                    v4_prefix(&mut out, addr, len);
                }
            }
        }
        Keys::Parsed(parsed) => {
            let mut v6 = parsed.v6.iter().peekable();
            for (row, &len) in lens.iter().enumerate() {
                let six = v6.next_if(|(r, _)| *r == row).map(|&(_, a)| a);
                if len == NO_LENGTH {
                    out.append_null();
                } else if let Some(addr) = six {
                    let prefix =
                        Prefix::new_masked(addr, u32::from(len)).expect("stored lengths fit");
                    let _ = write!(out, "{prefix}");
                    out.append_value("");
                } else {
                    v4_prefix(&mut out, parsed.v4[row], len);
                }
            }
        }
    }
    Arc::new(out.finish())
}

/// Writes `addr` masked to `len` bits, as `a.b.c.d/len`.
fn write_v4_prefix(out: &mut Vec<u8>, addr: u32, len: u8) {
    let masked = if len == 0 { 0 } else { addr & (u32::MAX << (32 - u32::from(len.min(32)))) };
    for (i, octet) in masked.to_be_bytes().into_iter().enumerate() {
        if i > 0 {
            out.push(b'.');
        }
        decimal(out, octet);
    }
    out.push(b'/');
    decimal(out, len);
}

/// Writes `v` in decimal, without leading zeros.
fn decimal(out: &mut Vec<u8>, v: u8) {
    if v >= 100 {
        out.push(b'0' + v / 100);
    }
    if v >= 10 {
        out.push(b'0' + (v / 10) % 10);
    }
    out.push(b'0' + v % 10);
}

/// The Arrow type of the `value` field for this table's values now: "int64", "float64" or
/// "string" (for the Polars and DuckDB helpers' declared return types).
pub fn value_type(py: Python<'_>, values: (&Values, &ValueCache)) -> PyResult<&'static str> {
    Ok(match value_array(py, values)?.data_type() {
        DataType::Int64 => "int64",
        DataType::Float64 => "float64",
        _ => "string",
    })
}
