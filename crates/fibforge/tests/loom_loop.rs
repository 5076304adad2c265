//! A loom model of LOOP's publication (`src/multi/loop_`, the concurrency part of issue 19):
//! readers pin (crossbeam-epoch), load the structure and follow its pointers; the writer
//! publishes with one atomic swap or store, retires what readers may still see, and reuses or
//! frees it only after the grace period. Three models, one per way LOOP publishes:
//!
//! 1. a whole new structure (`Loop::swap_core`): swap, `defer_destroy`, flush;
//! 2. a regenerated group (`update.rs`): new words written into storage that is free (never
//!    published, or handed back after its grace period), the group pointer stored with
//!    release, the old words handed back ([`grace::hand_back`]) and reused by a later update;
//! 3. pointers that only the newest structure can follow (`Loop::try_patch` when the
//!    PortMapTable columns moved): the new structure is swapped in, the writer waits one
//!    grace period ([`grace::wait_for_readers`]), then stores the pointers. Without the wait
//!    a reader can follow a new pointer with the old structure: the last test shows that the
//!    model finds it.
//!
//! crossbeam-epoch itself runs under loom (`--cfg crossbeam_loom`, its `loom` feature), and
//! LOOP's own `grace.rs` is compiled into the model (the `prim` module below stands in for
//! the standard library's primitives), so pinning, epoch advance and deferred functions are
//! the shipped code. As in `loom_sync.rs`, freed or reused memory is observable: a drop or a
//! reuse writes the cells through loom's `UnsafeCell`, and loom reports any write that does
//! not happen after every read of the same cell; each version is held twice, and a reader
//! that sees two different values saw a mix.
//!
//! Run (see .ci/run):
//! `RUSTFLAGS="--cfg loom --cfg crossbeam_loom" cargo test -p fibforge --release --test loom_loop --target-dir target/loom`
#![cfg(loom)]

mod prim {
    pub(crate) use loom::sync::atomic::{AtomicBool, Ordering};
    pub(crate) use loom::sync::{Arc, Mutex};
    pub(crate) use loom::thread::yield_now;
}

#[allow(dead_code)]
#[path = "../src/multi/loop_/grace.rs"]
mod grace;

use crossbeam_epoch::{self as epoch, Atomic, Owned};
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;

/// What a freed cell holds.
const FREED: u64 = u64::MAX;

/// A structure (or a block of words): its version, twice; dropping it frees the cells.
struct Cells([UnsafeCell<u64>; 2]);

impl Cells {
    fn new(version: u64) -> Cells {
        Cells([UnsafeCell::new(version), UnsafeCell::new(version)])
    }

    /// A reader's walk: both cells, which must agree and not be freed.
    fn read(&self) -> u64 {
        // SAFETY: loom checks that no write to the cells races with these reads.
        let [a, b] = [0, 1].map(|i| self.0[i].with(|p| unsafe { *p }));
        assert_eq!(a, b, "a mix of two versions");
        assert_ne!(a, FREED, "freed memory");
        a
    }

    /// The writer's store into free storage (a reuse, or a free).
    fn write(&self, version: u64) {
        for c in &self.0 {
            // SAFETY: the writer owns free storage; loom checks it against every read.
            c.with_mut(|p| unsafe { *p = version });
        }
    }
}

impl Drop for Cells {
    fn drop(&mut self) {
        self.write(FREED);
    }
}

/// Runs `f` under loom with at most 2 preemptions per execution; prints (with
/// `--nocapture`) and returns the number of executions explored.
fn model(f: impl Fn() + Sync + Send + 'static) -> usize {
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = runs.clone();
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(2);
    b.check(move || {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        f()
    });
    let n = runs.load(std::sync::atomic::Ordering::Relaxed);
    println!("{n} executions explored");
    n
}

/// 1. Whole structures: the writer swaps in two new ones (defer_destroy of each old one) and
/// waits for a grace period in between, which must have freed the first; a reader looks up
/// twice, pinned each time.
#[test]
fn a_replaced_structure_is_freed_only_after_its_readers_unpin() {
    model(|| {
        let shared = Arc::new(Atomic::new(Cells::new(1)));
        let s = shared.clone();
        let reader = thread::spawn(move || {
            let mut last = 0;
            for _ in 0..2 {
                let guard = epoch::pin();
                // SAFETY: pinned: a structure swapped out after this load is destroyed only
                // after the guard is dropped (the model's claim, checked by loom).
                let v = unsafe { s.load(Ordering::Acquire, &guard).deref() }.read();
                assert!(v >= last, "versions never go back");
                last = v;
            }
        });
        for v in 2..=3 {
            let guard = epoch::pin();
            let old = shared.swap(Owned::new(Cells::new(v)), Ordering::AcqRel, &guard);
            // SAFETY: unlinked just now; pinned readers may still see it.
            unsafe { guard.defer_destroy(old) };
            guard.flush();
            drop(guard);
            if v == 2 {
                grace::wait_for_readers();
            }
        }
        reader.join().unwrap();
        // SAFETY: every thread but this one is gone.
        drop(unsafe { shared.load(Ordering::Relaxed, epoch::unprotected()).into_owned() });
    });
}

/// 2. Groups regenerated into free words and reused after the grace period: two blocks, one
/// group pointer. The writer makes three updates; each takes a free block if there is one
/// (block 1 at first, then whatever was handed back), writes it, publishes it with a release
/// store and hands the old block back after the grace period, and flushes (as `refresh`
/// does). A reader looks up twice, pinned each time.
#[test]
fn retired_words_are_reused_only_after_the_grace_period() {
    let reuses = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let record = reuses.clone();
    model(move || {
        let blocks = Arc::new([Cells::new(1), Cells::new(0)]);
        let group = Arc::new(AtomicUsize::new(0));
        let (b, g) = (blocks.clone(), group.clone());
        let reader = thread::spawn(move || {
            for _ in 0..2 {
                let _guard = epoch::pin();
                b[g.load(Ordering::Acquire)].read();
            }
        });
        let reclaimed = Arc::new(Mutex::new(Vec::new()));
        let mut free = vec![1usize];
        for version in 2..=4u64 {
            free.append(&mut reclaimed.lock().unwrap()); // Store::collect
            let guard = epoch::pin();
            // The real writer allocates elsewhere, or rebuilds, when nothing is free.
            if let Some(i) = free.pop() {
                if version > 2 {
                    record.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                blocks[i].write(version);
                let old = group.swap(i, Ordering::Release);
                grace::hand_back(&guard, &reclaimed, vec![old]);
            }
            guard.flush(); // every update flushes: the epoch advances, deferred hand-backs run
        }
        reader.join().unwrap();
        grace::wait_for_readers();
        let back = reclaimed.lock().unwrap().len();
        assert!(back + free.len() == 1, "the retired block comes back after the grace period");
    });
    // Not vacuous: in some executions the grace period passed while the reader ran, and a
    // block was written again.
    assert!(reuses.load(std::sync::atomic::Ordering::Relaxed) > 0, "no execution reused a block");
}

/// A structure whose PortMapTable column has `len` entries.
struct Core {
    len: Cells,
}

/// 3 (with `wait`) and its broken variant (without): the new structure has a longer column;
/// the group pointer named entry 0, and is then made to name entry 1, which only the new
/// structure has. A reader pinned with the old structure must never see the new pointer.
/// Returns whether some execution had a reader follow entry 1 with a column of 1 (recorded,
/// not asserted in the model: a panic there would unwind through crossbeam's thread-local
/// handles outside loom's execution and abort).
fn a_reader_follows_a_pointer_its_structure_lacks(wait: bool) -> bool {
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let record = seen.clone();
    model(move || {
        let shared = Arc::new(Atomic::new(Core { len: Cells::new(1) }));
        let entry = Arc::new(AtomicUsize::new(0));
        let (s, e, record) = (shared.clone(), entry.clone(), record.clone());
        let reader = thread::spawn(move || {
            let guard = epoch::pin();
            // SAFETY: pinned, as in the first model.
            let core = unsafe { s.load(Ordering::Acquire, &guard).deref() };
            let len = core.len.read();
            if e.load(Ordering::Acquire) as u64 >= len {
                record.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        });
        let guard = epoch::pin();
        let old = shared.swap(Owned::new(Core { len: Cells::new(2) }), Ordering::AcqRel, &guard);
        // SAFETY: unlinked just now; pinned readers may still see it.
        unsafe { guard.defer_destroy(old) };
        guard.flush();
        drop(guard);
        if wait {
            grace::wait_for_readers();
        }
        entry.store(1, Ordering::Release);
        reader.join().unwrap();
        // SAFETY: every thread but this one is gone.
        drop(unsafe { shared.load(Ordering::Relaxed, epoch::unprotected()).into_owned() });
    });
    seen.load(std::sync::atomic::Ordering::Relaxed)
}

/// 3. `try_patch` when the columns moved: swap, wait one grace period, then the pointers.
#[test]
fn new_pointers_wait_for_the_readers_of_the_old_structure() {
    assert!(!a_reader_follows_a_pointer_its_structure_lacks(true));
}

/// The same without the wait: the model must find the reader that follows a new pointer with
/// the old structure (it shows the model can fail).
#[test]
fn without_the_wait_a_reader_follows_a_new_pointer_with_the_old_structure() {
    assert!(a_reader_follows_a_pointer_its_structure_lacks(false));
}
