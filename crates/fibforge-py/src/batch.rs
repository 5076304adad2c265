//! `Table.lookup_batch`: numpy arrays of addresses to a numpy array of next hops, computed
//! with the GIL released.
//!
//! Accepted inputs (the dtype and shape choose the family):
//! - IPv4: 1-D `uint32`, addresses as integers (`int(ipaddress.IPv4Address(...))`);
//! - IPv6: 2-D `uint64` of shape `(n, 2)`, column 0 the high and column 1 the low 64 bits;
//! - IPv6: 2-D `uint8` of shape `(n, 16)`, each row the address bytes in network order
//!   (`ipaddress.IPv6Address(...).packed`).
//!
//! The result is a 1-D `uint32` array of next hops, `NO_ROUTE` (`0xFFFFFFFF`) where no route
//! matches. Non-contiguous inputs are copied first.

use crate::side::Side;
use fibforge::algo::poptrie::Key;
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::borrow::Cow;

/// The two families' sides of a table (`None`: the table does not hold that family).
pub struct Sides<'a> {
    /// IPv4.
    pub v4: Option<&'a Side<u32>>,
    /// IPv6.
    pub v6: Option<&'a Side<u128>>,
}

/// Looks up a numpy array (see the module docs) on `threads` threads.
pub fn lookup_batch<'py>(
    sides: Sides<'_>,
    addrs: &Bound<'py, PyAny>,
    threads: usize,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let py = addrs.py();
    if threads == 0 {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    if let Ok(a) = addrs.extract::<PyReadonlyArray1<'py, u32>>() {
        let side = family(sides.v4, "IPv4")?;
        let keys = contiguous(&a);
        let out = run(py, side, keys.len(), threads, |start, k| {
            k.copy_from_slice(&keys[start..start + k.len()])
        });
        return Ok(PyArray1::from_vec(py, out));
    }
    if let Ok(a) = addrs.extract::<PyReadonlyArray2<'py, u64>>() {
        let side = family(sides.v6, "IPv6")?;
        let words = rows(&a, 2)?;
        let out = run(py, side, words.len() / 2, threads, |start, k| {
            for (i, key) in k.iter_mut().enumerate() {
                let j = 2 * (start + i);
                *key = (u128::from(words[j]) << 64) | u128::from(words[j + 1]);
            }
        });
        return Ok(PyArray1::from_vec(py, out));
    }
    if let Ok(a) = addrs.extract::<PyReadonlyArray2<'py, u8>>() {
        let side = family(sides.v6, "IPv6")?;
        let bytes = rows(&a, 16)?;
        let out = run(py, side, bytes.len() / 16, threads, |start, k| {
            for (i, key) in k.iter_mut().enumerate() {
                let j = 16 * (start + i);
                *key = u128::from_be_bytes(bytes[j..j + 16].try_into().expect("16 bytes"));
            }
        });
        return Ok(PyArray1::from_vec(py, out));
    }
    Err(PyTypeError::new_err(
        "addresses must be a numpy array: 1-D uint32 (IPv4), (n, 2) uint64 or (n, 16) uint8 \
         (IPv6); convert with e.g. addrs.astype(numpy.uint32)",
    ))
}

fn family<'a, A: Key>(side: Option<&'a Side<A>>, name: &str) -> PyResult<&'a Side<A>> {
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

/// Runs the lookups without the GIL.
fn run<A: Key>(
    py: Python<'_>,
    side: &Side<A>,
    n: usize,
    threads: usize,
    fill: impl Fn(usize, &mut [A]) + Sync + Send,
) -> Vec<u32> {
    py.detach(|| {
        let mut out = vec![0u32; n];
        side.lookup_into(&mut out, threads, fill);
        out
    })
}
