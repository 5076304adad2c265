//! One address family of an [`IpTable`](super::IpTable): a live concurrent table (its RIB and
//! compiled structure), or the read-only Poptrie of a snapshot mapped from its file
//! (`snapshot/`), whose routes become a RIB only when something asks for them.
//!
//! A mapped family answers lookups from the mapping at once; [`Family::rib`] reads the
//! snapshot's route list into a RIB on first use (iteration, exact `get`, covering), and
//! [`Family::live`] compiles it into a live table before the first change.

use super::routes::{List, Routes};
use crate::algo::poptrie;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::rib::Rib;
use crate::sync::{AnyKey, AnyTable, Structure};
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

    /// The live table, compiled on `structure` from the snapshot's routes first if the family
    /// is mapped (the change that follows then goes to memory of its own).
    pub(super) fn live(&mut self, structure: &Structure) -> Result<&mut AnyTable<A>, BuildError> {
        if let Family::Mapped(m) = self {
            let rib = m.rib.take().unwrap_or_else(|| A::rib_of(&m.routes));
            *self = Family::Live(AnyTable::new(rib, structure)?);
        }
        match self {
            Family::Live(t) => Ok(t),
            Family::Mapped(_) => unreachable!("made live above"),
        }
    }
}
