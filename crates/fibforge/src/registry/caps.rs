//! What a descriptor says a structure can do, and which code implements it.

use crate::export::file::Algorithm;

/// The code behind a descriptor: one variant per structure (aliases share their structure's).
/// The registry's dispatches ([`super::run_incremental`], `Structure::parse`) match on it,
/// never on names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StructureId {
    /// `algo::radix`.
    Radix,
    /// `multi::loop_` (one table).
    Loop,
    /// `algo::bloom` (its three variants).
    Bloom,
    /// `algo::poptrie`.
    Poptrie,
    /// `algo::bplus`.
    BPlus,
    /// `algo::dir24_8`.
    Dir24_8,
    /// `algo::dxr`.
    Dxr,
    /// `algo::sail`, SAIL_B.
    SailB,
    /// `algo::sail`, SAIL_U.
    SailU,
    /// `algo::sail`, SAIL_L.
    SailL,
    /// `algo::miht`.
    Miht,
    /// `algo::treebitmap`, stride 4.
    TreeBitmap4,
    /// `algo::treebitmap`, stride 6.
    TreeBitmap6,
    /// `algo::bsearch`.
    Bsearch,
    /// `algo::bsl`.
    Bsl,
    /// `algo::bsl::hybrid`.
    BslHybrid,
    /// `multi::sail_m` (one table).
    SailM,
    /// `algo::multibit` (fixed and variable strides).
    Cpe,
    /// `algo::lctrie`.
    LcTrie,
    /// `algo::lulea`.
    Lulea,
}

/// How a structure takes route updates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum Updates {
    /// None: compiled once.
    None,
    /// `Incremental`; concurrent readers through `sync::LeftRight` (two copies).
    LeftRight,
    /// `Incremental` and `sync::Concurrent`: readers share the structure itself.
    Native,
}

/// A structure `fibforge replay --algo all` runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct ReplayAll {
    /// Its place in the report (ascending).
    pub rank: u8,
    /// Options it replays with (`leafpush=off`), `""` for none.
    pub options: &'static str,
    /// Replayed for IPv4 only (its IPv6 form has updates but not for real tables).
    pub ipv4_only: bool,
}

/// What a structure can do besides compiling and answering lookups.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Route updates, and how readers see them.
    pub updates: Updates,
    /// A concurrent `sync::Table` of it can be built by name (C `_new_with`, Python `algo=`).
    pub table: bool,
    /// Its export format (`fibforge export`, `export::import`; also what `gpu/` reads).
    pub export: Option<Algorithm>,
    /// Many tables in one structure (`replay --tables`, `verify DIR`); see also
    /// [`super::MANY_TABLES`].
    pub many_tables: bool,
    /// Whether and where `replay --algo all` runs it.
    pub replay_all: Option<ReplayAll>,
}

impl Capabilities {
    /// Compile and lookups only.
    pub(crate) const STATIC: Capabilities = Capabilities {
        updates: Updates::None,
        table: false,
        export: None,
        many_tables: false,
        replay_all: None,
    };

    /// Updates through `LeftRight`.
    pub(crate) const fn left_right() -> Capabilities {
        Capabilities { updates: Updates::LeftRight, ..Capabilities::STATIC }
    }

    /// Replayed by `--algo all` at `rank` (with `options`).
    pub(crate) const fn replayed(self, rank: u8, options: &'static str) -> Capabilities {
        Capabilities { replay_all: Some(ReplayAll { rank, options, ipv4_only: false }), ..self }
    }

    /// Replayed by `--algo all` at `rank`, for IPv4 only.
    pub(crate) const fn replayed_v4(self, rank: u8) -> Capabilities {
        let replay = ReplayAll { rank, options: "", ipv4_only: true };
        Capabilities { replay_all: Some(replay), ..self }
    }

    /// True when the structure takes updates.
    #[doc(hidden)]
    pub fn incremental(&self) -> bool {
        self.updates != Updates::None
    }
}
