//! LOOP's grace periods, on `crossbeam-epoch`: storage a reader may still see is handed back
//! to the writer's allocator only after every reader pinned when it was retired has unpinned
//! ([`hand_back`]), and the writer can wait for one whole grace period ([`wait_for_readers`])
//! before publishing pointers that only the newest structure can follow.
//!
//! Written against `super::prim` (the standard library here; loom's primitives in
//! `tests/loom_loop.rs`, which compiles this file into its model with crossbeam-epoch built
//! for loom), so the model checks the code that ships.

use super::prim::{Arc, AtomicBool, Mutex, Ordering, yield_now};
use crossbeam_epoch::{self as epoch, Guard};

/// Appends `items` to `to` once every reader pinned before `guard`'s next flush has unpinned:
/// the writer's allocator takes them from `to` for reuse (update.rs `Store::collect`).
pub(super) fn hand_back<T: Send + 'static>(guard: &Guard, to: &Arc<Mutex<Vec<T>>>, items: Vec<T>) {
    let to = to.clone();
    guard.defer(move || to.lock().expect("hand-back lock").extend(items));
}

/// Blocks until every reader pinned before the call has unpinned (one grace period): a
/// function deferred now runs only then, and deferred functions of one thread run in order.
pub(super) fn wait_for_readers() {
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let guard = epoch::pin();
    guard.defer(move || flag.store(true, Ordering::Release));
    guard.flush();
    drop(guard);
    while !done.load(Ordering::Acquire) {
        epoch::pin().flush();
        yield_now();
    }
}
