//! A loom model of the publication protocol of `sync::Table` (issue 17, and the concurrency
//! part of issue 19): publish, reader online / lookup / quiescent / offline, retire, grace
//! period, reclaim. It compiles the library's own `qsbr/grace.rs` and `qsbr/publish.rs`
//! against loom's primitives (the `prim` module below stands in for `qsbr/prim.rs`), so the
//! model checks the code that ships, not a copy.
//!
//! Freed memory is made observable: a view's drop (and a block's reuse) writes its cells
//! through loom's `UnsafeCell`, and loom reports any such write that does not happen after
//! every read of the same cell, i.e. a reader that could still be using it. Each view (or
//! block) holds its version twice; a reader that sees two different values saw a mix.
//!
//! Run (see .ci/run):
//! `RUSTFLAGS="--cfg loom" cargo test -p fibforge --release --test loom_sync --target-dir target/loom`
#![cfg(loom)]

mod prim {
    pub(crate) use loom::sync::atomic::{AtomicPtr, AtomicU64, Ordering, fence};
    pub(crate) use loom::sync::{Arc, Mutex, MutexGuard};
}

#[allow(dead_code)]
#[path = "../src/qsbr/grace.rs"]
mod grace;
#[allow(dead_code)]
#[path = "../src/qsbr/publish.rs"]
mod publish;

use grace::Grace;
use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::thread;
use publish::Published;
use std::sync::Arc as StdArc;

/// What a freed cell holds.
const FREED: u64 = u64::MAX;

/// A view: its version, twice.
struct View {
    cells: [UnsafeCell<u64>; 2],
}

impl View {
    fn new(version: u64) -> StdArc<View> {
        StdArc::new(View { cells: [UnsafeCell::new(version), UnsafeCell::new(version)] })
    }

    /// The reader's walk: both cells, which must agree and not be freed.
    fn read(&self) -> u64 {
        // SAFETY: loom checks that no write to the cells races with these reads.
        let [a, b] = [0, 1].map(|i| self.cells[i].with(|p| unsafe { *p }));
        assert_eq!(a, b, "a mix of two versions");
        assert_ne!(a, FREED, "freed memory");
        a
    }
}

impl Drop for View {
    fn drop(&mut self) {
        for c in &self.cells {
            // SAFETY: exclusive access (`&mut self`); loom checks it against every read.
            c.with_mut(|p| unsafe { *p = FREED });
        }
    }
}

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(3);
    b.check(f);
}

/// Whole views: the writer publishes two new views and reclaims; a reader registers (racing
/// with the writer's scans), goes online, looks up, reports, looks up, goes offline.
#[test]
fn replaced_views_are_freed_only_after_online_readers_report() {
    model(|| {
        let published = loom::sync::Arc::new(Published::new(View::new(1), Grace::new()));
        let p = published.clone();
        let reader = thread::spawn(move || {
            let reg = p.grace().register();
            reg.online();
            // SAFETY: online and silent since the load: the view cannot be freed (the model's
            // claim, checked by loom).
            let first = unsafe { &*p.load() }.read();
            reg.quiescent();
            let second = unsafe { &*p.load() }.read();
            assert!(second >= first, "versions never go back");
            reg.offline();
            drop(reg);
        });
        for v in 2..=3 {
            published.publish(&View::new(v));
            published.reclaim();
        }
        reader.join().unwrap();
        assert_eq!(published.reclaim(), 0, "no reader left: everything freed");
    });
}

/// A reader that stays online and never reports: nothing it may hold is freed, however often
/// the writer reclaims (including the view it loaded first and keeps using, as an online
/// `Reader` does); dropping its registration releases everything.
#[test]
fn a_silent_reader_delays_reclamation_and_never_sees_freed_memory() {
    model(|| {
        let published = loom::sync::Arc::new(Published::new(View::new(1), Grace::new()));
        let reg = published.grace().register();
        reg.online();
        let p = published.clone();
        let reader = thread::spawn(move || {
            // SAFETY: online and silent: see the first model. The reference is kept and read
            // again, as an online `Reader` keeps the view it loaded at its last report.
            let held = unsafe { &*p.load() };
            let v = held.read();
            let w = unsafe { &*p.load() }.read();
            assert!(w >= v);
            assert_eq!(held.read(), v, "the held view is intact while the reader is silent");
            reg // handed back, still online
        });
        published.publish(&View::new(2));
        assert_eq!(published.reclaim(), 1, "the silent reader holds view 1");
        published.publish(&View::new(3));
        assert_eq!(published.reclaim(), 2, "and view 2");
        let reg = reader.join().unwrap();
        assert_eq!(published.reclaim(), 2, "still online, still silent");
        drop(reg);
        assert_eq!(published.reclaim(), 0, "a dropped reader is deregistered");
    });
}

/// Blocks inside one view, as Poptrie reuses them: the writer fills a free block, publishes
/// its index with one store, retires the old block with a ticket and writes into a retired
/// block again only once the grace period passed that ticket. The reader goes online per
/// burst (a pinned burst) and reports between lookups.
#[test]
fn blocks_are_reused_only_after_the_grace_period() {
    model(|| {
        let grace = Grace::new();
        let blocks =
            loom::sync::Arc::new([0u64, 0, 0].map(|_| [UnsafeCell::new(1), UnsafeCell::new(1)]));
        let current = loom::sync::Arc::new(AtomicUsize::new(0));
        let (g, b, c) = (grace.clone(), blocks.clone(), current.clone());
        let reader = thread::spawn(move || {
            let reg = g.register();
            for _ in 0..2 {
                reg.online();
                let i = c.load(Ordering::Acquire);
                // SAFETY: loom checks these reads against the writer's writes.
                let [x, y] = [0, 1].map(|k| b[i][k].with(|p| unsafe { *p }));
                assert_eq!(x, y, "a mix of two versions");
                reg.quiescent();
                reg.offline();
            }
        });
        // Three updates over three blocks: the third must reuse block 0 if and only if its
        // grace period has passed; otherwise it leaves it (the real writer allocates elsewhere).
        let mut retired = Vec::new();
        let mut free = vec![1usize, 2];
        for version in 2..=4u64 {
            let passed = grace.passed();
            retired.retain(|&(t, i)| {
                let done = t <= passed;
                if done {
                    free.push(i);
                }
                !done
            });
            let Some(i) = free.pop() else { continue };
            for k in 0..2 {
                // SAFETY: a free block: never published, or retired past its grace period.
                blocks[i][k].with_mut(|p| unsafe { *p = version });
            }
            let old = current.swap(i, Ordering::AcqRel);
            retired.push((grace.retire(), old));
        }
        reader.join().unwrap();
    });
}
