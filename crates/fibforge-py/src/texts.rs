//! Text columns for batch lookups, read where they lie so that no Python object is touched
//! per row under the GIL where the layout allows it ([`Source`]):
//!
//! - pyarrow `string` / `large_string` arrays and chunked arrays, and pandas columns backed
//!   by them: the offsets and data buffers themselves (no copy);
//! - numpy `str_` (fixed-width UCS-4) and `bytes_` arrays: the array's buffer (no copy;
//!   a non-contiguous or byte-swapped array is copied once by numpy);
//! - lists, tuples and object arrays of `str`: `"\n".join(...)`, then one UTF-8 encode (C
//!   loops, no Python code per row); a non-`str` item or a text holding a newline falls
//!   back to copying row by row, whose errors name the row.
//!
//! A column with missing values (Arrow nulls) takes the route numpy's conversion takes, so
//! None and NaN raise the same `TypeError` naming the row as before. The rows are parsed
//! without the GIL ([`crate::parse_ip`]) from [`Rows`], plain slices borrowed from the
//! [`Source`], which holds the Python objects that own the memory.

use crate::parse_ip::Part;
use numpy::{PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

/// Rows between two remembered positions of a joined column.
const MARK: usize = 1024;

/// Where a column's texts lie, and the Python objects that keep them alive.
pub enum Source<'py> {
    /// Rows joined by newlines: row `k * MARK` starts at `marks[k]`.
    Lines { joined: Bound<'py, PyBytes>, marks: Vec<usize>, n: usize },
    /// Rows copied one by one: row `i` ends at `ends[i]`.
    Packed { bytes: Vec<u8>, ends: Vec<usize> },
    /// A numpy fixed-width array as `(n, itemsize)` bytes; UCS-4 (`str_`) or bytes.
    Fixed { view: PyReadonlyArray2<'py, u8>, ucs4: bool },
    /// Arrow string arrays, in order.
    Arrow(Vec<ArrowChunk<'py>>),
}

/// One Arrow `string` / `large_string` array with no nulls.
pub struct ArrowChunk<'py> {
    /// The array and its buffers, which own the memory below.
    _owners: [Bound<'py, PyAny>; 3],
    /// Address and byte size of the offsets and data buffers.
    offsets: (usize, usize),
    data: (usize, usize),
    /// The array's first row in its buffers, and its number of rows.
    first: usize,
    len: usize,
    /// 64-bit offsets (`large_string`).
    large: bool,
}

/// A column's rows as borrowed slices (no Python objects: usable without the GIL).
#[derive(Clone, Copy)]
pub enum Rows<'a> {
    /// See [`Source::Lines`].
    Lines { bytes: &'a [u8], marks: &'a [usize] },
    /// See [`Source::Packed`].
    Packed { bytes: &'a [u8], ends: &'a [usize] },
    /// Rows of `width` bytes, NUL-padded; 4-byte native-order characters when `ucs4`.
    Fixed { data: &'a [u8], width: usize, ucs4: bool },
    /// Arrow `string`: row `i` is `data[offsets[i]..offsets[i + 1]]`.
    Arrow32 { offsets: &'a [i32], data: &'a [u8] },
    /// Arrow `large_string`.
    Arrow64 { offsets: &'a [i64], data: &'a [u8] },
}

impl Source<'_> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Source::Lines { n, .. } => *n,
            Source::Packed { ends, .. } => ends.len(),
            Source::Fixed { view, .. } => view.as_array().nrows(),
            Source::Arrow(chunks) => chunks.iter().map(|c| c.len).sum(),
        }
    }

    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows, as runs of one layout covering `0..len()` in order.
    pub fn parts(&self) -> Vec<Part<'_>> {
        let len = self.len();
        let whole = |rows| vec![Part { base: 0, len, rows }];
        match self {
            Source::Lines { joined, marks, .. } => {
                whole(Rows::Lines { bytes: joined.as_bytes(), marks })
            }
            Source::Packed { bytes, ends } => whole(Rows::Packed { bytes, ends }),
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
                        let part = Part { base, len: c.len, rows: c.rows() };
                        base += c.len;
                        part
                    })
                    .collect()
            }
        }
    }
}

impl ArrowChunk<'_> {
    fn rows(&self) -> Rows<'_> {
        // SAFETY: `arrow_chunk` checked that the data buffer is `data.1` bytes at `data.0`
        // (pyarrow's `Buffer.address` and `.size`), and `_owners` keeps the buffer alive
        // for the lifetime of `self`; Arrow buffers are immutable.
        let data = unsafe { raw_slice::<u8>(self.data) };
        let range = self.first..self.first + self.len + 1;
        if self.large {
            // SAFETY: as above; `arrow_chunk` checked the alignment for i64 and that
            // `range` lies inside the buffer.
            let offsets = unsafe { raw_slice::<i64>(self.offsets) };
            Rows::Arrow64 { offsets: &offsets[range], data }
        } else {
            // SAFETY: as above, for i32.
            let offsets = unsafe { raw_slice::<i32>(self.offsets) };
            Rows::Arrow32 { offsets: &offsets[range], data }
        }
    }
}

/// The `T`s in `(address, byte size)`; empty when the size is 0.
///
/// # Safety
/// The memory must be live, aligned for `T`, and unchanged while the slice is used.
unsafe fn raw_slice<'a, T>((address, size): (usize, usize)) -> &'a [T] {
    if size < size_of::<T>() {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(address as *const T, size / size_of::<T>()) }
}

impl Rows<'_> {
    /// Calls `f(i, text)` for rows `start + i`, `i` in `0..len`, in order; `text` is None
    /// where Arrow offsets point outside the data. `scratch` holds UCS-4 rows as bytes.
    pub fn each(
        &self,
        start: usize,
        len: usize,
        scratch: &mut Vec<u8>,
        mut f: impl FnMut(usize, Option<&[u8]>) -> Result<(), String>,
    ) -> Result<(), String> {
        match *self {
            Rows::Lines { bytes, marks } => {
                let mut pos = marks[start / MARK];
                for _ in 0..start % MARK {
                    pos = line_end(bytes, pos) + 1;
                }
                for i in 0..len {
                    let end = line_end(bytes, pos);
                    f(i, Some(&bytes[pos..end]))?;
                    pos = end + 1;
                }
            }
            Rows::Packed { bytes, ends } => {
                for i in 0..len {
                    let row = start + i;
                    let first = if row == 0 { 0 } else { ends[row - 1] };
                    f(i, Some(&bytes[first..ends[row]]))?;
                }
            }
            Rows::Fixed { data, width, ucs4 } => {
                for i in 0..len {
                    // `fixed` made the view C-contiguous, so every row is in `data`.
                    let row = data.get((start + i) * width..(start + i + 1) * width);
                    let row = row.unwrap_or_default();
                    if ucs4 {
                        scratch.clear();
                        // Non-ASCII characters cannot be in an address: 0xFF makes the parser
                        // refuse them.
                        scratch.extend(
                            row.chunks_exact(4)
                                .map(|c| u32::from_ne_bytes(c.try_into().expect("4 bytes")))
                                .take_while(|&c| c != 0)
                                .map(|c| u8::try_from(c).unwrap_or(0xFF)),
                        );
                        f(i, Some(scratch))?;
                    } else {
                        let end = memchr::memchr(0, row).unwrap_or(width);
                        f(i, Some(&row[..end]))?;
                    }
                }
            }
            Rows::Arrow32 { offsets, data } => {
                for i in 0..len {
                    f(i, arrow_row(data, offsets[start + i], offsets[start + i + 1]))?;
                }
            }
            Rows::Arrow64 { offsets, data } => {
                for i in 0..len {
                    f(i, arrow_row(data, offsets[start + i], offsets[start + i + 1]))?;
                }
            }
        }
        Ok(())
    }
}

/// The end of the line starting at `pos` (a newline, or the end of `bytes`).
fn line_end(bytes: &[u8], pos: usize) -> usize {
    memchr::memchr(b'\n', &bytes[pos.min(bytes.len())..]).map_or(bytes.len(), |k| pos + k)
}

fn arrow_row<O: TryInto<usize>>(data: &[u8], start: O, end: O) -> Option<&[u8]> {
    data.get(start.try_into().ok()?..end.try_into().ok()?)
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

/// Rows of Python str objects, copied one by one.
fn strings<'py>(items: impl Iterator<Item = Bound<'py, PyAny>>) -> PyResult<Source<'py>> {
    let (mut bytes, mut ends) = (Vec::new(), Vec::new());
    for (i, item) in items.enumerate() {
        let s = item.cast::<PyString>().map_err(|_| {
            let kind = item.get_type().name().map_or("?".into(), |n| n.to_string());
            PyTypeError::new_err(format!("row {i}: an address must be a str, not {kind}"))
        })?;
        // `to_cow` borrows the UTF-8 form (a copy only in the abi3 build before Python 3.10,
        // whose limited API has no borrowed form).
        bytes.extend_from_slice(s.to_cow()?.as_bytes());
        ends.push(bytes.len());
    }
    Ok(Source::Packed { bytes, ends })
}

/// A 1-D numpy `str_` or `bytes_` array as `(n, itemsize)` bytes in native order.
fn fixed<'py>(array: &Bound<'py, PyAny>, ucs4: bool) -> PyResult<Source<'py>> {
    let py = array.py();
    let n = array.len()?;
    let dtype = array.getattr("dtype")?.call_method1("newbyteorder", ("=",))?;
    let itemsize: usize = dtype.getattr("itemsize")?.extract()?;
    if itemsize == 0 {
        // Zero-width texts: every row is "" (numpy cannot view them as bytes).
        return Ok(Source::Packed { bytes: Vec::new(), ends: vec![0; n] });
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

/// The string chunks of a pyarrow array or chunked array, or of a pandas column backed by
/// one; None when `obj` is none of these, holds another type or has nulls.
fn arrow<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Vec<ArrowChunk<'py>>>> {
    let py = obj.py();
    let modules = py.import("sys")?.getattr("modules")?;
    // A pyarrow object means pyarrow is imported already: never import it here.
    let Some(pa) = modules.cast::<PyDict>()?.get_item("pyarrow")? else { return Ok(None) };
    let (array_type, chunked_type) = (pa.getattr("Array")?, pa.getattr("ChunkedArray")?);
    let mut obj = obj.clone();
    if !obj.is_instance(&array_type)? && !obj.is_instance(&chunked_type)? {
        match pandas_arrow(&obj)? {
            Some(inner) => obj = inner,
            None => return Ok(None),
        }
    }
    let chunks = if obj.is_instance(&chunked_type)? {
        obj.getattr("chunks")?.extract::<Vec<Bound<'py, PyAny>>>()?
    } else if obj.is_instance(&array_type)? {
        vec![obj]
    } else {
        return Ok(None);
    };
    let types = pa.getattr("types")?;
    let mut out = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let kind = chunk.getattr("type")?;
        let large = if types.call_method1("is_string", (&kind,))?.is_truthy()? {
            false
        } else if types.call_method1("is_large_string", (&kind,))?.is_truthy()? {
            true
        } else {
            return Ok(None);
        };
        match arrow_chunk(chunk, large)? {
            Some(c) => out.push(c),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// The Arrow array inside a pandas column (Series, Index or array) whose dtype is backed
/// by pyarrow (`str` with pyarrow storage, `string[pyarrow]`, `ArrowDtype`); None otherwise.
fn pandas_arrow<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Ok(dtype) = obj.getattr("dtype") else { return Ok(None) };
    let storage = dtype.getattr("storage").ok().and_then(|s| s.extract::<String>().ok());
    if storage.as_deref() != Some("pyarrow") && !dtype.hasattr("pyarrow_dtype")? {
        return Ok(None);
    }
    let inner = if obj.hasattr("__arrow_array__")? { obj.clone() } else { obj.getattr("array")? };
    if !inner.hasattr("__arrow_array__")? {
        return Ok(None);
    }
    inner.call_method0("__arrow_array__").map(Some)
}

/// One Arrow string array's buffers, checked; None when it has nulls or its buffers are
/// not as expected (the caller then takes numpy's route).
fn arrow_chunk(chunk: Bound<'_, PyAny>, large: bool) -> PyResult<Option<ArrowChunk<'_>>> {
    if chunk.getattr("null_count")?.extract::<usize>()? > 0 {
        return Ok(None);
    }
    let len = chunk.len()?;
    let first: usize = chunk.getattr("offset")?.extract()?;
    let buffers = chunk.call_method0("buffers")?.extract::<Vec<Option<Bound<'_, PyAny>>>>()?;
    let [_, Some(offsets), data] = <[_; 3]>::try_from(buffers).unwrap_or([None, None, None]) else {
        return Ok(None);
    };
    // Device (CUDA) buffers have addresses this process cannot read.
    let on_cpu = |b: &Bound<'_, PyAny>| -> PyResult<bool> {
        Ok(!b.hasattr("is_cpu")? || b.getattr("is_cpu")?.is_truthy()?)
    };
    if !on_cpu(&offsets)? || data.as_ref().map(on_cpu).transpose()? == Some(false) {
        return Ok(None);
    }
    let where_ = |b: &Bound<'_, PyAny>| -> PyResult<(usize, usize)> {
        Ok((b.getattr("address")?.extract()?, b.getattr("size")?.extract()?))
    };
    let offsets_at = where_(&offsets)?;
    let data_at = match &data {
        Some(d) => where_(d)?,
        None => (0, 0),
    };
    if offsets_at.0 == 0 || (data_at.0 == 0 && data_at.1 > 0) {
        return Ok(None);
    }
    let width = if large { size_of::<i64>() } else { size_of::<i32>() };
    let fits = (first + len + 1)
        .checked_mul(width)
        .is_some_and(|need| need <= offsets_at.1 && offsets_at.0 % width == 0);
    if !fits {
        return Ok(None);
    }
    let data = data.unwrap_or_else(|| offsets.clone());
    Ok(Some(ArrowChunk {
        _owners: [chunk, offsets, data],
        offsets: offsets_at,
        data: data_at,
        first,
        len,
        large,
    }))
}
