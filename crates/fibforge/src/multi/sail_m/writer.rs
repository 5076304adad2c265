//! [`SailMWriter`]: SAIL_M with its tables' RIBs, following route changes in place
//! (`update.rs`), with the update calls LOOP's writer offers (`insert`, `remove` per VRF).

use super::update::Book;
use super::{NAME, SailM, SailMStats, Tables};
use crate::addr::Address;
use crate::algo::sail;
use crate::algo::sail::entry::Overflow;
use crate::algo::sail::{Width, max_len};
use crate::fib::BuildError;
use crate::multi::{MultiLookup, VrfId};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// SAIL_M over tables it owns, updated one route at a time.
///
/// Each `insert` or `remove` changes one table's RIB, then rewrites only the words of the
/// slots the route covers (see the [module docs](super)). Lookups need `&self`, updates
/// `&mut self`; for readers on other threads use [`SailMShared`](super::SailMShared).
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct SailMWriter<A: Address> {
    m: SailM<A>,
    book: Book,
    pub(super) ribs: Vec<Rib<A>>,
    last_path: &'static str,
}

impl<A: Address> SailMWriter<A> {
    /// Merges `tables` (VRF id = position) into one structure that follows their updates.
    pub fn build(tables: Vec<Rib<A>>, cfg: &sail::Config) -> Result<Self, BuildError> {
        let m = SailM::build(&tables, cfg)?;
        let book = dispatch_book(&m);
        Ok(SailMWriter { m, book, ribs: tables, last_path: "build" })
    }

    /// The lookup structure.
    pub fn structure(&self) -> &SailM<A> {
        &self.m
    }

    /// The RIB of table `vrf`, if it exists.
    pub fn rib(&self, vrf: VrfId) -> Option<&Rib<A>> {
        self.ribs.get(vrf as usize)
    }

    /// How the last update reached the structure: `"in place"`, `"rebuild"` (a chunk or
    /// composite id outgrew 16-bit words: rebuilt in 32-bit words) or `"unchanged"`.
    pub fn last_update_path(&self) -> &'static str {
        self.last_path
    }

    /// Storage counters (composites: those in use).
    pub fn stats(&self) -> SailMStats {
        SailMStats { composites: self.book.live(), ..self.m.stats() }
    }

    pub(super) fn check(&self, vrf: VrfId, prefix: &Prefix<A>) -> Result<usize, BuildError> {
        let v = vrf as usize;
        if v >= self.ribs.len() {
            let reason = format!("no table with VRF id {vrf} ({} tables)", self.ribs.len());
            return Err(BuildError::Unsupported { algo: NAME, reason });
        }
        if prefix.len() > max_len::<A>() {
            let reason = format!(
                "table {vrf}: prefix {prefix} is longer than /{}: SAIL supports {} prefixes up to /{} only",
                max_len::<A>(),
                A::FAMILY,
                max_len::<A>()
            );
            return Err(BuildError::Unsupported { algo: NAME, reason });
        }
        Ok(v)
    }

    /// Inserts or replaces a route of table `vrf`; returns the previous next hop.
    pub fn insert(
        &mut self,
        vrf: VrfId,
        prefix: Prefix<A>,
        hop: NextHop,
    ) -> Result<Option<NextHop>, BuildError> {
        let v = self.check(vrf, &prefix)?;
        let old = self.ribs[v].insert(prefix, hop);
        if old == Some(hop) {
            self.last_path = "unchanged";
            return Ok(old);
        }
        self.apply(v, &prefix).map(|()| old)
    }

    /// Withdraws a route of table `vrf`; returns its next hop if it was present.
    pub fn remove(
        &mut self,
        vrf: VrfId,
        prefix: &Prefix<A>,
    ) -> Result<Option<NextHop>, BuildError> {
        let v = self.check(vrf, prefix)?;
        let old = self.ribs[v].remove(prefix);
        if old.is_none() {
            self.last_path = "unchanged";
            return Ok(None);
        }
        self.apply(v, prefix).map(|()| old)
    }

    /// Rewrites the slots of `prefix` after table `v` changed there (see [`apply_change`]).
    fn apply(&mut self, v: usize, prefix: &Prefix<A>) -> Result<(), BuildError> {
        self.last_path = apply_change(&mut self.m, &mut self.book, &self.ribs, v, prefix)?;
        Ok(())
    }

    /// Chunks in use per level (level 24 first).
    #[cfg(test)]
    pub(super) fn chunks_in_use(&self) -> Vec<usize> {
        let all = self.m.stats().chunks;
        all.iter().zip(self.book.free_chunks()).map(|(n, f)| n - f).collect()
    }

    /// True when the composite reference counts match the words (tests).
    #[cfg(test)]
    pub(super) fn book_consistent(&self) -> bool {
        match &self.m.tables {
            Tables::Narrow(t) => self.book.consistent(t),
            Tables::Wide(t) => self.book.consistent(t),
        }
    }
}

/// Rewrites the slots of `prefix` in `m` after table `v` changed there in `ribs`; on overflow
/// of the word width, rebuilds `m` (and `book`) in 32-bit words. The update path taken.
pub(super) fn apply_change<A: Address>(
    m: &mut SailM<A>,
    book: &mut Book,
    ribs: &[Rib<A>],
    v: usize,
    prefix: &Prefix<A>,
) -> Result<&'static str, BuildError> {
    let done: Result<(), Overflow> = match &mut m.tables {
        Tables::Narrow(t) => t.apply(book, ribs, v, prefix),
        Tables::Wide(t) => t.apply(book, ribs, v, prefix),
    };
    let Err(overflow) = done else { return Ok("in place") };
    // The words are half-updated: rebuild from the RIBs, wide (or fail as a build does).
    if let Tables::Wide(_) = m.tables {
        return Err(overflow.into_error::<u32>(NAME));
    }
    *m = SailM::build(ribs, &sail::Config { width: Width::Wide })?;
    *book = dispatch_book(m);
    Ok("rebuild")
}

pub(super) fn dispatch_book<A: Address>(m: &SailM<A>) -> Book {
    match &m.tables {
        Tables::Narrow(t) => Book::of(t),
        Tables::Wide(t) => Book::of(t),
    }
}

impl<A: Address> MultiLookup<A> for SailMWriter<A> {
    fn vrfs(&self) -> usize {
        self.m.vrfs()
    }
    #[inline]
    fn lookup(&self, vrf: VrfId, addr: A) -> Option<NextHop> {
        self.m.lookup(vrf, addr)
    }
    fn lookup_batch(&self, keys: &[(VrfId, A)], out: &mut [Option<NextHop>]) {
        self.m.lookup_batch(keys, out)
    }
    /// The lookup structure's arrays (not the RIBs nor the update bookkeeping).
    fn memory_bytes(&self) -> usize {
        self.m.memory_bytes()
    }
}
