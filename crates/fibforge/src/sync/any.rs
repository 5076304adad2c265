//! A [`Table`] whose structure is chosen at run time, for the C and Python bindings, which
//! cannot name a type parameter: [`Structure`] (a name such as `"bplus:dir=off"`, parsed),
//! [`AnyTable`] and [`AnyReader`] (one enum variant per structure).
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
use crate::spec::AlgoSpec;
use std::fmt;

/// An address family both updatable structures support (IPv4 and IPv6).
pub trait AnyKey: poptrie::Key + bplus::Key {}
impl<A: poptrie::Key + bplus::Key> AnyKey for A {}

/// The structures [`Structure::parse`] accepts, for messages.
pub const STRUCTURES: &str =
    "poptrie (the default) or bplus, optionally with options as in \"bplus:dir=off\"";

/// A table structure and its configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Structure {
    /// Poptrie (`poptrie`, `poptrie:s=16`, `poptrie18`, ...; see the registry).
    Poptrie(poptrie::Config),
    /// The interval B+-tree (`bplus`, `bplus:dir=off,delta=1024`, ...).
    BPlus(bplus::Config),
}

/// A structure name or option a table cannot be built with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid table structure '{text}': {reason} (expected {STRUCTURES})")]
pub struct StructureError {
    text: String,
    reason: String,
}

impl Structure {
    /// The structure `text` names for family `A` (`poptrie`, `bplus`, or either with
    /// `:key=value,...` options).
    pub fn parse<A: AnyKey>(text: &str) -> Result<Structure, StructureError> {
        let err = |reason: String| StructureError { text: text.into(), reason };
        let spec: AlgoSpec =
            text.parse().map_err(|e: crate::spec::SpecError| err(e.to_string()))?;
        let structure = if spec.name == "bplus" {
            bplus::Config::from_spec(&spec).map(Structure::BPlus)
        } else {
            match poptrie::Config::from_spec::<A>(&spec) {
                Some(cfg) => cfg.map(Structure::Poptrie),
                None => return Err(err(format!("unknown structure '{}'", spec.name))),
            }
        };
        structure.and_then(Structure::checked).map_err(|e| err(e.to_string()))
    }

    /// `self`, or the error compiling with it would give whatever the routes (so that a
    /// bad option is reported with the name, not later by the first build).
    fn checked(self) -> Result<Structure, BuildError> {
        match &self {
            Structure::Poptrie(cfg) if cfg.s > poptrie::MAX_S => Err(BuildError::BadOption {
                algo: "poptrie",
                option: format!("s={}", cfg.s),
                reason: format!("direct-pointing bits must be in 0..={}", poptrie::MAX_S),
            }),
            _ => Ok(self),
        }
    }

    /// Poptrie with the recommended configuration for family `A`.
    pub fn default_for<A: AnyKey>() -> Structure {
        Structure::Poptrie(poptrie::Config::for_family::<A>())
    }

    /// The structure's name (`"poptrie"` or `"bplus"`).
    pub fn name(&self) -> &'static str {
        match self {
            Structure::Poptrie(_) => "poptrie",
            Structure::BPlus(_) => "bplus",
        }
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

    /// The structure's name (`"poptrie"` or `"bplus"`).
    pub fn structure(&self) -> &'static str {
        match self {
            AnyTable::Poptrie(_) => "poptrie",
            AnyTable::BPlus(_) => "bplus",
        }
    }

    /// A new reader (registered, offline); see [`Table::reader`].
    pub fn reader(&self) -> AnyReader<A> {
        match self {
            AnyTable::Poptrie(t) => AnyReader::Poptrie(t.reader()),
            AnyTable::BPlus(t) => AnyReader::BPlus(t.reader()),
        }
    }

    /// The readers' grace-period domain.
    pub fn grace(&self) -> &Grace {
        each!(self, t => t.grace())
    }

    /// The routes.
    pub fn rib(&self) -> &Rib<A> {
        each!(self, t => t.rib())
    }

    /// A lookup from the writer's thread.
    #[inline]
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

impl<A: AnyKey> fmt::Debug for AnyTable<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AnyTable({}, {} routes)", self.structure(), self.rib().len())
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
    pub fn is_online(&self) -> bool {
        each!(self, r => r.is_online())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p4(text: &str) -> Prefix<u32> {
        text.parse().unwrap()
    }

    #[test]
    fn names_and_options_parse() {
        assert_eq!(Structure::parse::<u32>("poptrie").unwrap(), Structure::default_for::<u32>());
        assert_eq!(Structure::parse::<u32>("bplus").unwrap(), Structure::BPlus(Default::default()));
        let Structure::BPlus(cfg) = Structure::parse::<u128>("bplus:dir=off,delta=64").unwrap()
        else {
            panic!("not bplus")
        };
        assert!(!cfg.dir && cfg.delta == 64);
        let Structure::Poptrie(cfg) = Structure::parse::<u32>("poptrie:s=16").unwrap() else {
            panic!("not poptrie")
        };
        assert_eq!(cfg.s, 16);
    }

    #[test]
    fn bad_names_and_options_name_the_choices() {
        let bad = ["dxr", "", "bplus:dir=maybe", "bplus:nope=1", "poptrie:s", "bplus:delta=0"];
        for bad in bad.into_iter().chain(["poptrie:s=25", "poptrie16:fanout=on"]) {
            let e = Structure::parse::<u32>(bad).unwrap_err().to_string();
            assert!(e.contains("poptrie") && e.contains("bplus"), "{bad}: {e}");
            assert!(e.contains(&format!("'{bad}'")), "{bad}: {e}");
        }
        let e = Structure::parse::<u32>("dxr").unwrap_err().to_string();
        assert!(e.contains("unknown structure 'dxr'"), "{e}");
    }

    #[test]
    fn both_structures_answer_alike_through_updates_and_readers() {
        for s in ["poptrie", "bplus", "bplus:dir=off"] {
            let structure = Structure::parse::<u32>(s).unwrap();
            let mut t = AnyTable::new(Rib::new(), &structure).unwrap();
            assert_eq!(t.structure(), structure.name());
            let mut r = t.reader();
            r.online();
            let hop = NextHop::from_index;
            assert_eq!(t.insert(p4("10.0.0.0/8"), hop(1)).unwrap(), None);
            assert_eq!(t.insert(p4("10.1.0.0/16"), hop(2)).unwrap(), None);
            assert_eq!(t.insert(p4("10.1.0.0/16"), hop(3)).unwrap(), Some(hop(2)));
            r.quiescent();
            let addrs = [0x0a01_0203, 0x0a02_0000, 0x0b00_0000, u32::MAX, 0];
            let want = [Some(hop(3)), Some(hop(1)), None, None, None];
            let mut out = [None; 5];
            r.lookup_batch(&addrs, &mut out);
            assert_eq!(out, want, "{s}");
            t.lookup_batch(&addrs, &mut out);
            assert_eq!(out, want, "{s}");
            for (a, w) in addrs.iter().zip(want) {
                assert_eq!(t.lookup(*a), w, "{s}");
                assert_eq!(r.lookup(*a), w, "{s}");
            }
            assert_eq!(t.remove(&p4("10.1.0.0/16")).unwrap(), Some(hop(3)));
            assert_eq!(r.lookup(0x0a01_0203), Some(hop(1)), "{s}");
            assert_eq!(t.grace().readers(), 1);
            let r2 = r.clone();
            assert!(r.is_online() && !r2.is_online());
            assert_eq!(t.grace().readers(), 2);
            r.offline();
            assert_eq!(t.rib().len(), 1);
            assert!(t.memory_bytes() > 0);
        }
    }
}
