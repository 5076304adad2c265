//! Table insertion and deletion patched into the live arrays, copy-on-write (column layout).
//!
//! The walk of [`merge`](super::merge) yields, chunk by chunk, the current and the new lookup
//! entries of every element. Instead of encoding every chunk into fresh arrays, only what
//! differs is written, into storage no reader can reach yet (spare or reclaimed arena words
//! and chunk ids, through the same allocator as route updates):
//!
//! - a grouped chunk keeps its id; each group holding a changed entry (a divided or merged
//!   PortMapTable entry, a new or collapsed next-layer chunk, a re-encoded sparse chunk) is
//!   encoded into new words, and its group pointer replacement is recorded;
//! - a sparse chunk that changes is encoded again (sparse or grouped) and its old words retired;
//! - a chunk whose elements all become one PortMapTable entry collapses into that entry: its
//!   own words and id are retired (the chunks below it collapsed first and retired theirs);
//! - a PortMapTable element under which the added table has longer routes gets a new chunk;
//! - root elements whose entry changes are recorded.
//!
//! [`Pointers::publish`] then stores the recorded pointers with `Release`, after which the
//! caller swaps in the new `Core` (same arrays, edited PortMapTable columns). Between the first
//! store and the swap, readers of the current structure may meet patched groups: every entry in them
//! holds, for every table of the current structure except a deleted one, the same value as
//! the entry it replaces (divided entries are copies, merged ones are equal on the remaining
//! columns, and their values are written before the pointers), so the current tables' answers
//! do not change; a lookup in the table being deleted may meet the merged entry's value.
//! Retired storage is reused only after the readers' grace period.
//!
//! When divisions outgrow the PortMapTable columns, the edit moves them into larger storage
//! (copying every column: rare, the capacity grows by half). Readers of the current structure
//! read the old columns, which lack the entries divided past their end, so then the order is
//! reversed: the new `Core` is swapped in first, the writer waits for the readers' grace
//! period (every reader that could still see the old columns is done), and the pointers are
//! published after. In between, lookups in every table but the one being added answer from
//! unpatched groups, correctly; the table being added may answer partly until
//! `add_table` returns.
//!
//! Nothing reachable is written before the pointers are published: when the reserved arena
//! words or chunk ids run out during the walk, the caller drops the patch and falls back to
//! the fresh merge, which sizes new arrays.

use super::build::{Sink, encode_chunk};
use super::encode::{Special, encode_group};
use super::layout::{Core, TAG_CHUNK, TAG_PMT, TAG_SPARSE, codeword, entry, payload, tag};
use super::pmt::columns::ColumnEdit;
use super::update::{CoreSink, Retired, Store};
use crate::fib::BuildError;
use std::sync::atomic::Ordering;

/// A chunk's current and new entries, and its new relative prefixes when known: what the
/// walk of [`merge`](super::merge) hands the patch (defined here, below the walk).
pub(super) struct Walked {
    pub old: Vec<u32>,
    pub new: Vec<u32>,
    pub specials: Option<Vec<Special>>,
}

/// The index among the range heads of the group at `offset` of its element `e`.
fn head_of(core: &Core, offset: usize, e: u32) -> usize {
    let cluster = (e >> 3) as usize;
    let cw = codeword(core.arena[offset + cluster / 2].load(Ordering::Relaxed), cluster);
    ((cw & 0xff) + ((cw >> 8) >> (7 - (e & 7))).count_ones() - 1) as usize
}

/// The changes to publish, and what they retire.
pub(super) struct Patch<'a> {
    core: &'a Core,
    store: &'a mut Store,
    /// `(chunk_groups slot, new arena offset)`.
    groups: Vec<(usize, u32)>,
    /// `(root element, new entry)`.
    root: Vec<(usize, u32)>,
    /// Storage the published patch no longer names.
    pub retiring: Vec<Retired>,
}

impl<'a> Patch<'a> {
    pub(super) fn new(core: &'a Core, store: &'a mut Store) -> Self {
        Patch { core, store, groups: Vec::new(), root: Vec::new(), retiring: Vec::new() }
    }

    /// The entry of the next-layer chunk walked as `w` in layer `l` (current entry `cur`);
    /// `collapsed` when all its new entries are one PortMapTable entry.
    pub(super) fn chunk(
        &mut self,
        (l, limit): (usize, usize),
        cur: u32,
        w: &Walked,
        collapsed: bool,
    ) -> Result<u32, BuildError> {
        if collapsed {
            self.core.retire_own(cur, &mut self.retiring);
            return Ok(w.new[0]);
        }
        if tag(cur) != TAG_PMT && w.old == w.new {
            return Ok(cur);
        }
        if tag(cur) == TAG_CHUNK {
            self.groups(payload(cur), w)?;
            return Ok(cur);
        }
        self.core.retire_own(cur, &mut self.retiring); // a sparse chunk; nothing for an entry
        let shape = &self.core.shape;
        let mut sink = CoreSink { core: self.core, store: self.store };
        encode_chunk(shape, limit, l, &w.new, w.specials.as_deref(), &mut sink)
    }

    /// New words for every group of grouped chunk `id` whose entries changed.
    fn groups(&mut self, id: u32, w: &Walked) -> Result<(), BuildError> {
        let shape = &self.core.shape;
        let g = shape.group as usize;
        for (k, (old, new)) in w.old.chunks(g).zip(w.new.chunks(g)).enumerate() {
            if old == new {
                continue;
            }
            let slot = id as usize * shape.chunk_stride() as usize + k;
            let before = self.core.chunk_groups[slot].load(Ordering::Relaxed);
            let len = self.core.group_words(before) as u32;
            let offset =
                CoreSink { core: self.core, store: self.store }.place(&encode_group(new))?;
            self.groups.push((slot, offset));
            self.retiring.push(Retired::Words { offset: before, len });
        }
        Ok(())
    }

    /// The entry of chunk `cur` of layer `l` under which the added table has no route of its
    /// own (its value is `value` throughout), or of any chunk on a deletion: every element's
    /// new entry is its current entry mapped, so only range heads are read and mapped (the
    /// chunks among them recursively), and only groups whose heads change are written.
    pub(super) fn uniform(
        &mut self,
        edit: &mut ColumnEdit,
        l: usize,
        cur: u32,
        value: u32,
    ) -> Result<u32, BuildError> {
        match tag(cur) {
            TAG_PMT => Ok(entry(TAG_PMT, edit.map(payload(cur), value)?)),
            TAG_CHUNK => self.uniform_grouped(edit, l, cur, value),
            _ => self.uniform_sparse(edit, l, cur, value),
        }
    }

    fn uniform_grouped(
        &mut self,
        edit: &mut ColumnEdit,
        l: usize,
        cur: u32,
        value: u32,
    ) -> Result<u32, BuildError> {
        let core = self.core;
        let (shape, word) = (&core.shape, |i: usize| core.arena[i].load(Ordering::Relaxed));
        let groups = ((1u32 << shape.strides[l]) / shape.group) as usize;
        let first = payload(cur) as usize * shape.chunk_stride() as usize;
        let cw = shape.codeword_words() as usize;
        let mut heads = Vec::with_capacity(groups);
        for slot in first..first + groups {
            let offset = core.chunk_groups[slot].load(Ordering::Relaxed) as usize;
            let old: Vec<u32> =
                (offset + cw..offset + core.group_words(offset as u32)).map(word).collect();
            let new = old.iter().map(|&h| self.uniform(edit, l + 1, h, value));
            let new: Vec<u32> = new.collect::<Result<_, _>>()?;
            heads.push((slot, offset, old, new));
        }
        let one = heads[0].3[0];
        if tag(one) == TAG_PMT && heads.iter().all(|h| h.3.iter().all(|&x| x == one)) {
            core.retire_own(cur, &mut self.retiring);
            return Ok(one);
        }
        for (slot, offset, old, new) in heads.into_iter().filter(|h| h.2 != h.3) {
            let elems: Vec<u32> = (0..shape.group).map(|e| new[head_of(core, offset, e)]).collect();
            let mut sink = CoreSink { core, store: self.store };
            self.groups.push((slot, sink.place(&encode_group(&elems))?));
            let len = cw + old.len();
            self.retiring.push(Retired::Words { offset: offset as u32, len: len as u32 });
        }
        Ok(cur)
    }

    fn uniform_sparse(
        &mut self,
        edit: &mut ColumnEdit,
        l: usize,
        cur: u32,
        value: u32,
    ) -> Result<u32, BuildError> {
        let base = payload(cur) as usize;
        let word = |i: usize| self.core.arena[i].load(Ordering::Relaxed);
        let count = word(base) as usize;
        let old: Vec<u32> = (base..base + 2 + 2 * count).map(word).collect();
        let mut new = old.clone();
        for k in std::iter::once(1).chain((0..count).map(|k| 3 + 2 * k)) {
            new[k] = self.uniform(edit, l + 1, old[k], value)?;
        }
        if new == old {
            return Ok(cur);
        }
        self.core.retire_own(cur, &mut self.retiring);
        let entries = || std::iter::once(new[1]).chain((0..count).map(|k| new[3 + 2 * k]));
        if tag(new[1]) == TAG_PMT && entries().all(|x| x == new[1]) {
            return Ok(new[1]);
        }
        let offset = CoreSink { core: self.core, store: self.store }.place(&new)?;
        Ok(entry(TAG_SPARSE, offset))
    }

    /// Records the root elements whose entry changes.
    pub(super) fn root(&mut self, w: &Walked) {
        let changed = w.old.iter().zip(&w.new).enumerate().filter(|(_, (o, n))| o != n);
        self.root.extend(changed.map(|(e, (_, &n))| (e, n)));
    }

    /// The recorded pointers, to publish into any `Core` over the same arrays.
    pub(super) fn finish(self) -> Pointers {
        Pointers { groups: self.groups, root: self.root, retiring: self.retiring }
    }
}

/// Pointer replacements of a finished patch.
pub(super) struct Pointers {
    groups: Vec<(usize, u32)>,
    root: Vec<(usize, u32)>,
    retiring: Vec<Retired>,
}

impl Pointers {
    /// Stores every recorded pointer into `core`'s arrays (`Release`: the words they name
    /// were written before). Returns the storage they retire.
    pub(super) fn publish(self, core: &Core) -> Vec<Retired> {
        for &(slot, offset) in &self.groups {
            core.chunk_groups[slot].store(offset, Ordering::Release);
        }
        for &(e, entry) in &self.root {
            core.root[e].store(entry, Ordering::Release);
        }
        self.retiring
    }
}
