//! LOOP: Layer-based Overlay and Optimized Polymerization for multiple virtual tables
//! (Z. Mi, T. Yang et al.; `papers/loop-mi-yang.txt`).
//!
//! **Structure** (§III-A to §III-C, §IV). The address is cut into layers (partition mode
//! `[16-8-8]` for IPv4 by default, configurable as in Fig. 11). Layer 1 is one chunk stored as
//! `2^16` uncompressed lookup entries. Every lower chunk (a subtree confined to one layer) is
//! split into groups of `G` elements (64 by default; 32 and 128 allowed, Table IV); each group
//! stores eight-element codewords (an 8-bit slice of the overlay bitmap plus the count of ones
//! before it) and one lookup entry per range head. The entry of an element is found with the
//! codeword's `before` count plus a population count (`count_ones`, a single instruction here,
//! replacing the paper's 128-byte IndexTable: the same answer with one memory access fewer).
//! Chunks whose routes (and next-layer pointers) are at most `K` relative prefixes (3 by
//! default) are stored as sparse chunks (Optimization 2).
//!
//! **Many tables** (§III-C). All tables share one structure: each element's value is the
//! composite of every table's FPA value at that element (the Multiplexed FPA), so the overlay
//! bitmap is the OR of the tables' bitmaps; lookup entries index a PortMapTable that stores each
//! distinct composite once. The PortMapTable is stored as one column per table (see
//! `pmt/`): a lookup reads `column[vrf][index]`, one dependent access after the
//! chunk walk, as with the paper's row table. With `compress_pmt` it is bitmap-compressed rows
//! instead (§V-B, `S_pmt2`): smaller when tables share next hops, at two more dependent
//! accesses per lookup and with table insertion/deletion rewriting every row.
//!
//! **Updates** (§III-E): see `update.rs`. Readers never block: the writer
//! regenerates groups into fresh storage and swaps one pointer; retired storage is reclaimed
//! with `crossbeam-epoch` after a grace period. Table insertion and deletion (§III-D, Table II)
//! are incremental: see `merge.rs`. One walk over the current structure next to
//! the added table's own FPA yields every element's new entry. With the column layout the
//! live arrays are patched copy-on-write (`merge_patch.rs`): only groups
//! holding a divided or merged entry or a changed next-layer pointer are written, into spare
//! storage, and published by atomic pointer replacement as route updates are; then a new
//! `Core` sharing the same arrays with the edited PortMapTable columns is swapped in. No
//! other table's column is copied, and subtrees where the added table has no route of its
//! own (on a deletion: all of them) are walked by their range heads only, so the work follows
//! the added table's routes and the entries it divides, not the number of tables present
//! (`fibforge bench --preset loop-fig14` measures it). When the reserved room runs out, or with packed
//! rows, the walk builds fresh arrays instead (one pointer swap).
//!
//! **VRF ids** are table slots. `build` numbers the tables `0..n`; `remove_table(v)` frees
//! slot `v` (lookups in it find no route, its memory is released after the readers' grace
//! period); `add_table` takes the lowest free slot, else `n`. Free slots at the end are
//! dropped, so [`vrfs`](MultiLookup::vrfs) is one more than the highest live id.
//!
//! **IPv6** (beyond the paper, which is IPv4 only): partition `[16, 8 × 14]` — one uncompressed
//! 16-bit root (real IPv6 tables spread over 2000::/3 at /16–/48) and byte-sized lower layers, so
//! groups, codewords and sparse chunks work unchanged down to /128.
//!
//! **Limits**: lookup entries carry 30-bit payloads (PortMapTable indices, chunk ids, arena
//! offsets); exceeding them is a `BuildError::LimitExceeded`. Next hops are stored as full
//! 32-bit ids in the PortMapTable (the paper uses 8 bits), so there is no next-hop cap.
//! After updates the answers equal a fresh build's; the memory layout may differ (a chunk
//! is not converted between sparse and grouped forms in place). PortMapTable entries that
//! fall out of use through updates are found by a periodic sweep and reused after the grace
//! period (see `sweep.rs`); with packed rows they are kept until a rebuild (when
//! reserved room runs out).

mod batch;
mod build;
mod encode;
mod grace;
mod layout;
mod merge;
mod merge_patch;
mod pmt;
mod single;
mod sweep;
mod update;

/// The primitives `grace.rs` is written against (loom's in `tests/loom_loop.rs`).
mod prim {
    pub(super) use std::sync::atomic::{AtomicBool, Ordering};
    pub(super) use std::sync::{Arc, Mutex};
    pub(super) use std::thread::yield_now;
}

pub use single::LoopFib;

use super::{MultiLookup, VrfId};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use build::{Emitter, VecSink};
use crossbeam_epoch::{self as epoch, Atomic, Guard, Owned};
use grace::{hand_back, wait_for_readers};
use layout::{Core, Shape, atomic_vec};
use merge::Reshape;
use std::marker::PhantomData;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use update::Store;

/// LOOP build parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopConfig {
    /// Bits per layer; `None` gives `[16, 8, 8]` for IPv4 and `[16, 8 × 14]` for IPv6.
    pub strides: Option<Vec<u32>>,
    /// Elements per group: 32, 64 (default) or 128.
    pub group: u32,
    /// Chunks with at most this many relative prefixes are sparse (`K`, default 3).
    pub sparse_limit: usize,
    /// Spare capacity reserved for updates, as a fraction of the built size (default 0.5).
    pub headroom: f64,
    /// Bitmap-compress the PortMapTable (§V-B, `S_pmt2`; default off: one access fewer).
    pub compress_pmt: bool,
    /// Optimization 1 of §III-E for announcements (default on; off to measure without it).
    pub optimization1: bool,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            strides: None,
            group: 64,
            sparse_limit: 3,
            headroom: 0.5,
            compress_pmt: false,
            optimization1: true,
        }
    }
}

impl LoopConfig {
    fn shape<A: Address>(&self) -> Result<Shape, BuildError> {
        let strides = self.strides.clone().unwrap_or_else(|| {
            let mut v = vec![16];
            v.extend(std::iter::repeat_n(8, (A::BITS as usize - 16) / 8));
            v
        });
        let bad = |reason: String| BuildError::BadOption {
            algo: "loop",
            option: "strides/group".into(),
            reason,
        };
        if ![32, 64, 128].contains(&self.group) {
            return Err(bad(format!("group size {} is not 32, 64 or 128", self.group)));
        }
        if strides.iter().sum::<u32>() != A::BITS
            || strides.is_empty()
            || !(1..=24).contains(&strides[0])
        {
            return Err(bad(format!(
                "strides {strides:?} must sum to {} with a root of 1..=24 bits",
                A::BITS
            )));
        }
        if let Some(s) = strides[1..].iter().find(|&&s| s > 16 || (1u32 << s) < self.group) {
            return Err(bad(format!(
                "lower-layer stride {s} must hold a whole group and be at most 16"
            )));
        }
        Ok(Shape::new(strides, self.group))
    }
}

/// Counters describing the structure (the paper's storage terms).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopStats {
    /// Table slots (PortMapTable width).
    pub vrfs: usize,
    /// Grouped chunks in lower layers.
    pub chunks: usize,
    /// Arena words in use (group structures and sparse chunks).
    pub arena_words: usize,
    /// Distinct composites in the PortMapTable.
    pub pmt_entries: usize,
    /// Bytes of the PortMapTable in use (`S_pmt`, or `S_pmt2` when compressed).
    pub pmt_bytes: usize,
    /// Group or root pointers modified by updates so far (Table III's "modified pointers").
    pub modified_pointers: u64,
}

struct Shared {
    core: Atomic<Core>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // SAFETY: the last `Arc<Shared>` is going away, so no reader or writer can hold a
        // reference to the current core; it was created by `Owned::new` and is freed once.
        unsafe {
            let core = self.core.load(Ordering::Relaxed, epoch::unprotected());
            if !core.is_null() {
                drop(core.into_owned());
            }
        }
    }
}

fn current<'g>(shared: &Shared, guard: &'g Guard) -> &'g Core {
    let ptr = shared.core.load(Ordering::Acquire, guard);
    // SAFETY: the core pointer is never null after construction, and a core replaced by a
    // rebuild is destroyed only through `defer_destroy`, after every guard pinned before the
    // replacement (including `guard`) is gone.
    unsafe { ptr.deref() }
}

/// The writer of a LOOP multi-table: owns the RIBs and applies changes.
pub struct Loop<A: Address> {
    shared: Arc<Shared>,
    ribs: Vec<Option<Rib<A>>>,
    store: Store,
    cfg: LoopConfig,
    shape: Shape,
}

/// A cheap, cloneable lookup handle for any thread.
pub struct LoopReader<A: Address> {
    shared: Arc<Shared>,
    _family: PhantomData<fn() -> A>,
}

impl<A: Address> Clone for LoopReader<A> {
    fn clone(&self) -> Self {
        LoopReader { shared: self.shared.clone(), _family: PhantomData }
    }
}

fn build_core<A: Address>(
    ribs: &[Option<Rib<A>>],
    shape: &Shape,
    cfg: &LoopConfig,
) -> Result<(Core, Store), BuildError> {
    let em = Emitter { ribs, shape, sparse_limit: cfg.sparse_limit };
    let mut sink = VecSink { chunk_stride: shape.chunk_stride(), ..Default::default() };
    let defaults = vec![0u32; ribs.len()];
    let (root, _) = em.element_entries(0, Prefix::DEFAULT_ROUTE, &defaults, &mut sink)?;
    let live = ribs.iter().map(Option::is_some).collect();
    Ok(assemble(&root, sink, PmtSource::Rows(live), shape, cfg))
}

/// Where a new structure's PortMapTable comes from.
enum PmtSource {
    /// The sink's rows (a fresh build, or a packed-rows table insertion/deletion), one value
    /// per slot; `false` marks a free slot.
    Rows(Vec<bool>),
    /// Columns edited by a table insertion/deletion.
    Edited(pmt::columns::Columns, pmt::columns::Book),
}

/// Turns built vectors into live arrays (with update headroom) and their allocator.
fn assemble(
    root: &[u32],
    mut sink: VecSink,
    source: PmtSource,
    shape: &Shape,
    cfg: &LoopConfig,
) -> (Core, Store) {
    let spare = |n: usize, min: usize| n + (n as f64 * cfg.headroom) as usize + min;
    let (pmt, pmt_words, book) = match source {
        PmtSource::Rows(live) => {
            let entries = sink.book.top as usize;
            let room = spare(entries, 1024) - entries;
            let (p, w) = pmt::Pmt::new(&sink.pmt, (&live, entries), cfg.compress_pmt, room);
            (p, w, std::mem::take(&mut sink.book))
        }
        PmtSource::Edited(cols, book) => (pmt::Pmt::Columns(cols), 0, book),
    };
    let core = Core {
        shape: shape.clone(),
        vrfs: pmt.width() as u32,
        root: filled(root, root.len()).into(),
        chunk_groups: filled(&sink.chunk_groups, spare(sink.chunk_groups.len(), 64 * 4)).into(),
        arena: filled(&sink.arena, spare(sink.arena.len(), 1 << 14)).into(),
        pmt,
    };
    let store = Store {
        arena_top: sink.arena.len() as u32,
        chunk_top: sink.chunks,
        pmt: book,
        pmt_words,
        free_words: Default::default(),
        free_chunks: Vec::new(),
        reclaimed: Arc::new(Mutex::new(Vec::new())),
        retiring: Vec::new(),
        modified_pointers: 0,
    };
    (core, store)
}

/// A copy of `from` with room for `capacity` words.
fn copied(
    from: &[std::sync::atomic::AtomicU32],
    capacity: usize,
) -> Arc<[std::sync::atomic::AtomicU32]> {
    let v = atomic_vec(capacity.max(from.len()));
    for (to, x) in v.iter().zip(from) {
        to.store(x.load(Ordering::Relaxed), Ordering::Relaxed);
    }
    v.into()
}

fn filled(values: &[u32], capacity: usize) -> Box<[std::sync::atomic::AtomicU32]> {
    let v = atomic_vec(capacity.max(values.len()));
    for (slot, &x) in v.iter().zip(values) {
        slot.store(x, Ordering::Relaxed);
    }
    v
}

impl<A: Address> Loop<A> {
    /// Merges `tables` (VRF id = position) into one structure.
    pub fn build(tables: Vec<Rib<A>>, cfg: &LoopConfig) -> Result<Self, BuildError> {
        let shape = cfg.shape::<A>()?;
        let ribs: Vec<Option<Rib<A>>> = tables.into_iter().map(Some).collect();
        let (core, store) = build_core(&ribs, &shape, cfg)?;
        let shared = Arc::new(Shared { core: Atomic::new(core) });
        Ok(Loop { shared, ribs, store, cfg: cfg.clone(), shape })
    }

    /// A lookup handle for other threads.
    pub fn reader(&self) -> LoopReader<A> {
        LoopReader { shared: self.shared.clone(), _family: PhantomData }
    }

    /// The RIB of table `vrf`, if it exists.
    pub fn rib(&self, vrf: VrfId) -> Option<&Rib<A>> {
        self.ribs.get(vrf as usize)?.as_ref()
    }

    fn rib_mut(&mut self, vrf: VrfId) -> Result<&mut Rib<A>, BuildError> {
        self.ribs.get_mut(vrf as usize).and_then(|r| r.as_mut()).ok_or_else(|| {
            BuildError::Unsupported { algo: "loop", reason: format!("no table with VRF id {vrf}") }
        })
    }

    /// Inserts or replaces a route of table `vrf`; returns the previous next hop.
    pub fn insert(
        &mut self,
        vrf: VrfId,
        prefix: Prefix<A>,
        hop: NextHop,
    ) -> Result<Option<NextHop>, BuildError> {
        let opt1 = self.cfg.optimization1;
        let rib = self.rib_mut(vrf)?;
        let old = rib.insert(prefix, hop);
        if old != Some(hop) {
            let leaf = opt1 && !rib.covered(&prefix).any(|(p, _)| p.len() > prefix.len());
            self.refresh(&prefix, Some((vrf, leaf, hop.raw())))?;
        }
        Ok(old)
    }

    /// Withdraws a route of table `vrf`; returns its next hop if it was present.
    pub fn remove(
        &mut self,
        vrf: VrfId,
        prefix: &Prefix<A>,
    ) -> Result<Option<NextHop>, BuildError> {
        let old = self.rib_mut(vrf)?.remove(prefix);
        if old.is_some() {
            self.refresh(prefix, None)?;
        }
        Ok(old)
    }

    /// Adds a whole table; returns its VRF id: the lowest free slot (one a removed table
    /// left), else the next new one.
    ///
    /// Incremental (§III-D): one walk over the current structure, see `merge.rs`.
    pub fn add_table(&mut self, rib: Rib<A>) -> Result<VrfId, BuildError> {
        self.store.collect();
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
        self.store.collect();
        let guard = epoch::pin();
        let old = current(&self.shared, &guard);
        let pmt::Pmt::Columns(cols) = &old.pmt else { return Ok(Some(false)) };
        let edit = match (reshape.add, reshape.clear) {
            (Some((slot, _)), _) => pmt::columns::ColumnEdit::add(cols, &self.store.pmt, slot),
            (None, Some(slot)) => pmt::columns::ColumnEdit::remove(cols, &self.store.pmt, slot),
            (None, None) => return Ok(Some(false)),
        };
        let shape = (&self.shape, self.cfg.sparse_limit);
        let saved = self.store.allocation();
        let (edit, patch) =
            match merge::merge_in_place(old, shape, reshape, (edit, &mut self.store)) {
                Err(BuildError::LimitExceeded { what, .. }) if what.starts_with("reserved") => {
                    self.store.restore(saved);
                    return Ok(None);
                }
                other => other?,
            };
        let (pointers, grew) = (patch.finish(), edit.grew());
        let (cols, book) = edit.finish();
        let core = Core {
            shape: old.shape.clone(),
            vrfs: cols.width() as u32,
            root: old.root.clone(),
            chunk_groups: old.chunk_groups.clone(),
            arena: old.arena.clone(),
            pmt: pmt::Pmt::Columns(cols),
        };
        self.store.pmt = book;
        if !grew {
            self.store.retiring.extend(pointers.publish(old));
            drop(guard);
            self.swap_core(core);
            return Ok(Some(true));
        }
        drop(guard); // the columns moved: readers of the old ones must be gone first
        self.swap_core(core);
        wait_for_readers();
        let guard = epoch::pin();
        self.store.retiring.extend(pointers.publish(current(&self.shared, &guard)));
        hand_back(&guard, &self.store.reclaimed, std::mem::take(&mut self.store.retiring));
        guard.flush();
        Ok(Some(true))
    }

    /// Arena words free for new storage: past the bump pointer, and reclaimed.
    fn arena_spare(&self) -> usize {
        let guard = epoch::pin();
        let reserved = current(&self.shared, &guard).arena.len();
        reserved - self.store.arena_top as usize + self.store.arena_free()
    }

    /// Publishes a copy of the structure whose arena and chunk ids have twice the room in
    /// use (at least as much again as reserved now). Readers of the current structure keep
    /// reading its arrays, which are freed after their grace period.
    fn grow_arrays(&mut self) {
        let guard = epoch::pin();
        let old = current(&self.shared, &guard);
        let pmt::Pmt::Columns(cols) = &old.pmt else { return };
        let stride = self.shape.chunk_stride() as usize;
        let arena = old.arena.len() + self.store.arena_used().max(1 << 14);
        let groups = old.chunk_groups.len() + (self.store.chunks_used() * stride).max(256);
        let core = Core {
            shape: old.shape.clone(),
            vrfs: old.vrfs,
            root: copied(&old.root, old.root.len()),
            chunk_groups: copied(&old.chunk_groups, groups),
            arena: copied(&old.arena, arena),
            pmt: pmt::Pmt::Columns(cols.share()),
        };
        drop(guard);
        self.swap_core(core);
    }

    /// The structure after `reshape`, built by one walk over the current one.
    fn reshaped(&self, reshape: Reshape<'_, A>) -> Result<(Core, Store), BuildError> {
        let guard = epoch::pin();
        let old = current(&self.shared, &guard);
        let width = reshape.width;
        let edit = match (&old.pmt, reshape.add, reshape.clear) {
            (pmt::Pmt::Columns(c), Some((slot, _)), _) => {
                Some(pmt::columns::ColumnEdit::add(c, &self.store.pmt, slot))
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
            None => PmtSource::Rows(vec![true; width]), // packed rows: no per-slot storage
        };
        Ok(assemble(&root, sink, source, &self.shape, &self.cfg))
    }

    /// Applies a change of `prefix` (an announcement: `Some((vrf, leaf, hop))`) to the structure.
    fn refresh(
        &mut self,
        prefix: &Prefix<A>,
        announce: Option<(VrfId, bool, u32)>,
    ) -> Result<(), BuildError> {
        self.store.collect();
        let guard = epoch::pin();
        let core = current(&self.shared, &guard);
        // Tables past the PortMapTable width are removed ones (`None`).
        let ribs = &self.ribs[..core.vrfs as usize];
        let em = Emitter { ribs, shape: &self.shape, sparse_limit: self.cfg.sparse_limit };
        let result = match announce {
            Some((vrf, leaf, hop)) => {
                update::announce_leaf(core, &mut self.store, (vrf, leaf), prefix, hop)
            }
            None => Ok(false),
        };
        let result = match result {
            Ok(false) => update::refresh(&em, core, &mut self.store, prefix, announce.is_some()),
            other => other.map(|_| ()),
        };
        hand_back(&guard, &self.store.reclaimed, std::mem::take(&mut self.store.retiring));
        if result.is_ok() && sweep::due(core, &self.store) {
            sweep::sweep(core, &mut self.store);
            hand_back(
                &guard,
                &self.store.pmt.freed,
                std::mem::take(&mut self.store.pmt.merged_away),
            );
        }
        guard.flush();
        match result {
            Err(BuildError::LimitExceeded { what, .. }) if what.starts_with("reserved") => {
                self.rebuild()
            }
            other => other,
        }
    }

    /// Builds a fresh structure from the RIBs and publishes it.
    fn rebuild(&mut self) -> Result<(), BuildError> {
        let (core, store) = build_core(&self.ribs, &self.shape, &self.cfg)?;
        self.publish(core, store);
        Ok(())
    }

    /// Swaps in a new structure; the old one is freed after the readers' grace period.
    /// Storage the new structure no longer names (PortMapTable entries merged away by a table
    /// deletion) is handed to its allocator after the same grace period.
    fn publish(&mut self, core: Core, store: Store) {
        let modified = self.store.modified_pointers;
        self.store = store;
        self.store.modified_pointers = modified;
        self.swap_core(core);
    }

    /// Swaps in `core` over the current store; the old core, the storage the store retires
    /// and PortMapTable entries merged away are released after the readers' grace period.
    fn swap_core(&mut self, core: Core) {
        let retiring = std::mem::take(&mut self.store.retiring);
        let merged_away = std::mem::take(&mut self.store.pmt.merged_away);
        let guard = epoch::pin();
        let old = self.shared.core.swap(Owned::new(core), Ordering::AcqRel, &guard);
        // SAFETY: `old` was just unlinked; readers that still see it are pinned, and deferred
        // destruction waits for them.
        unsafe { guard.defer_destroy(old) };
        if !retiring.is_empty() {
            hand_back(&guard, &self.store.reclaimed, retiring);
        }
        if !merged_away.is_empty() {
            hand_back(&guard, &self.store.pmt.freed, merged_away);
        }
        guard.flush();
    }

    /// Storage counters.
    pub fn stats(&self) -> LoopStats {
        let guard = epoch::pin();
        let core = current(&self.shared, &guard);
        LoopStats {
            vrfs: core.vrfs as usize,
            chunks: self.store.chunks_used(),
            arena_words: self.store.arena_used(),
            pmt_entries: self.store.pmt.in_use() as usize,
            pmt_bytes: core.pmt.used_bytes(self.store.pmt.in_use(), self.store.pmt_words),
            modified_pointers: self.store.modified_pointers,
        }
    }
}

impl<A: Address> MultiLookup<A> for Loop<A> {
    fn vrfs(&self) -> usize {
        self.ribs.len()
    }
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        current(&self.shared, &epoch::pin()).lookup(vrf, addr)
    }
    fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        self.reader().lookup_batch(keys, out)
    }
    /// Bytes in use: root, group pointers of live chunks, arena words, PortMapTable.
    fn memory_bytes(&self) -> usize {
        let guard = epoch::pin();
        let core = current(&self.shared, &guard);
        let pmt = core.pmt.used_bytes(self.store.pmt.in_use(), self.store.pmt_words);
        core.memory_bytes(self.store.arena_used(), pmt, self.store.chunks_used())
    }
}

impl<A: Address> LoopReader<A> {
    /// Runs `f` with the structure pinned: lookups inside pay no per-call pinning cost.
    pub fn with<R>(&self, f: impl FnOnce(&LoopView<'_, A>) -> R) -> R {
        let guard = epoch::pin();
        let view = LoopView { core: current(&self.shared, &guard), _family: PhantomData };
        f(&view)
    }
}

/// The structure as seen while pinned.
pub struct LoopView<'g, A: Address> {
    core: &'g Core,
    _family: PhantomData<fn() -> A>,
}

impl<A: Address> LoopView<'_, A> {
    /// The next hop of table `vrf` for `addr`.
    #[inline]
    pub fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.core.lookup(vrf, addr)
    }
}

/// The pinned view as a multi-table lookup (benchmarks: one pin for many lookups).
impl<A: Address> MultiLookup<A> for LoopView<'_, A> {
    fn vrfs(&self) -> usize {
        self.core.vrfs as usize
    }
    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.core.lookup(vrf, addr)
    }
    /// Interleaved: keys walked in step, with prefetches (see `batch.rs`).
    fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        self.core.lookup_batch(keys, out)
    }
    /// Bytes allocated, including the capacity reserved for updates.
    fn memory_bytes(&self) -> usize {
        let c = self.core;
        4 * (c.root.len() + c.chunk_groups.len() + c.arena.len()) + c.pmt.allocated_bytes()
    }
}

impl<A: Address> MultiLookup<A> for LoopReader<A> {
    fn vrfs(&self) -> usize {
        self.with(|v| v.core.vrfs as usize)
    }
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.with(|v| v.lookup(vrf, addr))
    }
    fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        self.with(|v| v.core.lookup_batch(keys, out))
    }
    /// Bytes allocated, including the capacity reserved for updates.
    fn memory_bytes(&self) -> usize {
        self.with(|v| {
            let c = v.core;
            4 * (c.root.len() + c.chunk_groups.len() + c.arena.len()) + c.pmt.allocated_bytes()
        })
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_tables;
