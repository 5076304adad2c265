//! Incremental insertion and deletion of a whole table (paper §III-D, Table II).
//!
//! Adding table `N` walks the current structure once, chunk by chunk, next to the new table's
//! own FPA for the same chunk (built from its RIB alone, Algorithm 1). For every element the
//! new lookup entry follows from the current entry and the new table's value:
//!
//! - current entry is a PortMapTable index `i` and the new table has no longer route under the
//!   element: the entry becomes the index of composite `PMT[i] ++ [value]` (Table II rows 1–3:
//!   "extend" when both bitmaps have a 1, "divide" when only one has; the merged bitmap is
//!   recomputed from the entries by the group encoder, so `MBN = MBC | BN` holds by
//!   construction, and rows with a 0 in both reuse the previous element's entry);
//! - the new table has a longer route under a PortMapTable element: a next-layer chunk is
//!   created whose current side is that one entry everywhere;
//! - current entry points at a chunk: the walk descends with the new table's value as the
//!   child's default.
//!
//! With the column layout ([`pmt::columns`](super::pmt::columns)) an entry keeps its index when
//! all its elements get the same value in the added column, which is then written into that
//! column alone; a second value divides it into a new entry (the only copy across tables, per
//! divided composite). Deleting table `v` drops its column and maps each entry to the first
//! entry equal to it without that column, so adjacent ranges whose composites become equal
//! merge when the groups are re-encoded, and a chunk whose elements all become one
//! PortMapTable entry collapses into that entry. With packed rows (`compress_pmt`) new
//! composites are interned once per distinct `(old index, value)` pair and every row in use is
//! rewritten, wider or with column `v` cleared (or dropped when no later table remains).
//!
//! With the column layout the result is patched into the live arrays copy-on-write
//! ([`merge_in_place`], see [`merge_patch`](super::merge_patch)); there, a chunk under which
//! the added table has no route of its own is not expanded element by element: its range
//! heads are mapped (every element's entry maps the same way). Otherwise (packed rows, or
//! when the reserved room runs out) the result is written into fresh arrays ([`merge`]) and
//! published with one atomic pointer swap; the old structure stays readable until every
//! reader pinned before the swap is done.
//!
//! Layout differences from a fresh build (same answers): chunk forms are chosen from what the
//! walk knows — a current sparse chunk's keys plus the new table's relative prefixes; a
//! grouped chunk stays grouped on deletion even if a fresh build would make it sparse.

use super::build::{ChunkValues, Sink, VecSink, encode_chunk, note_special};
use super::encode::Special;
use super::layout::{Core, Shape, TAG_CHUNK, TAG_PMT, TAG_SPARSE, entry, payload, tag};
use super::merge_patch::{Patch, Walked};
use super::pmt::columns::ColumnEdit;
use super::pmt::index::FastMap;
use super::update::Store;

use crate::addr::Address;
use crate::fib::BuildError;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::sync::atomic::Ordering;

/// What changes between the current and the new PortMapTable columns.
pub(super) struct Reshape<'a, A: Address> {
    /// Columns (table slots) of the new PortMapTable.
    pub width: usize,
    /// A column cleared (the deleted table), if any.
    pub clear: Option<usize>,
    /// A column filled from a new table's RIB, if any.
    pub add: Option<(usize, &'a Rib<A>)>,
}

/// Which current entries a chunk's elements have.
#[derive(Copy, Clone)]
enum Current {
    Root,
    Entry(u32),
}

/// Where the walk's chunks go.
enum Out<'a> {
    /// Fresh vectors: a new structure.
    Fresh(VecSink),
    /// The live arrays, patched copy-on-write (see [`merge_patch`](super::merge_patch)).
    Patch(Patch<'a>),
}

struct Merger<'a, A: Address> {
    old: &'a Core,
    shape: &'a Shape,
    limit: usize,
    reshape: Reshape<'a, A>,
    /// `(current PortMapTable index, new column value)` → new lookup entry.
    memo: FastMap<u64, u32>,
    out: Out<'a>,
    /// The column layout's edit; `None` for the packed rows, which are rewritten.
    edit: Option<ColumnEdit>,
}

/// Builds the new root entries and arrays from `old` and `reshape`; with the column layout,
/// `edit` maps the PortMapTable entries and is returned with the result.
pub(super) fn merge<A: Address>(
    old: &Core,
    (shape, sparse_limit): (&Shape, usize),
    reshape: Reshape<'_, A>,
    edit: Option<ColumnEdit>,
) -> Result<(Vec<u32>, VecSink, Option<ColumnEdit>), BuildError> {
    let sink = VecSink { chunk_stride: shape.chunk_stride(), ..Default::default() };
    let memo = FastMap::default();
    let out = Out::Fresh(sink);
    let mut m = Merger { old, shape, limit: sparse_limit, reshape, memo, out, edit };
    let root = m.chunk(0, Prefix::DEFAULT_ROUTE, Current::Root, 0)?.new;
    match m.out {
        Out::Fresh(sink) => Ok((root, sink, m.edit)),
        Out::Patch(_) => unreachable!("built fresh"),
    }
}

/// Patches the live structure `old` for `reshape` (column layout only): returns the edited
/// columns' edit and the patch, whose pointer replacements are not yet published.
pub(super) fn merge_in_place<'a, A: Address>(
    old: &'a Core,
    (shape, sparse_limit): (&'a Shape, usize),
    reshape: Reshape<'a, A>,
    (edit, store): (ColumnEdit, &'a mut Store),
) -> Result<(ColumnEdit, Patch<'a>), BuildError> {
    let memo = FastMap::default();
    let out = Out::Patch(Patch::new(old, store));
    let edit = Some(edit);
    let mut m = Merger { old, shape, limit: sparse_limit, reshape, memo, out, edit };
    let w = m.chunk(0, Prefix::DEFAULT_ROUTE, Current::Root, 0)?;
    let (Out::Patch(mut patch), Some(edit)) = (m.out, m.edit) else {
        unreachable!("patching with columns")
    };
    patch.root(&w);
    Ok((edit, patch))
}

impl<A: Address> Merger<'_, A> {
    /// The current entries of a chunk's elements, and its relative prefixes when known
    /// (a sparse chunk's keys; none for a PortMapTable entry; unknown for grouped chunks).
    fn current(&self, l: usize, cur: Current) -> (Vec<u32>, Option<Vec<Special>>) {
        let s = self.shape.strides[l];
        let n = 1u32 << s;
        let old = self.old;
        match cur {
            Current::Root => {
                ((0..n).map(|e| old.root[e as usize].load(Ordering::Relaxed)).collect(), None)
            }
            Current::Entry(e) if tag(e) == TAG_PMT => (vec![e; n as usize], Some(Vec::new())),
            Current::Entry(e) if tag(e) == TAG_CHUNK => {
                ((0..n).map(|x| old.group_entry(payload(e), x)).collect(), None)
            }
            Current::Entry(e) => {
                debug_assert_eq!(tag(e), TAG_SPARSE);
                let base = payload(e) as usize;
                let count = old.arena[base].load(Ordering::Relaxed) as usize;
                let keys = (0..count)
                    .map(|k| old.arena[base + 2 + 2 * k].load(Ordering::Relaxed))
                    .map(|key| Special { bits: key >> 8, len: s - (key & 0xff) })
                    .collect();
                ((0..n).map(|x| old.sparse_entry(payload(e), x)).collect(), Some(keys))
            }
        }
    }

    /// The new table's values for the chunk (all 0 when no table is added).
    fn added(&self, l: usize, base: Prefix<A>, default: u32) -> ChunkValues {
        let mut cv = ChunkValues::new(1usize << self.shape.strides[l], &[default]);
        if let Some((_, rib)) = self.reshape.add {
            cv.overlay(rib, 0, (self.shape, self.limit), l, base);
        }
        cv
    }

    /// The current and new entries of the chunk at (`l`, `base`) and its relative prefixes
    /// when known.
    fn chunk(
        &mut self,
        l: usize,
        base: Prefix<A>,
        cur: Current,
        default: u32,
    ) -> Result<Walked, BuildError> {
        let (old, old_specials) = self.current(l, cur);
        let new = self.added(l, base, default);
        let mut out: Vec<u32> = Vec::with_capacity(old.len());
        for (e, &oe) in old.iter().enumerate() {
            let (value, deep) = (new.fpa[e], new.deeper[e]);
            let same = e > 0 && old[e - 1] == oe && new.fpa[e - 1] == value && !new.deeper[e - 1];
            let ne = if tag(oe) == TAG_PMT && !deep {
                if same { out[e - 1] } else { self.extend(payload(oe), value)? }
            } else {
                let child = element_prefix(self.shape, base, l, e as u32);
                self.child(l + 1, child, oe, value)?
            };
            out.push(ne);
        }
        let specials = old_specials.and_then(|mut sp| {
            for s in new.specials {
                note_special(&mut sp, s, self.limit);
            }
            (sp.len() <= self.limit).then_some(sp)
        });
        Ok(Walked { old, new: out, specials })
    }

    /// The entry for a next-layer chunk: collapsed, sparse or grouped.
    fn child(
        &mut self,
        l: usize,
        base: Prefix<A>,
        cur: u32,
        default: u32,
    ) -> Result<u32, BuildError> {
        if let (Out::Patch(patch), Some(edit)) = (&mut self.out, &mut self.edit) {
            let deeper = |r: &Rib<A>| r.covered(&base).any(|(p, _)| p.len() > base.len());
            if tag(cur) != TAG_PMT && !self.reshape.add.is_some_and(|(_, r)| deeper(r)) {
                return patch.uniform(edit, l, cur, default); // reads range heads only
            }
        }
        let w = self.chunk(l, base, Current::Entry(cur), default)?;
        let elems = &w.new;
        let collapsed = tag(elems[0]) == TAG_PMT && elems.iter().all(|&x| x == elems[0]);
        match &mut self.out {
            Out::Fresh(_) if collapsed => Ok(elems[0]),
            Out::Fresh(sink) => {
                encode_chunk(self.shape, self.limit, l, elems, w.specials.as_deref(), sink)
            }
            Out::Patch(patch) => patch.chunk((l, self.limit), cur, &w, collapsed),
        }
    }

    /// The entry of composite `PMT[index]` reshaped, with `value` in the added column.
    fn extend(&mut self, index: u32, value: u32) -> Result<u32, BuildError> {
        if let Some(edit) = &mut self.edit {
            return Ok(entry(TAG_PMT, edit.map(index, value)?)); // keeps its own memo
        }
        let key = (index as u64) << 32 | value as u64;
        let key_hash = super::pmt::index::mix(key); // a bijection: no collisions
        if let Some(&e) = self.memo.get(&key_hash) {
            return Ok(e);
        }
        let r = &self.reshape;
        let mut composite = self.old.pmt.composite(index);
        composite.resize(r.width, 0);
        if let Some(c) = r.clear.filter(|&c| c < r.width) {
            composite[c] = 0;
        }
        if let Some((c, _)) = r.add {
            composite[c] = value;
        }
        let Out::Fresh(sink) = &mut self.out else { unreachable!("packed rows are rebuilt") };
        let e = entry(TAG_PMT, sink.intern(&composite)?);
        self.memo.insert(key_hash, e);
        Ok(e)
    }
}

/// The prefix of element `e` of the chunk at (`l`, `base`).
fn element_prefix<A: Address>(shape: &Shape, base: Prefix<A>, l: usize, e: u32) -> Prefix<A> {
    let end = shape.starts[l] + shape.strides[l];
    let addr = A::from_u128(base.addr().to_u128() | ((e as u128) << (A::BITS - end)));
    Prefix::from_parts_unchecked(addr, end)
}
