//! A [`Table`] whose structure is chosen at run time, for the C and Python bindings, which
//! cannot name a type parameter: [`Structure`] (a structure and its configuration; the
//! registry parses names into it), [`AnyTable`] and [`AnyReader`] (one enum variant per
//! structure).
//!
//! Each call matches the variant once and then runs the structure's own code, monomorphised:
//! a single lookup pays one predictable branch on a tag that never changes, not a virtual
//! call per step of the walk.

use super::{Grace, Reader, Table};
use crate::algo::{bplus, poptrie};
use crate::fib::{BuildError, Lookup};
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// An address family both updatable structures support (IPv4 and IPv6).
#[doc(hidden)]
pub trait AnyKey: poptrie::Key + bplus::Key {}
impl<A: poptrie::Key + bplus::Key> AnyKey for A {}

/// A table structure and its configuration (by name: `Structure::parse`; its name:
/// `Structure::name`; both defined by the registry, a layer above).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Structure {
    /// Poptrie (`poptrie`, `poptrie:s=16`, `poptrie18`, ...; see the registry).
    Poptrie(poptrie::Config),
    /// The interval B+-tree (`bplus`, `bplus:dir=off,delta=1024`, ...).
    BPlus(bplus::Config),
}

impl Structure {
    /// Poptrie with the recommended configuration for family `A`.
    pub fn default_for<A: AnyKey>() -> Structure {
        Structure::Poptrie(poptrie::Config::for_family::<A>())
    }
}

/// A [`Table`] of either structure.
// Unboxed: a table is one long-lived object (the bindings box the handle anyway), and a
// box would add a dependent load to the writer's lookups.
#[allow(clippy::large_enum_variant)]
pub enum AnyTable<A: AnyKey> {
    /// Poptrie.
    Poptrie(Table<A>),
    /// The interval B+-tree.
    BPlus(Table<A, bplus::BPlus<A>>),
}

/// A [`Reader`] of an [`AnyTable`].
pub enum AnyReader<A: AnyKey> {
    /// Of a Poptrie table.
    Poptrie(Reader<A, poptrie::Fib<A>>),
    /// Of an interval B+-tree table.
    BPlus(Reader<A, bplus::Fib<A>>),
}

/// Runs `$body` with `$t` bound to the table or reader inside `$x`, whatever its variant.
macro_rules! each {
    ($x:expr, $t:ident => $body:expr) => {
        match $x {
            Self::Poptrie($t) => $body,
            Self::BPlus($t) => $body,
        }
    };
}

impl<A: AnyKey> AnyTable<A> {
    /// Compiles `rib` into a table of `structure`.
    pub fn new(rib: Rib<A>, structure: &Structure) -> Result<Self, BuildError> {
        Ok(match structure {
            Structure::Poptrie(cfg) => AnyTable::Poptrie(Table::with_config(rib, cfg)?),
            Structure::BPlus(cfg) => AnyTable::BPlus(Table::with_config(rib, cfg)?),
        })
    }

    /// A new reader (registered, offline); see [`Table::reader`].
    pub fn reader(&self) -> AnyReader<A> {
        match self {
            AnyTable::Poptrie(t) => AnyReader::Poptrie(t.reader()),
            AnyTable::BPlus(t) => AnyReader::BPlus(t.reader()),
        }
    }

    /// The readers' grace-period domain.
    #[doc(hidden)]
    pub fn grace(&self) -> &Grace {
        each!(self, t => t.grace())
    }

    /// The routes.
    pub fn rib(&self) -> &Rib<A> {
        each!(self, t => t.rib())
    }

    /// A lookup from the writer's thread.
    #[inline(always)]
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        each!(self, t => t.lookup(addr))
    }

    /// A batch of lookups from the writer's thread.
    pub fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        each!(self, t => t.fib().lookup_batch(addrs, out))
    }

    /// Bytes of the lookup structure.
    pub fn memory_bytes(&self) -> usize {
        each!(self, t => t.fib().memory_bytes())
    }

    /// Retired memory not yet freed; see [`Table::pending_reclaim`] (hidden: the bindings
    /// reach it here, the documented API is the table's).
    #[doc(hidden)]
    pub fn pending_reclaim(&self) -> super::PendingReclaim {
        each!(self, t => t.pending_reclaim())
    }

    /// Inserts or replaces a route; see [`Table::insert`].
    pub fn insert(
        &mut self,
        prefix: Prefix<A>,
        hop: NextHop,
    ) -> Result<Option<NextHop>, BuildError> {
        each!(self, t => t.insert(prefix, hop))
    }

    /// Withdraws a route; see [`Table::remove`].
    pub fn remove(&mut self, prefix: &Prefix<A>) -> Result<Option<NextHop>, BuildError> {
        each!(self, t => t.remove(prefix))
    }
}

impl<A: AnyKey> Clone for AnyReader<A> {
    /// Another reader of the same table, registered separately and offline.
    fn clone(&self) -> Self {
        match self {
            AnyReader::Poptrie(r) => AnyReader::Poptrie(r.clone()),
            AnyReader::BPlus(r) => AnyReader::BPlus(r.clone()),
        }
    }
}

impl<A: AnyKey> AnyReader<A> {
    /// One lookup; see [`Reader::lookup`].
    #[inline(always)]
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        each!(self, r => r.lookup(addr))
    }

    /// A batch of lookups; see [`Reader::lookup_batch`].
    pub fn lookup_batch(&self, addrs: &[A], out: &mut [Option<NextHop>]) {
        each!(self, r => r.lookup_batch(addrs, out))
    }

    /// Goes online; see [`Reader::online`].
    #[inline]
    pub fn online(&mut self) {
        each!(self, r => r.online())
    }

    /// Goes offline; see [`Reader::offline`].
    #[inline]
    pub fn offline(&mut self) {
        each!(self, r => r.offline())
    }

    /// Reports a quiescent state; see [`Reader::quiescent`].
    #[inline]
    pub fn quiescent(&mut self) {
        each!(self, r => r.quiescent())
    }

    /// True while online.
    #[doc(hidden)]
    pub fn is_online(&self) -> bool {
        each!(self, r => r.is_online())
    }
}
