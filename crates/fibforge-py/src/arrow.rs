//! pyarrow `string` / `large_string` columns for [`crate::texts`]: the offsets and data
//! buffers of each chunk, read in place through pyarrow's `Buffer.address` and `.size`
//! (pyarrow is never imported here: a pyarrow object means it is imported already).
//!
//! A chunk with nulls, another type, buffers off the CPU or not as Arrow lays them out gives
//! None: the caller then takes numpy's route, whose errors name the row.

use crate::rows::Rows;
use pyo3::prelude::*;
use pyo3::types::PyDict;

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

impl ArrowChunk<'_> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chunk's rows.
    pub fn rows(&self) -> Rows<'_> {
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

/// The string chunks of a pyarrow array or chunked array, or of a pandas column backed by
/// one; None when `obj` is none of these, holds another type or has nulls.
pub fn arrow<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Vec<ArrowChunk<'py>>>> {
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
