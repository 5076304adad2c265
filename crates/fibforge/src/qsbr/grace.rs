//! Grace periods by quiescent-state-based reclamation (QSBR), as in liburcu's QSBR flavour and
//! DPDK's `rte_rcu_qsbr`.
//!
//! A [`Grace`] domain has a counter (`epoch`, from 1) and a registry of reader slots. Each
//! reader ([`Registration`]) owns one cache-line-padded slot holding the last counter value it
//! observed at a quiescent state, or 0 while offline. Readers look up with no synchronisation
//! at all; between bursts they report a quiescent state (load the counter, store it into the
//! slot when it changed). The writer, after unlinking memory readers may still hold, calls
//! [`Grace::retire`], which advances the counter and returns a [`Ticket`]; the memory may be
//! reused once [`Grace::passed`] (a scan of the slots) reaches that ticket.
//!
//! # Invariants (why a reader never sees reused memory)
//!
//! - A reader that stored `seen >= t` loaded the counter after the `SeqCst` increment that
//!   made ticket `t`, hence after the unlinking stores before it: its later loads cannot find
//!   the unlinked memory. Its earlier reads happen before the writer's `Acquire` load of the
//!   slot (the store is `Release`), hence before any reuse.
//! - Going online is a store followed by a `SeqCst` fence, matched by the `SeqCst` fence at the
//!   start of every scan: either the scan sees the slot online (and waits for it), or the
//!   reader's loads after its fence see every unlink made before the scan.
//! - A silent online reader keeps `passed` at its slot's value: reclamation waits, nothing is
//!   freed early. Dropping a [`Registration`] takes its slot out of the registry, so a dead
//!   handle never holds the writer up.
//! - Only one writer retires and scans at a time (the owner of the table).

use super::prim::{Arc, AtomicU64, Mutex, MutexGuard, Ordering, fence};
use crossbeam_utils::CachePadded;
use std::sync::PoisonError;

/// A grace-period domain: the readers of one table and the counter its writer advances.
/// Cloning gives another handle to the same domain.
#[derive(Clone)]
#[doc(hidden)]
pub struct Grace {
    domain: Arc<Domain>,
}

struct Domain {
    /// The grace-period counter (from 1; 0 marks an offline slot).
    epoch: CachePadded<AtomicU64>,
    /// Every registered reader's slot.
    slots: Mutex<Vec<Arc<Slot>>>,
}

/// One reader's announcement, alone on its cache line (the writer reads it, only its reader
/// writes it).
struct Slot {
    seen: CachePadded<AtomicU64>,
}

/// Marks a retirement: the memory unlinked before [`Grace::retire`] returned it may be reused
/// once [`Grace::passed`] is at least this ticket.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[doc(hidden)]
pub struct Ticket(u64);

impl Default for Grace {
    fn default() -> Self {
        Self::new()
    }
}

impl Grace {
    /// A domain without readers.
    pub fn new() -> Self {
        let domain = Domain { epoch: CachePadded::new(AtomicU64::new(1)), slots: Mutex::default() };
        Grace { domain: Arc::new(domain) }
    }

    /// Writer: call after the stores that unlink memory from what readers can reach; the
    /// ticket that memory waits for.
    pub fn retire(&self) -> Ticket {
        // SeqCst: ordered after the unlinking stores (and their Release), and part of the
        // total order the scan's fence and the readers' online fences take part in.
        Ticket(self.domain.epoch.fetch_add(1, Ordering::SeqCst) + 1)
    }

    /// Writer: every ticket up to the returned one has passed its grace period (each online
    /// reader has reported a quiescent state since it was issued). Takes the registry lock
    /// and reads each reader's slot; never waits for a reader.
    pub fn passed(&self) -> Ticket {
        fence(Ordering::SeqCst);
        let mut oldest = self.domain.epoch.load(Ordering::Relaxed);
        for slot in self.lock().iter() {
            let seen = slot.seen.load(Ordering::Acquire);
            if seen != 0 && seen < oldest {
                oldest = seen;
            }
        }
        Ticket(oldest)
    }

    /// Registered readers (online or offline).
    pub fn readers(&self) -> usize {
        self.lock().len()
    }

    /// Registers a reader, offline.
    pub fn register(&self) -> Registration {
        let slot = Arc::new(Slot { seen: CachePadded::new(AtomicU64::new(0)) });
        self.lock().push(slot.clone());
        Registration { domain: self.domain.clone(), slot }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Arc<Slot>>> {
        // The registry is a plain list that no panic can leave half-changed.
        self.domain.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One registered reader of a [`Grace`] domain; deregisters when dropped. Its methods only
/// touch its own slot: one thread uses it at a time, and it must not report a quiescent state
/// (or go offline) while a reference into shared memory obtained since its last report is
/// still in use.
#[doc(hidden)]
pub struct Registration {
    domain: Arc<Domain>,
    slot: Arc<Slot>,
}

impl Registration {
    /// Starts reading: from now on the writer waits for this reader's reports.
    #[inline]
    pub fn online(&self) {
        let now = self.domain.epoch.load(Ordering::Acquire);
        // Release, not Relaxed: a scan that reads this value must also see this reader's
        // reads before it went offline last time as done (the loom model found the gap).
        self.slot.seen.store(now, Ordering::Release);
        // Orders the store above before the reader's next loads of shared memory (see the
        // module docs: the scan either sees it or the reader sees the writer's unlinks).
        fence(Ordering::SeqCst);
    }

    /// Stops reading: the writer no longer waits for this reader.
    #[inline]
    pub fn offline(&self) {
        self.slot.seen.store(0, Ordering::Release);
    }

    /// Reports a quiescent state: no reference into shared memory obtained before this call
    /// is used after it. Only a store, and only when the counter moved since the last report.
    #[inline]
    pub fn quiescent(&self) {
        let now = self.domain.epoch.load(Ordering::Acquire);
        if self.slot.seen.load(Ordering::Relaxed) != now {
            self.slot.seen.store(now, Ordering::Release);
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.offline();
        let mut slots = self.domain.slots.lock().unwrap_or_else(PoisonError::into_inner);
        slots.retain(|s| !Arc::ptr_eq(s, &self.slot));
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_silent_online_reader_holds_tickets_and_reports_release_them() {
        let g = Grace::new();
        let r = g.register();
        let t1 = g.retire();
        assert!(g.passed() >= t1, "offline readers do not hold anything");
        r.online();
        let t2 = g.retire();
        assert!(g.passed() < t2, "online since before t2 and silent");
        r.quiescent();
        assert!(g.passed() >= t2);
        let t3 = g.retire();
        assert!(g.passed() < t3);
        r.offline();
        assert!(g.passed() >= t3);
        r.online();
        let t4 = g.retire();
        assert!(g.passed() < t4);
        drop(r);
        assert!(g.passed() >= t4, "a dropped reader is deregistered");
        assert_eq!(g.readers(), 0);
    }
}
