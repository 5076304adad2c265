//! Checked conversions of the raw pointers C passes in: each turns NULL into an error that
//! names the argument. The callers' contract (live handles from this library, writable
//! out-pointers, NUL-terminated strings) is the one `fibforge.h` documents.

use crate::error::{Error, Status};
use std::ffi::{CStr, c_char};
use std::path::PathBuf;

/// A shared borrow of a handle.
///
/// # Safety
/// `p` is NULL or points to a live object of type `T` not mutated during `'a`.
pub unsafe fn borrow<'a, T>(p: *const T, what: &str) -> Result<&'a T, Error> {
    // SAFETY: forwarded from the caller: NULL or a live, unaliased-for-writing `T`.
    unsafe { p.as_ref() }.ok_or_else(|| Error::null(what))
}

/// An exclusive borrow of a handle.
///
/// # Safety
/// `p` is NULL or points to a live object of type `T` used by no one else during `'a`.
pub unsafe fn borrow_mut<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Error> {
    // SAFETY: forwarded from the caller: NULL or a live `T` with no other user.
    unsafe { p.as_mut() }.ok_or_else(|| Error::null(what))
}

/// Writes `value` through an optional out-pointer (NULL: the value is dropped).
///
/// # Safety
/// `p` is NULL or valid for writing one `T`.
pub unsafe fn write_opt<T>(p: *mut T, value: T) {
    if !p.is_null() {
        // SAFETY: non-NULL and, by the caller's contract, valid for one write.
        unsafe { p.write(value) };
    }
}

/// Takes ownership back of a handle made by `Box::into_raw` (NULL: nothing).
///
/// # Safety
/// `p` is NULL or came from `Box::into_raw` of this library and is not used afterwards.
pub unsafe fn free<T>(p: *mut T) {
    if !p.is_null() {
        // SAFETY: by the caller's contract, `p` is an unfreed `Box<T>` from this library.
        drop(unsafe { Box::from_raw(p) });
    }
}

/// A file path from a NUL-terminated C string (bytes as-is on Unix).
///
/// # Safety
/// `p` is NULL or a valid NUL-terminated string.
pub unsafe fn path(p: *const c_char) -> Result<PathBuf, Error> {
    if p.is_null() {
        return Err(Error::null("path"));
    }
    // SAFETY: non-NULL and, by the caller's contract, NUL-terminated and readable.
    let text = unsafe { CStr::from_ptr(p) };
    if text.is_empty() {
        return Err(Error::new(Status::Invalid, "path is empty"));
    }
    Ok(os_path(text))
}

/// A UTF-8 text argument (`what` names it in errors) from a NUL-terminated C string.
///
/// # Safety
/// `p` is NULL or a valid NUL-terminated string that outlives `'a`.
pub unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, Error> {
    if p.is_null() {
        return Err(Error::null(what));
    }
    // SAFETY: non-NULL and, by the caller's contract, NUL-terminated, readable and alive.
    let text = unsafe { CStr::from_ptr(p) };
    text.to_str().map_err(|_| Error::new(Status::Invalid, format!("{what} is not UTF-8")))
}

#[cfg(unix)]
fn os_path(text: &CStr) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(text.to_bytes()))
}

#[cfg(not(unix))]
fn os_path(text: &CStr) -> PathBuf {
    PathBuf::from(text.to_string_lossy().into_owned())
}
