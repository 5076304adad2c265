//! Arrow columns through the Arrow C data interface (the PyCapsule protocol, imported by
//! `pyo3-arrow`): any object with `__arrow_c_array__` or `__arrow_c_stream__` (pyarrow
//! arrays and chunked arrays, Polars Series, DuckDB results, nanoarrow arrays). The
//! buffers are read where they lie: the import shares them, nothing is copied.
//!
//! Accepted types ([`Column`]): `uint32` (IPv4 as integers), `string`, `large_string`,
//! `string_view` (address texts, parsed as [`crate::parse_ip`] reads every text), `binary`,
//! `large_binary`, `binary_view` and `fixed_size_binary[4 | 16]` (addresses in network byte
//! order, 4 bytes IPv4, 16 bytes IPv6), and `null`. Null rows answer "no route".

use crate::columns;
use crate::parse_ip::{Parsed, Part};
use crate::rows::Rows;
use crate::side::{Answers, Sides};
use arrow_array::cast::AsArray;
use arrow_array::types::UInt32Type;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3_arrow::{PyArray, PyArrayReader};

/// An Arrow column of addresses: its chunks, in order, all of one accepted type.
pub struct Column {
    chunks: Vec<ArrayRef>,
    /// Each chunk's validity (None: no null).
    nulls: Vec<Option<NullBuffer>>,
    kind: Kind,
}

/// How a column's rows hold addresses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `uint32`: IPv4 addresses as integers.
    Ints,
    /// Address texts.
    Texts,
    /// Addresses in network byte order.
    Packed,
}

/// The addresses a column's lookups read, for the matched prefixes ([`crate::arrow_out`]).
pub enum Keys<'a> {
    /// The `uint32` chunks themselves.
    Ints(&'a Column),
    /// The parsed rows.
    Parsed(Parsed),
}

/// The Arrow column `obj` exports (None when it has neither `__arrow_c_array__` nor
/// `__arrow_c_stream__`, or, unless `strict`, when it also converts to numpy and its Arrow
/// form has a type not accepted here: the numpy route then takes it, as before). TypeError
/// naming the type for other Arrow objects.
pub fn column(obj: &Bound<'_, PyAny>, strict: bool) -> PyResult<Option<Column>> {
    let py = obj.py();
    let chunks = if obj.hasattr(intern!(py, "__arrow_c_array__"))? {
        obj.extract::<PyArray>().map(|a| vec![a.into_inner().0])
    } else if obj.hasattr(intern!(py, "__arrow_c_stream__"))? {
        obj.extract::<PyArrayReader>().and_then(|r| {
            let chunks = r.into_reader()?.collect::<Result<Vec<_>, _>>();
            chunks.map_err(|e| PyTypeError::new_err(e.to_string()))
        })
    } else {
        return Ok(None);
    };
    let numpy_too = !strict && obj.hasattr(intern!(py, "__array__"))?;
    let chunks = match chunks {
        Ok(chunks) => chunks,
        Err(_) if numpy_too => return Ok(None),
        Err(e) => return Err(e),
    };
    let kinds = chunks.iter().map(|c| kind(c.data_type())).collect::<Option<Vec<Kind>>>();
    let Some(kinds) = kinds else {
        if numpy_too {
            return Ok(None);
        }
        let types: Vec<String> = chunks.iter().map(|c| c.data_type().to_string()).collect();
        return Err(PyTypeError::new_err(format!(
            "an Arrow column of addresses must be uint32, string, large_string, string_view, \
             binary (4 or 16 bytes a row) or fixed_size_binary[4 | 16], not {}",
            types.first().map_or("?", String::as_str)
        )));
    };
    // A stream's chunks share one type; an all-null chunk (type `null`) takes the others'.
    let kind = kinds.iter().copied().find(|&k| k != Kind::Texts).unwrap_or(Kind::Texts);
    let nulls = chunks.iter().map(|c| c.logical_nulls()).collect();
    Ok(Some(Column { chunks, nulls, kind }))
}

/// The kind of an accepted type (`null` as texts: every row is null).
fn kind(t: &DataType) -> Option<Kind> {
    match t {
        DataType::UInt32 => Some(Kind::Ints),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null => {
            Some(Kind::Texts)
        }
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => Some(Kind::Packed),
        DataType::FixedSizeBinary(4 | 16) => Some(Kind::Packed),
        _ => None,
    }
}

impl Column {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.len()).sum()
    }

    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Each `uint32` chunk's values, with its first row.
    fn ints(&self) -> Vec<(usize, &[u32])> {
        let mut base = 0;
        let mut out = Vec::with_capacity(self.chunks.len());
        for c in &self.chunks {
            let values: &[u32] = match c.as_primitive_opt::<UInt32Type>() {
                Some(a) => a.values(),
                None => &[],
            };
            out.push((base, values));
            base += c.len();
        }
        out
    }

    /// The IPv4 address of row `row` of a `uint32` column (0 in null and all-null rows).
    pub fn int_rows(&self) -> impl Iterator<Item = u32> + '_ {
        self.chunks.iter().flat_map(|c| {
            let values: &[u32] = c.as_primitive_opt::<UInt32Type>().map_or(&[], |a| a.values());
            values.iter().copied().chain(std::iter::repeat_n(0, c.len() - values.len()))
        })
    }

    /// The rows of a text or packed column, one [`Part`] per chunk.
    fn parts(&self) -> Vec<Part<'_>> {
        let mut base = 0;
        let packed = self.kind == Kind::Packed;
        let mut parts = Vec::with_capacity(self.chunks.len());
        for (c, nulls) in self.chunks.iter().zip(&self.nulls) {
            let rows = match c.data_type() {
                DataType::Utf8 => {
                    let a = c.as_string::<i32>();
                    Rows::Arrow32 { offsets: a.value_offsets(), data: a.value_data() }
                }
                DataType::LargeUtf8 => {
                    let a = c.as_string::<i64>();
                    Rows::Arrow64 { offsets: a.value_offsets(), data: a.value_data() }
                }
                DataType::Utf8View => {
                    let a = c.as_string_view();
                    Rows::View { views: a.views(), buffers: a.data_buffers() }
                }
                DataType::Binary => {
                    let a = c.as_binary::<i32>();
                    Rows::Arrow32 { offsets: a.value_offsets(), data: a.value_data() }
                }
                DataType::LargeBinary => {
                    let a = c.as_binary::<i64>();
                    Rows::Arrow64 { offsets: a.value_offsets(), data: a.value_data() }
                }
                DataType::BinaryView => {
                    let a = c.as_binary_view();
                    Rows::View { views: a.views(), buffers: a.data_buffers() }
                }
                DataType::FixedSizeBinary(width) => {
                    let a = c.as_fixed_size_binary();
                    Rows::Width { data: a.value_data(), width: *width as usize }
                }
                // `null`: every row is null, so the rows are never read.
                _ => Rows::Width { data: &[], width: 0 },
            };
            parts.push(Part { base, len: c.len(), rows, nulls: nulls.as_ref(), packed });
            base += c.len();
        }
        parts
    }

    /// The rows that are null.
    fn null_rows(&self) -> Vec<usize> {
        let mut rows = Vec::new();
        let mut base = 0;
        for (c, nulls) in self.chunks.iter().zip(&self.nulls) {
            if let Some(nulls) = nulls {
                rows.extend(nulls.iter().enumerate().filter(|(_, v)| !v).map(|(i, _)| base + i));
            }
            base += c.len();
        }
        rows
    }

    /// Looks the column up into `answers` (null rows: "no route") on `threads` threads; the
    /// addresses read, for the matched prefixes.
    pub fn lookup(
        &self,
        sides: &Sides<'_>,
        answers: Answers<'_>,
        threads: usize,
    ) -> Result<Keys<'_>, String> {
        if self.kind != Kind::Ints {
            let parsed = columns::lookup_texts(sides, &self.parts(), answers, threads)?;
            return Ok(Keys::Parsed(parsed));
        }
        let Answers { ids, mut lens } = answers;
        if !ids.is_empty() {
            let side = sides.v4.ok_or("IPv4 addresses given to a table without IPv4")?;
            let chunks = self.ints();
            let fill = |start: usize, keys: &mut [u32]| copy_rows(&chunks, start, keys);
            let answers = Answers { ids: &mut *ids, lens: lens.as_deref_mut() };
            side.lookup_into(answers, threads, &fill);
        }
        columns::no_route(&self.null_rows(), ids, lens);
        Ok(Keys::Ints(self))
    }
}

/// Copies rows `start..start + out.len()` of the concatenated `chunks` (each with its first
/// row) into `out`; rows a chunk lacks (an all-null chunk) are 0.
fn copy_rows(chunks: &[(usize, &[u32])], start: usize, out: &mut [u32]) {
    let mut k = chunks.partition_point(|&(base, _)| base <= start).saturating_sub(1);
    let mut row = start;
    let mut done = 0;
    while done < out.len() {
        let Some(&(base, values)) = chunks.get(k) else {
            out[done..].fill(0);
            return;
        };
        let end = chunks.get(k + 1).map_or(usize::MAX, |&(next, _)| next);
        let take = (end - row).min(out.len() - done);
        let slots = &mut out[done..done + take];
        match values.get(row - base..row - base + take) {
            Some(v) => slots.copy_from_slice(v),
            None => slots.fill(0),
        }
        done += take;
        row += take;
        k += 1;
    }
}
