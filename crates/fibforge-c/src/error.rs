//! Status codes, the per-thread last-error message, and the panic guard every entry point
//! runs in.
//!
//! No Rust panic may unwind into C: [`guard`] catches it, records its message and returns
//! [`Status::Panic`]. Failed calls record a message that names the file, line or value and
//! what was wrong; `fibforge_last_error` hands it to C until the next failure on that thread.

use std::cell::RefCell;
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A C status code (`fibforge_status` in `fibforge.h`).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL.
    Null = 1,
    /// An argument is invalid (prefix length, host bits, next-hop value, path text,
    /// structure name or option).
    Invalid = 2,
    /// A file could not be opened or read.
    Io = 3,
    /// A file's content is malformed.
    Parse = 4,
    /// The table exceeds a structural limit of the algorithm.
    Limit = 5,
    /// An internal error (a bug) was caught at the boundary.
    Panic = 6,
    /// The operation does not exist for this table's structure (views of a B+-tree).
    Unsupported = 7,
}

impl Status {
    /// The C name of a status code (`"FIBFORGE_ERR_PARSE"`), NUL-terminated for
    /// `fibforge_status_str`; `None` for a value no variant has.
    pub fn name_of(code: i32) -> Option<&'static str> {
        Some(match code {
            0 => "FIBFORGE_OK\0",
            1 => "FIBFORGE_ERR_NULL\0",
            2 => "FIBFORGE_ERR_INVALID\0",
            3 => "FIBFORGE_ERR_IO\0",
            4 => "FIBFORGE_ERR_PARSE\0",
            5 => "FIBFORGE_ERR_LIMIT\0",
            6 => "FIBFORGE_ERR_PANIC\0",
            7 => "FIBFORGE_ERR_UNSUPPORTED\0",
            _ => return None,
        })
    }
}

/// A failure: its code and its message.
#[derive(Debug)]
pub struct Error {
    /// The status returned to C.
    pub status: Status,
    /// The message `fibforge_last_error` returns.
    pub message: String,
}

impl Error {
    /// An error with a code and a message.
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Error { status, message: message.into() }
    }

    /// A NULL-pointer error naming the argument.
    pub fn null(what: &str) -> Self {
        Error::new(Status::Null, format!("{what} is NULL"))
    }
}

impl From<fibforge::BuildError> for Error {
    fn from(e: fibforge::BuildError) -> Self {
        // A bad option (such as an instruction set this CPU lacks) is the caller's argument.
        let status = match e {
            fibforge::BuildError::BadOption { .. } => Status::Invalid,
            _ => Status::Limit,
        };
        Error::new(status, e.to_string())
    }
}

impl From<fibforge::registry::StructureError> for Error {
    fn from(e: fibforge::registry::StructureError) -> Self {
        Error::new(Status::Invalid, e.to_string())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Records `message` as this thread's last error.
pub fn set_last_error(message: &str) {
    // Interior NULs cannot cross into C: replace them so the rest of the message survives.
    let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|slot| *slot.borrow_mut() = text);
}

/// This thread's last error message; valid until the next failing call on this thread.
pub fn last_error_ptr() -> *const c_char {
    LAST_ERROR.with(|slot| slot.borrow().as_ptr())
}

/// Runs `f`, turning its error or panic into a status code and a recorded message.
pub fn guard(f: impl FnOnce() -> Result<(), Error>) -> Status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => Status::Ok,
        Ok(Err(e)) => {
            set_last_error(&e.message);
            e.status
        }
        Err(payload) => {
            set_last_error(&format!("internal error (please report): {}", panic_text(&*payload)));
            Status::Panic
        }
    }
}

/// Runs `f` for an entry point that returns a value rather than a status; on panic records
/// the message and returns `fallback`.
pub fn guard_value<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        set_last_error(&format!("internal error (please report): {}", panic_text(&*payload)));
        fallback
    })
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "panic"
    }
}
