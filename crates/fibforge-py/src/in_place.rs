//! Lists and tuples of `str` parsed where the texts lie: each item's UTF-8 form is
//! borrowed from the object (`PyUnicode_AsUTF8AndSize`: for the compact ASCII strings that
//! addresses are, the object's own character data, no copy) and parsed in chunks, instead
//! of `"\n".join` and an encode ([`crate::texts`]), which touch every row twice more.
//!
//! Layout: [`parse`] walks the sequence in chunks of `CHUNK` rows; `borrow_chunk` takes
//! each item's text as a slice, [`crate::parse_ip::parse`] parses the slices (on `threads`
//! threads) and the chunks' results are appended into one [`Parsed`].
//!
//! Invariants:
//! - the GIL is held from a chunk's first borrow to the end of its parse, and no Python
//!   code runs in between, so no other thread can replace an item (freeing its str) while
//!   its text is borrowed (see `borrow_chunk`); it is let go between chunks, when nothing
//!   is borrowed, and for the lookups that follow;
//! - any irregularity (an item that is not a str, a str without a UTF-8 form, a row that is
//!   not an address, Python before 3.10) gives None, and the caller takes the general path
//!   ([`crate::texts`]), so errors and their precedence are exactly that path's; a
//!   column that parses here has the same rows, byte for byte, as there.

use crate::parse_ip::{self, Parsed, Part};
use crate::rows::Rows;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::os::raw::c_char;

/// Rows borrowed and parsed at a time: the objects borrowed are still in cache when parsed,
/// and the slices (16 bytes a row) stay small beside the column.
const CHUNK: usize = 1 << 16;

// The stable ABI has this function from Python 3.10 on; pyo3-ffi declares it only when the
// build targets 3.10 or later, and the wheel targets the 3.9 limited API, so it is declared
// here and called only where the running Python is 3.10 or later (checked in `parse`).
unsafe extern "C" {
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut ffi::PyObject,
        size: *mut ffi::Py_ssize_t,
    ) -> *const c_char;
}

/// `PyList_GetItem` or `PyTuple_GetItem`: a borrowed item, or NULL with an error set.
type GetItem = unsafe extern "C" fn(*mut ffi::PyObject, ffi::Py_ssize_t) -> *mut ffi::PyObject;

/// The parsed rows of a list or tuple of str and their count, or None when `obj` is not
/// one, or is one this path leaves to [`crate::texts`] (see the module docs).
pub fn parse(obj: &Bound<'_, PyAny>, threads: usize) -> Option<(usize, Parsed)> {
    if obj.py().version_info() < (3, 10) {
        return None;
    }
    let (n, get): (usize, GetItem) = if let Ok(list) = obj.cast::<PyList>() {
        (list.len(), ffi::PyList_GetItem)
    } else if let Ok(tuple) = obj.cast::<PyTuple>() {
        (tuple.len(), ffi::PyTuple_GetItem)
    } else {
        return None;
    };
    if n == 0 {
        return None;
    }
    let mut all = Parsed { v4: Vec::with_capacity(n), ..Parsed::default() };
    let mut texts = Vec::with_capacity(CHUNK.min(n));
    for base in (0..n).step_by(CHUNK) {
        if base > 0 {
            // The GIL is let go between chunks (`texts` is empty then: nothing borrowed),
            // so other Python threads wait for one chunk at most, as they would for the
            // eval loop, rather than for the whole column. A thread that changes the list
            // meanwhile changes the rows not yet read, as with any reader of a shared list.
            obj.py().detach(|| ());
        }
        let len = CHUNK.min(n - base);
        borrow_chunk(obj, get, base, len, &mut texts)?;
        let part = Part { base, len, rows: Rows::Slices(&texts), nulls: None, packed: false };
        let parsed = parse_ip::parse(std::slice::from_ref(&part), len, threads);
        texts.clear();
        let parsed = parsed.ok()?;
        all.v4.extend_from_slice(&parsed.v4);
        all.v4_rows.0 += parsed.v4_rows.0;
        all.v4_rows.1 = all.v4_rows.1.or(parsed.v4_rows.1);
        all.v6.extend(parsed.v6);
    }
    Some((n, all))
}

/// Replaces `texts` with the UTF-8 texts of items `base..base + len` of `seq` (read with
/// `get`), or gives None (the Python error cleared) at the first item without one.
fn borrow_chunk<'a>(
    seq: &'a Bound<'_, PyAny>,
    get: GetItem,
    base: usize,
    len: usize,
    texts: &mut Vec<&'a [u8]>,
) -> Option<()> {
    texts.clear();
    for row in base..base + len {
        let mut size: ffi::Py_ssize_t = 0;
        // SAFETY: `seq` is a list or tuple (checked by the caller) and the GIL is held
        // (`Bound`). `get` returns a borrowed item or NULL (index out of range: not
        // possible while no Python code runs, checked anyway); `PyUnicode_AsUTF8AndSize`
        // returns NULL with an error set for an item that is not a str (subclasses are
        // str) or has no UTF-8 form, else the str's UTF-8 buffer, which lives and stays
        // unchanged as long as the str (strs are immutable; the UTF-8 form is cached in
        // the object). Neither runs Python code on success (the UTF-8 cache is raw memory,
        // no collection), and the caller holds the GIL until it has parsed these slices
        // and emptied `texts`, so no other thread can drop an item from `seq` while it is
        // borrowed: hence the lifetime `'a` of `seq`'s borrow. On failure the error is cleared (which may run
        // Python code) only after `texts` is given up: the caller stops at None.
        let text = unsafe {
            let item = get(seq.as_ptr(), row as ffi::Py_ssize_t);
            let data =
                if item.is_null() { item.cast() } else { PyUnicode_AsUTF8AndSize(item, &mut size) };
            if data.is_null() {
                None
            } else {
                Some(std::slice::from_raw_parts(data.cast::<u8>(), size as usize))
            }
        };
        let Some(text) = text else {
            texts.clear();
            drop(PyErr::take(seq.py()));
            return None;
        };
        texts.push(text);
    }
    Some(())
}
