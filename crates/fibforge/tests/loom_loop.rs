//! A loom model of LOOP's publication (`src/multi/loop_`, the concurrency part of issue 19),
//! on the library's one protocol (QSBR, as `sync::Table`; issue 18): readers register, go
//! online, load the structure and follow its pointers, and report quiescent states or go
//! offline; the writer publishes with one atomic swap or store, retires what readers may
//! still see with a ticket, and reuses or frees it only after that ticket's grace period.
//! Three models, one per way LOOP publishes:
//!
//! 1. a whole new structure (`Loop::swap_core`): `Published::publish`, then `reclaim`;
//! 2. a regenerated group (`update.rs`): new words written into storage that is free (never
//!    published, or handed back after its grace period), the group pointer stored with
//!    release, a ticket taken, the old words handed back ([`hand_backs::HandBacks`]) and
//!    reused by a later update once the queue runs;
//! 3. pointers that only the newest structure can follow (`Loop::try_patch` when the
//!    PortMapTable columns moved): they are stored into copies of the arrays that only the
//!    new structure names, before it is published. Storing them into the shared arrays after
//!    the swap lets a reader follow a new pointer with the old structure: the last test shows
//!    that the model finds it.
//!
//! The library's own `qsbr/grace.rs`, `qsbr/publish.rs` and `multi/loop_/grace.rs` are
//! compiled into the model against loom's primitives (the `prim` module below stands in for
//! the library's), so the model checks the code that ships. As in `loom_sync.rs`, freed or
//! reused memory is observable: a drop or a reuse writes the cells through loom's
//! `UnsafeCell`, and loom reports any write that does not happen after every read of the
//! same cell; each version is held twice, and a reader that sees two different values saw a
//! mix.
//!
//! Run (see .ci/run):
//! `RUSTFLAGS="--cfg loom" cargo test -p fibforge --release --test loom_loop --target-dir target/loom`
#![cfg(loom)]

mod prim {
    pub(crate) use crate::grace::{Grace, Ticket};
    pub(crate) use loom::sync::atomic::{AtomicPtr, AtomicU64, Ordering, fence};
    pub(crate) use loom::sync::{Arc, Mutex, MutexGuard};
}

#[allow(dead_code)]
#[path = "../src/qsbr/grace.rs"]
mod grace;
#[allow(dead_code)]
#[path = "../src/multi/loop_/grace.rs"]
mod hand_backs;
#[allow(dead_code)]
#[path = "../src/qsbr/publish.rs"]
mod publish;

use grace::Grace;
use hand_backs::HandBacks;
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;
use publish::Published;
use std::sync::Arc as StdArc;

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

/// 1. Whole structures: the writer swaps in two new ones, reclaiming after each (as
/// `swap_core` does); a reader looks up twice, online for each lookup (`LoopReader::with`
/// on an offline reader).
#[test]
fn a_replaced_structure_is_freed_only_after_its_readers_go_offline() {
    model(|| {
        let published = Arc::new(Published::new(StdArc::new(Cells::new(1)), Grace::new()));
        let registration = published.grace().register();
        let p = published.clone();
        let reader = thread::spawn(move || {
            let mut last = 0;
            for _ in 0..2 {
                registration.online();
                // SAFETY: online: a structure replaced after this load is dropped only after
                // the reader goes offline (the model's claim, checked by loom).
                let v = unsafe { &*p.load() }.read();
                registration.offline();
                assert!(v >= last, "versions never go back");
                last = v;
            }
        });
        for v in 2..=3 {
            published.publish(&StdArc::new(Cells::new(v)));
            published.reclaim();
        }
        reader.join().unwrap();
        published.reclaim();
        assert_eq!(published.pending(), 0, "the reader is gone: nothing is held");
    });
}

/// 2. Groups regenerated into free words and reused after the grace period: two blocks, one
/// group pointer. The writer makes three updates; each runs the hand-back queue and takes a
/// free block if there is one (block 1 at first, then whatever was handed back), writes it,
/// publishes it with a release store, takes a ticket and queues the old block's hand-back. A
/// reader stays online for two lookups with a quiescent state between them.
#[test]
fn retired_words_are_reused_only_after_the_grace_period() {
    let reuses = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let record = reuses.clone();
    model(move || {
        let blocks = Arc::new([Cells::new(1), Cells::new(0)]);
        let group = Arc::new(AtomicUsize::new(0));
        let grace = Grace::new();
        let registration = grace.register();
        let (b, g) = (blocks.clone(), group.clone());
        let reader = thread::spawn(move || {
            registration.online();
            b[g.load(Ordering::Acquire)].read();
            registration.quiescent();
            b[g.load(Ordering::Acquire)].read();
            registration.offline();
        });
        let mut hand_backs = HandBacks::new(grace.clone());
        let reclaimed = Arc::new(Mutex::new(Vec::new()));
        let mut free = vec![1usize];
        for version in 2..=4u64 {
            hand_backs.run(); // Loop::collect
            free.append(&mut reclaimed.lock().unwrap());
            // The real writer allocates elsewhere, or rebuilds, when nothing is free.
            if let Some(i) = free.pop() {
                if version > 2 {
                    record.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                blocks[i].write(version);
                let old = group.swap(i, Ordering::Release);
                let ticket = grace.retire();
                hand_backs.hand_back(ticket, &reclaimed, vec![old]);
            }
        }
        reader.join().unwrap();
        assert_eq!(hand_backs.run(), 0, "the reader is gone: every hand-back runs");
        let back = reclaimed.lock().unwrap().len();
        assert!(back + free.len() == 1, "the retired block comes back after the grace period");
    });
    // Not vacuous: in some executions the grace period passed while the reader ran, and a
    // block was written again.
    assert!(reuses.load(std::sync::atomic::Ordering::Relaxed) > 0, "no execution reused a block");
}

/// A structure whose PortMapTable column has `len` entries, and its arrays: a pointer naming
/// a column entry.
struct Core {
    len: Cells,
    entry: Arc<AtomicUsize>,
}

/// 3 (with `copy`) and its broken variant (without): the new structure has a longer column;
/// the pointer named entry 0, and is then made to name entry 1, which only the new structure
/// has. A reader that loaded the old structure must never see the new pointer. Returns
/// whether some execution had a reader follow entry 1 with a column of 1.
fn a_reader_follows_a_pointer_its_structure_lacks(copy: bool) -> bool {
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let record = seen.clone();
    model(move || {
        let first = Core { len: Cells::new(1), entry: Arc::new(AtomicUsize::new(0)) };
        let published = Arc::new(Published::new(StdArc::new(first), Grace::new()));
        let registration = published.grace().register();
        let (p, record) = (published.clone(), record.clone());
        let reader = thread::spawn(move || {
            registration.online();
            // SAFETY: online, as in the first model.
            let core = unsafe { &*p.load() };
            let len = core.len.read();
            if core.entry.load(Ordering::Acquire) as u64 >= len {
                record.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            registration.offline();
        });
        // SAFETY: the writer's own read of the structure only it replaces.
        let old = unsafe { &*published.load() };
        if copy {
            // `try_patch`: the pointers go into copies only the new structure names.
            let entry = Arc::new(AtomicUsize::new(old.entry.load(Ordering::Relaxed)));
            entry.store(1, Ordering::Release);
            published.publish(&StdArc::new(Core { len: Cells::new(2), entry }));
        } else {
            let entry = old.entry.clone();
            published.publish(&StdArc::new(Core { len: Cells::new(2), entry: entry.clone() }));
            entry.store(1, Ordering::Release);
        }
        published.reclaim();
        reader.join().unwrap();
    });
    seen.load(std::sync::atomic::Ordering::Relaxed)
}

/// 3. `try_patch` when the columns moved: the pointers into copies, then the swap.
#[test]
fn new_pointers_are_never_seen_with_the_old_structure() {
    assert!(!a_reader_follows_a_pointer_its_structure_lacks(true));
}

/// The same storing into the shared arrays after the swap: the model must find the reader
/// that follows a new pointer with the old structure (it shows the model can fail).
#[test]
fn without_the_copy_a_reader_follows_a_new_pointer_with_the_old_structure() {
    assert!(a_reader_follows_a_pointer_its_structure_lacks(false));
}
