//! LOOP route updates: group regeneration and atomic pointer replacement (paper §III-E, §IV).
//!
//! A route change in one table is applied to that table's RIB, then the structure is walked
//! from layer 1 towards the route's layer. Where the route's own layer is reached, the elements
//! it covers are recomputed; where an element's kind changes (a next-layer chunk appears or
//! disappears) or a sparse chunk is met, that element is recomputed. Recomputing an element
//! emits its subtree afresh. Root elements are replaced in place (one atomic store each);
//! in a lower chunk, every group holding a changed element is regenerated into new arena words
//! and its group pointer swapped with one release store. Replaced words, chunks and subtrees
//! are retired with a grace-period ticket (`grace.rs`) and reused once no reader can see them.
//!
//! Optimization 1 (§III-E): announcements and path changes of leaf routes ending a layer that
//! land on a PortMapTable element skip the RIB walk entirely ([`announce_leaf`]); other
//! announcements skip the "does this element still need a chunk" RIB scans on their way down.

use super::build::{Emitter, Sink};
use super::encode::{encode_group, group_len};
use super::layout::{Core, TAG_CHUNK, TAG_PMT, TAG_SPARSE, entry, payload, tag};
use super::pmt::Pmt;
use super::words::limit_error;
use crate::addr::Address;
use crate::fib::BuildError;
use crate::prefix::Prefix;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// A retired piece of storage.
#[derive(Copy, Clone, Debug)]
pub(super) enum Retired {
    Words { offset: u32, len: u32 },
    Chunk(u32),
}

/// The writer's allocator over a live `Core`: bump allocation within the reserved capacity,
/// plus free lists of retired storage whose grace period has passed.
pub(super) struct Store {
    pub arena_top: u32,
    pub chunk_top: u32,
    /// PortMapTable entries: count, hashes, index.
    pub pmt: super::pmt::columns::Book,
    /// Packed PortMapTable words in use (`compress_pmt`).
    pub pmt_words: u32,
    pub free_words: HashMap<u32, Vec<u32>>,
    pub free_chunks: Vec<u32>,
    /// Storage retired by updates, handed back after its grace period (`grace.rs`).
    pub reclaimed: Arc<Mutex<Vec<Retired>>>,
    /// Storage retired by the update in progress (deferred when it is published).
    pub retiring: Vec<Retired>,
    /// Counters for the paper's Table III: pointers modified per update.
    pub modified_pointers: u64,
}

impl Store {
    /// Moves storage whose grace period has passed into the free lists.
    pub(super) fn collect(&mut self) {
        self.pmt.collect();
        let back: Vec<Retired> = std::mem::take(&mut *self.reclaimed.lock().expect("reclaim lock"));
        for r in back {
            match r {
                Retired::Words { offset, len } => {
                    self.free_words.entry(len).or_default().push(offset)
                }
                Retired::Chunk(id) => self.free_chunks.push(id),
            }
        }
    }

    /// The allocator's state (to undo an abandoned patch's allocations).
    pub(super) fn allocation(&self) -> Allocation {
        Allocation {
            arena_top: self.arena_top,
            chunk_top: self.chunk_top,
            free_words: self.free_words.clone(),
            free_chunks: self.free_chunks.clone(),
        }
    }

    /// Returns to a state from [`allocation`](Self::allocation): storage allocated since is
    /// free again (nothing published names it).
    pub(super) fn restore(&mut self, a: Allocation) {
        self.arena_top = a.arena_top;
        self.chunk_top = a.chunk_top;
        self.free_words = a.free_words;
        self.free_chunks = a.free_chunks;
    }

    pub(super) fn arena_used(&self) -> usize {
        self.arena_top as usize - self.arena_free()
    }

    /// Words in the free lists.
    pub(super) fn arena_free(&self) -> usize {
        self.free_words.iter().map(|(len, v)| *len as usize * v.len()).sum()
    }

    pub(super) fn chunks_used(&self) -> usize {
        self.chunk_top as usize - self.free_chunks.len()
    }
}

/// The allocator's bump pointers and free lists.
pub(super) struct Allocation {
    arena_top: u32,
    chunk_top: u32,
    free_words: HashMap<u32, Vec<u32>>,
    free_chunks: Vec<u32>,
}

/// A sink writing into the live arrays.
pub(super) struct CoreSink<'a> {
    pub core: &'a Core,
    pub store: &'a mut Store,
}

impl Sink for CoreSink<'_> {
    fn place(&mut self, words: &[u32]) -> Result<u32, BuildError> {
        let len = words.len() as u32;
        let offset = match self.store.free_words.get_mut(&len).and_then(|v| v.pop()) {
            Some(o) => o,
            None => {
                let o = self.store.arena_top;
                if o as usize + words.len() > self.core.arena.len() {
                    return Err(limit_error("reserved arena words"));
                }
                self.store.arena_top += len;
                o
            }
        };
        for (i, &w) in words.iter().enumerate() {
            self.core.arena[offset as usize + i].store(w, Ordering::Relaxed);
        }
        Ok(offset)
    }

    fn new_chunk(&mut self) -> Result<u32, BuildError> {
        if let Some(id) = self.store.free_chunks.pop() {
            return Ok(id);
        }
        let id = self.store.chunk_top;
        let stride = self.core.shape.chunk_stride() as usize;
        if (id as usize + 1) * stride > self.core.chunk_groups.len() {
            return Err(limit_error("reserved chunk ids"));
        }
        self.store.chunk_top += 1;
        Ok(id)
    }

    fn set_group(&mut self, chunk: u32, g: u32, offset: u32) {
        let slot = chunk as usize * self.core.shape.chunk_stride() as usize + g as usize;
        self.core.chunk_groups[slot].store(offset, Ordering::Release);
    }

    fn intern(&mut self, composite: &[u32]) -> Result<u32, BuildError> {
        let h = super::pmt::index::hash(composite);
        let pmt = &self.core.pmt;
        let book = &mut self.store.pmt;
        if let Some(i) = book.index.find(h, |i| pmt.holds(i, composite)) {
            return Ok(i);
        }
        let i = match pmt {
            Pmt::Columns(_) => {
                book.created += 1;
                book.next_index()
            }
            Pmt::Packed(_) => {
                book.top += 1; // packed rows are appended in order
                book.top - 1
            }
        };
        if let Err(e) = pmt.append(i, &mut self.store.pmt_words, composite) {
            book.unuse(i);
            return Err(e);
        }
        book.set_hash(i, h);
        book.index.note(h, i);
        Ok(i)
    }
}

impl Core {
    /// Words of the group structure at `offset`.
    pub(super) fn group_words(&self, offset: u32) -> usize {
        let base = offset as usize;
        group_len(|w| self.arena[base + w].load(Ordering::Relaxed), self.shape.group)
    }

    /// Retires the subtree an entry points to (nothing for PortMapTable entries).
    pub(super) fn retire_subtree(&self, e: u32, out: &mut Vec<Retired>) {
        for child in self.children(e) {
            self.retire_subtree(child, out);
        }
        self.retire_own(e, out);
    }

    /// The entries stored in the chunk an entry points to (none for PortMapTable entries).
    pub(super) fn children(&self, e: u32) -> Vec<u32> {
        let word = |i: usize| self.arena[i].load(Ordering::Relaxed);
        match tag(e) {
            TAG_CHUNK => {
                let stride = self.shape.chunk_stride() as usize;
                let cw = self.shape.codeword_words() as usize;
                let groups = &self.chunk_groups[payload(e) as usize * stride..][..stride];
                groups
                    .iter()
                    .flat_map(|g| {
                        let offset = g.load(Ordering::Relaxed);
                        (cw..self.group_words(offset)).map(move |k| word(offset as usize + k))
                    })
                    .collect()
            }
            TAG_SPARSE => {
                let base = payload(e) as usize;
                let count = word(base);
                let keys = (0..count as usize).map(|k| word(base + 3 + 2 * k));
                std::iter::once(word(base + 1)).chain(keys).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Retires the storage an entry points to itself — a grouped chunk's group words and id,
    /// a sparse chunk's words — but not the chunks its elements point to.
    pub(super) fn retire_own(&self, e: u32, out: &mut Vec<Retired>) {
        match tag(e) {
            TAG_CHUNK => {
                let stride = self.shape.chunk_stride() as usize;
                for g in 0..stride {
                    let slot = payload(e) as usize * stride + g;
                    let offset = self.chunk_groups[slot].load(Ordering::Relaxed);
                    out.push(Retired::Words { offset, len: self.group_words(offset) as u32 });
                }
                out.push(Retired::Chunk(payload(e)));
            }
            TAG_SPARSE => {
                let base = payload(e) as usize;
                let count = self.arena[base].load(Ordering::Relaxed);
                out.push(Retired::Words { offset: base as u32, len: 2 + 2 * count });
            }
            _ => {}
        }
    }
}

/// Brings the structure in line with the RIBs for a change of `prefix` in any table.
pub(super) fn refresh<A: Address>(
    em: &Emitter<'_, A>,
    core: &Core,
    store: &mut Store,
    prefix: &Prefix<A>,
    announce: bool,
) -> Result<(), BuildError> {
    let sh = &core.shape;
    let layers = sh.strides.len();
    let mut chunk: Option<(u32, Prefix<A>)> = None; // None = the root
    for l in 0..layers {
        let (d, s) = (sh.starts[l], sh.strides[l]);
        let base = chunk.map_or(Prefix::DEFAULT_ROUTE, |(_, b)| b);
        if prefix.len() <= d + s {
            let first = prefix.addr().bits(d, s) as u32;
            let span = 1u32 << (d + s - prefix.len().max(d));
            return regenerate(em, core, store, l, chunk, base, first..first + span);
        }
        let e = prefix.addr().bits(d, s) as u32;
        let current = match chunk {
            None => core.root[e as usize].load(Ordering::Relaxed),
            Some((id, _)) => core.group_entry(id, e),
        };
        let elem = em.element_prefix(base, l, e);
        // An announced route longer than the element keeps it a chunk: no RIB scan needed.
        if tag(current) == TAG_CHUNK && (announce || em.has_deeper(&elem)) {
            chunk = Some((payload(current), elem));
            continue;
        }
        return regenerate(em, core, store, l, chunk, base, e..e + 1);
    }
    Ok(())
}

/// Recomputes elements `range` of a chunk (the root when `chunk` is `None`) and publishes them.
fn regenerate<A: Address>(
    em: &Emitter<'_, A>,
    core: &Core,
    store: &mut Store,
    l: usize,
    chunk: Option<(u32, Prefix<A>)>,
    base: Prefix<A>,
    range: std::ops::Range<u32>,
) -> Result<(), BuildError> {
    let mut fresh = Vec::with_capacity(range.len());
    for e in range.clone() {
        let elem = em.element_prefix(base, l, e);
        fresh.push(em.element_entry(elem, l, &mut CoreSink { core, store })?);
    }
    install(core, store, chunk.map(|(id, _)| id), range, &fresh)
}

/// Publishes `fresh` entries for elements `range` of `chunk` (the root when `None`): root
/// elements with one atomic store each, lower chunks by regenerating each touched group from
/// a mirror copy of its current entries and swapping its pointer.
fn install(
    core: &Core,
    store: &mut Store,
    chunk: Option<u32>,
    range: std::ops::Range<u32>,
    fresh: &[u32],
) -> Result<(), BuildError> {
    let Some(id) = chunk else {
        for (e, &new) in range.zip(fresh) {
            let old = core.root[e as usize].swap(new, Ordering::AcqRel);
            if old != new {
                store.modified_pointers += 1;
                core.retire_subtree(old, &mut store.retiring);
            }
        }
        return Ok(());
    };
    let g = core.shape.group;
    let (first_group, last_group) = (range.start / g, (range.end - 1) / g);
    for grp in first_group..=last_group {
        let mut elems: Vec<u32> = (grp * g..grp * g + g).map(|e| core.group_entry(id, e)).collect();
        let mut changed = false;
        for (e, &new) in range.clone().zip(fresh) {
            if e / g == grp {
                let old = std::mem::replace(&mut elems[(e % g) as usize], new);
                if old != new {
                    changed = true;
                    core.retire_subtree(old, &mut store.retiring);
                }
            }
        }
        if !changed {
            continue;
        }
        let slot = id as usize * core.shape.chunk_stride() as usize + grp as usize;
        let old_offset = core.chunk_groups[slot].load(Ordering::Relaxed);
        let old_len = core.group_words(old_offset) as u32;
        let offset = CoreSink { core, store }.place(&encode_group(&elems))?;
        core.chunk_groups[slot].store(offset, Ordering::Release);
        store.modified_pointers += 1;
        store.retiring.push(Retired::Words { offset: old_offset, len: old_len });
    }
    Ok(())
}

/// Optimization 1 (§III-E): an announcement or path change of `prefix` in table `vrf` whose
/// length ends a layer (/16, /24 or /32 with `[16-8-8]`; the paper names /24, the common case)
/// and which is a leaf of that table's trie, landing on an element that is a PortMapTable
/// entry. The element's new composite is the current one with column `vrf` set to `hop`, so
/// no table's RIB is consulted; the group is regenerated from a mirror copy of its entries.
/// Returns `false` (nothing done) when the conditions do not hold.
pub(super) fn announce_leaf<A: Address>(
    core: &Core,
    store: &mut Store,
    (vrf, leaf): (u32, bool),
    prefix: &Prefix<A>,
    hop: u32,
) -> Result<bool, BuildError> {
    let sh = &core.shape;
    let Some(l) = (0..sh.strides.len()).find(|&l| sh.starts[l] + sh.strides[l] == prefix.len())
    else {
        return Ok(false);
    };
    if !leaf {
        return Ok(false);
    }
    let mut chunk = None;
    for k in 0..=l {
        let e = prefix.addr().bits(sh.starts[k], sh.strides[k]) as u32;
        let cur = chunk.map_or_else(
            || core.root[e as usize].load(Ordering::Relaxed),
            |id| core.group_entry(id, e),
        );
        match (k == l, tag(cur)) {
            (false, TAG_CHUNK) => chunk = Some(payload(cur)),
            (true, TAG_PMT) => {
                let mut composite = core.pmt.composite(payload(cur));
                composite[vrf as usize] = hop;
                let new = entry(TAG_PMT, CoreSink { core, store }.intern(&composite)?);
                install(core, store, chunk, e..e + 1, &[new])?;
                return Ok(true);
            }
            _ => return Ok(false),
        }
    }
    Ok(false)
}
