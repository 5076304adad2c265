//! The value slots of an [`IpTable`](super::IpTable), shared with its readers on other
//! threads ([`IpReader`](super::IpReader)): slots that never move while a reader may read
//! them, read by id with no lock, written by the table only where no reader can reach them,
//! and freed by the QSBR grace periods of the table's two structures. All the `unsafe` of
//! `IpTable` is in this file.
//!
//! # Layout
//!
//! A slot is an `UnsafeCell<Option<V>>` (`None`: free). The slots live in [`Segments`], in an
//! `Arc` that the table and each reader hold:
//!
//! - the *head*, one boxed slice for ids `0..head.len()`, grown as a `Vec` grows (doubled,
//!   its values moved) but only while no reader holds the segments ([`Arc::get_mut`]
//!   succeeds: the exclusive borrow proves that nobody reads). The table's handle and each
//!   reader's keep a copy of its pointer and length (fixed while readers exist), so a lookup
//!   there costs what a `Vec`'s does, a bounds check and a load;
//! - the *tail*, for ids created while readers exist: segment `k` holds `2^(k + 4)` slots
//!   (16, 32, 64, ...), tail id `t = id - head.len()` lives in segment
//!   `k = ilog2(t + 16) - 4` at offset `t + 16 - 2^(k + 4)`, and [`TAIL`] segments cover every
//!   id a next hop can carry (below 2^24, `hop.rs`). Each is allocated when its first id is
//!   created, its pointer published with a `Release` store in a fixed array of atomic
//!   pointers, and it never moves; a lookup there (a cold path) takes one more (`Acquire`)
//!   load, of the segment's pointer.
//!
//! When the table grows with no reader left, the head takes every value again (head and tail
//! merged into one doubled head), so a table used from one thread only ever has a head. The
//! slots allocated are fewer than about twice those used, as with a `Vec`'s capacity.
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
//! While a reader holds the segments, the writer writes a slot only when taking a free (or
//! fresh) id into use ([`Slots::insert`]) and when freeing a retired id whose grace period has
//! passed ([`Slots::reclaim`]), and moves nothing (the head is fixed, tail segments never
//! move). With no reader it may do anything, through `&mut`. This rests on what the table,
//! the only caller, does:
//!
//! - **Publication.** The table stores a route carrying an id in a structure only after
//!   `insert` wrote the slot (and allocated its tail segment); the structure publishes the
//!   route with a `Release` store (the sync layer's protocol). A reader's walk loads it with
//!   `Acquire` (Poptrie's directory and nodes) or `Relaxed` (the B+-tree's directory words,
//!   which may hold a next hop itself: enough for the tree, whose hop leads to no further
//!   read, not for the slot the hop names), so [`ReadSlots::get`] begins with an `Acquire`
//!   fence: a load that reads a `Release` store, followed by an `Acquire` fence, synchronises
//!   with that store, and the slot's write happens before the read (on x86 the fence is no
//!   instruction). ThreadSanitizer does not model fences, so it reports the B+-tree's case.
//! - **Retirement.** The table retires an id ([`Slots::retire`]) only after the last route
//!   carrying it is unlinked from both structures, and the tickets are taken then, after the
//!   unlinking stores, from the grace domains of both structures, with which every reader is
//!   registered. Once both tickets have passed ([`Grace::passed`]), every reader online when
//!   the id was retired has reported a quiescent state (or gone offline) since: its reads of
//!   the slot are over and happen before the writer's scan that saw the report, and its later
//!   walks cannot find the id. An offline reader does not look up (`IpReader` refuses to).
//! - **Readers.** A reader reads a slot only by an id its walk found while online, and lets go
//!   of the reference before its next report (`IpReader`'s reports take `&mut self`). A
//!   reader that drops its handle ends its reads before the `Arc`'s release, which the
//!   writer's `Arc::get_mut` acquires.
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
use std::sync::atomic::{AtomicPtr, Ordering, fence};

/// The first tail segment holds `2^FIRST_BITS` slots.
const FIRST_BITS: u32 = 4;
/// Slots of the first tail segment.
const FIRST: usize = 1 << FIRST_BITS;
/// Tail segments: enough for every id below `2^24` with an empty head
/// (`ilog2(2^24 - 1 + 16) - 4 = 20`).
const TAIL: usize = 21;
const _: () = assert!((MAX_VALUES as usize) < (FIRST << TAIL) - FIRST);

/// One value, or `None` in a free slot.
type Slot<V> = UnsafeCell<Option<V>>;

/// The grace domains of the table's readers: IPv4's structure's and IPv6's.
pub(super) type Graces<'a> = [&'a Grace; 2];

/// The tail segment and offset of tail id `t` (an id minus the head's length).
#[inline(always)]
fn locate(t: usize) -> (usize, usize) {
    let biased = t + FIRST;
    let top = biased.ilog2();
    ((top - FIRST_BITS) as usize, biased - (1 << top))
}

/// Slots in tail segment `k`.
const fn segment_len(k: usize) -> usize {
    FIRST << k
}

/// `n` empty slots.
fn empty<V>(n: usize) -> Box<[Slot<V>]> {
    (0..n).map(|_| UnsafeCell::new(None)).collect()
}

/// The slots, shared by the table and its readers (see the module docs).
struct Segments<V> {
    /// Ids `0..head.len()`; replaced only through `&mut Segments`, so never while a reader
    /// holds them.
    head: Box<[Slot<V>]>,
    /// Tail segment pointers (null: not allocated yet). A non-null `tail[k]` comes from
    /// `Box::into_raw` of a boxed slice of `segment_len(k)` slots that this struct owns.
    tail: [AtomicPtr<Slot<V>>; TAIL],
}

// SAFETY: the slots hold `V`s that any thread holding the segments may read (`&V`: `V: Sync`)
// and that the thread dropping the last holder drops (`V: Send`); the slots are written only
// under the protocol of the module docs, never while another thread reads them.
unsafe impl<V: Send + Sync> Send for Segments<V> {}
// SAFETY: as for `Send`.
unsafe impl<V: Send + Sync> Sync for Segments<V> {}

impl<V> Segments<V> {
    fn new() -> Self {
        let tail = std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut()));
        Segments { head: empty(0), tail }
    }

    /// Slot `id`, if allocated.
    #[inline(always)]
    fn slot(&self, id: u32) -> Option<&Slot<V>> {
        match self.head.get(id as usize) {
            Some(slot) => Some(slot),
            None => self.tail_slot(id),
        }
    }

    /// Slot `id` past the head, if its tail segment is allocated.
    #[inline]
    fn tail_slot(&self, id: u32) -> Option<&Slot<V>> {
        let (k, offset) = locate((id as usize).checked_sub(self.head.len())?);
        // Acquire: pairs with the Release store of `grow` (the table's publication of the
        // routes orders it already; this makes the segment's own publication explicit).
        let p = self.tail.get(k)?.load(Ordering::Acquire);
        if p.is_null() {
            return None;
        }
        // SAFETY: a non-null `tail[k]` points to `segment_len(k)` slots that live as long as
        // `self` (freed only by `Drop` or `merge`, which need `&mut self`), and
        // `offset < segment_len(k)` by `locate` (`biased < 2^(top + 1)`).
        Some(unsafe { &*p.add(offset) })
    }

    /// Allocates tail segment `k` (empty slots) and publishes it.
    fn grow(&self, k: usize) {
        debug_assert!(self.tail[k].load(Ordering::Relaxed).is_null());
        let p = Box::into_raw(empty::<V>(segment_len(k))) as *mut Slot<V>;
        self.tail[k].store(p, Ordering::Release);
    }

    /// Moves the first `len` values into a new head of `capacity` slots and frees the tail.
    fn merge(&mut self, len: usize, capacity: usize) {
        let mut head = empty::<V>(capacity);
        for (id, slot) in head.iter_mut().enumerate().take(len) {
            *slot.get_mut() = self.take(id as u32);
        }
        self.head = head;
        self.free_tail();
    }

    /// Takes the value out of slot `id` (exclusive access: no reader, no borrow).
    fn take(&mut self, id: u32) -> Option<V> {
        let slot = self.slot(id)?;
        // SAFETY: `&mut self`: the segments have no other holder, so no reader, and no
        // borrow of the table's either.
        unsafe { (*slot.get()).take() }
    }

    /// Puts `value` in slot `id` (exclusive access).
    fn put(&mut self, id: u32, value: V) {
        let slot = self.slot(id).expect("an allocated slot");
        // SAFETY: as in `take`.
        unsafe { *slot.get() = Some(value) };
    }

    /// Frees the tail segments (and the values left in them).
    fn free_tail(&mut self) {
        for (k, p) in self.tail.iter_mut().enumerate() {
            let p = std::mem::replace(p.get_mut(), ptr::null_mut());
            if !p.is_null() {
                // SAFETY: `p` came from `Box::into_raw` of a boxed slice of `segment_len(k)`
                // slots (`grow`), owned by this struct alone (`&mut self`: no holder is left),
                // and its pointer is cleared above.
                drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(p, segment_len(k))) });
            }
        }
    }

    /// Allocated bytes of the slots.
    fn bytes(&self) -> usize {
        let tail = (0..TAIL).filter(|&k| !self.tail[k].load(Ordering::Relaxed).is_null());
        (self.head.len() + tail.map(segment_len).sum::<usize>()) * size_of::<Slot<V>>()
            + size_of::<Self>()
    }
}

impl<V> Drop for Segments<V> {
    fn drop(&mut self) {
        self.free_tail();
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
    /// `segments.head`'s pointer and length, copied here (updated whenever the head is
    /// replaced, which takes `&mut self`) so that the table's own lookup reads a slot as from
    /// a `Vec` held inline, without first loading the head through the `Arc`.
    head: *const Slot<V>,
    head_len: usize,
    /// Ids created: `0..len`.
    len: u32,
    /// Tail segments allocated (the first `tails`).
    tails: usize,
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
        let segments = Arc::new(Segments::new());
        Slots {
            head: segments.head.as_ptr(),
            head_len: 0,
            segments,
            len: 0,
            tails: 0,
            free: Vec::new(),
            retired: VecDeque::new(),
        }
    }

    /// Slots holding `values` by id (`None`: a free id; at most [`MAX_VALUES`] ids), as a
    /// snapshot opens them: one head, no reader yet.
    pub(super) fn from_values(values: Vec<Option<V>>) -> Self {
        debug_assert!(values.len() <= MAX_VALUES as usize);
        let mut free: Vec<u32> =
            (0..values.len() as u32).filter(|&id| values[id as usize].is_none()).collect();
        free.reverse(); // the lowest free id is reused first
        let mut segments = Segments::new();
        segments.head = values.into_iter().map(UnsafeCell::new).collect();
        let segments = Arc::new(segments);
        Slots {
            head: segments.head.as_ptr(),
            head_len: segments.head.len(),
            len: segments.head.len() as u32,
            segments,
            tails: 0,
            free,
            retired: VecDeque::new(),
        }
    }

    /// The value of `id` (in use or retired; `None`: free or never created).
    #[inline(always)]
    pub(super) fn get(&self, id: u32) -> Option<&V> {
        if (id as usize) >= self.head_len {
            return self.tail_get(id);
        }
        // SAFETY: `head` and `head_len` are `segments.head`'s (kept so by `copy_head`), which
        // `self.segments` keeps alive and in place while `self` is borrowed; the writer writes
        // slots only through `&mut self`, which this borrow excludes, and readers never write.
        unsafe { (*(*self.head.add(id as usize)).get()).as_ref() }
    }

    /// [`Slots::get`] past the head (only after readers made the table grow a tail): cold, so
    /// that the compiler keeps it off the head's path, which stays a `Vec`'s (inlined: a call
    /// there spilled the head's pointer and length out of registers).
    #[cold]
    #[inline(always)]
    fn tail_get(&self, id: u32) -> Option<&V> {
        let slot = self.segments.tail_slot(id)?;
        // SAFETY: as in `get`.
        unsafe { (*slot.get()).as_ref() }
    }

    /// Copies the head's pointer and length after it was replaced.
    fn copy_head(&mut self) {
        (self.head, self.head_len) = (self.segments.head.as_ptr(), self.segments.head.len());
    }

    /// Slots allocated: the head and the tail segments.
    fn capacity(&self) -> usize {
        self.head_len + (0..self.tails).map(segment_len).sum::<usize>()
    }

    /// Stores `value` in a free or new slot: its id (`Err`: every id is taken). The id is then
    /// in use: a route may carry it.
    pub(super) fn insert(&mut self, value: V) -> Result<u32, V> {
        let id = match self.free.pop() {
            Some(id) => id,
            None if self.len < MAX_VALUES => {
                if self.len as usize == self.capacity() {
                    self.grow();
                }
                self.len += 1;
                self.len - 1
            }
            None => return Err(value),
        };
        let slot = self.segments.slot(id).expect("a created id's slot is allocated");
        // SAFETY: `id` was free or fresh, so no reader can reach the slot (module invariants),
        // and `&mut self` excludes the table's own borrows of values.
        unsafe { *slot.get() = Some(value) };
        Ok(id)
    }

    /// Room for one more id: without readers, a doubled head that takes every value; with
    /// readers, the next tail segment.
    fn grow(&mut self) {
        let len = self.len as usize;
        match Arc::get_mut(&mut self.segments) {
            Some(segments) => {
                segments.merge(len, (2 * len).clamp(FIRST, MAX_VALUES as usize));
                self.tails = 0;
                self.copy_head();
            }
            None => {
                self.segments.grow(self.tails);
                self.tails += 1;
            }
        }
    }

    /// Retires `id` once no route carries it (the caller unlinked the last one from both
    /// structures): with readers, the value stays in its slot until the grace period of both
    /// `graces` has passed (`None`; [`Slots::get`] still reads it meanwhile); without, it is
    /// taken out at once and returned, and the id freed.
    pub(super) fn retire(&mut self, id: u32, graces: Graces<'_>) -> Option<V> {
        if let Some(segments) = Arc::get_mut(&mut self.segments) {
            self.free.push(id);
            return segments.take(id);
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
                drop(segments.take(id));
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
            let slot = self.segments.slot(id).expect("a retired id's slot is allocated");
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
        ReadSlots::new(self.segments.clone())
    }

    /// Bytes of the slots and of the lists of free and retired ids (not what values own on
    /// the heap).
    pub(super) fn memory_bytes(&self) -> usize {
        self.segments.bytes()
            + self.free.capacity() * size_of::<u32>()
            + self.retired.capacity() * size_of::<Retired>()
    }
}

impl<V: Clone> Clone for Slots<V> {
    /// Independent slots (one head) holding copies of the values in use at the same ids;
    /// retired ids are free in the copy (it has no readers).
    fn clone(&self) -> Self {
        let mut copy = Slots::new();
        let segments = Arc::get_mut(&mut copy.segments).expect("new slots are unshared");
        segments.head = empty(self.len as usize);
        let retired: std::collections::HashSet<u32> = self.retired.iter().map(|r| r.id).collect();
        for id in (0..self.len).filter(|id| !retired.contains(id)) {
            if let Some(value) = self.get(id) {
                segments.put(id, value.clone());
            }
        }
        copy.copy_head();
        copy.len = self.len;
        copy.free = self.free.clone();
        copy.free.extend(self.retired.iter().map(|r| r.id));
        copy
    }
}

/// A reader's handle on the value slots ([`Slots::share`]).
pub(super) struct ReadSlots<V> {
    segments: Arc<Segments<V>>,
    /// `segments.head`'s pointer and length, fixed while this handle holds the segments (the
    /// head is replaced only through `Arc::get_mut`): a lookup reads the head as the table's
    /// own does.
    head: *const Slot<V>,
    head_len: usize,
}

// SAFETY: as `Arc<Segments<V>>` (which is `Send` and `Sync` for `V: Send + Sync`, the only
// `V` `share` makes this for): `head` points into the segments this handle holds.
unsafe impl<V: Send + Sync> Send for ReadSlots<V> {}
// SAFETY: as for `Send`.
unsafe impl<V: Send + Sync> Sync for ReadSlots<V> {}

impl<V> ReadSlots<V> {
    fn new(segments: Arc<Segments<V>>) -> Self {
        let (head, head_len) = (segments.head.as_ptr(), segments.head.len());
        ReadSlots { segments, head, head_len }
    }

    /// The value of an id that the caller's walk found while its reader is online; the
    /// reference must be let go of before the reader's next report (module docs).
    #[inline(always)]
    pub(super) fn get(&self, id: u32) -> Option<&V> {
        // Orders the slot's read after the walk that found `id`, whatever ordering the walk's
        // loads had (module docs, Publication): no instruction on x86.
        fence(Ordering::Acquire);
        if (id as usize) >= self.head_len {
            return self.tail_get(id);
        }
        // SAFETY: `head` and `head_len` are the head's, which stays in place while this
        // handle holds the segments; the reader's contract above: the id is in use, or retired
        // and waiting for this reader, so nothing writes the slot while the reference lives
        // (module docs), and the fence above makes the slot's write happen before this read.
        unsafe { (*(*self.head.add(id as usize)).get()).as_ref() }
    }

    /// [`ReadSlots::get`] past the head, cold as [`Slots::get`]'s.
    #[cold]
    #[inline(always)]
    fn tail_get(&self, id: u32) -> Option<&V> {
        let slot = self.segments.tail_slot(id)?;
        // SAFETY: as in `get`.
        unsafe { (*slot.get()).as_ref() }
    }
}

impl<V> Clone for ReadSlots<V> {
    fn clone(&self) -> Self {
        ReadSlots::new(self.segments.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_ids_locate_in_doubling_segments() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(15), (0, 15));
        assert_eq!(locate(16), (1, 0));
        assert_eq!(locate(47), (1, 31));
        assert_eq!(locate(48), (2, 0));
        let (k, offset) = locate(MAX_VALUES as usize - 1);
        assert!(k < TAIL && offset < segment_len(k));
        let mut next = 0;
        for k in 0..TAIL {
            assert_eq!(locate(next), (k, 0), "segment {k} starts where {} ends", k.max(1) - 1);
            next += segment_len(k);
        }
    }

    #[test]
    fn with_readers_slots_stay_put_and_new_ids_go_to_the_tail_then_merge_when_alone() {
        let mut slots = Slots::new();
        for i in 0..20 {
            assert_eq!(slots.insert(i), Ok(i));
        }
        assert_eq!((slots.segments.head.len(), slots.tails), (32, 0), "a doubled head");
        let reader = slots.share();
        let before: Vec<*const u32> =
            (0..20).map(|id| reader.get(id).unwrap() as *const _).collect();
        for i in 20..100 {
            assert_eq!(slots.insert(i), Ok(i));
        }
        assert_eq!((slots.segments.head.len(), slots.tails), (32, 3), "16 + 32 + 64 more");
        let after: Vec<*const u32> =
            (0..20).map(|id| reader.get(id).unwrap() as *const _).collect();
        assert_eq!(before, after, "no value moved under the reader");
        for id in 0..100 {
            assert_eq!((slots.get(id), reader.get(id)), (Some(&id), Some(&id)));
        }
        assert_eq!((slots.get(100), reader.get(100)), (None, None), "allocated, not created");
        assert_eq!(slots.get(10_000), None);
        drop(reader);
        for i in 100..200 {
            assert_eq!(slots.insert(i), Ok(i));
        }
        assert_eq!(
            (slots.segments.head.len(), slots.tails),
            (288, 0),
            "merged (144 doubled) when alone"
        );
        assert!((0..200).all(|id| slots.get(id) == Some(&id)));
        assert!(slots.memory_bytes() >= 200 * size_of::<Slot<u32>>());
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
