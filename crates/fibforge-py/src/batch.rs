//! `Table.lookup_batch`: numpy arrays of addresses to a numpy array of next hops, computed
//! with the GIL released.
//!
//! Accepted inputs (the dtype and shape choose the family; other columns in [`columns`]):
//! - IPv4: 1-D `uint32`, addresses as integers (`int(ipaddress.IPv4Address(...))`);
//! - IPv6: 2-D `uint64` of shape `(n, 2)`, column 0 the high and column 1 the low 64 bits;
//! - IPv6: 2-D `uint8` of shape `(n, 16)`, each row the address bytes in network order
//!   (`ipaddress.IPv6Address(...).packed`).
//!
//! The result is a 1-D `uint32` array of value ids, `NO_ROUTE` (`0xFFFFFFFF`) where no route
//! matches, and on request a `uint8` array of matched prefix lengths (`NO_LENGTH`, 255, where
//! none matches): a new array, or `out` (a contiguous `uint32` array of the same length, reused
//! across calls to save the allocation). Non-contiguous inputs are copied first.

use crate::arrow_in;
use crate::columns;
use crate::in_place;
pub use crate::side::Sides;
use crate::side::{Answers, Lookups};
use crate::texts;
use fibforge::sync::AnyKey;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList, PyTuple};
use std::borrow::Cow;

/// The most threads one batch runs on: the CLI's cap on `--threads` (`MAX_THREADS` in
/// `crates/fibforge-cli/src/args.rs`), so that a typo cannot spawn a million threads.
pub const MAX_THREADS: usize = 1024;

/// `threads=` checked: 1 to [`MAX_THREADS`], else ValueError saying so.
pub fn thread_count(threads: i64) -> PyResult<usize> {
    match usize::try_from(threads) {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(PyValueError::new_err(format!(
            "threads must be at least 1 and at most {MAX_THREADS} (as the CLI's --threads), \
             not {threads}"
        ))),
    }
}

/// Looks up a numpy array (see the module docs) on `threads` threads.
pub fn lookup_batch<'py>(
    sides: Sides<'_>,
    addrs: &Bound<'py, PyAny>,
    out: Option<Bound<'py, PyArray1<u32>>>,
    threads: i64,
    lengths: bool,
) -> PyResult<Batch<'py>> {
    let py = addrs.py();
    let threads = thread_count(threads)?;
    let target = Target { py, out, threads, lengths };
    if let Some(keys) = int_list(addrs)? {
        let side = family(sides.v4, "IPv4")?;
        return target
            .run(side, keys.len(), |start, k| k.copy_from_slice(&keys[start..start + k.len()]));
    }
    if let Ok(a) = addrs.extract::<PyReadonlyArray1<'py, u32>>() {
        let side = family(sides.v4, "IPv4")?;
        let keys = contiguous(&a);
        return target
            .run(side, keys.len(), |start, k| k.copy_from_slice(&keys[start..start + k.len()]));
    }
    if let Ok(a) = addrs.extract::<PyReadonlyArray2<'py, u64>>() {
        let side = family(sides.v6, "IPv6")?;
        let words = rows(&a, 2)?;
        return target.run(side, words.len() / 2, |start, k| {
            for (i, key) in k.iter_mut().enumerate() {
                let j = 2 * (start + i);
                *key = (u128::from(words[j]) << 64) | u128::from(words[j + 1]);
            }
        });
    }
    if let Ok(a) = addrs.extract::<PyReadonlyArray2<'py, u8>>() {
        let side = family(sides.v6, "IPv6")?;
        let bytes = rows(&a, 16)?;
        return target.run(side, bytes.len() / 16, |start, k| {
            for (i, key) in k.iter_mut().enumerate() {
                let j = 16 * (start + i);
                *key = u128::from_be_bytes(bytes[j..j + 16].try_into().expect("16 bytes"));
            }
        });
    }
    if let Some(column) = arrow_in::column(addrs, false)? {
        let threads = target.threads;
        return target
            .finish(column.len(), |answers| column.lookup(&sides, answers, threads).map(drop));
    }
    if let Some(keys) = columns::integers(addrs)? {
        let side = family(sides.v4, "IPv4")?;
        return target
            .run(side, keys.len(), |start, k| k.copy_from_slice(&keys[start..start + k.len()]));
    }
    if let Some((n, parsed)) = in_place::parse(addrs, target.threads) {
        let threads = target.threads;
        return target
            .finish(n, |answers| columns::lookup_parsed(&sides, &parsed, answers, threads));
    }
    if let Some(texts) = texts::texts(addrs)? {
        let threads = target.threads;
        let parts = texts.parts();
        return target.finish(texts.len(), |answers| {
            columns::lookup_texts(&sides, &parts, answers, threads).map(drop)
        });
    }
    Err(PyTypeError::new_err(
        "addresses must be a numpy array (1-D of any integer dtype: IPv4; (n, 2) uint64 or \
         (n, 16) uint8: IPv6), a column of address texts (list, numpy str_, bytes_ or \
         object array, pandas Series), or an Arrow column (__arrow_c_array__ or \
         __arrow_c_stream__: pyarrow, Polars, DuckDB, nanoarrow)",
    ))
}

/// A list or tuple of ints (not bools) as IPv4 addresses, ValueError naming a row outside
/// 0..2^32; None when `obj` is not one. A list that mixes ints with other items is a text
/// column, whose error names its first item that is not a str (issue 56: numpy made
/// `[1, "10.0.0.1"]` a column of texts and reported the int as the text "1").
fn int_list(obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u32>>> {
    let items = if let Ok(list) = obj.cast::<PyList>() {
        list.iter().collect::<Vec<_>>()
    } else if let Ok(tuple) = obj.cast::<PyTuple>() {
        tuple.iter().collect()
    } else {
        return Ok(None);
    };
    let is_int =
        |x: &Bound<'_, PyAny>| x.is_instance_of::<PyInt>() && !x.is_instance_of::<PyBool>();
    if items.is_empty() || !items.iter().all(is_int) {
        return Ok(None);
    }
    let keys = items.iter().enumerate().map(|(i, item)| {
        item.extract::<u32>().map_err(|_| {
            PyValueError::new_err(format!("row {i}: {item} is not an IPv4 address (0..2**32)"))
        })
    });
    keys.collect::<PyResult<Vec<u32>>>().map(Some)
}

/// `out` as a 1-D `uint32` array, or a `TypeError` saying what it is instead (numpy's own
/// failed cast reads "'ndarray' object is not an instance of 'ndarray'").
pub fn out_array<'py>(out: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<u32>>> {
    if let Ok(a) = out.cast::<PyArray1<u32>>() {
        return Ok(a.clone());
    }
    let what = match (out.getattr("dtype"), out.getattr("shape")) {
        (Ok(dtype), Ok(shape)) => format!("an array of dtype {dtype} and shape {shape}"),
        _ => format!("a {}", out.get_type().name().map_or("?".into(), |n| n.to_string())),
    };
    Err(PyTypeError::new_err(format!(
        "out must be a 1-D numpy uint32 array (numpy.empty(n, dtype=numpy.uint32)), not {what}"
    )))
}

fn family<'a, A: AnyKey>(
    side: Option<&'a dyn Lookups<A>>,
    name: &str,
) -> PyResult<&'a dyn Lookups<A>> {
    side.ok_or_else(|| {
        PyValueError::new_err(format!("{name} addresses given to a table without {name}"))
    })
}

/// The array's elements in row-major order, borrowed when the array is C-contiguous.
fn contiguous<'a, T: numpy::Element + Copy, D: numpy::ndarray::Dimension>(
    a: &'a numpy::PyReadonlyArray<'_, T, D>,
) -> Cow<'a, [T]> {
    // `as_slice` also accepts Fortran order, whose memory order is not row-major.
    match a.as_slice() {
        Ok(s) if a.is_c_contiguous() => Cow::Borrowed(s),
        _ => Cow::Owned(a.as_array().iter().copied().collect()),
    }
}

/// The elements of an `(n, width)` array, row-major.
fn rows<'a, T: numpy::Element + Copy>(
    a: &'a PyReadonlyArray2<'_, T>,
    width: usize,
) -> PyResult<Cow<'a, [T]>> {
    if a.shape()[1] != width {
        return Err(PyValueError::new_err(format!(
            "IPv6 addresses of this dtype must have shape (n, {width}), not {:?}",
            a.shape()
        )));
    }
    Ok(contiguous(a))
}

/// Where results go, and how many threads compute them.
struct Target<'py> {
    py: Python<'py>,
    out: Option<Bound<'py, PyArray1<u32>>>,
    threads: usize,
    lengths: bool,
}

impl<'py> Target<'py> {
    /// Runs `n` lookups without the GIL into a new array or `out` (and a new array of
    /// prefix lengths when asked for).
    fn run<A: AnyKey>(
        self,
        side: &dyn Lookups<A>,
        n: usize,
        fill: impl Fn(usize, &mut [A]) + Sync + Send,
    ) -> PyResult<Batch<'py>> {
        let threads = self.threads;
        self.finish(n, |answers| {
            side.lookup_into(answers, threads, &fill);
            Ok(())
        })
    }

    /// Runs `work` (the lookups of `n` addresses) without the GIL into a new array or `out`;
    /// ValueError with `work`'s message when it fails.
    fn finish(
        self,
        n: usize,
        work: impl FnOnce(Answers<'_>) -> Result<(), String> + Send,
    ) -> PyResult<Batch<'py>> {
        let mut lens = if self.lengths { Some(vec![0u8; n]) } else { None };
        let Some(out) = self.out else {
            let ids = self.py.detach(|| {
                let mut ids = vec![0u32; n];
                work(Answers { ids: &mut ids, lens: lens.as_deref_mut() }).map(|()| ids)
            });
            let ids = ids.map_err(PyValueError::new_err)?;
            return Ok(Batch::new(self.py, PyArray1::from_vec(self.py, ids), lens));
        };
        {
            // Fails (no aliasing) when `out` shares memory with the borrowed input.
            let mut view =
                out.try_readwrite().map_err(|e| PyValueError::new_err(format!("out: {e}")))?;
            let ids = view
                .as_slice_mut()
                .map_err(|_| PyValueError::new_err("out must be a contiguous uint32 array"))?;
            if ids.len() != n {
                return Err(PyValueError::new_err(format!(
                    "out has {} elements for {n} addresses",
                    ids.len()
                )));
            }
            let answers = Answers { ids, lens: lens.as_deref_mut() };
            self.py.detach(|| work(answers)).map_err(PyValueError::new_err)?;
        }
        Ok(Batch::new(self.py, out, lens))
    }
}

/// A batch's answers: value ids, and prefix lengths when asked for.
pub struct Batch<'py> {
    /// Value ids (`NO_ROUTE` where no route matches).
    pub ids: Bound<'py, PyArray1<u32>>,
    /// Matched prefix lengths (`NO_LENGTH` where no route matches).
    pub lens: Option<Bound<'py, PyArray1<u8>>>,
}

impl<'py> Batch<'py> {
    fn new(py: Python<'py>, ids: Bound<'py, PyArray1<u32>>, lens: Option<Vec<u8>>) -> Self {
        Batch { ids, lens: lens.map(|l| PyArray1::from_vec(py, l)) }
    }
}
