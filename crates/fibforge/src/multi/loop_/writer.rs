//! The writer of a LOOP multi-table ([`Loop`]): owns the RIBs, applies route changes
//! (`update.rs`) and publishes each new structure; table insertion and deletion are in
//! `tables.rs`, the readers' side in `reader.rs`.
//!
//! Publication is the library's one protocol ([`crate::sync`]: QSBR): the current structure
//! is an `Arc<Core>` behind a [`Published`] pointer that readers load; a replaced structure
//! is dropped, and storage an update unlinks is handed back to the allocator
//! ([`HandBacks`]), only after the grace period of its [`Grace`] ticket.
//!
//! # Invariants
//!
//! - `core` is the structure `published` holds: the writer reads through it without any
//!   synchronisation (only `&mut self` replaces it).
//! - Every store that unlinks storage happens before the ticket that storage waits for:
//!   [`Grace::retire`] is called after the update's pointer stores, or after the swap.

use super::assemble::build_core;
use super::build::Emitter;
use super::grace::HandBacks;
use super::layout::{Core, Shape};
use super::update::{self, Store};
use super::{Config, LoopReader, LoopStats, LoopView, sweep};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::multi::{MultiLookup, VrfId};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::qsbr::{Grace, Published};
use crate::rib::Rib;
use std::sync::Arc;

/// The writer of a LOOP multi-table: owns the RIBs and applies changes.
pub struct Loop<A: Address> {
    /// What readers load (shared with every [`LoopReader`]).
    pub(super) published: Arc<Published<Core>>,
    /// The structure `published` holds, for the writer's own reads.
    pub(super) core: Arc<Core>,
    /// Storage waiting for its grace period before the allocator may reuse it.
    pub(super) hand_backs: HandBacks,
    pub(super) ribs: Vec<Option<Rib<A>>>,
    pub(super) store: Store,
    pub(super) cfg: Config,
    pub(super) shape: Shape,
}

impl<A: Address> Loop<A> {
    /// Merges `tables` (VRF id = position) into one structure.
    pub fn build(tables: Vec<Rib<A>>, cfg: &Config) -> Result<Self, BuildError> {
        let shape = cfg.shape::<A>()?;
        let ribs: Vec<Option<Rib<A>>> = tables.into_iter().map(Some).collect();
        let (core, store) = build_core(&ribs, &shape, cfg)?;
        let core = Arc::new(core);
        let grace = Grace::new();
        let published = Arc::new(Published::new(core.clone(), grace.clone()));
        let hand_backs = HandBacks::new(grace);
        Ok(Loop { published, core, hand_backs, ribs, store, cfg: cfg.clone(), shape })
    }

    /// A lookup handle for another thread (registered with the readers' grace-period domain,
    /// offline); see [`LoopReader`].
    pub fn reader(&self) -> LoopReader<A> {
        LoopReader::new(self.published.clone())
    }

    /// The current structure, for lookups on the writer's thread (no synchronisation: it
    /// cannot change while borrowed).
    #[doc(hidden)]
    pub fn view(&self) -> LoopView<'_, A> {
        LoopView::new(&self.core)
    }

    /// The readers' grace-period domain (registered readers, tickets).
    #[doc(hidden)]
    pub fn grace(&self) -> &Grace {
        self.hand_backs.grace()
    }

    /// The RIB of table `vrf`, if it exists.
    pub fn rib(&self, vrf: VrfId) -> Option<&Rib<A>> {
        self.ribs.get(vrf as usize)?.as_ref()
    }

    pub(super) fn rib_mut(&mut self, vrf: VrfId) -> Result<&mut Rib<A>, BuildError> {
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
        self.rib_mut(vrf)?;
        self.admit_port(vrf, hop.raw()); // before any cell holds its code
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

    /// Moves what has passed its grace period back into use: hand-backs into the allocator's
    /// free lists, replaced structures dropped.
    pub(super) fn collect(&mut self) {
        self.hand_backs.run();
        self.published.reclaim();
        self.store.collect();
    }

    /// Applies a change of `prefix` (an announcement: `Some((vrf, leaf, hop))`) to the structure.
    fn refresh(
        &mut self,
        prefix: &Prefix<A>,
        announce: Option<(VrfId, bool, u32)>,
    ) -> Result<(), BuildError> {
        self.collect();
        let core = &*self.core;
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
        if result.is_ok() && sweep::due(core, &self.store) {
            sweep::sweep(core, &mut self.store);
        }
        self.retire_unlinked();
        match result {
            Err(BuildError::LimitExceeded { what, .. }) if what.starts_with("reserved") => {
                self.rebuild()
            }
            other => other,
        }
    }

    /// After the stores that unlinked them: hands the storage the store retired and the
    /// PortMapTable entries merged away back to the allocator after their grace period.
    fn retire_unlinked(&mut self) {
        let retiring = std::mem::take(&mut self.store.retiring);
        let merged_away = std::mem::take(&mut self.store.pmt.merged_away);
        if retiring.is_empty() && merged_away.is_empty() {
            return;
        }
        let ticket = self.hand_backs.grace().retire();
        self.hand_backs.hand_back(ticket, &self.store.reclaimed, retiring);
        self.hand_backs.hand_back(ticket, &self.store.pmt.freed, merged_away);
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
    pub(super) fn publish(&mut self, core: Core, store: Store) {
        let modified = self.store.modified_pointers;
        self.store = store;
        self.store.modified_pointers = modified;
        self.swap_core(core);
    }

    /// Swaps in `core` over the current store; the old core, the storage the store retires
    /// and PortMapTable entries merged away are released after the readers' grace period.
    pub(super) fn swap_core(&mut self, core: Core) {
        self.core = Arc::new(core);
        self.published.publish(&self.core);
        self.retire_unlinked();
        self.published.reclaim();
    }

    /// Storage counters.
    #[doc(hidden)]
    pub fn stats(&self) -> LoopStats {
        let core = &self.core;
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
        self.core.lookup(vrf, addr)
    }
    fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        self.core.lookup_batch(keys, out)
    }
    /// Bytes in use: root, group pointers of live chunks, arena words, PortMapTable.
    fn memory_bytes(&self) -> usize {
        let core = &self.core;
        let pmt = core.pmt.used_bytes(self.store.pmt.in_use(), self.store.pmt_words);
        core.memory_bytes(self.store.arena_used(), pmt, self.store.chunks_used())
    }
}
