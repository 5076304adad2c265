//! `fibforge_reader4_view`: the published Poptrie arrays of an online reader's current view,
//! handed to C so that `fibforge_view4_lookup` (a `static inline` walk in `fibforge.h`) looks
//! up with no call into the library: the C→Rust call per lookup was what kept the C reader
//! below the bare walk (`docs/lab/api-speed.md`).
//!
//! The pointers are those of the `&Fib` an online [`fibforge::Reader`] borrows: the view is
//! retired, and its blocks reused, only after the reader reports a quiescent state or goes
//! offline, which the header's contract forbids while the C caller still uses the view.
//! Offline readers have no such protection, so they get no view.

use crate::error::{Error, Status, guard};
use crate::handle::ReaderHandle;
use crate::ptr::borrow;
use fibforge::algo::poptrie::{RAW_LAYOUT_VERSION, RawArrays};
use fibforge::sync::AnyReader;
use std::ffi::c_void;

/// `fibforge_view4` in `fibforge.h` (the same fields in the same order).
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct View4 {
    /// `FIBFORGE_VIEW4_VERSION`: the layout of this struct and of the arrays.
    pub version: u32,
    /// Direct-pointing bits (`dir` has `2^s` entries).
    pub s: u32,
    /// `dir` entry width: 16 or 32.
    pub dir_bits: u32,
    /// 16-bit `dir`: entries at or above it are next hops (raw `e - root_limit`).
    pub root_limit: u32,
    /// Leaf width: 8, 16 or 32.
    pub leaf_bits: u32,
    /// Zero; room for a later field without changing the size.
    pub reserved: u32,
    /// The `dir` entries.
    pub dir: *const c_void,
    /// The 24-byte node records.
    pub nodes: *const c_void,
    /// The leaves.
    pub leaves: *const c_void,
}

impl View4 {
    /// All fields zero and every pointer NULL: what a failed call leaves.
    pub const EMPTY: View4 = View4 {
        version: 0,
        s: 0,
        dir_bits: 0,
        root_limit: 0,
        leaf_bits: 0,
        reserved: 0,
        dir: std::ptr::null(),
        nodes: std::ptr::null(),
        leaves: std::ptr::null(),
    };

    fn of(raw: RawArrays) -> View4 {
        View4 {
            version: RAW_LAYOUT_VERSION,
            s: raw.s,
            dir_bits: raw.dir_bits,
            root_limit: raw.root_limit,
            leaf_bits: raw.leaf_bits,
            reserved: 0,
            dir: raw.dir.cast(),
            nodes: raw.nodes.cast(),
            leaves: raw.leaves.cast(),
        }
    }
}

/// The view of an online Poptrie reader.
fn view_of(reader: &ReaderHandle<u32>) -> Result<View4, Error> {
    let AnyReader::Poptrie(r) = &reader.reader else {
        let msg = "views exist for Poptrie tables only (this table is a bplus); use \
                   fibforge_reader4_lookup";
        return Err(Error::new(Status::Unsupported, msg));
    };
    let Some(fib) = r.view() else {
        let msg = "reader is offline: a view needs an online reader (fibforge_reader4_online)";
        return Err(Error::new(Status::Invalid, msg));
    };
    let Some(raw) = fib.raw_arrays() else {
        let msg = "views exist for Poptrie's leafvec layout only (this table was built with \
                   leafvec=off); use fibforge_reader4_lookup";
        return Err(Error::new(Status::Unsupported, msg));
    };
    Ok(View4::of(raw))
}

/// `fibforge_reader4_view`.
///
/// # Safety
/// As documented in `fibforge.h`: `r` is NULL or a live reader that only this thread uses
/// now; `out` is NULL or valid for writing one `fibforge_view4`.
pub unsafe fn reader_view4(r: *const ReaderHandle<u32>, out: *mut View4) -> Status {
    if out.is_null() {
        crate::error::set_last_error("view is NULL");
        return Status::Null;
    }
    // SAFETY: `out` is non-NULL and writable (caller's contract).
    unsafe { out.write(View4::EMPTY) };
    guard(|| {
        // SAFETY: forwarded contract: NULL or a live reader used by this thread only.
        let view = view_of(unsafe { borrow(r, "reader") }?)?;
        // SAFETY: as above.
        unsafe { out.write(view) };
        Ok(())
    })
}
