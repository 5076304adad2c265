//! The value slots of an [`IpTable`](super::IpTable), shared with its readers on other
//! threads ([`IpReader`](super::IpReader)): slots that never move, read by id with no lock,
//! written by the table only where no reader can reach them, and freed by the QSBR grace
//! periods of the table's two structures. All the `unsafe` of `IpTable` is in this file.
//!
//! # Layout
//!
//! Slot `id` lives in segment `k = ilog2(id + 16) - 4`, at offset `id + 16 - 2^(k + 4)`:
//! segment `k` holds `2^(k + 4)` slots (16, 32, 64, ...), and [`SEGMENTS`] of them cover
//! every id a next hop can carry (below 2^24, `hop.rs`). A slot is an `UnsafeCell<Option<V>>`
//! (`None`: free). The segments are allocated as the ids grow, each when its first id is
//! created, their pointers kept in a fixed array of atomic pointers ([`Segments`], in an
//! `Arc` that the table and each reader hold) and published with a `Release` store; a segment
//! never moves and is freed only when the last holder drops the array. So a lookup reads slot
//! `id` with one `Acquire` load of a segment pointer (a plain load on x86) and no lock,
//! whatever the writer does meanwhile; the slots allocated are fewer than twice those used,
//! as with a `Vec`'s capacity.
//!
//! The writer's handle ([`Slots`], owned by the table, changed only through `&mut`) also
//! holds how many ids exist, the free ids, and the retired ids with their tickets.
//!
//! # Invariants (why no reader reads a slot while the writer writes it)
//!
//! An id below `len` is in one of three states:
//!
//! - *free* (listed in `free`): its slot is `None` and no reader can reach it;
//! - *in use*: its slot holds a value, which routes may carry (the table's `values.rs`
//!   counts them); nothing writes the slot;
//! - *retired* (listed in `retired`, with a ticket of each grace domain): no route carries it
//!   any more, but a reader online since before its retirement may still read the slot,
//!   which keeps its value; nothing writes the slot until both tickets have passed.
//!
//! The writer writes a slot only when taking a free (or fresh) id into use ([`Slots::insert`])
//! and when freeing a retired id whose grace period has passed ([`Slots::reclaim`]); or when
//! no reader exists at all ([`Arc::get_mut`] succeeds on the segments, the exclusive borrow
//! then proves that nobody else reads). This rests on what the table, the only caller, does:
//!
//! - **Publication.** The table stores a route carrying an id in a structure only after
//!   `insert` wrote the slot; the structure publishes the route with a `Release` store that a
//!   reader's walk loads with `Acquire` (the sync layer's protocol), so the slot's write
//!   happens before the reader's read of it, as does the segment's allocation.
//! - **Retirement.** The table retires an id ([`Slots::retire`]) only after the last route
//!   carrying it is unlinked from both structures, and the tickets are taken then, after the
//!   unlinking stores, from the grace domains of both structures, with which every reader is
//!   registered. Once both tickets have passed ([`Grace::passed`]), every reader online when
//!   the id was retired has reported a quiescent state (or gone offline) since: its reads of
//!   the slot are over and happen before the writer's scan that saw the report, and its later
//!   walks cannot find the id. An offline reader does not look up (`IpReader` refuses to).
//! - **Readers.** A reader reads a slot only by an id its walk found while online, and lets go
//!   of the reference before its next report (`IpReader`'s reports take `&mut self`).
//!
//! # Threads
//!
//! A reader handle ([`ReadSlots`]) shares the values as `&V` with the table's thread and may
//! drop the last handle, hence the values (`V: Send + Sync`, which [`Slots::share`] requires).
//! Without readers the table's handle is the only owner of the slots, so it moves between
//! threads and is shared by reference as a `Vec<V>` would be (`V: Send`, `V: Sync`).

use super::values::MAX_VALUES;
use crate::sync::{Grace, Ticket};
use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::ptr;
use std::sync::Arc;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The first segment holds `2^FIRST_BITS` slots.
const FIRST_BITS: u32 = 4;
/// Slots of the first segment.
const FIRST: usize = 1 << FIRST_BITS;
/// Segments: enough for every id below `2^24` (`ilog2(2^24 - 1 + 16) - 4 = 20`).
const SEGMENTS: usize = 21;
/// Entries of `Slots::own`, indexed by `ilog2(id + FIRST)`.
const OWN: usize = SEGMENTS + FIRST_BITS as usize;
const _: () = assert!((MAX_VALUES as usize) < (FIRST << SEGMENTS) - FIRST);

/// One value, or `None` in a free slot.
type Slot<V> = UnsafeCell<Option<V>>;

/// The grace domains of the table's readers: IPv4's structure's and IPv6's.
pub(super) type Graces<'a> = [&'a Grace; 2];

/// The segment and offset of slot `id`.
#[inline(always)]
fn locate(id: u32) -> (usize, usize) {
    let biased = id as usize + FIRST;
    let top = biased.ilog2();
    ((top - FIRST_BITS) as usize, biased - (1 << top))
}

/// Slots in segment `k`.
const fn segment_len(k: usize) -> usize {
    FIRST << k
}

/// The segment pointers, shared by the table and its readers (null: not allocated yet). A
/// non-null `ptrs[k]` comes from `Box::into_raw` of a boxed slice of `segment_len(k)` slots
/// that this struct owns.
struct Segments<V> {
    ptrs: [AtomicPtr<Slot<V>>; SEGMENTS],
}

// SAFETY: the slots hold `V`s that any thread holding the segments may read (`&V`: `V: Sync`)
// and that the thread dropping the last holder drops (`V: Send`); the slots are written only
// under the protocol of the module docs, never while another thread reads them.
unsafe impl<V: Send + Sync> Send for Segments<V> {}
// SAFETY: as for `Send`.
unsafe impl<V: Send + Sync> Sync for Segments<V> {}

impl<V> Segments<V> {
    fn new() -> Self {
        Segments { ptrs: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())) }
    }

    /// Slot `id`, if its segment is allocated.
    #[inline(always)]
    fn slot(&self, id: u32) -> Option<&Slot<V>> {
        let (k, offset) = locate(id);
        // Acquire: pairs with the Release store of `grow` (the table's publication of the
        // routes orders it already; this makes the segment's own publication explicit).
        let p = self.ptrs.get(k)?.load(Ordering::Acquire);
        if p.is_null() {
            return None;
        }
        // SAFETY: a non-null `ptrs[k]` points to `segment_len(k)` slots that live as long as
        // `self` (freed only by `Drop`, which `&self` excludes), and `offset < segment_len(k)`
        // by `locate` (`biased < 2^(top + 1)`).
        Some(unsafe { &*p.add(offset) })
    }

    /// The value in slot `id`, for a reader (see [`ReadSlots::get`]).
    #[inline(always)]
    fn get(&self, id: u32) -> Option<&V> {
        let slot = self.slot(id)?;
        // SAFETY: read under the reader's contract (`ReadSlots::get`): nothing writes the
        // slot while the reference lives.
        unsafe { (*slot.get()).as_ref() }
    }

    /// Allocates segment `k` (empty slots) and publishes it: its pointer.
    fn grow(&self, k: usize) -> *const Slot<V> {
        debug_assert!(self.ptrs[k].load(Ordering::Relaxed).is_null());
        let segment: Box<[Slot<V>]> = (0..segment_len(k)).map(|_| UnsafeCell::new(None)).collect();
        let p = Box::into_raw(segment) as *mut Slot<V>;
        self.ptrs[k].store(p, Ordering::Release);
        p
    }

    /// Allocated bytes of the slots.
    fn bytes(&self) -> usize {
        let allocated = (0..SEGMENTS).filter(|&k| !self.ptrs[k].load(Ordering::Relaxed).is_null());
        allocated.map(|k| segment_len(k) * size_of::<Slot<V>>()).sum::<usize>() + size_of::<Self>()
    }
}

impl<V> Drop for Segments<V> {
    fn drop(&mut self) {
        for (k, p) in self.ptrs.iter_mut().enumerate() {
            let p = *p.get_mut();
            if !p.is_null() {
                // SAFETY: `p` came from `Box::into_raw` of a boxed slice of `segment_len(k)`
                // slots (`grow`), owned by this struct alone (`&mut self`: no holder is left).
                drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(p, segment_len(k))) });
            }
        }
    }
}

/// An id retired by the table and the tickets its slot waits for (IPv4's, IPv6's domain).
#[derive(Clone, Copy, Debug)]
struct Retired {
    id: u32,
    tickets: [Ticket; 2],
}

/// The table's handle on its value slots (see the module docs).
pub(super) struct Slots<V> {
    segments: Arc<Segments<V>>,
    /// The table's own path to the slots, for its lookups: `own[t]` is the pointer of the
    /// segment whose ids `id` have `ilog2(id + FIRST) = t`, moved back by `2^t` slots (with
    /// wrapping arithmetic: it may point before the segment), so that slot `id` is at
    /// `own[t] + id + FIRST`; null below `FIRST_BITS` and for segments not allocated. Plain
    /// pointers (the writer's copies of what it published): a lookup is a compare with `len`,
    /// a bit scan and two loads, no atomic.
    own: [*const Slot<V>; OWN],
    /// Ids created: `0..len`.
    len: u32,
    /// Free ids, reused last freed first.
    free: Vec<u32>,
    /// Retired ids, oldest first (their tickets grow along the queue).
    retired: VecDeque<Retired>,
}

// SAFETY: a second holder of the segments exists only as a `ReadSlots`, which `share` makes
// only for `V: Send + Sync` (then `Arc<Segments<V>>` is `Send` anyway). For any other `V` the
// segments belong to this handle alone, which moves its values as a `Vec<V>` does (`V: Send`).
unsafe impl<V: Send> Send for Slots<V> {}
// SAFETY: through `&Slots` another thread only reads values (`V: Sync`), or makes a reader,
// which needs `V: Send + Sync`; every write takes `&mut Slots`.
unsafe impl<V: Sync> Sync for Slots<V> {}

impl<V> Slots<V> {
    pub(super) fn new() -> Self {
        Slots {
            segments: Arc::new(Segments::new()),
            own: [ptr::null(); OWN],
            len: 0,
            free: Vec::new(),
            retired: VecDeque::new(),
        }
    }

    /// The value of `id` (in use or retired; `None`: free or never created).
    #[inline(always)]
    pub(super) fn get(&self, id: u32) -> Option<&V> {
        if id >= self.len {
            return None;
        }
        let biased = id as usize + FIRST;
        let slot = self.own.get(biased.ilog2() as usize)?.wrapping_add(biased);
        // SAFETY: `id < len`, so its segment `k = ilog2(biased) - FIRST_BITS` was allocated
        // (`grow`, as ids are created in order) and `self.segments` keeps it alive while `self`
        // is borrowed; `own[k + FIRST_BITS] + biased` is its slot `biased - 2^(k + FIRST_BITS)`
        // (`locate`), inside the segment. Nothing writes the slot meanwhile: the writer writes
        // only through `&mut self`, and readers never write.
        unsafe { (*(*slot).get()).as_ref() }
    }

    /// Allocates segment `k` and publishes it.
    fn grow(&mut self, k: usize) {
        let top = k + FIRST_BITS as usize;
        self.own[top] = self.segments.grow(k).wrapping_sub(1 << top);
    }

    /// Stores `value` in a free or new slot: its id (`Err`: every id is taken). The id is then
    /// in use: a route may carry it.
    pub(super) fn insert(&mut self, value: V) -> Result<u32, V> {
        let id = match self.free.pop() {
            Some(id) => id,
            None if self.len < MAX_VALUES => {
                let (k, offset) = locate(self.len);
                if offset == 0 {
                    self.grow(k);
                }
                self.len += 1;
                self.len - 1
            }
            None => return Err(value),
        };
        let slot = self.segments.slot(id).expect("a created id's segment is allocated");
        // SAFETY: `id` was free or fresh, so no reader can reach the slot (module invariants),
        // and `&mut self` excludes the table's own borrows of values.
        unsafe { *slot.get() = Some(value) };
        Ok(id)
    }

    /// Retires `id` once no route carries it (the caller unlinked the last one from both
    /// structures): with readers, the value stays in its slot until the grace period of both
    /// `graces` has passed (`None`; [`Slots::get`] still reads it meanwhile); without, it is
    /// taken out at once and returned, and the id freed.
    pub(super) fn retire(&mut self, id: u32, graces: Graces<'_>) -> Option<V> {
        if let Some(segments) = Arc::get_mut(&mut self.segments) {
            self.free.push(id);
            return take(segments, id);
        }
        self.retired.push_back(Retired { id, tickets: graces.map(Grace::retire) });
        None
    }

    /// Drops the values of the retired ids whose grace period has passed (all of them when no
    /// reader is left), freeing their ids. Never waits.
    pub(super) fn reclaim(&mut self, graces: Graces<'_>) {
        if self.retired.is_empty() {
            return;
        }
        if let Some(segments) = Arc::get_mut(&mut self.segments) {
            for Retired { id, .. } in self.retired.drain(..) {
                drop(take(segments, id));
                self.free.push(id);
            }
            return;
        }
        let passed = graces.map(Grace::passed);
        while let Some(&Retired { id, tickets }) = self.retired.front() {
            if tickets[0] > passed[0] || tickets[1] > passed[1] {
                break;
            }
            self.retired.pop_front();
            let slot = self.segments.slot(id).expect("a retired id's segment is allocated");
            // SAFETY: `id` is retired and both its tickets have passed: no route carries it,
            // and every reader that could have found it has reported since (module
            // invariants), so none reads the slot; `&mut self` excludes the table's borrows.
            drop(unsafe { (*slot.get()).take() });
            self.free.push(id);
        }
    }

    /// Retired ids whose values wait for their grace period.
    pub(super) fn retired(&self) -> usize {
        self.retired.len()
    }

    /// True when no reader holds the slots (then nothing waits for a grace period).
    pub(super) fn unshared(&mut self) -> bool {
        Arc::get_mut(&mut self.segments).is_some()
    }

    /// A reader's handle on the slots.
    pub(super) fn share(&self) -> ReadSlots<V>
    where
        V: Send + Sync,
    {
        ReadSlots { segments: self.segments.clone() }
    }

    /// Bytes of the slots and of the lists of free and retired ids (not what values own on
    /// the heap).
    pub(super) fn memory_bytes(&self) -> usize {
        self.segments.bytes()
            + self.free.capacity() * size_of::<u32>()
            + self.retired.capacity() * size_of::<Retired>()
    }
}

/// Takes the value out of slot `id` through exclusive access to the segments.
fn take<V>(segments: &mut Segments<V>, id: u32) -> Option<V> {
    let slot = segments.slot(id)?;
    // SAFETY: `&mut Segments` (from `Arc::get_mut`): no other holder, so no reader, and no
    // borrow of the table's either.
    unsafe { (*slot.get()).take() }
}

impl<V: Clone> Clone for Slots<V> {
    /// Independent slots holding copies of the values in use at the same ids; retired ids
    /// are free in the copy (it has no readers).
    fn clone(&self) -> Self {
        let mut copy = Slots::new();
        for k in (0..SEGMENTS).take_while(|&k| segment_len(k) - FIRST < self.len as usize) {
            copy.grow(k); // segment `k` starts at id `segment_len(k) - FIRST`
        }
        let retired: std::collections::HashSet<u32> = self.retired.iter().map(|r| r.id).collect();
        let segments = Arc::get_mut(&mut copy.segments).expect("new slots are unshared");
        for id in 0..self.len {
            if !retired.contains(&id)
                && let Some(value) = self.get(id)
            {
                let slot = segments.slot(id).expect("just allocated");
                // SAFETY: `segments` is borrowed exclusively (`Arc::get_mut`).
                unsafe { *slot.get() = Some(value.clone()) };
            }
        }
        copy.len = self.len;
        copy.free = self.free.clone();
        copy.free.extend(self.retired.iter().map(|r| r.id));
        copy
    }
}

/// A reader's handle on the value slots ([`Slots::share`]).
pub(super) struct ReadSlots<V> {
    segments: Arc<Segments<V>>,
}

impl<V> Clone for ReadSlots<V> {
    fn clone(&self) -> Self {
        ReadSlots { segments: self.segments.clone() }
    }
}

impl<V> ReadSlots<V> {
    /// The value of an id that the caller's walk found while its reader is online; the
    /// reference must be let go of before the reader's next report (module docs).
    #[inline(always)]
    pub(super) fn get(&self, id: u32) -> Option<&V> {
        self.segments.get(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_locate_in_doubling_segments() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(15), (0, 15));
        assert_eq!(locate(16), (1, 0));
        assert_eq!(locate(47), (1, 31));
        assert_eq!(locate(48), (2, 0));
        let (k, offset) = locate(MAX_VALUES - 1);
        assert!(k < SEGMENTS && offset < segment_len(k));
        let mut next = 0;
        for k in 0..SEGMENTS {
            assert_eq!(
                locate(next as u32),
                (k, 0),
                "segment {k} starts where {} ends",
                k.max(1) - 1
            );
            next += segment_len(k);
        }
    }

    #[test]
    fn without_readers_a_retired_value_comes_back_and_its_id_is_reused_at_once() {
        let g = [Grace::new(), Grace::new()];
        let graces = [&g[0], &g[1]];
        let mut slots = Slots::new();
        let ids: Vec<u32> = (0..40).map(|i| slots.insert(i.to_string()).unwrap()).collect();
        assert_eq!(ids, (0..40).collect::<Vec<_>>());
        assert_eq!(slots.get(17).map(String::as_str), Some("17"));
        assert_eq!(slots.retire(17, graces).as_deref(), Some("17"));
        assert_eq!(slots.get(17), None);
        assert_eq!(slots.insert("new".into()), Ok(17));
        assert_eq!(slots.retired(), 0);
    }

    #[test]
    fn with_a_reader_ids_are_reused_only_after_the_grace_period_of_both_domains() {
        let g = [Grace::new(), Grace::new()];
        let graces = [&g[0], &g[1]];
        let (r4, r6) = (g[0].register(), g[1].register());
        let mut slots = Slots::new();
        let a = slots.insert("a".to_string()).unwrap();
        let reader = slots.share();
        r4.online();
        r6.online();
        let seen = reader.get(a).unwrap();
        assert_eq!(slots.retire(a, graces), None, "kept for the reader");
        slots.reclaim(graces);
        assert_eq!(seen, "a", "a retired value survives while the reader is online");
        assert_ne!(slots.insert("b".to_string()), Ok(a), "not reused yet");
        r4.quiescent();
        slots.reclaim(graces);
        assert_eq!(slots.retired(), 1, "IPv6's domain has not passed");
        assert_eq!(slots.get(a).map(String::as_str), Some("a"));
        r6.quiescent();
        slots.reclaim(graces);
        assert_eq!(slots.retired(), 0);
        assert_eq!(slots.get(a), None, "dropped once both domains passed");
        assert_eq!(slots.insert("c".to_string()), Ok(a), "then reused");
        // An offline reader holds nothing; a dropped reader handle leaves the slots unshared.
        r4.offline();
        r6.offline();
        assert_eq!(slots.retire(a, graces), None, "still shared: retired");
        slots.reclaim(graces);
        assert_eq!(slots.retired(), 0, "no online reader: passed at once");
        drop(reader);
        assert!(slots.unshared());
        assert_eq!(slots.retire(1, graces).as_deref(), Some("b"));
    }

    #[test]
    fn values_are_dropped_once_whoever_holds_the_slots_last() {
        use std::sync::atomic::AtomicUsize;
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        #[derive(Clone)]
        struct Counted;
        impl Drop for Counted {
            fn drop(&mut self) {
                DROPS.fetch_add(1, Ordering::Relaxed);
            }
        }
        let g = [Grace::new(), Grace::new()];
        let graces = [&g[0], &g[1]];
        let r = g[0].register();
        let mut slots = Slots::new();
        for _ in 0..20 {
            slots.insert(Counted).ok().unwrap();
        }
        let reader = slots.share();
        r.online();
        assert!(slots.retire(3, graces).is_none());
        let copy = slots.clone();
        assert!(copy.get(3).is_none(), "a retired id is free in a copy");
        drop(copy);
        assert_eq!(DROPS.load(Ordering::Relaxed), 19, "the copy's own values");
        drop(slots);
        assert_eq!(DROPS.load(Ordering::Relaxed), 19, "the reader still holds the slots");
        drop(reader);
        assert_eq!(DROPS.load(Ordering::Relaxed), 39, "each value once, the retired one too");
    }
}
