//! Text columns for batch lookups, read where they lie so that no Python object is touched
//! per row under the GIL where the layout allows it ([`Source`]):
//!
//! - pyarrow `string` / `large_string` arrays and chunked arrays, and pandas columns backed
//!   by them: the offsets and data buffers themselves (no copy; [`crate::arrow`]);
//! - numpy `str_` (fixed-width UCS-4) and `bytes_` arrays: the array's buffer (no copy;
//!   a non-contiguous or byte-swapped array is copied once by numpy);
//! - lists, tuples and object arrays of `str`: `"\n".join(...)`, then one UTF-8 encode (C
//!   loops, no Python code per row); a non-`str` item or a text holding a newline falls
//!   back to copying row by row, whose errors name the row. (Lists and tuples that are all
//!   str addresses take [`crate::in_place`] first, on Python 3.10 and later; this path is
//!   theirs when that one gives up, and its errors are theirs.)
//!
//! Missing values (None, NaN, pandas NA) are null rows, which answer "no route"; so are the
//! nulls of Arrow columns ([`crate::arrow_in`]). The rows are parsed
//! without the GIL ([`crate::parse_ip`]) from [`Rows`], plain slices borrowed from the
//! [`Source`], which holds the Python objects that own the memory.

use crate::arrow::{ArrowChunk, arrow};
use crate::parse_ip::Part;
use crate::rows::MARK;
pub use crate::rows::Rows;
use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

/// Where a column's texts lie, and the Python objects that keep them alive.
pub enum Source<'py> {
    /// Rows joined by newlines: row `k * MARK` starts at `marks[k]`.
    Lines { joined: Bound<'py, PyBytes>, marks: Vec<usize>, n: usize },
    /// Rows copied one by one: row `i` ends at `ends[i]`; `nulls` marks the missing ones
    /// (None, NaN, pandas NA).
    Packed { bytes: Vec<u8>, ends: Vec<usize>, nulls: Option<arrow_buffer::NullBuffer> },
    /// A numpy fixed-width array as `(n, itemsize)` bytes; UCS-4 (`str_`) or bytes.
    Fixed { view: PyReadonlyArray2<'py, u8>, ucs4: bool },
    /// Arrow string arrays, in order.
    Arrow(Vec<ArrowChunk<'py>>),
}

impl Source<'_> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Source::Lines { n, .. } => *n,
            Source::Packed { ends, .. } => ends.len(),
            Source::Fixed { view, .. } => view.as_array().nrows(),
            Source::Arrow(chunks) => chunks.iter().map(ArrowChunk::len).sum(),
        }
    }

    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows, as runs of one layout covering `0..len()` in order.
    pub fn parts(&self) -> Vec<Part<'_>> {
        let len = self.len();
        let whole = |rows| vec![Part { base: 0, len, rows, nulls: None, packed: false }];
        match self {
            Source::Lines { joined, marks, .. } => {
                whole(Rows::Lines { bytes: joined.as_bytes(), marks })
            }
            Source::Packed { bytes, ends, nulls } => {
                let rows = Rows::Packed { bytes, ends };
                vec![Part { base: 0, len, rows, nulls: nulls.as_ref(), packed: false }]
            }
            Source::Fixed { view, ucs4 } => {
                let width = view.as_array().ncols();
                // `fixed` made the view C-contiguous.
                let data = view.as_slice().unwrap_or_default();
                whole(Rows::Fixed { data, width, ucs4: *ucs4 })
            }
            Source::Arrow(chunks) => {
                let mut base = 0;
                chunks
                    .iter()
                    .map(|c| {
                        let part =
                            Part { base, len: c.len(), rows: c.rows(), nulls: None, packed: false };
                        base += c.len();
                        part
                    })
                    .collect()
            }
        }
    }
}

/// The rows of a text column (None when `obj` is not one).
pub fn texts<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Source<'py>>> {
    if let Ok(list) = obj.cast::<PyList>() {
        return lines_or_rows(obj, list.len(), || strings(list.iter())).map(Some);
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return lines_or_rows(obj, tuple.len(), || strings(tuple.iter())).map(Some);
    }
    if let Some(chunks) = arrow(obj)? {
        return Ok(Some(Source::Arrow(chunks)));
    }
    let np = obj.py().import("numpy")?;
    let array = if obj.is_instance(&np.getattr("ndarray")?)? {
        obj.clone()
    } else if obj.hasattr("__array__")? {
        // pandas Series, pyarrow arrays with nulls, ...: whatever numpy makes of them.
        np.call_method1("asarray", (obj,))?
    } else {
        return Ok(None);
    };
    if array.getattr("ndim")?.extract::<usize>()? != 1 {
        return Ok(None);
    }
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    match kind.as_str() {
        "U" | "S" => fixed(&array, kind == "U").map(Some),
        "O" => {
            let list = array.call_method0("tolist")?.cast_into::<PyList>()?;
            lines_or_rows(list.as_any(), list.len(), || strings(list.iter())).map(Some)
        }
        _ => Ok(None),
    }
}

/// `seq` (a list or tuple of `n` str) joined by newlines, or `rows()` when an item is not a
/// str, holds a newline or has no UTF-8 form.
fn lines_or_rows<'py>(
    seq: &Bound<'py, PyAny>,
    n: usize,
    rows: impl FnOnce() -> PyResult<Source<'py>>,
) -> PyResult<Source<'py>> {
    if n == 0 {
        return rows();
    }
    let joined = PyString::new(seq.py(), "\n")
        .call_method1("join", (seq,))
        .and_then(|j| j.call_method1("encode", ("utf-8",)))
        .and_then(|b| Ok(b.cast_into::<PyBytes>()?));
    let Ok(joined) = joined else { return rows() };
    let bytes = joined.as_bytes();
    let mut marks = vec![0];
    let mut lines = 1;
    for k in memchr::memchr_iter(b'\n', bytes) {
        if lines % MARK == 0 {
            marks.push(k + 1);
        }
        lines += 1;
    }
    if lines != n {
        return rows();
    }
    Ok(Source::Lines { joined, marks, n })
}

/// Rows of Python str objects, copied one by one; None, NaN and pandas NA are null rows
/// (no route), and `ipaddress` addresses are read as their text.
fn strings<'py>(items: impl Iterator<Item = Bound<'py, PyAny>>) -> PyResult<Source<'py>> {
    let (mut bytes, mut ends, mut valid) = (Vec::new(), Vec::new(), Vec::new());
    let mut ipaddress = None;
    for (i, item) in items.enumerate() {
        if missing(&item)? {
            ends.push(bytes.len());
            valid.push(false);
            continue;
        }
        valid.push(true);
        if !item.is_instance_of::<PyString>() {
            let module = match &ipaddress {
                Some(m) => m,
                None => ipaddress.insert(item.py().import("ipaddress")?),
            };
            let v4 = module.getattr("IPv4Address")?;
            let v6 = module.getattr("IPv6Address")?;
            if item.is_instance(&v4)? || item.is_instance(&v6)? {
                bytes.extend_from_slice(item.str()?.to_cow()?.as_bytes());
                ends.push(bytes.len());
                continue;
            }
        }
        let s = item.cast::<PyString>().map_err(|_| {
            let kind = item.get_type().name().map_or("?".into(), |n| n.to_string());
            PyTypeError::new_err(format!("row {i}: an address must be a str, not {kind}"))
        })?;
        // `to_cow` borrows the UTF-8 form (a copy only in the abi3 build before Python 3.10,
        // whose limited API has no borrowed form).
        bytes.extend_from_slice(s.to_cow()?.as_bytes());
        ends.push(bytes.len());
    }
    let nulls = valid.contains(&false).then(|| arrow_buffer::NullBuffer::from(valid));
    Ok(Source::Packed { bytes, ends, nulls })
}

/// None, a float NaN (numpy's and pandas' missing value) or pandas' `NA` / `NaT`.
fn missing(item: &Bound<'_, PyAny>) -> PyResult<bool> {
    if item.is_none() {
        return Ok(true);
    }
    if let Ok(f) = item.cast::<pyo3::types::PyFloat>() {
        return Ok(f.value().is_nan());
    }
    let kind = item.get_type().name()?;
    Ok(kind == "NAType" || kind == "NaTType")
}

/// A 1-D numpy `str_` or `bytes_` array as `(n, itemsize)` bytes in native order.
fn fixed<'py>(array: &Bound<'py, PyAny>, ucs4: bool) -> PyResult<Source<'py>> {
    let py = array.py();
    let n = array.len()?;
    let dtype = array.getattr("dtype")?.call_method1("newbyteorder", ("=",))?;
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    if itemsize == 0 {
        // Zero-width texts: every row is "" (numpy cannot view them as bytes).
        return Ok(Source::Packed { bytes: Vec::new(), ends: vec![0; n], nulls: None });
    }
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", dtype)?;
    let contiguous =
        py.import("numpy")?.getattr("ascontiguousarray")?.call((array,), Some(&kwargs))?;
    let view = contiguous.call_method1("view", ("u1",))?.call_method1("reshape", (n, itemsize))?;
    let view: PyReadonlyArray2<'py, u8> = view.extract()?;
    if !view.is_c_contiguous() {
        return Err(PyTypeError::new_err("a text array numpy could not make contiguous"));
    }
    Ok(Source::Fixed { view, ucs4 })
}
