//! The concurrent tables of the bindings by name: `Structure::parse` turns `"bplus:dir=off"`
//! into a [`Structure`] through the rows with [`Capabilities::table`](super::Capabilities),
//! and names a structure from its row. `sync` holds the types (a layer below) and matches no
//! names.

use super::{AlgoSpec, Descriptor, SpecError, StructureId, resolve};
use crate::algo::{bplus, poptrie};
use crate::fib::BuildError;
use crate::sync::{AnyKey, AnyTable, Structure};
use std::fmt;

/// The structures [`Structure::parse`] accepts, for messages.
#[doc(hidden)]
pub const STRUCTURES: &str =
    "poptrie (the default) or bplus, optionally with options as in \"bplus:dir=off\"";

/// A structure name or option a table cannot be built with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid table structure '{text}': {reason} (expected {STRUCTURES})")]
pub struct StructureError {
    text: String,
    reason: String,
}

impl Structure {
    /// The structure `text` names for family `A` (`poptrie`, `bplus`, or either with
    /// `:key=value,...` options; aliases such as `poptrie16`).
    pub fn parse<A: AnyKey>(text: &str) -> Result<Structure, StructureError> {
        let err = |reason: String| StructureError { text: text.into(), reason };
        let spec: AlgoSpec = text.parse().map_err(|e: SpecError| err(e.to_string()))?;
        let row = super::info(&spec.name).filter(|r| r.caps.table);
        let Some(row) = row else { return Err(err(format!("unknown structure '{}'", spec.name))) };
        let structure = resolve(&spec).and_then(|(_, spec)| config::<A>(row, &spec));
        structure.and_then(Structure::checked).map_err(|e| err(e.to_string()))
    }

    /// The registry's id of the structure.
    #[doc(hidden)]
    pub fn id(&self) -> StructureId {
        match self {
            Structure::Poptrie(_) => StructureId::Poptrie,
            Structure::BPlus(_) => StructureId::BPlus,
        }
    }

    /// The structure's name (`"poptrie"` or `"bplus"`): its registry row's.
    pub fn name(&self) -> &'static str {
        name_of(self.id())
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
}

/// The configuration of a table row's structure, from its resolved spec.
fn config<A: AnyKey>(row: &Descriptor, spec: &AlgoSpec) -> Result<Structure, BuildError> {
    match row.id {
        StructureId::Poptrie => poptrie::Config::from_spec::<A>(spec).map(Structure::Poptrie),
        StructureId::BPlus => bplus::Config::from_spec(spec).map(Structure::BPlus),
        _ => Err(BuildError::Unsupported { algo: row.name, reason: "no concurrent table".into() }),
    }
}

/// The name of the (non-alias) row of structure `id`.
fn name_of(id: StructureId) -> &'static str {
    let row = super::ALGORITHMS.iter().find(|r| r.id == id && r.alias_of.is_none());
    row.expect("every structure has a row").name
}

impl<A: AnyKey> AnyTable<A> {
    /// The registry's id of the table's structure.
    #[doc(hidden)]
    pub fn id(&self) -> StructureId {
        match self {
            AnyTable::Poptrie(_) => StructureId::Poptrie,
            AnyTable::BPlus(_) => StructureId::BPlus,
        }
    }

    /// The structure's name (`"poptrie"` or `"bplus"`): its registry row's.
    pub fn structure(&self) -> &'static str {
        name_of(self.id())
    }
}

impl<A: AnyKey> fmt::Debug for AnyTable<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AnyTable({}, {} routes)", self.structure(), self.rib().len())
    }
}

#[cfg(test)]
#[path = "tests_structure.rs"]
mod tests;
