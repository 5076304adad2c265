//! The entry points, generic over the address family; `ffi.rs` exports one copy per family
//! under the names of `fibforge.h`. Each checks every pointer for NULL before use. Each runs
//! inside [`guard`] / [`guard_value`], so no panic crosses into C, except the single lookups
//! and the reader's online/offline/quiescent calls: they are on the data plane's hot path,
//! and none of them has a panicking path (the walk indexes unchecked into arrays whose
//! invariants the writer keeps; the others are atomic loads and stores), so they carry no
//! unwinding machinery; their NULL check is one predictable branch with the error path out
//! of line.

use crate::batch::lookup_into;
use crate::error::{Error, Status, guard, guard_value, set_last_error};
use crate::handle::{NO_ROUTE, ReaderHandle, Side, TableHandle, structure};
use crate::ptr::{borrow, borrow_mut, free, path, write_opt};
use fibforge::sync::Structure;
use std::ffi::c_char;

/// Runs `make` and stores the boxed result in `*out` (NULL there on failure).
///
/// # Safety
/// `out` is NULL or valid for writing one pointer.
pub(crate) unsafe fn create<T>(
    out: *mut *mut T,
    make: impl FnOnce() -> Result<T, Error>,
) -> Status {
    if out.is_null() {
        set_last_error("out is NULL");
        return Status::Null;
    }
    // SAFETY: `out` is non-NULL and writable (caller's contract).
    unsafe { out.write(std::ptr::null_mut()) };
    guard(|| {
        let handle = Box::into_raw(Box::new(make()?));
        // SAFETY: as above.
        unsafe { out.write(handle) };
        Ok(())
    })
}

/// `fibforge_table*_new`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_new<A: Side>(out: *mut *mut TableHandle<A>) -> Status {
    // SAFETY: forwarded contract on `out`.
    unsafe { create(out, || TableHandle::new(&Structure::default_for::<A>())) }
}

/// `fibforge_table*_new_with`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_new_with<A: Side>(
    algo: *const c_char,
    out: *mut *mut TableHandle<A>,
) -> Status {
    // SAFETY: forwarded contracts on `algo` (a C string) and `out`.
    unsafe { create(out, || TableHandle::new(&structure::<A>(algo)?)) }
}

/// `fibforge_table*_load`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_load<A: Side>(file: *const c_char, out: *mut *mut TableHandle<A>) -> Status {
    // SAFETY: forwarded contracts on `file` (a C string) and `out`.
    unsafe { create(out, || TableHandle::load(&path(file)?, &Structure::default_for::<A>())) }
}

/// `fibforge_table*_load_with`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_load_with<A: Side>(
    file: *const c_char,
    algo: *const c_char,
    out: *mut *mut TableHandle<A>,
) -> Status {
    // SAFETY: forwarded contracts on `file` and `algo` (C strings) and `out`. Both texts are
    // checked before the file is read.
    unsafe { create(out, || TableHandle::load(&path(file)?, &structure::<A>(algo)?)) }
}

/// `fibforge_table*_free`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_free<A: Side>(t: *mut TableHandle<A>) {
    // SAFETY: forwarded contract: NULL or an unfreed table of this library.
    guard_value((), || unsafe { free(t) })
}

/// `fibforge_table*_insert`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_insert<A: Side>(
    t: *mut TableHandle<A>,
    addr: A::C,
    len: u8,
    hop: u32,
    previous: *mut u32,
) -> Status {
    guard(|| {
        // SAFETY: forwarded contract: NULL or a table no other thread uses now.
        let old = unsafe { borrow_mut(t, "table") }?.insert(A::from_c(addr), len, hop)?;
        // SAFETY: forwarded contract: NULL or writable.
        unsafe { write_opt(previous, old) };
        Ok(())
    })
}

/// `fibforge_table*_remove`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_remove<A: Side>(
    t: *mut TableHandle<A>,
    addr: A::C,
    len: u8,
    removed: *mut u32,
) -> Status {
    guard(|| {
        // SAFETY: forwarded contract: NULL or a table no other thread uses now.
        let old = unsafe { borrow_mut(t, "table") }?.remove(A::from_c(addr), len)?;
        // SAFETY: forwarded contract: NULL or writable.
        unsafe { write_opt(removed, old) };
        Ok(())
    })
}

/// `fibforge_table*_lookup`.
///
/// # Safety
/// As documented in `fibforge.h`.
#[inline(always)]
pub unsafe fn table_lookup<A: Side>(t: *const TableHandle<A>, addr: A::C) -> u32 {
    // SAFETY: forwarded contract: NULL or a live table not being updated now.
    match unsafe { t.as_ref() } {
        Some(t) => t.lookup(A::from_c(addr)),
        None => null_handle("table"),
    }
}

/// The error path of a single lookup given NULL (kept out of the caller's code).
#[cold]
#[inline(never)]
fn null_handle(what: &str) -> u32 {
    set_last_error(&Error::null(what).message);
    NO_ROUTE
}

/// `fibforge_table*_lookup_batch`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_lookup_batch<A: Side>(
    t: *const TableHandle<A>,
    addrs: *const A::C,
    out: *mut u32,
    n: usize,
) -> Status {
    guard(|| {
        // SAFETY: forwarded contract: NULL or a live table not being updated now.
        let table = unsafe { borrow(t, "table") }?;
        // SAFETY: forwarded contract on the arrays.
        unsafe { lookup_into::<A>(addrs, out, n, |a, o| table.lookup_batch(a, o)) }
    })
}

/// `fibforge_table*_len`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_len<A: Side>(t: *const TableHandle<A>) -> usize {
    // SAFETY: forwarded contract: NULL or a live table.
    unsafe { t.as_ref() }.map_or(0, TableHandle::len)
}

/// `fibforge_table*_structure`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_structure<A: Side>(t: *const TableHandle<A>) -> *const c_char {
    // SAFETY: forwarded contract: NULL or a live table.
    unsafe { t.as_ref() }.map_or(std::ptr::null(), |t| t.structure().as_ptr())
}

/// `fibforge_table*_pending_reclaim`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_pending_reclaim<A: Side>(
    t: *const TableHandle<A>,
    objects: *mut u64,
    bytes: *mut u64,
    over_threshold: *mut std::ffi::c_int,
) -> Status {
    guard(|| {
        // SAFETY: forwarded contract: NULL or a live table not being updated now.
        let pending = unsafe { borrow(t, "table") }?.pending_reclaim();
        // SAFETY: forwarded contract: each out-pointer is NULL or writable.
        unsafe {
            write_opt(objects, pending.objects as u64);
            write_opt(bytes, pending.bytes as u64);
            write_opt(over_threshold, pending.over_threshold.into());
        }
        Ok(())
    })
}

/// `fibforge_table*_next_hop_name`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_next_hop_name<A: Side>(t: *const TableHandle<A>, id: u32) -> *const c_char {
    // SAFETY: forwarded contract: NULL or a live table.
    let name = unsafe { t.as_ref() }.and_then(|t| t.name(id));
    name.map_or(std::ptr::null(), |n| n.as_ptr())
}

/// `fibforge_table*_reader`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn table_reader<A: Side>(
    t: *const TableHandle<A>,
    out: *mut *mut ReaderHandle<A>,
) -> Status {
    // SAFETY: forwarded contracts on `t` and `out`.
    unsafe { create(out, || Ok(borrow(t, "table")?.reader())) }
}

/// `fibforge_reader*_lookup`.
///
/// # Safety
/// As documented in `fibforge.h`.
#[inline(always)]
pub unsafe fn reader_lookup<A: Side>(r: *const ReaderHandle<A>, addr: A::C) -> u32 {
    // SAFETY: forwarded contract: NULL or a live reader that only this thread uses now.
    match unsafe { r.as_ref() } {
        Some(r) => crate::handle::hop_out(r.reader.lookup(A::from_c(addr))),
        None => null_handle("reader"),
    }
}

/// `fibforge_reader*_online`, `_offline` and `_quiescent`: `step` on the reader (NULL: ignored).
///
/// # Safety
/// As documented in `fibforge.h`: NULL or a live reader that only this thread uses now.
#[inline(always)]
pub unsafe fn reader_state<A: Side>(r: *mut ReaderHandle<A>, step: fn(&mut ReaderHandle<A>)) {
    // SAFETY: forwarded contract: no other reference to the reader exists during the call.
    if let Some(r) = unsafe { r.as_mut() } {
        step(r);
    }
}

/// `fibforge_reader*_lookup_batch`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn reader_lookup_batch<A: Side>(
    r: *const ReaderHandle<A>,
    addrs: *const A::C,
    out: *mut u32,
    n: usize,
) -> Status {
    guard(|| {
        // SAFETY: forwarded contract: NULL or a live reader.
        let reader = &unsafe { borrow(r, "reader") }?.reader;
        // SAFETY: forwarded contract on the arrays (an offline reader is online per chunk).
        unsafe { lookup_into::<A>(addrs, out, n, |a, o| reader.lookup_batch(a, o)) }
    })
}

/// `fibforge_reader*_free`.
///
/// # Safety
/// As documented in `fibforge.h`.
pub unsafe fn reader_free<A: Side>(r: *mut ReaderHandle<A>) {
    // SAFETY: forwarded contract: NULL or an unfreed reader of this library.
    guard_value((), || unsafe { free(r) })
}
