//! The Rust side of the C ABI, called from Rust: status codes and messages, the panic guard,
//! NULL out-pointers and in-place batches. These are integration tests rather than unit
//! tests so that the crate's library is compiled once for every test binary (its own test
//! harness would compile it a second time, the largest single cost of this crate in CI).

use fibforge_c::error::{Error, guard, guard_value, last_error_ptr, set_last_error};
use fibforge_c::{
    NO_ROUTE, Status, Table4, fibforge_table4_free, fibforge_table4_insert, fibforge_table4_lookup,
    fibforge_table4_lookup_batch, fibforge_table4_new,
};
use std::ffi::CStr;

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
