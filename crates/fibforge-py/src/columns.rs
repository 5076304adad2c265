//! Columns that are not address arrays already: integer arrays of other dtypes (int64,
//! uint64, big-endian), and text columns (numpy `str_` / `bytes_` arrays, object arrays,
//! lists, pyarrow and pandas string columns: [`crate::texts`]), parsed in Rust.
//!
//! Texts are parsed ([`crate::parse_ip`], on `threads` threads) and looked up without the
//! GIL. A text column may mix IPv4 and IPv6: the IPv4 keys are looked up in place (the IPv6
//! rows' answers then overwritten) and the IPv6 rows together, their answers scattered
//! back to their rows. A row that is not an address raises ValueError naming the row and
//! its text.

use crate::parse_ip::{self, Parsed, Part};
use crate::side::{Answers, Lookups, Sides};
use crate::values::{NO_LENGTH, NO_ROUTE};
use fibforge::sync::AnyKey;
use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// An integer array of any integer dtype and byte order as IPv4 addresses (None when
/// `obj` is not a 1-D integer numpy array); ValueError naming a row outside 0..2^32.
pub fn integers(obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u32>>> {
    let Some((kind, ndim)) = dtype_kind(obj)? else { return Ok(None) };
    if ndim != 1 || (kind != 'i' && kind != 'u') {
        return Ok(None);
    }
    let out_of_range = |i: usize, v: String| {
        PyValueError::new_err(format!("row {i}: {v} is not an IPv4 address (0..2**32)"))
    };
    to_u32(obj, kind, out_of_range).map(Some)
}

/// The elements of a 1-D numpy integer array of dtype kind `kind` ('i' or 'u', any width
/// and byte order) as u32; `bad(index, value)` is the error of the first one outside.
pub fn to_u32(
    obj: &Bound<'_, PyAny>,
    kind: char,
    bad: impl Fn(usize, String) -> PyErr,
) -> PyResult<Vec<u32>> {
    let wide = obj.call_method1("astype", (if kind == 'u' { "=u8" } else { "=i8" },))?;
    if kind == 'u' {
        let a = wide.extract::<PyReadonlyArray1<'_, u64>>()?;
        narrow(a.as_array().iter().copied(), bad)
    } else {
        let a = wide.extract::<PyReadonlyArray1<'_, i64>>()?;
        narrow(a.as_array().iter().copied(), bad)
    }
}

fn narrow<T: Copy + ToString + TryInto<u32>>(
    values: impl Iterator<Item = T>,
    bad: impl Fn(usize, String) -> PyErr,
) -> PyResult<Vec<u32>> {
    values.enumerate().map(|(i, v)| v.try_into().map_err(|_| bad(i, v.to_string()))).collect()
}

/// The numpy dtype kind and ndim of `obj`, or None when it is not a numpy array.
pub fn dtype_kind(obj: &Bound<'_, PyAny>) -> PyResult<Option<(char, usize)>> {
    if !obj.is_instance(&obj.py().import("numpy")?.getattr("ndarray")?)? {
        return Ok(None);
    }
    let kind: String = obj.getattr("dtype")?.getattr("kind")?.extract()?;
    let ndim: usize = obj.getattr("ndim")?.extract()?;
    Ok(kind.chars().next().map(|k| (k, ndim)))
}

/// Parses every row (on `threads` threads), then looks each family's rows up together.
pub fn lookup_texts(
    sides: &Sides<'_>,
    parts: &[Part<'_>],
    answers: Answers<'_>,
    threads: usize,
) -> Result<Parsed, String> {
    let parsed = parse_ip::parse(parts, answers.ids.len(), threads)?;
    lookup_parsed(sides, &parsed, answers, threads)?;
    Ok(parsed)
}

/// Looks up each family's rows of a parsed column together.
pub fn lookup_parsed(
    sides: &Sides<'_>,
    parsed: &Parsed,
    answers: Answers<'_>,
    threads: usize,
) -> Result<(), String> {
    let n = answers.ids.len();
    let Answers { ids, mut lens } = answers;
    if let (count, Some(first)) = parsed.v4_rows {
        let Some(side) = sides.v4 else {
            return Err(format!("row {first}: IPv4 address in a table without IPv4"));
        };
        // All rows when some are IPv4: the IPv6 rows' answers are overwritten below. Their
        // (wasted) lookups cost less than gathering the IPv4 rows, unless they are many.
        if count >= n / 2 {
            let keys = &parsed.v4;
            let answers = Answers { ids: &mut *ids, lens: lens.as_deref_mut() };
            side.lookup_into(answers, threads, &|start, k| {
                k.copy_from_slice(&keys[start..start + k.len()]);
            });
        } else {
            let rows: Vec<usize> = v4_rows(n, &parsed.v6);
            let keys: Vec<u32> = rows.iter().map(|&r| parsed.v4[r]).collect();
            scatter(Some(side), "IPv4", &rows, &keys, ids, lens.as_deref_mut(), threads)?;
        }
    }
    let (rows, keys): (Vec<usize>, Vec<u128>) = parsed.v6.iter().copied().unzip();
    scatter(sides.v6, "IPv6", &rows, &keys, ids, lens.as_deref_mut(), threads)?;
    no_route(&parsed.nulls, ids, lens);
    Ok(())
}

/// Answers "no route" in `rows` (null rows, whose lookups wrote whatever key 0 matched).
pub fn no_route(rows: &[usize], ids: &mut [u32], mut lens: Option<&mut [u8]>) {
    for &row in rows {
        ids[row] = NO_ROUTE;
        if let Some(lens) = lens.as_deref_mut() {
            lens[row] = NO_LENGTH;
        }
    }
}

/// The rows `0..n` not in `v6` (ascending).
fn v4_rows(n: usize, v6: &[(usize, u128)]) -> Vec<usize> {
    let mut rows = Vec::with_capacity(n - v6.len());
    let mut next = 0;
    for &(row, _) in v6 {
        rows.extend(next..row);
        next = row + 1;
    }
    rows.extend(next..n);
    rows
}

fn scatter<A: AnyKey>(
    side: Option<&dyn Lookups<A>>,
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
    side.lookup_into(answers, threads, &|start, k| {
        k.copy_from_slice(&keys[start..start + k.len()]);
    });
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
