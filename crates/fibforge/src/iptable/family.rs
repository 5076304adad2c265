//! One address family of an [`IpTable`](super::IpTable): a live concurrent table (its RIB and
//! compiled structure), or the read-only Poptrie of a snapshot mapped from its file
//! (`snapshot/`), whose routes become a RIB only when something asks for them.
//!
//! A mapped family answers lookups from the mapping at once; [`Family::rib`] reads the
//! snapshot's route list into a RIB on first use (iteration, exact `get`, covering), and
//! [`Family::live`] compiles it into a live table before the first change. Readers on other
//! threads need a live table to follow changes: the first [`Family::reader`] compiles it
//! (through `&self`, kept aside while the table's own lookups stay on the mapping, which
//! answers the same), and the first change makes that one the family's.

use super::routes::{List, Routes};
use crate::algo::poptrie;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::rib::Rib;
use crate::sync::{AnyKey, AnyReader, AnyTable, Grace, Structure};
use std::sync::OnceLock;

/// A family's lookup structure and routes (see the module docs).
// Unboxed: one per table, and lookups must not chase a box.
#[allow(clippy::large_enum_variant)]
#[cfg_attr(not(feature = "serde"), allow(dead_code))] // only snapshots (`serde`) map
pub(super) enum Family<A: AnyKey + Routes> {
    Live(AnyTable<A>),
    Mapped(Mapped<A>),
}

/// A family opened from a snapshot.
pub(super) struct Mapped<A: AnyKey + Routes> {
    /// The structure, walked in the mapping.
    pub(super) fib: poptrie::Fib<A>,
    /// The snapshot's routes (prefix and next hop), in prefix order.
    pub(super) routes: List,
    /// Those routes as a RIB, read on first use.
    pub(super) rib: OnceLock<Rib<A>>,
    /// The live table compiled for readers (the first [`Family::reader`]).
    pub(super) live: OnceLock<AnyTable<A>>,
    /// The grace domain of a family without readers (no reader registered: every grace
    /// period has passed at once).
    pub(super) idle: Grace,
}

impl<A: AnyKey + Routes> Mapped<A> {
    /// A mapped family of structure `fib` and route list `routes`.
    pub(super) fn new(fib: poptrie::Fib<A>, routes: List) -> Self {
        Mapped { fib, routes, rib: OnceLock::new(), live: OnceLock::new(), idle: Grace::new() }
    }

    /// The routes compiled on `structure`.
    fn compile(&self, structure: &Structure) -> Result<AnyTable<A>, BuildError> {
        let rib = self.rib.get().cloned().unwrap_or_else(|| A::rib_of(&self.routes));
        AnyTable::new(rib, structure)
    }
}

impl<A: AnyKey + Routes> Family<A> {
    /// The structure's answer for `addr`.
    #[inline(always)]
    pub(super) fn lookup(&self, addr: A) -> Option<NextHop> {
        match self {
            Family::Live(t) => t.lookup(addr),
            Family::Mapped(m) => m.fib.lookup(addr),
        }
    }

    /// The structure's answers for `addrs`.
    pub(super) fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        match self {
            Family::Live(t) => t.lookup_batch(addrs, out),
            Family::Mapped(m) => m.fib.lookup_batch(addrs, out),
        }
    }

    /// The routes (a mapped family reads its snapshot's list into a RIB on first use).
    pub(super) fn rib(&self) -> &Rib<A> {
        match self {
            Family::Live(t) => t.rib(),
            Family::Mapped(m) => m.rib.get_or_init(|| A::rib_of(&m.routes)),
        }
    }

    /// The number of routes.
    pub(super) fn len(&self) -> usize {
        match self {
            Family::Live(t) => t.rib().len(),
            Family::Mapped(m) => A::count(&m.routes),
        }
    }

    /// Bytes of the lookup structure (a mapped one's lie in the file's pages, shared).
    pub(super) fn memory_bytes(&self) -> usize {
        match self {
            Family::Live(t) => t.memory_bytes(),
            Family::Mapped(m) => m.fib.memory_bytes(),
        }
    }

    /// True when the structure lies in a mapped snapshot.
    pub(super) fn is_mapped(&self) -> bool {
        matches!(self, Family::Mapped(_))
    }

    /// The grace domain the family's readers are registered with.
    pub(super) fn grace(&self) -> &Grace {
        match self {
            Family::Live(t) => t.grace(),
            Family::Mapped(m) => m.live.get().map_or(&m.idle, AnyTable::grace),
        }
    }

    /// A reader of the family's live table (a mapped family compiles it on `structure` first,
    /// once; see the module docs).
    ///
    /// # Panics
    /// When the snapshot's routes do not compile on `structure` (a structural limit that the
    /// snapshot's own Poptrie, holding the same routes, did not meet).
    pub(super) fn reader(&self, structure: &Structure) -> AnyReader<A> {
        match self {
            Family::Live(t) => t.reader(),
            Family::Mapped(m) => m
                .live
                .get_or_init(|| {
                    m.compile(structure).unwrap_or_else(|e| panic!("IpTable::reader: {e}"))
                })
                .reader(),
        }
    }

    /// The live table, compiled on `structure` from the snapshot's routes first if the family
    /// is mapped (the change that follows then goes to memory of its own); the one readers
    /// already follow, if any.
    pub(super) fn live(&mut self, structure: &Structure) -> Result<&mut AnyTable<A>, BuildError> {
        if let Family::Mapped(m) = self {
            let live = match m.live.take() {
                Some(live) => live,
                None => m.compile(structure)?,
            };
            *self = Family::Live(live);
        }
        match self {
            Family::Live(t) => Ok(t),
            Family::Mapped(_) => unreachable!("made live above"),
        }
    }
}
