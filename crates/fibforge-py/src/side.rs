//! One address family of a Python `Table`: the concurrent table ([`AnyTable`]: Poptrie or
//! the interval B+-tree, as the `algo` argument chose) behind a mutex (the writer) and
//! [`AnyReader`]s for lookups.
//!
//! Lookups never take the writer's mutex, so any number of Python threads can look up
//! (batches run with the GIL released) while another inserts or removes routes. A batch
//! registers one QSBR reader per thread it runs on: online, lookups with no synchronisation,
//! a quiescent state after each chunk, deregistered at the end. Single lookups (under the
//! GIL) share one offline reader behind its own mutex, online for each lookup.
//!
//! The structures hold [`values::encode`]d next hops (value id and prefix length); batches
//! write them decoded into [`Answers`].

use crate::values::{self, NO_LENGTH, NO_ROUTE};
use fibforge::sync::{AnyKey, AnyReader, AnyTable, Structure};
use fibforge::{BuildError, NextHop, Prefix, Rib};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Addresses looked up per chunk (the reader reports a quiescent state after each).
pub const CHUNK: usize = 512;

/// The writer and reader of one family.
pub struct Side<A: AnyKey> {
    writer: Mutex<AnyTable<A>>,
    /// Offline; single lookups and the template of the batches' readers.
    reader: Mutex<AnyReader<A>>,
}

impl<A: AnyKey> Side<A> {
    /// Compiles `rib` into `structure`.
    pub fn new(rib: Rib<A>, structure: &Structure) -> Result<Self, BuildError> {
        let table = AnyTable::new(rib, structure)?;
        let reader = Mutex::new(table.reader());
        Ok(Side { writer: Mutex::new(table), reader })
    }

    fn writer(&self) -> MutexGuard<'_, AnyTable<A>> {
        // A panic while updating leaves the table consistent (updates are undone on error),
        // so a poisoned lock is still usable.
        self.writer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Inserts or replaces a route; the previous next hop of the prefix.
    pub fn insert(&self, prefix: Prefix<A>, hop: NextHop) -> Result<Option<NextHop>, BuildError> {
        self.writer().insert(prefix, hop)
    }

    /// Withdraws a route; its next hop if it was present.
    pub fn remove(&self, prefix: &Prefix<A>) -> Result<Option<NextHop>, BuildError> {
        self.writer().remove(prefix)
    }

    fn reader(&self) -> MutexGuard<'_, AnyReader<A>> {
        // Lookups cannot leave the reader half-changed.
        self.reader.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One lookup.
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        self.reader().lookup(addr)
    }

    /// Registered readers (the single-lookup one plus those of batches running now).
    pub fn readers(&self) -> usize {
        self.writer().grace().readers()
    }

    /// Retired bytes not yet freed, and whether they are over the library's threshold.
    pub fn pending_reclaim(&self) -> (usize, bool) {
        let pending = self.writer().pending_reclaim();
        (pending.bytes, pending.over_threshold)
    }

    /// Number of routes.
    pub fn route_count(&self) -> usize {
        self.writer().rib().len()
    }

    /// Every route, in prefix order.
    pub fn routes(&self) -> Vec<(Prefix<A>, NextHop)> {
        self.writer().rib().iter().collect()
    }

    /// Runs `f` on the routes (under the writer's lock: keep it short).
    pub fn with_rib<T>(&self, f: impl FnOnce(&Rib<A>) -> T) -> T {
        f(self.writer().rib())
    }

    /// Looks up addresses `start..start + out.ids.len()` into `out`, chunk by chunk, with a
    /// reader of its own (QSBR: online, a quiescent state after each chunk).
    fn lookup_range(&self, start: usize, out: Answers<'_>, fill: &dyn Fn(usize, &mut [A])) {
        let mut reader = self.reader().clone();
        reader.online();
        let mut keys = [A::ZERO; CHUNK];
        let mut hops = [None; CHUNK];
        for (i, mut out) in out.split(CHUNK).into_iter().enumerate() {
            let m = out.ids.len();
            fill(start + i * CHUNK, &mut keys[..m]);
            reader.lookup_batch(&keys[..m], &mut hops[..m]);
            reader.quiescent();
            out.write(&hops[..m]);
        }
    }
}

/// A structure batches look up in: a table's live [`Side`], or the frozen structure of an
/// export ([`crate::compiled`]).
pub trait Lookups<A: AnyKey>: Sync {
    /// Looks up `out.ids.len()` addresses into `out` (value ids, and prefix lengths when
    /// asked; `NO_ROUTE` / `NO_LENGTH` where none matches), on `threads` threads.
    /// `fill(start, keys)` writes the addresses `start..start + keys.len()`.
    fn lookup_into(
        &self,
        out: Answers<'_>,
        threads: usize,
        fill: &(dyn Fn(usize, &mut [A]) + Sync),
    );
}

/// The two families' structures of a table (`None`: the table does not hold that family):
/// a `Table`'s sides or a `CompiledTable`'s frozen structure.
pub struct Sides<'a> {
    /// IPv4.
    pub v4: Option<&'a dyn Lookups<u32>>,
    /// IPv6.
    pub v6: Option<&'a dyn Lookups<u128>>,
}

impl<A: AnyKey> Lookups<A> for Side<A> {
    fn lookup_into(
        &self,
        out: Answers<'_>,
        threads: usize,
        fill: &(dyn Fn(usize, &mut [A]) + Sync),
    ) {
        in_parallel(out, threads, |start, part| self.lookup_range(start, part, fill));
    }
}

/// Runs `range(start, part)` on consecutive parts of `out` (the answers of addresses
/// `start..start + part.ids.len()`), one part per thread on up to `threads` threads, each
/// part at least [`CHUNK`] answers.
pub fn in_parallel(out: Answers<'_>, threads: usize, range: impl Fn(usize, Answers<'_>) + Sync) {
    let n = out.ids.len();
    let per_thread = n.div_ceil(threads.max(1)).max(CHUNK);
    if per_thread >= n {
        return range(0, out);
    }
    std::thread::scope(|s| {
        for (i, part) in out.split(per_thread).into_iter().enumerate() {
            let range = &range;
            s.spawn(move || range(i * per_thread, part));
        }
    });
}

/// Where a batch's answers go: value ids, and prefix lengths when asked for.
pub struct Answers<'a> {
    /// Value ids (`NO_ROUTE` where no route matches).
    pub ids: &'a mut [u32],
    /// Matched prefix lengths (`NO_LENGTH` where no route matches), same length as `ids`.
    pub lens: Option<&'a mut [u8]>,
}

impl<'a> Answers<'a> {
    /// Consecutive parts of `size` answers (the last may be shorter).
    pub fn split(self, size: usize) -> Vec<Answers<'a>> {
        let mut lens = self.lens.map(|l| l.chunks_mut(size));
        self.ids
            .chunks_mut(size)
            .map(|ids| Answers { ids, lens: lens.as_mut().and_then(Iterator::next) })
            .collect()
    }

    /// Writes the answers of looked-up next hops.
    fn write(&mut self, hops: &[Option<NextHop>]) {
        for (o, h) in self.ids.iter_mut().zip(hops) {
            *o = h.map_or(NO_ROUTE, |h| values::decode(h).0);
        }
        if let Some(lens) = self.lens.as_deref_mut() {
            for (o, h) in lens.iter_mut().zip(hops) {
                *o = h.map_or(NO_LENGTH, |h| values::decode(h).1 as u8);
            }
        }
    }
}
