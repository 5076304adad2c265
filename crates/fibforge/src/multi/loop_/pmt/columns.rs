//! The PortMapTable as one column per table (the default layout).
//!
//! Column `v` is an array of cells indexed by the composite's entry index: `cols[v][i]`, each
//! cell the code of a port of table `v` (0 = no route), one byte wide while the table has at
//! most 255 next hops, as the paper's (see [`cells`](super::cells)). A lookup reads `cols[vrf]`
//! (a slot of a small array that stays in cache and does not depend on the chunk walk), then
//! the cell and the port it codes (a short list, also cached): one dependent miss after the
//! walk, as with the flat `entries × width` row table it replaces. A removed table's slot holds
//! an empty column (every read gives "no route") and owns no memory.
//!
//! Columns are shared (`Arc`) between successive structures, so adding or removing a table
//! touches only what changes ([`ColumnEdit`]):
//!
//! - **add** table `s`: a new column `s` is allocated; the first time the walk meets entry `i`
//!   with value `x` for the new table, entry `i` keeps its index and `cols[s][i] = x` (no other
//!   column is touched); a second, different value `y` for the same `i` (Table II's "divide")
//!   appends a new entry `j` copied from `i` with `cols[s][j] = y` — the only work proportional
//!   to the number of tables, and only for divided composites;
//! - **remove** table `s`: its column is dropped (freed once no reader can see the old
//!   structure); entries that become equal are merged (each checked once against the first
//!   entry with the same hash), so ranges and chunks that existed only because of the removed
//!   table collapse in the walk.
//!
//! Hashes are kept per entry and updated in O(1) per changed column (see
//! [`index`](super::index)). Entries are append-only while a structure is live:
//! divided entries are written past every index the published structure references, so
//! readers of the old structure never see them change. Entries merged away by a table
//! deletion are retired: after the readers' grace period they are reused by later divisions
//! and updates, so adding and removing tables repeatedly does not grow the table. Entries
//! that fall out of use through route updates are found by a sweep and reused the same way
//! (see [`sweep`](super::super::sweep)).

use super::super::words::limit_error;
use super::cells::Column;
use super::index::{FastMap, PmtIndex, mix, term};
use crate::fib::BuildError;
use std::sync::{Arc, Mutex};

/// A port list that ran out of codes where none should (see [`cells`](super::cells)): the
/// writer rebuilds, as for any reserved room that runs out.
fn ports_full() -> BuildError {
    limit_error("reserved PortMapTable ports")
}

pub(in crate::multi::loop_) struct Columns {
    cols: Box<[Column]>,
    /// Entries every live column has room for.
    capacity: usize,
}

impl Columns {
    /// Live table from `flat` composites (`slots.len()` values each, `entries` of them) with
    /// room for `capacity` entries; `slots[v]` lists the next hops of table `v`'s RIB (`None`
    /// for a free slot, which gets no storage).
    pub(in crate::multi::loop_) fn new(
        flat: &[u32],
        slots: &[Option<Vec<u32>>],
        entries: usize,
        capacity: usize,
    ) -> Result<Columns, BuildError> {
        let (capacity, width) = (capacity.max(entries), slots.len());
        let column = |v: usize| {
            let Some(hops) = &slots[v] else { return Ok(Column::empty()) };
            let col = Column::new(hops, capacity);
            for i in 0..entries {
                col.set(i, flat[i * width + v]).ok_or_else(ports_full)?;
            }
            Ok(col)
        };
        let cols = (0..width).map(column).collect::<Result<_, BuildError>>()?;
        Ok(Columns { cols, capacity })
    }

    pub(in crate::multi::loop_) fn width(&self) -> usize {
        self.cols.len()
    }

    /// The same columns, shared (for a structure that differs in its other arrays only).
    pub(in crate::multi::loop_) fn share(&self) -> Columns {
        Columns { cols: self.cols.clone(), capacity: self.capacity }
    }

    /// The value of column `vrf` (< width) of entry `i`; 0 in a removed table's slot.
    #[inline]
    pub(in crate::multi::loop_) fn get(&self, i: u32, vrf: u32) -> u32 {
        self.cols[vrf as usize].get(i)
    }

    /// Hints that `cols[vrf][i]` (`vrf` < width) is read soon.
    #[inline]
    pub(in crate::multi::loop_) fn prefetch(&self, i: u32, vrf: u32) {
        self.cols[vrf as usize].prefetch(i);
    }

    /// Lists next hop `hop` in column `vrf`'s ports: false when the list is full (the column
    /// must be [`widened`](Self::widened) first).
    pub(in crate::multi::loop_) fn admit(&self, vrf: u32, hop: u32) -> bool {
        self.cols.get(vrf as usize).is_none_or(|c| c.encode(hop).is_some())
    }

    /// The same columns with column `vrf` one cell width wider (the others shared).
    pub(in crate::multi::loop_) fn widened(&self, vrf: u32) -> Columns {
        let mut cols = self.cols.to_vec();
        cols[vrf as usize] = cols[vrf as usize].widened();
        Columns { cols: cols.into_boxed_slice(), capacity: self.capacity }
    }

    /// Bytes per cell of each column (0 for a removed table's slot).
    #[cfg(test)]
    pub(in crate::multi::loop_) fn cell_bytes(&self) -> Vec<usize> {
        self.cols.iter().map(|c| if c.is_empty() { 0 } else { c.cell_bytes() }).collect()
    }

    /// Stores `composite` as entry `i` (the next one).
    pub(in crate::multi::loop_) fn append(
        &self,
        i: u32,
        composite: &[u32],
    ) -> Result<(), BuildError> {
        if i as usize >= self.capacity {
            return Err(limit_error("reserved PortMapTable entries"));
        }
        for (col, &x) in self.cols.iter().zip(composite) {
            col.set(i as usize, x).ok_or_else(ports_full)?;
        }
        Ok(())
    }

    /// Bytes in use for `entries` entries: the cells of live columns and their port lists.
    pub(in crate::multi::loop_) fn used_bytes(&self, entries: u32) -> usize {
        let live = self.cols.iter().filter(|c| !c.is_empty());
        live.map(|c| c.used_bytes(entries as usize)).sum()
    }

    /// Bytes allocated.
    pub(in crate::multi::loop_) fn allocated_bytes(&self) -> usize {
        self.cols.iter().map(Column::allocated_bytes).sum()
    }
}

/// The writer's bookkeeping of PortMapTable entries.
#[derive(Default)]
pub(in crate::multi::loop_) struct Book {
    /// Entries in use (the next index).
    pub top: u32,
    /// Hash of every entry (for entries merged away or out of use: stale, never looked up).
    pub hashes: Vec<u64>,
    /// Hash → index of the entries a lookup entry may name.
    pub index: PmtIndex,
    /// Entries no lookup entry names any more, past their grace period: reused first.
    pub free: Vec<u32>,
    /// Entries a table deletion merged away (still named by the replaced structure): they
    /// go to `freed` after the readers' grace period.
    pub merged_away: Vec<u32>,
    /// Entries past their grace period, to move into `free`. Shared by the bookkeeping of
    /// every structure over the same columns (a rebuild starts a new one).
    pub freed: Arc<Mutex<Vec<u32>>>,
    /// `idle[i]`: entry `i` is free or waiting for its grace period (missing: false).
    pub idle: Vec<bool>,
    /// Entries made by route updates since the last sweep (see [`sweep`](super::super::sweep)).
    pub created: u32,
}

impl Book {
    /// Moves entries whose grace period has passed into `free`.
    pub(in crate::multi::loop_) fn collect(&mut self) {
        self.free.append(&mut self.freed.lock().expect("freed lock"));
    }

    /// Entries not free (named by lookup entries, or out of use through updates).
    pub(in crate::multi::loop_) fn in_use(&self) -> u32 {
        self.top - self.free.len() as u32
    }

    /// The index for a new entry: a free one, else the next one.
    pub(in crate::multi::loop_) fn next_index(&mut self) -> u32 {
        let i = self.free.pop().unwrap_or_else(|| {
            self.top += 1;
            self.top - 1
        });
        if let Some(idle) = self.idle.get_mut(i as usize) {
            *idle = false;
        }
        i
    }

    /// Retires entry `i` (no lookup entry of the structure being published names it): it
    /// becomes free after the readers' grace period.
    pub(in crate::multi::loop_) fn retire(&mut self, i: u32) {
        if self.idle.len() <= i as usize {
            self.idle.resize(self.top as usize, false);
        }
        self.idle[i as usize] = true;
        self.merged_away.push(i);
    }

    /// True when entry `i` is free or waiting for its grace period.
    pub(in crate::multi::loop_) fn is_idle(&self, i: u32) -> bool {
        self.idle.get(i as usize).copied().unwrap_or(false)
    }

    /// Records the hash of entry `i` (new or reused).
    pub(in crate::multi::loop_) fn set_hash(&mut self, i: u32, h: u64) {
        match self.hashes.get_mut(i as usize) {
            Some(slot) => *slot = h,
            None => self.hashes.push(h),
        }
    }

    /// Gives back a reused entry after a failed store.
    pub(in crate::multi::loop_) fn unuse(&mut self, i: u32) {
        if i + 1 == self.top && self.hashes.len() < self.top as usize {
            self.top -= 1;
        } else {
            if self.idle.len() <= i as usize {
                self.idle.resize(self.top as usize, false);
            }
            self.idle[i as usize] = true;
            self.free.push(i);
        }
    }
}

/// Adding or removing one table's column: maps every current entry index met by the walk to
/// its index in the new structure (see the module doc).
pub(in crate::multi::loop_) struct ColumnEdit {
    cols: Vec<Column>,
    capacity: usize,
    slot: usize,
    /// `Some(claimed)` when adding: entry `i` already took its value in the new column.
    adding: Option<Vec<bool>>,
    /// Adding: `(i, value)` → the entry divided from `i` for `value`.
    divided: FastMap<u64, u32>,
    /// Removing: the new index of entry `i` once known (`u32::MAX` before).
    merged: Vec<u32>,
    book: Book,
    /// The columns were moved into larger storage (see [`Self::grew`]).
    grew: bool,
}

impl ColumnEdit {
    /// Prepares adding a table in `slot` (a free slot or the next one) whose RIB uses the
    /// next hops `hops`.
    pub(in crate::multi::loop_) fn add(
        old: &Columns,
        book: &Book,
        (slot, hops): (usize, &[u32]),
    ) -> ColumnEdit {
        let mut cols = old.cols.to_vec();
        if slot >= cols.len() {
            cols.resize_with(slot + 1, Column::empty);
        }
        cols[slot] = Column::new(hops, old.capacity);
        let claimed = vec![false; book.top as usize];
        ColumnEdit {
            cols,
            capacity: old.capacity,
            slot,
            adding: Some(claimed),
            divided: FastMap::default(),
            merged: Vec::new(),
            book: fresh(book),
            grew: false,
        }
    }

    /// Prepares removing the table in `slot`.
    pub(in crate::multi::loop_) fn remove(old: &Columns, book: &Book, slot: usize) -> ColumnEdit {
        ColumnEdit {
            cols: old.cols.to_vec(),
            capacity: old.capacity,
            slot,
            adding: None,
            divided: FastMap::default(),
            merged: vec![u32::MAX; book.top as usize],
            book: fresh(book),
            grew: false,
        }
    }

    /// True when the edit moved every column into larger storage: readers of the current
    /// structure read the old columns, which do not hold the entries divided past their end,
    /// so a structure patched in place must not show them its patched groups (see
    /// [`merge_patch`](super::super::merge_patch)).
    pub(in crate::multi::loop_) fn grew(&self) -> bool {
        self.grew
    }

    /// The new index of current entry `i`, with `value` in the added column.
    pub(in crate::multi::loop_) fn map(&mut self, i: u32, value: u32) -> Result<u32, BuildError> {
        match self.adding.is_some() {
            true => self.map_add(i, value),
            false => Ok(self.map_remove(i)),
        }
    }

    fn map_add(&mut self, i: u32, value: u32) -> Result<u32, BuildError> {
        let (s, iu) = (self.slot, i as usize);
        let claimed = self.adding.as_mut().expect("adding");
        let base = self.book.hashes[iu];
        if !std::mem::replace(&mut claimed[iu], true) {
            self.cols[s].set(iu, value).ok_or_else(ports_full)?;
            self.book.hashes[iu] = base.wrapping_add(term(s, value));
            self.book.index.note(self.book.hashes[iu], i);
            return Ok(i);
        }
        let taken = self.cols[s].get(i);
        if taken == value {
            return Ok(i);
        }
        let key = (i as u64) << 32 | value as u64;
        if let Some(&j) = self.divided.get(&mix(key)) {
            return Ok(j);
        }
        let j = self.divide(i)?;
        self.divided.insert(mix(key), j);
        self.cols[s].set(j as usize, value).ok_or_else(ports_full)?;
        let h = base.wrapping_sub(term(s, taken)).wrapping_add(term(s, value));
        self.book.set_hash(j, h);
        self.book.index.note(h, j);
        Ok(j)
    }

    /// A new entry `j` holding entry `i`'s values in every column but the added one.
    fn divide(&mut self, i: u32) -> Result<u32, BuildError> {
        let j = self.book.next_index();
        if j as usize >= self.capacity {
            self.grow();
        }
        for (v, col) in self.cols.iter().enumerate() {
            if v != self.slot && !col.is_empty() {
                col.set_code(j as usize, col.code(i as usize)); // same column: same codes
            }
        }
        let claimed = self.adding.as_mut().expect("adding");
        match claimed.get_mut(j as usize) {
            Some(c) => *c = true,
            None => claimed.push(true),
        }
        Ok(j)
    }

    /// Moves every column into larger storage (rare: amortised over the added entries).
    fn grow(&mut self) {
        let capacity = self.capacity + self.capacity / 2 + 1024;
        for col in &mut self.cols {
            if !col.is_empty() {
                *col = col.resized(capacity);
            }
        }
        self.capacity = capacity;
        self.grew = true;
    }

    fn map_remove(&mut self, i: u32) -> u32 {
        let (s, iu) = (self.slot, i as usize);
        if self.merged[iu] != u32::MAX {
            return self.merged[iu];
        }
        let gone = self.cols[s].get(i);
        let h = self.book.hashes[iu].wrapping_sub(term(s, gone));
        self.book.hashes[iu] = h;
        let cols = &self.cols;
        let same = |j: u32| {
            // Codes of one column are equal exactly when the next hops are.
            let mut others = cols.iter().enumerate().filter(|&(v, c)| v != s && !c.is_empty());
            others.all(|(_, c)| c.code(j as usize) == c.code(iu))
        };
        let j = self.book.index.find(h, same).unwrap_or(i);
        if j == i {
            self.book.index.note(h, i);
        } else {
            self.book.retire(i);
        }
        self.merged[iu] = j;
        j
    }

    /// The new columns and bookkeeping. A removed slot is emptied and trailing empty slots
    /// are dropped.
    pub(in crate::multi::loop_) fn finish(mut self) -> (Columns, Book) {
        if self.adding.is_none() {
            self.cols[self.slot] = Column::empty();
        }
        while self.cols.last().is_some_and(|c| c.is_empty()) {
            self.cols.pop();
        }
        let capacity = self.capacity;
        (Columns { cols: self.cols.into_boxed_slice(), capacity }, self.book)
    }
}

/// The bookkeeping to fill during an edit: the same entries and hashes, an empty index (the
/// walk indexes the entries it keeps).
fn fresh(book: &Book) -> Book {
    Book {
        top: book.top,
        hashes: book.hashes.clone(),
        index: PmtIndex::default(),
        free: book.free.clone(),
        merged_away: Vec::new(),
        freed: book.freed.clone(),
        idle: book.idle.clone(),
        created: book.created,
    }
}
