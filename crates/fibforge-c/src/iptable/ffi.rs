//! The exported `fibforge_iptable_*`, `fibforge_ipreader_*` and `fibforge_ipcursor_*`
//! functions of `fibforge.h` (the header is their documentation). Each checks its pointers
//! for NULL and runs under the panic guard.

use super::batch::lookup_into;
use super::handle::{Answer, Cursor, IpReaderHandle, IpTableHandle, reader_lookup4_batch};
use super::handle::{reader_lookup6_batch, route4, route6};
use super::types::{CPrefix, CRoute};
use crate::entry::create;
use crate::error::{Error, Status, guard, guard_value, set_last_error};
use crate::handle::{Ip6, NO_ROUTE};
use crate::ptr::{borrow, borrow_mut, free, path, text, write_opt};
use std::ffi::{c_char, c_int};
use std::net::{Ipv4Addr, Ipv6Addr};

/// `fibforge_iptable`.
pub type IpTable = IpTableHandle;
/// `fibforge_ipreader`.
pub type IpReader = IpReaderHandle;
/// `fibforge_ipcursor`.
pub type IpCursor = Cursor;

/// The structure text of an optional `algo` argument (NULL: the default).
///
/// # Safety
/// `algo` is NULL or a valid NUL-terminated string.
unsafe fn algo_text<'a>(algo: *const c_char) -> Result<Option<&'a str>, Error> {
    if algo.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL and, by the caller's contract, a NUL-terminated string.
    unsafe { text(algo, "algo") }.map(Some)
}

/// Writes one lookup's answer: returns the next hop, stores the length through `len`.
///
/// # Safety
/// `len` is NULL or writable.
#[inline(always)]
unsafe fn answered((hop, matched): Answer, len: *mut u8) -> u32 {
    // SAFETY: forwarded contract on `len`.
    unsafe { write_opt(len, matched) };
    hop
}

/// A lookup given a NULL handle: `NO_ROUTE`, length 0, and the last error.
///
/// # Safety
/// `len` is NULL or writable.
#[cold]
#[inline(never)]
unsafe fn null_lookup(what: &str, len: *mut u8) -> u32 {
    set_last_error(&Error::null(what).message);
    // SAFETY: forwarded contract on `len`.
    unsafe { answered((NO_ROUTE, 0), len) }
}

/// `fibforge_iptable_new` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_new(
    algo: *const c_char,
    out: *mut *mut IpTable,
) -> Status {
    // SAFETY: forwarded contracts on `algo` and `out`.
    unsafe { create(out, || IpTableHandle::new(algo_text(algo)?)) }
}

/// `fibforge_iptable_load` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_load(
    file: *const c_char,
    algo: *const c_char,
    out: *mut *mut IpTable,
) -> Status {
    // SAFETY: forwarded contracts on `file`, `algo` (C strings) and `out`; the structure is
    // checked first, inside `load`, before the file is read.
    unsafe { create(out, || IpTableHandle::load(&path(file)?, algo_text(algo)?)) }
}

/// `fibforge_iptable_open` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_open(
    file: *const c_char,
    out: *mut *mut IpTable,
) -> Status {
    // SAFETY: forwarded contracts on `file` (a C string) and `out`.
    unsafe { create(out, || IpTableHandle::open(&path(file)?)) }
}

/// `fibforge_iptable_save` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_save(t: *const IpTable, file: *const c_char) -> Status {
    guard(|| {
        // SAFETY: forwarded contracts: a live table not being updated now, a C string.
        let (t, file) = unsafe { (borrow(t, "table")?, path(file)?) };
        t.save(&file)
    })
}

/// `fibforge_iptable_free` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_free(t: *mut IpTable) {
    // SAFETY: forwarded contract: NULL or an unfreed table of this library.
    guard_value((), || unsafe { free(t) })
}

/// `fibforge_iptable_structure` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_structure(t: *const IpTable) -> *const c_char {
    // SAFETY: forwarded contract: NULL or a live table.
    let t = unsafe { t.as_ref() };
    t.map_or(std::ptr::null(), |t| t.structure().as_ptr())
}

/// `fibforge_iptable_len` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_len(t: *const IpTable) -> usize {
    // SAFETY: forwarded contract: NULL or a live table.
    unsafe { t.as_ref() }.map_or(0, IpTableHandle::len)
}

/// `fibforge_iptable_is_mapped` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_is_mapped(t: *const IpTable) -> c_int {
    // SAFETY: forwarded contract: NULL or a live table.
    unsafe { t.as_ref() }.map_or(0, |t| c_int::from(t.is_mapped()))
}

/// `fibforge_iptable_next_hop_name` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_next_hop_name(
    t: *const IpTable,
    id: u32,
) -> *const c_char {
    // SAFETY: forwarded contract: NULL or a live table.
    let t = unsafe { t.as_ref() };
    t.and_then(|t| t.name(id)).map_or(std::ptr::null(), |n| n.as_ptr())
}

/// Exports insert, remove and get of one family.
macro_rules! changes {
    ($c:ty, $route:path, $insert:ident, $remove:ident, $get:ident) => {
        #[doc = concat!("`", stringify!($insert), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $insert(
            t: *mut IpTable,
            addr: $c,
            len: u8,
            next_hop: u32,
            previous: *mut u32,
        ) -> Status {
            guard(|| {
                // SAFETY: forwarded contract: NULL or a table no other thread uses now.
                let t = unsafe { borrow_mut(t, "table") }?;
                let old = t.insert($route(addr, len)?, next_hop)?;
                // SAFETY: forwarded contract: NULL or writable.
                unsafe { write_opt(previous, old) };
                Ok(())
            })
        }

        #[doc = concat!("`", stringify!($remove), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $remove(
            t: *mut IpTable,
            addr: $c,
            len: u8,
            removed: *mut u32,
        ) -> Status {
            guard(|| {
                // SAFETY: forwarded contract: NULL or a table no other thread uses now.
                let old = unsafe { borrow_mut(t, "table") }?.remove($route(addr, len)?)?;
                // SAFETY: forwarded contract: NULL or writable.
                unsafe { write_opt(removed, old) };
                Ok(())
            })
        }

        #[doc = concat!("`", stringify!($get), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $get(
            t: *const IpTable,
            addr: $c,
            len: u8,
            next_hop: *mut u32,
        ) -> Status {
            guard(|| {
                if next_hop.is_null() {
                    return Err(Error::null("next_hop"));
                }
                // SAFETY: forwarded contract: NULL or a live table not being updated now.
                let hop = unsafe { borrow(t, "table") }?.get($route(addr, len)?);
                // SAFETY: non-NULL and writable (caller's contract).
                unsafe { next_hop.write(hop) };
                Ok(())
            })
        }
    };
}

changes!(u32, route4, fibforge_iptable_insert4, fibforge_iptable_remove4, fibforge_iptable_get4);
changes!(Ip6, route6, fibforge_iptable_insert6, fibforge_iptable_remove6, fibforge_iptable_get6);

/// Exports the table's and the reader's lookups of one family.
macro_rules! lookups {
    ($c:ty, $key:ty, $zero:expr, $lookup:ident, $batch:ident, $r_lookup:ident, $r_batch:ident,
     $one:ident, $many:ident, $r_many:path) => {
        #[doc = concat!("`", stringify!($lookup), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $lookup(t: *const IpTable, addr: $c, len: *mut u8) -> u32 {
            // SAFETY: forwarded contract: NULL or a live table not being updated now.
            match unsafe { t.as_ref() } {
                // SAFETY: forwarded contract on `len`: NULL or writable.
                Some(t) => unsafe { answered(guard_value((NO_ROUTE, 0), || t.$one(addr)), len) },
                // SAFETY: as above.
                None => unsafe { null_lookup("table", len) },
            }
        }

        #[doc = concat!("`", stringify!($batch), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $batch(
            t: *const IpTable,
            addrs: *const $c,
            next_hops: *mut u32,
            lens: *mut u8,
            n: usize,
        ) -> Status {
            guard(|| {
                // SAFETY: forwarded contract: NULL or a live table not being updated now.
                let t = unsafe { borrow(t, "table") }?;
                let convert: fn($c) -> $key = |c| <$key>::from(c);
                // SAFETY: forwarded contract on the arrays.
                unsafe {
                    lookup_into(addrs, next_hops, lens, n, ($zero, convert), |a, o| t.$many(a, o))
                }
            })
        }

        #[doc = concat!("`", stringify!($r_lookup), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $r_lookup(r: *mut IpReader, addr: $c, len: *mut u8) -> u32 {
            // SAFETY: forwarded contract: NULL or a live reader only this thread uses now.
            match unsafe { r.as_mut() } {
                // SAFETY: forwarded contract on `len`: NULL or writable.
                Some(r) => unsafe { answered(guard_value((NO_ROUTE, 0), || r.$one(addr)), len) },
                // SAFETY: as above.
                None => unsafe { null_lookup("reader", len) },
            }
        }

        #[doc = concat!("`", stringify!($r_batch), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $r_batch(
            r: *mut IpReader,
            addrs: *const $c,
            next_hops: *mut u32,
            lens: *mut u8,
            n: usize,
        ) -> Status {
            guard(|| {
                // SAFETY: forwarded contract: NULL or a live reader only this thread uses now.
                let r = unsafe { borrow_mut(r, "reader") }?;
                let convert: fn($c) -> $key = |c| <$key>::from(c);
                r.with_online(|reader| {
                    // SAFETY: forwarded contract on the arrays.
                    unsafe {
                        lookup_into(addrs, next_hops, lens, n, ($zero, convert), |a, o| {
                            $r_many(reader, a, o)
                        })
                    }
                })
            })
        }
    };
}

impl From<Ip6> for Ipv6Addr {
    fn from(a: Ip6) -> Ipv6Addr {
        Ipv6Addr::from(a.bytes)
    }
}

lookups!(
    u32,
    Ipv4Addr,
    Ipv4Addr::UNSPECIFIED,
    fibforge_iptable_lookup4,
    fibforge_iptable_lookup4_batch,
    fibforge_ipreader_lookup4,
    fibforge_ipreader_lookup4_batch,
    lookup4,
    lookup4_batch,
    reader_lookup4_batch
);
lookups!(
    Ip6,
    Ipv6Addr,
    Ipv6Addr::UNSPECIFIED,
    fibforge_iptable_lookup6,
    fibforge_iptable_lookup6_batch,
    fibforge_ipreader_lookup6,
    fibforge_ipreader_lookup6_batch,
    lookup6,
    lookup6_batch,
    reader_lookup6_batch
);

/// Makes a cursor of `t` in `*out`.
///
/// # Safety
/// `t` NULL or a live table not being updated now; `out` NULL or writable.
unsafe fn make_cursor(
    t: *const IpTable,
    out: *mut *mut IpCursor,
    walk: impl FnOnce(&IpTableHandle) -> Result<Cursor, Error>,
) -> Status {
    // SAFETY: forwarded contracts on `t` and `out`.
    unsafe { create(out, || walk(borrow(t, "table")?)) }
}

/// The network a C prefix argument names.
///
/// # Safety
/// `p` is NULL or readable.
unsafe fn prefix_arg(p: *const CPrefix) -> Result<ipnet::IpNet, Error> {
    // SAFETY: forwarded contract: NULL or a readable prefix.
    unsafe { borrow(p, "prefix") }?.to_net()
}

/// `fibforge_iptable_routes` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_routes(
    t: *const IpTable,
    out: *mut *mut IpCursor,
) -> Status {
    // SAFETY: forwarded contracts.
    unsafe { make_cursor(t, out, |t| Ok(t.routes())) }
}

/// `fibforge_iptable_covering` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_covering(
    t: *const IpTable,
    prefix: *const CPrefix,
    out: *mut *mut IpCursor,
) -> Status {
    // SAFETY: forwarded contracts, `prefix` included.
    unsafe { make_cursor(t, out, |t| Ok(t.covering(prefix_arg(prefix)?))) }
}

/// `fibforge_iptable_covered` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_covered(
    t: *const IpTable,
    prefix: *const CPrefix,
    out: *mut *mut IpCursor,
) -> Status {
    // SAFETY: forwarded contracts, `prefix` included.
    unsafe { make_cursor(t, out, |t| Ok(t.covered(prefix_arg(prefix)?))) }
}

/// `fibforge_ipcursor_next` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_ipcursor_next(c: *mut IpCursor, route: *mut CRoute) -> c_int {
    let mut more = 0;
    let status = guard(|| {
        if route.is_null() {
            return Err(Error::null("route"));
        }
        // SAFETY: forwarded contract: NULL or a cursor only this thread uses now.
        if let Some(next) = unsafe { borrow_mut(c, "cursor") }?.next_route() {
            // SAFETY: non-NULL and writable (caller's contract).
            unsafe { route.write(next) };
            more = 1;
        }
        Ok(())
    });
    if status == Status::Ok { more } else { -1 }
}

/// `fibforge_ipcursor_free` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_ipcursor_free(c: *mut IpCursor) {
    // SAFETY: forwarded contract: NULL or an unfreed cursor of this library.
    guard_value((), || unsafe { free(c) })
}

/// `fibforge_iptable_reader` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_iptable_reader(
    t: *const IpTable,
    out: *mut *mut IpReader,
) -> Status {
    // SAFETY: forwarded contracts: a live table not being updated now, a writable `out`.
    unsafe { create(out, || Ok(borrow(t, "table")?.reader())) }
}

/// Runs `step` on a reader (NULL: ignored).
///
/// # Safety
/// `r` is NULL or a live reader only this thread uses now.
unsafe fn reader_step(r: *mut IpReader, step: fn(&mut IpReaderHandle)) {
    // SAFETY: forwarded contract: no other reference to the reader exists during the call.
    if let Some(r) = unsafe { r.as_mut() } {
        step(r);
    }
}

/// `fibforge_ipreader_online` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_ipreader_online(r: *mut IpReader) {
    // SAFETY: forwarded contract.
    unsafe { reader_step(r, IpReaderHandle::online) }
}

/// `fibforge_ipreader_offline` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_ipreader_offline(r: *mut IpReader) {
    // SAFETY: forwarded contract.
    unsafe { reader_step(r, IpReaderHandle::offline) }
}

/// `fibforge_ipreader_quiescent` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_ipreader_quiescent(r: *mut IpReader) {
    // SAFETY: forwarded contract.
    unsafe { reader_step(r, IpReaderHandle::quiescent) }
}

/// `fibforge_ipreader_free` (see fibforge.h).
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_ipreader_free(r: *mut IpReader) {
    // SAFETY: forwarded contract: NULL or an unfreed reader of this library.
    guard_value((), || unsafe { free(r) })
}
