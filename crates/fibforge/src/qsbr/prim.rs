//! The synchronisation primitives `grace.rs` and `publish.rs` are written against: the
//! standard library's here; the loom model (`tests/loom_sync.rs`) compiles the same two files
//! against loom's, which it defines under the same names.

pub(crate) use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering, fence};
pub(crate) use std::sync::{Arc, Mutex, MutexGuard};
