//! SAIL_M with concurrent readers: [`SailMShared`] (the writer) and [`SailMReader`] (one per
//! reader thread), on the library's one publication protocol (QSBR, [`crate::sync`], as
//! LOOP's `Loop` / `LoopReader`).
//!
//! SAIL_M's update rewrites words in place (`update.rs`), and a reader walking a word the
//! writer is rewriting (or a chunk or composite id being reused) could read a mix of two
//! states. So, as [`LeftRight`](crate::sync::LeftRight) does for single tables, the writer
//! keeps two [`SailMWriter`]s: readers walk the published one while the writer brings the
//! other up to date in place, then publishes it ([`Published`]: one pointer swap) and the
//! replaced one waits for its grace period before it is written again.
//!
//! # Invariants
//!
//! - `current` is the copy `published` holds; `spare` is behind it by exactly the routes in
//!   `behind` (the last update's), or is stale (`stale`: a failed update left it
//!   half-written).
//! - The spare is written only through [`Arc::get_mut`], i.e. when nothing else (no retired
//!   view, so no reader) holds it. Before an update the writer waits at most
//!   [`SETTLE_WAIT`](crate::sync::SETTLE_WAIT) for the readers' grace period; past it (a
//!   silent reader) or when stale the spare is rebuilt from `current`'s RIBs (update path
//!   `"rebuild"`): slower, never wrong, never blocking for good.
//! - Every answer a reader sees comes from one published copy: the state before or after one
//!   route change, never a mix.
//!
//! Cost: two copies of the structure and of the RIBs, and each update is applied twice (once
//! to each copy).

use super::{SailMStats, SailMWriter};
use crate::addr::Address;
use crate::algo::sail;
use crate::fib::BuildError;
use crate::multi::{MultiLookup, VrfId};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::qsbr::{Grace, Published, SETTLE_WAIT, Session};
use crate::rib::Rib;
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::Arc;

/// The writer of a SAIL_M multi-table with concurrent readers (see the module docs).
pub struct SailMShared<A: Address> {
    published: Arc<Published<SailMWriter<A>>>,
    current: Arc<SailMWriter<A>>,
    spare: Arc<SailMWriter<A>>,
    /// Route changes (table, prefix) `current` has and `spare` lacks.
    behind: Vec<(VrfId, Prefix<A>)>,
    /// The spare was left half-written by a failed update: rebuild it before use.
    stale: bool,
    cfg: sail::Config,
    last_path: &'static str,
}

impl<A: Address> SailMShared<A> {
    /// Merges `tables` (VRF id = position) into one structure (two copies).
    pub fn build(tables: Vec<Rib<A>>, cfg: &sail::Config) -> Result<Self, BuildError> {
        let current = Arc::new(SailMWriter::build(tables, cfg)?);
        let spare = Arc::new((*current).clone());
        let published = Arc::new(Published::new(current.clone(), Grace::new()));
        Ok(SailMShared {
            published,
            current,
            spare,
            behind: Vec::new(),
            stale: false,
            cfg: *cfg,
            last_path: "build",
        })
    }

    /// A lookup handle for another thread (registered, offline); see [`SailMReader`].
    pub fn reader(&self) -> SailMReader<A> {
        SailMReader { session: Session::new(self.published.clone()), _marker: PhantomData }
    }

    /// The readers' grace-period domain (registered readers, tickets).
    #[doc(hidden)]
    pub fn grace(&self) -> &Grace {
        self.published.grace()
    }

    /// Replaced copies not yet released by the readers.
    #[doc(hidden)]
    pub fn pending_views(&self) -> usize {
        self.published.pending()
    }

    /// The published copy (the writer's own lookups and statistics).
    #[doc(hidden)]
    pub fn current(&self) -> &SailMWriter<A> {
        &self.current
    }

    /// The RIB of table `vrf`, if it exists.
    pub fn rib(&self, vrf: VrfId) -> Option<&Rib<A>> {
        self.current.rib(vrf)
    }

    /// How the last update reached the spare: `"in place"`, `"rebuild"` (the spare was still
    /// held by a reader past the wait, or outgrew 16-bit words) or `"unchanged"`.
    #[doc(hidden)]
    pub fn last_update_path(&self) -> &'static str {
        self.last_path
    }

    /// Storage counters of the published copy.
    pub fn stats(&self) -> SailMStats {
        self.current.stats()
    }

    /// Inserts or replaces a route of table `vrf`; returns the previous next hop. Offline
    /// readers see the change once this returns, online ones from their next report.
    pub fn insert(
        &mut self,
        vrf: VrfId,
        prefix: Prefix<A>,
        hop: NextHop,
    ) -> Result<Option<NextHop>, BuildError> {
        self.change(vrf, prefix, Some(hop))
    }

    /// Withdraws a route of table `vrf`; returns its next hop if it was present.
    pub fn remove(
        &mut self,
        vrf: VrfId,
        prefix: &Prefix<A>,
    ) -> Result<Option<NextHop>, BuildError> {
        self.change(vrf, *prefix, None)
    }

    fn change(
        &mut self,
        vrf: VrfId,
        prefix: Prefix<A>,
        hop: Option<NextHop>,
    ) -> Result<Option<NextHop>, BuildError> {
        let v = self.current.check(vrf, &prefix)?;
        let old = self.current.ribs[v].get(&prefix);
        if old == hop {
            self.last_path = "unchanged";
            return Ok(old);
        }
        let (spare, path) = self.spare_mut()?;
        let result = set(spare, vrf, prefix, hop);
        let path = if spare.last_update_path() == "rebuild" { "rebuild" } else { path };
        if let Err(e) = result {
            self.stale = true;
            return Err(e);
        }
        std::mem::swap(&mut self.current, &mut self.spare);
        self.published.publish(&self.current);
        self.published.reclaim();
        self.behind = vec![(vrf, prefix)];
        self.last_path = path;
        Ok(old)
    }

    /// The spare, caught up with `current` and writable: waits for the readers to release it
    /// (at most [`SETTLE_WAIT`]), else rebuilds it. The path it took.
    fn spare_mut(&mut self) -> Result<(&mut SailMWriter<A>, &'static str), BuildError> {
        let start = std::time::Instant::now();
        while self.published.reclaim() > 0 && start.elapsed() < SETTLE_WAIT {
            std::thread::yield_now();
        }
        if self.stale || Arc::get_mut(&mut self.spare).is_none() {
            let ribs = self.current.ribs.clone();
            self.spare = Arc::new(SailMWriter::build(ribs, &self.cfg)?);
            self.stale = false;
            self.behind.clear();
            let spare = Arc::get_mut(&mut self.spare).expect("just made");
            return Ok((spare, "rebuild"));
        }
        let spare = Arc::get_mut(&mut self.spare).expect("checked above");
        for (v, p) in std::mem::take(&mut self.behind) {
            let hop = self.current.ribs[v as usize].get(&p);
            if let Err(e) = set(spare, v, p, hop) {
                self.stale = true;
                return Err(e);
            }
        }
        Ok((spare, "in place"))
    }
}

/// Sets route `prefix` of table `vrf` of `w` to `hop` (`None`: withdrawn).
fn set<A: Address>(
    w: &mut SailMWriter<A>,
    vrf: VrfId,
    prefix: Prefix<A>,
    hop: Option<NextHop>,
) -> Result<Option<NextHop>, BuildError> {
    match hop {
        Some(h) => w.insert(vrf, prefix, h),
        None => w.remove(vrf, &prefix),
    }
}

/// Lookups from the writer's thread, in the published copy.
impl<A: Address> MultiLookup<A> for SailMShared<A> {
    fn vrfs(&self) -> usize {
        self.current.vrfs()
    }
    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.current.lookup(vrf, addr)
    }
    fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        self.current.lookup_batch(keys, out)
    }
    /// Both copies' lookup arrays: the memory the concurrent structure really holds.
    fn memory_bytes(&self) -> usize {
        self.current.memory_bytes() + self.spare.memory_bytes()
    }
}

/// Ties a reader to its address family and makes it `Send` but not `Sync`.
type Marker<A> = PhantomData<(fn(A) -> A, Cell<()>)>;

/// A lookup handle of [`SailMShared`] for one thread (QSBR, as LOOP's `LoopReader`), created
/// offline; `Send`, not `Sync`. Offline, each call goes online for its own duration; online
/// ([`online`](Self::online)), lookups do no synchronisation and the replaced copies wait
/// until this reader reports [`quiescent`](Self::quiescent), goes offline or is dropped.
pub struct SailMReader<A: Address> {
    session: Session<SailMWriter<A>>,
    /// `Send` but not `Sync`: the slot belongs to one thread at a time.
    _marker: Marker<A>,
}

impl<A: Address> Clone for SailMReader<A> {
    fn clone(&self) -> Self {
        SailMReader { session: self.session.another(), _marker: PhantomData }
    }
}

impl<A: Address> SailMReader<A> {
    /// Goes online (QSBR mode): see the type docs.
    #[inline]
    pub fn online(&mut self) {
        self.session.online()
    }

    /// Goes offline: the writer stops waiting for this reader.
    #[inline]
    pub fn offline(&mut self) {
        self.session.offline()
    }

    /// Reports a quiescent state (no reference into the structure is held).
    #[inline]
    pub fn quiescent(&mut self) {
        self.session.quiescent()
    }

    /// Runs `f` on the published copy (online for `f`'s duration when offline).
    #[inline]
    #[doc(hidden)]
    pub fn with<R>(&self, f: impl FnOnce(&SailMWriter<A>) -> R) -> R {
        self.session.with(f)
    }

    /// The next hop of table `vrf` for `addr`.
    #[inline]
    pub fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.with(|m| m.lookup(vrf, addr))
    }

    /// Looks up `keys` into `out`.
    pub fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        self.with(|m| m.lookup_batch(keys, out))
    }
}
