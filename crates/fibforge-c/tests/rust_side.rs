//! The Rust side of the C ABI, called from Rust: status codes and messages, the panic guard,
//! NULL out-pointers and in-place batches. These are integration tests rather than unit
//! tests so that the crate's library is compiled once for every test binary (its own test
//! harness would compile it a second time, the largest single cost of this crate in CI).

use fibforge_c::error::{Error, guard, guard_value, last_error_ptr, set_last_error};
use fibforge_c::{
    NO_ROUTE, Reader4, Status, Table4, Table6, fibforge_reader4_free, fibforge_reader4_online,
    fibforge_reader4_quiescent, fibforge_table4_free, fibforge_table4_insert, fibforge_table4_load,
    fibforge_table4_lookup, fibforge_table4_lookup_batch, fibforge_table4_new,
    fibforge_table4_new_with, fibforge_table4_pending_reclaim, fibforge_table4_reader,
    fibforge_table6_free, fibforge_table6_new_with,
};
use std::ffi::{CStr, CString};

fn last() -> String {
    // SAFETY: the pointer is this thread's live message, read before any other call.
    unsafe { CStr::from_ptr(last_error_ptr()) }.to_string_lossy().into_owned()
}

#[test]
fn errors_become_codes_and_messages() {
    assert_eq!(guard(|| Err(Error::null("table"))), Status::Null);
    assert_eq!(last(), "table is NULL");
    assert_eq!(guard(|| Ok(())), Status::Ok);
    assert_eq!(last(), "table is NULL", "success leaves the message");
}

#[test]
fn panics_are_caught() {
    assert_eq!(guard(|| panic!("boom {}", 1)), Status::Panic);
    assert!(last().contains("boom 1"), "{}", last());
    assert_eq!(guard_value(7u32, || std::panic::panic_any("static")), 7);
    assert!(last().ends_with("static"));
}

#[test]
fn every_status_has_its_c_name() {
    let all = [
        Status::Ok,
        Status::Null,
        Status::Invalid,
        Status::Io,
        Status::Parse,
        Status::Limit,
        Status::Panic,
        Status::Unsupported,
    ];
    for s in all {
        let name = Status::name_of(s as i32).expect("a name");
        let want = format!("{s:?}").to_uppercase();
        assert!(name.ends_with(&format!("{want}\0")), "{s:?}: {name}");
    }
    assert_eq!(Status::name_of(8), None);
    assert_eq!(Status::name_of(-1), None);
}

#[test]
fn interior_nul_is_escaped() {
    set_last_error("a\0b");
    assert_eq!(last(), "a\\0b");
}

#[test]
fn null_out_is_an_error_not_a_crash() {
    // SAFETY: NULL is allowed for every pointer here.
    let status = unsafe { fibforge_table4_new(std::ptr::null_mut()) };
    assert_eq!(status, Status::Null);
}

#[test]
fn batch_in_place_matches_single_lookups() {
    let mut t: *mut Table4 = std::ptr::null_mut();
    // SAFETY: `t` is a valid out-pointer; the table is used on this thread only and freed
    // once; `buf` is one array used as both input and output.
    unsafe {
        assert_eq!(fibforge_table4_new(&mut t), Status::Ok);
        assert_eq!(fibforge_table4_insert(t, 0x0a00_0000, 8, 7, std::ptr::null_mut()), Status::Ok);
        let mut buf: Vec<u32> = (0..2000u32).map(|i| i.wrapping_mul(0x0100_0193)).collect();
        let want: Vec<u32> = buf.iter().map(|&a| fibforge_table4_lookup(t, a)).collect();
        let p = buf.as_mut_ptr();
        assert_eq!(fibforge_table4_lookup_batch(t, p, p, buf.len()), Status::Ok);
        assert_eq!(buf, want);
        assert!(want.contains(&7) && want.contains(&NO_ROUTE));
        fibforge_table4_free(t);
    }
}

#[test]
fn malformed_structure_specs_are_refused_with_a_message() {
    for (bad, why) in [
        ("poptrie ", "whitespace"),
        ("poptrie: s=16", "whitespace"),
        ("poptrie:", "no options after ':'"),
        ("poptrie:s=16,,aggregate=off", "empty option"),
        ("poptrie:s", "not key=value"),
        ("poptrie:s=16,s=18", "option `s` given twice"),
        ("bplus:dir=off,dir=on", "option `dir` given twice"),
    ] {
        let text = CString::new(bad).unwrap();
        let (mut t4, mut t6): (*mut Table4, *mut Table6) =
            (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: `text` is a C string and the out-pointers are valid; nothing is created.
        let status = unsafe { fibforge_table4_new_with(text.as_ptr(), &mut t4) };
        assert_eq!((status, t4.is_null()), (Status::Invalid, true), "{bad:?}");
        assert!(last().contains(why), "{bad:?}: {}", last());
        // SAFETY: as above.
        let status = unsafe { fibforge_table6_new_with(text.as_ptr(), &mut t6) };
        assert_eq!((status, t6.is_null()), (Status::Invalid, true), "{bad:?}");
        assert!(last().contains(why), "{bad:?}: {}", last());
    }
    let good = CString::new("poptrie:s=16").unwrap();
    let mut t: *mut Table6 = std::ptr::null_mut();
    // SAFETY: valid C string and out-pointer; the table is freed once.
    unsafe {
        assert_eq!(fibforge_table6_new_with(good.as_ptr(), &mut t), Status::Ok);
        fibforge_table6_free(t);
    }
}

/// (objects, bytes, over the threshold) of `t`.
fn pending(t: *const Table4) -> (u64, u64, i32) {
    let (mut objects, mut bytes, mut over) = (0, 0, -1);
    // SAFETY: `t` is a live table not being updated; the out-pointers are valid.
    let status = unsafe { fibforge_table4_pending_reclaim(t, &mut objects, &mut bytes, &mut over) };
    assert_eq!(status, Status::Ok);
    (objects, bytes, over)
}

/// Next hops `base..base + 64` for 64 /24s.
fn churn(t: *mut Table4, base: u32) {
    for i in 0..64u32 {
        // SAFETY: a live table used by this thread only.
        let status = unsafe {
            fibforge_table4_insert(t, 0x0A00_0000 | i << 8, 24, base + i, std::ptr::null_mut())
        };
        assert_eq!(status, Status::Ok);
    }
}

#[test]
fn pending_reclaim_grows_under_a_silent_reader_and_goes_after_a_report() {
    let mut t: *mut Table4 = std::ptr::null_mut();
    let mut r: *mut Reader4 = std::ptr::null_mut();
    // SAFETY: valid out-pointers; table and reader are used on this thread and freed once.
    unsafe {
        assert_eq!(fibforge_table4_new(&mut t), Status::Ok);
        assert_eq!(fibforge_table4_reader(t, &mut r), Status::Ok);
        fibforge_reader4_online(r);
    }
    churn(t, 0);
    let first = pending(t);
    assert!(first.0 > 0 && first.1 > 0 && first.2 == 0, "{first:?}");
    churn(t, 100);
    let second = pending(t);
    assert!(second.0 > first.0 && second.1 > first.1, "{second:?} after {first:?}");
    // SAFETY: the reader is live and used on this thread.
    unsafe { fibforge_reader4_quiescent(r) };
    // SAFETY: a live table used by this thread only.
    let status = unsafe { fibforge_table4_insert(t, 0x0B00_0000, 8, 1, std::ptr::null_mut()) };
    assert_eq!(status, Status::Ok);
    let after = pending(t);
    // Left: that one update's own retirements (a batch, or the view it replaced).
    assert!(after.0 <= 2 && after.0 < second.0, "{after:?} after {second:?}");
    // SAFETY: NULL table and out-pointers are allowed; then both handles are freed once.
    unsafe {
        let status = fibforge_table4_pending_reclaim(
            std::ptr::null(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        );
        assert_eq!(status, Status::Null);
        fibforge_reader4_free(r);
        fibforge_table4_free(t);
    }
}

/// The status and message of loading `path` as an IPv4 table.
fn load_error(path: &std::path::Path) -> (Status, String) {
    let path = CString::new(path.to_str().unwrap()).unwrap();
    let mut t: *mut Table4 = std::ptr::null_mut();
    // SAFETY: a C string and a valid out-pointer.
    let status = unsafe { fibforge_table4_load(path.as_ptr(), &mut t) };
    assert!(t.is_null());
    (status, last())
}

#[test]
fn a_file_of_blank_lines_is_refused_naming_it() {
    let path = std::env::temp_dir().join(format!("fibforge-c-blank-{}.txt", std::process::id()));
    std::fs::write(&path, "\n\n  \n# nothing\n").unwrap();
    let (status, message) = load_error(&path);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(status, Status::Parse);
    let want = format!("no routes in {} (4 lines, all blank or comments)", path.display());
    assert_eq!(message, want);
}

#[test]
fn proc_self_status_as_ipv4_names_the_family_expected() {
    let path = std::path::Path::new("/proc/self/status");
    if !path.exists() {
        return; // not Linux
    }
    let (status, message) = load_error(path);
    assert_eq!(status, Status::Parse);
    assert!(message.starts_with("/proc/self/status:1: expected an IPv4 prefix"), "{message}");
    assert!(message.contains("found 'Name:'") && !message.contains("ipv6"), "{message}");
}
