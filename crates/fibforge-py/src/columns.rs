//! Columns that are not address arrays already: integer arrays of other dtypes (int64,
//! uint64, big-endian), and text columns (numpy `str_` arrays, object arrays, lists, and
//! anything `numpy.asarray` turns into one: pandas Series, pyarrow arrays), parsed in Rust.
//!
//! Texts are copied under the GIL into one byte buffer with row ends ([`Texts`]); parsing
//! (std's `IpAddr` parser, on `threads` threads) and the lookups then run without the GIL.
//! A text column may mix IPv4 and IPv6: each family's rows are looked up together and the
//! answers scattered back to their rows. A row that is not an address raises ValueError
//! naming the row and its text.

use crate::batch::Sides;
use crate::side::Answers;
use fibforge::sync::AnyKey;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use std::net::IpAddr;

/// Text rows in one buffer: row `i` is `bytes[ends[i - 1]..ends[i]]`.
#[derive(Default)]
pub struct Texts {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Texts {
    fn push(&mut self, text: &[u8]) {
        self.bytes.extend_from_slice(text);
        self.ends.push(self.bytes.len());
    }

    fn row(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// An integer array of any integer dtype and byte order as IPv4 addresses (None when
/// `obj` is not a 1-D integer numpy array); ValueError naming a row outside 0..2^32.
pub fn integers(obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u32>>> {
    let Some((kind, ndim)) = dtype_kind(obj)? else { return Ok(None) };
    if ndim != 1 || (kind != 'i' && kind != 'u') {
        return Ok(None);
    }
    let wide = obj.call_method1("astype", (if kind == 'u' { "=u8" } else { "=i8" },))?;
    let out_of_range = |i: usize, v: String| {
        PyValueError::new_err(format!("row {i}: {v} is not an IPv4 address (0..2**32)"))
    };
    if kind == 'u' {
        let a = wide.extract::<PyReadonlyArray1<'_, u64>>()?;
        let a = a.as_array();
        a.iter()
            .enumerate()
            .map(|(i, &v)| u32::try_from(v).map_err(|_| out_of_range(i, v.to_string())))
            .collect::<PyResult<Vec<u32>>>()
            .map(Some)
    } else {
        let a = wide.extract::<PyReadonlyArray1<'_, i64>>()?;
        let a = a.as_array();
        a.iter()
            .enumerate()
            .map(|(i, &v)| u32::try_from(v).map_err(|_| out_of_range(i, v.to_string())))
            .collect::<PyResult<Vec<u32>>>()
            .map(Some)
    }
}

/// The numpy dtype kind and ndim of `obj`, or None when it is not a numpy array.
fn dtype_kind(obj: &Bound<'_, PyAny>) -> PyResult<Option<(char, usize)>> {
    if !obj.is_instance(&obj.py().import("numpy")?.getattr("ndarray")?)? {
        return Ok(None);
    }
    let kind: String = obj.getattr("dtype")?.getattr("kind")?.extract()?;
    let ndim: usize = obj.getattr("ndim")?.extract()?;
    Ok(kind.chars().next().map(|k| (k, ndim)))
}

/// The rows of a text column (None when `obj` is not one).
pub fn texts(obj: &Bound<'_, PyAny>) -> PyResult<Option<Texts>> {
    if let Ok(list) = obj.cast::<PyList>() {
        return strings(list.iter()).map(Some);
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return strings(tuple.iter()).map(Some);
    }
    let array = match dtype_kind(obj)? {
        Some(_) => obj.clone(),
        // pandas Series, pyarrow arrays, ...: whatever numpy makes of them.
        None if obj.hasattr("__array__")? => {
            obj.py().import("numpy")?.call_method1("asarray", (obj,))?
        }
        None => return Ok(None),
    };
    match dtype_kind(&array)? {
        Some(('U', 1)) => unicode(&array).map(Some),
        Some(('O', 1)) => {
            strings(array.try_iter()?.collect::<PyResult<Vec<_>>>()?.into_iter()).map(Some)
        }
        _ => Ok(None),
    }
}

/// Rows of Python str objects.
fn strings<'py>(items: impl Iterator<Item = Bound<'py, PyAny>>) -> PyResult<Texts> {
    let mut texts = Texts::default();
    for (i, item) in items.enumerate() {
        let s = item.cast::<PyString>().map_err(|_| {
            let kind = item.get_type().name().map_or("?".into(), |n| n.to_string());
            PyTypeError::new_err(format!("row {i}: an address must be a str, not {kind}"))
        })?;
        // `to_cow` borrows the UTF-8 form (a copy only in the abi3 build before Python 3.10,
        // whose limited API has no borrowed form).
        texts.push(s.to_cow()?.as_bytes());
    }
    Ok(texts)
}

/// Rows of a numpy `str_` array (fixed-width UCS-4, read as a uint32 view without a copy
/// of the array; addresses are ASCII).
fn unicode(array: &Bound<'_, PyAny>) -> PyResult<Texts> {
    let contiguous = array.py().import("numpy")?.call_method1("ascontiguousarray", (array,))?;
    let n: usize = contiguous.len()?;
    let width: usize = contiguous.getattr("itemsize")?.extract::<usize>()? / 4;
    let view = contiguous.call_method1("view", ("=u4",))?.call_method1("reshape", (n, width))?;
    let view = view.extract::<PyReadonlyArray2<'_, u32>>()?;
    let chars = view.as_slice().map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut texts = Texts::default();
    let mut row = Vec::with_capacity(width);
    for i in 0..n {
        row.clear();
        // Non-ASCII characters cannot be in an address: 0xFF makes the parser refuse them.
        row.extend(
            chars[i * width..(i + 1) * width]
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| u8::try_from(c).unwrap_or(0xFF)),
        );
        texts.push(&row);
    }
    Ok(texts)
}

/// Parses every row (on `threads` threads), then looks each family's rows up together.
pub fn lookup_texts(
    sides: &Sides<'_>,
    texts: &Texts,
    answers: Answers<'_>,
    threads: usize,
) -> Result<(), String> {
    let parsed = parse(texts, threads)?;
    let mut v4 = (Vec::new(), Vec::new());
    let mut v6 = (Vec::new(), Vec::new());
    for (row, addr) in parsed.into_iter().enumerate() {
        match addr {
            IpAddr::V4(a) => (v4.0.push(row), v4.1.push(u32::from(a))),
            IpAddr::V6(a) => (v6.0.push(row), v6.1.push(u128::from(a))),
        };
    }
    let Answers { ids, mut lens } = answers;
    scatter(sides.v4, "IPv4", &v4.0, &v4.1, ids, lens.as_deref_mut(), threads)?;
    scatter(sides.v6, "IPv6", &v6.0, &v6.1, ids, lens, threads)?;
    Ok(())
}

fn scatter<A: AnyKey>(
    side: Option<&crate::side::Side<A>>,
    family: &str,
    rows: &[usize],
    keys: &[A],
    ids: &mut [u32],
    lens: Option<&mut [u8]>,
    threads: usize,
) -> Result<(), String> {
    if rows.is_empty() {
        return Ok(());
    }
    let Some(side) = side else {
        return Err(format!("row {}: {family} address in a table without {family}", rows[0]));
    };
    let mut got_ids = vec![0u32; rows.len()];
    let mut got_lens = lens.as_ref().map(|_| vec![0u8; rows.len()]);
    let answers = Answers { ids: &mut got_ids, lens: got_lens.as_deref_mut() };
    side.lookup_into(answers, threads, |start, k| k.copy_from_slice(&keys[start..start + k.len()]));
    for (&row, &id) in rows.iter().zip(&got_ids) {
        ids[row] = id;
    }
    if let (Some(lens), Some(got)) = (lens, got_lens) {
        for (&row, &len) in rows.iter().zip(&got) {
            lens[row] = len;
        }
    }
    Ok(())
}

/// Every row as an address, or the first bad row.
fn parse(texts: &Texts, threads: usize) -> Result<Vec<IpAddr>, String> {
    let n = texts.len();
    let mut out = vec![IpAddr::from([0u8; 4]); n];
    let per = n.div_ceil(threads.max(1)).max(4096);
    let one = |start: usize, part: &mut [IpAddr]| -> Result<(), String> {
        for (i, slot) in part.iter_mut().enumerate() {
            let row = texts.row(start + i);
            *slot = std::str::from_utf8(row).ok().and_then(|t| t.trim().parse().ok()).ok_or_else(
                || {
                    format!(
                        "row {}: {:?} is not an IPv4 or IPv6 address",
                        start + i,
                        String::from_utf8_lossy(row)
                    )
                },
            )?;
        }
        Ok(())
    };
    if per >= n {
        one(0, &mut out)?;
        return Ok(out);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = out
            .chunks_mut(per)
            .enumerate()
            .map(|(i, part)| s.spawn(move || one(i * per, part)))
            .collect();
        handles.into_iter().try_for_each(|h| h.join().expect("parser thread"))
    })?;
    Ok(out)
}
