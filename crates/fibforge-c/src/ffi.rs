//! The exported symbols of `include/fibforge.h`: one set per address family, each a thin
//! forwarder to the generic entry point in `entry.rs`. The header is the documentation.

use crate::entry;
use crate::error::{Status, last_error_ptr};
use crate::handle::{ReaderHandle, Side, TableHandle};
use std::ffi::c_char;

/// `fibforge_table4`.
pub type Table4 = TableHandle<u32>;
/// `fibforge_table6`.
pub type Table6 = TableHandle<u128>;
/// `fibforge_reader4`.
pub type Reader4 = ReaderHandle<u32>;
/// `fibforge_reader6`.
pub type Reader6 = ReaderHandle<u128>;

/// `fibforge_last_error`: this thread's message of its last failed call ("" if none).
#[unsafe(no_mangle)]
pub extern "C" fn fibforge_last_error() -> *const c_char {
    last_error_ptr()
}

/// `fibforge_version`: the library version, a static string.
#[unsafe(no_mangle)]
pub extern "C" fn fibforge_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// `fibforge_status_str`: the C name of a status code, a static string.
///
/// Takes the code as an `int` rather than [`Status`] because C may pass any value of the
/// enum's type, and a Rust enum holding an undefined discriminant is undefined behaviour.
#[unsafe(no_mangle)]
pub extern "C" fn fibforge_status_str(status: std::ffi::c_int) -> *const c_char {
    Status::name_of(status).unwrap_or("unknown status\0").as_ptr().cast()
}

/// `fibforge_reader4_view`: the arrays of an online Poptrie reader's current view, for the
/// header's inline `fibforge_view4_lookup`.
///
/// # Safety
/// The caller keeps this function's contract in `fibforge.h`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fibforge_reader4_view(
    r: *const Reader4,
    view: *mut crate::view::View4,
) -> Status {
    // SAFETY: the header's contract is the one the entry point requires.
    unsafe { crate::view::reader_view4(r, view) }
}

/// Exports the functions of one family under the given names.
macro_rules! family_api {
    ($fam:ty, $table:ty, $reader:ty,
     $new:ident, $load:ident, $free:ident, $insert:ident, $remove:ident, $lookup:ident,
     $batch:ident, $len:ident, $name:ident, $mk_reader:ident,
     $r_lookup:ident, $r_batch:ident, $r_free:ident,
     $r_online:ident, $r_offline:ident, $r_quiescent:ident,
     $new_with:ident, $load_with:ident, $structure:ident, $pending:ident) => {
        #[doc = concat!("`", stringify!($new), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $new(out: *mut *mut $table) -> Status {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_new(out) }
        }

        #[doc = concat!("`", stringify!($load), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $load(path: *const c_char, out: *mut *mut $table) -> Status {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_load(path, out) }
        }

        #[doc = concat!("`", stringify!($new_with), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $new_with(algo: *const c_char, out: *mut *mut $table) -> Status {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_new_with(algo, out) }
        }

        #[doc = concat!("`", stringify!($load_with), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $load_with(
            path: *const c_char,
            algo: *const c_char,
            out: *mut *mut $table,
        ) -> Status {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_load_with(path, algo, out) }
        }

        #[doc = concat!("`", stringify!($structure), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $structure(t: *const $table) -> *const c_char {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_structure(t) }
        }

        #[doc = concat!("`", stringify!($pending), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $pending(
            t: *const $table,
            objects: *mut u64,
            bytes: *mut u64,
            over_threshold: *mut std::ffi::c_int,
        ) -> Status {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_pending_reclaim(t, objects, bytes, over_threshold) }
        }

        #[doc = concat!("`", stringify!($free), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $free(t: *mut $table) {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_free(t) }
        }

        #[doc = concat!("`", stringify!($insert), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $insert(
            t: *mut $table,
            addr: <$fam as Side>::C,
            len: u8,
            next_hop: u32,
            previous: *mut u32,
        ) -> Status {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_insert(t, addr, len, next_hop, previous) }
        }

        #[doc = concat!("`", stringify!($remove), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $remove(
            t: *mut $table,
            addr: <$fam as Side>::C,
            len: u8,
            removed: *mut u32,
        ) -> Status {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_remove(t, addr, len, removed) }
        }

        #[doc = concat!("`", stringify!($lookup), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $lookup(t: *const $table, addr: <$fam as Side>::C) -> u32 {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_lookup(t, addr) }
        }

        #[doc = concat!("`", stringify!($batch), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $batch(
            t: *const $table,
            addrs: *const <$fam as Side>::C,
            out: *mut u32,
            n: usize,
        ) -> Status {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_lookup_batch(t, addrs, out, n) }
        }

        #[doc = concat!("`", stringify!($len), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $len(t: *const $table) -> usize {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_len(t) }
        }

        #[doc = concat!("`", stringify!($name), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(t: *const $table, id: u32) -> *const c_char {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_next_hop_name(t, id) }
        }

        #[doc = concat!("`", stringify!($mk_reader), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $mk_reader(t: *const $table, out: *mut *mut $reader) -> Status {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::table_reader(t, out) }
        }

        #[doc = concat!("`", stringify!($r_lookup), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $r_lookup(r: *const $reader, addr: <$fam as Side>::C) -> u32 {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::reader_lookup(r, addr) }
        }

        #[doc = concat!("`", stringify!($r_batch), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $r_batch(
            r: *const $reader,
            addrs: *const <$fam as Side>::C,
            out: *mut u32,
            n: usize,
        ) -> Status {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::reader_lookup_batch(r, addrs, out, n) }
        }

        #[doc = concat!("`", stringify!($r_online), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $r_online(r: *mut $reader) {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::reader_state(r, |r| r.reader.online()) }
        }

        #[doc = concat!("`", stringify!($r_offline), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $r_offline(r: *mut $reader) {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::reader_state(r, |r| r.reader.offline()) }
        }

        #[doc = concat!("`", stringify!($r_quiescent), "` (see fibforge.h).")]
        ///
        /// # Safety
        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $r_quiescent(r: *mut $reader) {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::reader_state(r, |r| r.reader.quiescent()) }
        }

        #[doc = concat!("`", stringify!($r_free), "` (see fibforge.h).")]

        ///

        /// # Safety

        /// The caller keeps this function's contract in `fibforge.h`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $r_free(r: *mut $reader) {
            // SAFETY: the header's contract is the one the entry point requires.
            unsafe { entry::reader_free(r) }
        }
    };
}

family_api!(
    u32,
    Table4,
    Reader4,
    fibforge_table4_new,
    fibforge_table4_load,
    fibforge_table4_free,
    fibforge_table4_insert,
    fibforge_table4_remove,
    fibforge_table4_lookup,
    fibforge_table4_lookup_batch,
    fibforge_table4_len,
    fibforge_table4_next_hop_name,
    fibforge_table4_reader,
    fibforge_reader4_lookup,
    fibforge_reader4_lookup_batch,
    fibforge_reader4_free,
    fibforge_reader4_online,
    fibforge_reader4_offline,
    fibforge_reader4_quiescent,
    fibforge_table4_new_with,
    fibforge_table4_load_with,
    fibforge_table4_structure,
    fibforge_table4_pending_reclaim
);

family_api!(
    u128,
    Table6,
    Reader6,
    fibforge_table6_new,
    fibforge_table6_load,
    fibforge_table6_free,
    fibforge_table6_insert,
    fibforge_table6_remove,
    fibforge_table6_lookup,
    fibforge_table6_lookup_batch,
    fibforge_table6_len,
    fibforge_table6_next_hop_name,
    fibforge_table6_reader,
    fibforge_reader6_lookup,
    fibforge_reader6_lookup_batch,
    fibforge_reader6_free,
    fibforge_reader6_online,
    fibforge_reader6_offline,
    fibforge_reader6_quiescent,
    fibforge_table6_new_with,
    fibforge_table6_load_with,
    fibforge_table6_structure,
    fibforge_table6_pending_reclaim
);
