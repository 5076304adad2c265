//! Table insertion and deletion on the writer ([`Loop::add_table`], [`Loop::remove_table`];
//! paper §III-D): the live arrays patched copy-on-write (`merge_patch.rs`) when the column
//! layout and the reserved room allow, else fresh arrays built by one walk (`merge.rs`).

use super::assemble::{PmtSource, assemble, copied, rib_hops};
use super::layout::Core;
use super::merge::{self, Reshape};
use super::update::Store;
use super::{Loop, pmt};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::multi::VrfId;
use crate::rib::Rib;

impl<A: Address> Loop<A> {
    /// Adds a whole table; returns its VRF id: the lowest free slot (one a removed table
    /// left), else the next new one.
    ///
    /// Incremental (§III-D): one walk over the current structure, see `merge.rs`.
    pub fn add_table(&mut self, rib: Rib<A>) -> Result<VrfId, BuildError> {
        self.collect();
        let slot = self.ribs.iter().position(Option::is_none).unwrap_or(self.ribs.len());
        let width = self.ribs.len().max(slot + 1);
        let reshape = || Reshape { width, clear: None, add: Some((slot, &rib)) };
        if !self.patched(reshape)? {
            let (core, store) = self.reshaped(reshape())?;
            self.publish(core, store);
        }
        if slot == self.ribs.len() {
            self.ribs.push(Some(rib));
        } else {
            self.ribs[slot] = Some(rib);
        }
        Ok(slot as VrfId)
    }

    /// Removes a whole table and frees its slot: lookups with its VRF id find no route until
    /// [`add_table`](Self::add_table) reuses the id.
    ///
    /// Incremental (§III-D): with the column layout the table's column is dropped (its memory
    /// is freed after the readers' grace period) and entries that become equal are merged;
    /// with packed rows its column is cleared, or dropped with any free slots after it when no
    /// later table remains.
    pub fn remove_table(&mut self, vrf: VrfId) -> Result<Rib<A>, BuildError> {
        self.rib_mut(vrf)?;
        let rib = self.ribs[vrf as usize].take().expect("checked above");
        let width = self.ribs.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
        let reshape = || Reshape { width, clear: Some(vrf as usize), add: None };
        let done = self.patched(reshape).and_then(|done| match done {
            true => Ok(()),
            false => self.reshaped(reshape()).map(|(core, store)| self.publish(core, store)),
        });
        match done {
            Ok(()) => {}
            Err(e) => {
                self.ribs[vrf as usize] = Some(rib);
                return Err(e);
            }
        }
        self.ribs.truncate(width);
        Ok(rib)
    }

    /// Applies `reshape` to the live arrays copy-on-write and publishes the result (column
    /// layout; see `merge_patch.rs`). Returns `false`, with nothing
    /// published, for packed rows or when the reserved room runs out: the caller then builds
    /// fresh arrays with [`reshaped`](Self::reshaped).
    ///
    /// When the reserved arena words or chunk ids run out, the arrays are first copied into
    /// larger ones (a copy, not a re-encoding: proportional to the structure's size, and
    /// amortised as the room doubles) and the patch is tried once more.
    fn patched<'r>(&mut self, reshape: impl Fn() -> Reshape<'r, A>) -> Result<bool, BuildError>
    where
        A: 'r,
    {
        if reshape().add.is_some() && self.arena_spare() < self.store.arena_used() {
            // An added table may rewrite most groups (a new next hop in every range): an
            // attempt that runs out of room half-way would be a wasted walk.
            self.grow_arrays();
        }
        for attempt in 0..2 {
            match self.try_patch(reshape())? {
                Some(done) => return Ok(done),
                None if attempt == 0 => self.grow_arrays(),
                None => {}
            }
        }
        Ok(false)
    }

    /// One attempt of [`patched`](Self::patched): `None` (and the allocator as it was) when
    /// the reserved room ran out.
    fn try_patch(&mut self, reshape: Reshape<'_, A>) -> Result<Option<bool>, BuildError> {
        self.collect();
        let old = self.core.clone();
        let pmt::Pmt::Columns(cols) = &old.pmt else { return Ok(Some(false)) };
        let edit = match (reshape.add, reshape.clear) {
            (Some((slot, rib)), _) => {
                pmt::columns::ColumnEdit::add(cols, &self.store.pmt, (slot, &rib_hops(rib)))
            }
            (None, Some(slot)) => pmt::columns::ColumnEdit::remove(cols, &self.store.pmt, slot),
            (None, None) => return Ok(Some(false)),
        };
        let shape = (&self.shape, self.cfg.sparse_limit);
        let saved = self.store.allocation();
        let (edit, patch) =
            match merge::merge_in_place(&old, shape, reshape, (edit, &mut self.store)) {
                Err(BuildError::LimitExceeded { what, .. }) if what.starts_with("reserved") => {
                    self.store.restore(saved);
                    return Ok(None);
                }
                other => other?,
            };
        let (pointers, grew) = (patch.finish(), edit.grew());
        let (cols, book) = edit.finish();
        // When the columns moved, a reader of the old structure must never follow a pointer
        // to an entry only the new columns hold: the pointers then go into copies of the
        // arrays that only the new structure names (a copy, amortised as the columns grow by
        // half; the writer never waits for a reader). Otherwise the arrays are shared and the
        // old columns hold every entry the new pointers name.
        let arrays = |a: &std::sync::Arc<[std::sync::atomic::AtomicU32]>| match grew {
            true => copied(a, a.len()),
            false => a.clone(),
        };
        let core = Core {
            shape: old.shape.clone(),
            vrfs: cols.width() as u32,
            root: arrays(&old.root),
            chunk_groups: arrays(&old.chunk_groups),
            arena: arrays(&old.arena),
            pmt: pmt::Pmt::Columns(cols),
        };
        self.store.pmt = book;
        self.store.retiring.extend(pointers.publish(&core));
        self.swap_core(core);
        Ok(Some(true))
    }

    /// Arena words free for new storage: past the bump pointer, and reclaimed.
    fn arena_spare(&self) -> usize {
        let reserved = self.core.arena.len();
        reserved - self.store.arena_top as usize + self.store.arena_free()
    }

    /// Publishes a copy of the structure whose arena and chunk ids have twice the room in
    /// use (at least as much again as reserved now). Readers of the current structure keep
    /// reading its arrays, which are freed after their grace period.
    fn grow_arrays(&mut self) {
        let old = self.core.clone();
        let pmt::Pmt::Columns(cols) = &old.pmt else { return };
        let stride = self.shape.chunk_stride() as usize;
        let arena = old.arena.len() + self.store.arena_used().max(1 << 14);
        let groups = old.chunk_groups.len() + (self.store.chunks_used() * stride).max(256);
        self.publish_copy(cols.share(), (arena, groups));
    }

    /// Lists next hop `hop` among table `vrf`'s ports (see `pmt/cells.rs`). When the column's
    /// port list is full, a structure with that column one cell width wider is published
    /// first: in copies of the other arrays, because readers of the current structure read
    /// the narrow column, which must never be named by an entry a later update writes.
    pub(super) fn admit_port(&mut self, vrf: VrfId, hop: u32) {
        let old = self.core.clone();
        let pmt::Pmt::Columns(cols) = &old.pmt else { return };
        if !cols.admit(vrf, hop) {
            let wide = cols.widened(vrf);
            assert!(wide.admit(vrf, hop), "a widened port list has room");
            self.publish_copy(wide, (old.arena.len(), old.chunk_groups.len()));
        }
    }

    /// Publishes the structure over `cols` in copies of the current root, group pointers
    /// (room for `groups`) and arena (room for `arena` words).
    fn publish_copy(&mut self, cols: pmt::columns::Columns, (arena, groups): (usize, usize)) {
        let old = self.core.clone();
        let core = Core {
            shape: old.shape.clone(),
            vrfs: old.vrfs,
            root: copied(&old.root, old.root.len()),
            chunk_groups: copied(&old.chunk_groups, groups),
            arena: copied(&old.arena, arena),
            pmt: pmt::Pmt::Columns(cols),
        };
        self.swap_core(core);
    }

    /// The structure after `reshape`, built by one walk over the current one.
    fn reshaped(&self, reshape: Reshape<'_, A>) -> Result<(Core, Store), BuildError> {
        let old = &*self.core;
        let width = reshape.width;
        let edit = match (&old.pmt, reshape.add, reshape.clear) {
            (pmt::Pmt::Columns(c), Some((slot, rib)), _) => {
                Some(pmt::columns::ColumnEdit::add(c, &self.store.pmt, (slot, &rib_hops(rib))))
            }
            (pmt::Pmt::Columns(c), None, Some(slot)) => {
                Some(pmt::columns::ColumnEdit::remove(c, &self.store.pmt, slot))
            }
            _ => None,
        };
        let (root, sink, edit) =
            merge::merge(old, (&self.shape, self.cfg.sparse_limit), reshape, edit)?;
        let source = match edit {
            Some(edit) => {
                let (cols, book) = edit.finish();
                PmtSource::Edited(cols, book)
            }
            // Packed rows: no per-slot storage (the lists are for columns).
            None => PmtSource::Rows(vec![Some(Vec::new()); width]),
        };
        assemble(&root, sink, source, &self.shape, &self.cfg)
    }
}
