//! Structures by name: what every face builds (the CLI, the benchmarks, the C and Python
//! bindings, the export loader).
//!
//! Each structure is described once, by one [`Descriptor`] (a row of [`ALGORITHMS`]; the
//! many-table structures are rows of [`MANY_TABLES`]), as ripgrep describes each flag once:
//! its name, summary and options (key, default, help), the [`StructureId`] of the code that
//! implements it, the options its name implies (aliases such as `poptrie16` =
//! `poptrie:s=16`), its [`Capabilities`] and a builder per address family. Every face asks
//! the registry instead of matching names:
//!
//! - static compile: [`build`] (any row, by name, behind `Box<dyn Lookup>`);
//! - the concurrent table of the bindings: `Structure::parse` (rows with
//!   [`Capabilities::table`]);
//! - updates (`fibforge replay`): [`run_incremental`] hands an [`IncrementalJob`] the concrete
//!   type of the structure (monomorphised: no virtual call in its lookups);
//! - export and import: [`Capabilities::export`] names the export format;
//! - many tables: [`build_many`] (LOOP, SAIL_M, one structure per table, LOOP's comparators).
//!
//! An [`AlgoSpec`] is a name with options, written `name` or `name:key=value,key=value`
//! (`poptrie:s=18,aggregate=off`); each structure's `Config` parses its own options
//! (`Config::from_spec`) after [`resolve`] checked the keys and added the alias's options.

mod caps;
mod many;
mod structure;
mod table;
mod updates;

pub use crate::spec::{AlgoSpec, SpecError, split_list};
pub use caps::{Capabilities, ReplayAll, StructureId, Updates};
pub use many::{
    BuiltMany, MANY_TABLES, ManyBuilder, ManyDescriptor, build_many, comparator_specs, many_info,
    many_specs,
};
pub use structure::{STRUCTURES, StructureError};
pub use table::ALGORITHMS;
pub use updates::{IncrementalFamily, IncrementalJob, replay_all, run_incremental};

use crate::addr::{Address, Family};
use crate::fib::{BuildError, Lookup};
use crate::rib::Rib;

/// The structure used when none is named: the default of `sync::Table`, `fibforge lookup`,
/// the bindings' `algo=` and the benchmark's API rows.
pub const DEFAULT: &str = "poptrie";

/// What a builder returns: the compiled structure behind the registry's trait object.
#[doc(hidden)]
pub type Built<A> = Result<Box<dyn Lookup<A>>, BuildError>;

/// Compiles a RIB of one family into a registered structure, reading its options from the spec.
#[doc(hidden)]
pub type Builder<A> = fn(&AlgoSpec, &Rib<A>) -> Built<A>;

/// One option a structure accepts, with its default and its help line.
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    /// The key (`s` in `poptrie:s=18`).
    pub key: &'static str,
    /// The value when absent, as text (`""`: none or it depends, see the help).
    pub default: &'static str,
    /// Values and meaning, one line.
    pub help: &'static str,
}

/// One structure known to the registry: a row of [`ALGORITHMS`].
#[derive(Debug, Clone, Copy)]
pub struct Descriptor {
    /// The name used on the command line.
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// The options it accepts.
    pub options: &'static [Opt],
    /// The code that implements it (rows that are aliases share their structure's).
    pub id: StructureId,
    /// Options the name implies unless given (`poptrie16`: `s=16`): an alias of `alias_of`.
    pub implies: &'static [(&'static str, &'static str)],
    /// The row this one is an alias of (the name the structure's own code reads), if any.
    pub alias_of: Option<&'static str>,
    /// What it can do besides compiling and looking up.
    pub caps: Capabilities,
    /// Its IPv4 builder (`None`: IPv6 only).
    pub ipv4: Option<Builder<u32>>,
    /// Its IPv6 builder (`None`: IPv4 only).
    pub ipv6: Option<Builder<u128>>,
}

impl Descriptor {
    /// True when the structure handles `family`.
    pub fn supports(&self, family: Family) -> bool {
        match family {
            Family::Ipv4 => self.ipv4.is_some(),
            Family::Ipv6 => self.ipv6.is_some(),
        }
    }

    /// The families it handles, as `fibforge algos` prints them (`ipv4,ipv6`).
    pub fn families(&self) -> &'static str {
        match (self.ipv4.is_some(), self.ipv6.is_some()) {
            (true, true) => "ipv4,ipv6",
            (true, false) => "ipv4",
            (false, true) => "ipv6",
            (false, false) => "-",
        }
    }
}

/// Looks up a structure by name (aliases included: each is a row).
pub fn info(name: &str) -> Option<&'static Descriptor> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// The row `spec` names, after checking its option keys against the row; the error lists the
/// known names or the accepted options.
pub fn check(spec: &AlgoSpec) -> Result<&'static Descriptor, BuildError> {
    let Some(row) = info(&spec.name) else {
        let names: Vec<_> = ALGORITHMS.iter().map(|a| a.name).collect();
        let reason = format!("unknown algorithm '{}' (known: {})", spec.name, names.join(", "));
        return Err(BuildError::Unsupported { algo: "registry", reason });
    };
    if let Some(key) = spec.options.keys().find(|k| !row.options.iter().any(|o| o.key == *k)) {
        let accepted: Vec<_> = row.options.iter().map(|o| o.key).collect();
        let reason = match accepted.is_empty() {
            true => "it takes no options".to_string(),
            false => format!("unknown option (accepted: {})", accepted.join(", ")),
        };
        return Err(BuildError::BadOption { algo: row.name, option: key.clone(), reason });
    }
    Ok(row)
}

/// The row `spec` names (checked as [`check`] does) and the spec its structure's code reads:
/// an alias's name replaced by its structure's, with the options the alias implies added
/// (those given win).
pub fn resolve(spec: &AlgoSpec) -> Result<(&'static Descriptor, AlgoSpec), BuildError> {
    let row = check(spec)?;
    let mut resolved = spec.clone();
    if let Some(base) = row.alias_of {
        resolved.name = base.to_string();
    }
    for (key, value) in row.implies {
        resolved.options.entry(key.to_string()).or_insert_with(|| value.to_string());
    }
    Ok((row, resolved))
}

/// The export format of the row `name` names (aliases included), if it has one.
#[doc(hidden)]
pub fn export_format(name: &str) -> Option<crate::export::file::Algorithm> {
    info(name)?.caps.export
}

/// The structures with an export, for messages: `bloomfwd, poptrie and sail_l`.
#[doc(hidden)]
pub fn exporters() -> String {
    let names: Vec<_> = ALGORITHMS
        .iter()
        .filter(|r| r.caps.export.is_some() && r.alias_of.is_none())
        .map(|r| r.name)
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// Address families the registry can build for (IPv4 and IPv6).
pub trait RegistryFamily: Address {
    /// The row's builder for this family.
    #[doc(hidden)]
    fn builder(row: &Descriptor) -> Option<Builder<Self>>;
    /// The many-table row's builder for this family.
    #[doc(hidden)]
    fn many_builder(row: &ManyDescriptor) -> ManyBuilder<Self>;
}

impl RegistryFamily for u32 {
    fn builder(row: &Descriptor) -> Option<Builder<u32>> {
        row.ipv4
    }
    fn many_builder(row: &ManyDescriptor) -> ManyBuilder<u32> {
        row.ipv4
    }
}

impl RegistryFamily for u128 {
    fn builder(row: &Descriptor) -> Option<Builder<u128>> {
        row.ipv6
    }
    fn many_builder(row: &ManyDescriptor) -> ManyBuilder<u128> {
        row.ipv6
    }
}

/// The error for a row without a builder for `A`.
fn unavailable<A: Address>(name: &str) -> BuildError {
    BuildError::Unsupported {
        algo: "registry",
        reason: format!("'{name}': not available for {}", A::FAMILY),
    }
}

/// Compiles `rib` into the structure named by `spec`.
pub fn build<A: RegistryFamily>(spec: &AlgoSpec, rib: &Rib<A>) -> Built<A> {
    let (row, resolved) = resolve(spec)?;
    match A::builder(row) {
        Some(builder) => builder(&resolved, rib),
        None => Err(unavailable::<A>(&spec.name)),
    }
}

#[cfg(test)]
mod tests_caps;

#[cfg(test)]
mod tests_defaults;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::poptrie::Config as PoptrieConfig;

    #[test]
    fn unknown_names_are_errors() {
        let rib: Rib<u32> = Rib::new();
        let e = build(&AlgoSpec::named("nope"), &rib).err().unwrap();
        assert!(e.to_string().contains("unknown algorithm"), "{e}");
        assert!(build(&AlgoSpec::named("radix"), &rib).is_ok());
    }

    #[test]
    fn poptrie_fanout_is_an_ipv6_option() {
        let spec: AlgoSpec = "poptrie:fanout=on".parse().unwrap();
        let e = build(&spec, &Rib::<u32>::new()).err().unwrap();
        assert!(e.to_string().contains("IPv6 tables only"), "{e}");
        assert!(build(&spec, &Rib::<u128>::new()).is_ok());
        let v4 = PoptrieConfig::from_spec::<u32>(&AlgoSpec::named("poptrie")).unwrap();
        let v6 = PoptrieConfig::from_spec::<u128>(&AlgoSpec::named("poptrie")).unwrap();
        assert_eq!((v4.fanout, v6.fanout), (false, true));
        let off = PoptrieConfig::from_spec::<u128>(&"poptrie:fanout=off".parse().unwrap()).unwrap();
        assert!(!off.fanout);
    }
}

#[cfg(test)]
mod cpe_tests {
    use super::*;
    use crate::nexthop::NextHop;

    #[test]
    fn cpe_names_and_options() {
        let rib: Rib<u32> = [("10.0.0.0/8", 0), ("10.1.0.0/16", 1), ("10.1.2.3/32", 2)]
            .iter()
            .map(|&(p, h)| (p.parse().unwrap(), NextHop::from_index(h)))
            .collect();
        for text in [
            "cpe_fixed",
            "cpe_var",
            "cpe_var:levels=3,packed=on",
            "cpe_fixed:leafpush=off,maxstride=12",
            "cpe_var:leafpush=off,packed=on,levels=2",
        ] {
            let f = build(&text.parse().unwrap(), &rib).unwrap();
            for a in [0x0a01_0203u32, 0x0a01_0204, 0x0a02_0000, 0x0b00_0000] {
                assert_eq!(f.lookup(a), rib.lookup(a), "{text}");
            }
        }
        for bad in ["cpe_var:stride=3", "cpe_fixed:levels=x", "cpe_fixed:maxstride=40"] {
            assert!(build(&bad.parse().unwrap(), &rib).is_err(), "{bad}");
        }
    }

    #[test]
    fn bsl_hybrid_names_and_options() {
        let rib: Rib<u128> = [("2001:db8::/32", 0), ("2001:db8:1::/48", 1), ("::1/128", 2)]
            .iter()
            .map(|&(p, h)| (p.parse().unwrap(), NextHop::from_index(h)))
            .collect();
        for text in ["bsl_hybrid", "bsl_hybrid:stride=4,packed=off", "bsl_hybrid:stride=4"] {
            let f = build(&text.parse().unwrap(), &rib).unwrap();
            for a in [0x2001_0db8_0001u128 << 80, 0x2001_0db8u128 << 96, 1, 2] {
                assert_eq!(f.lookup(a), rib.lookup(a), "{text}");
            }
        }
        for bad in ["bsl_hybrid:stride=16", "bsl_hybrid:levels=3"] {
            assert!(build(&bad.parse().unwrap(), &rib).is_err(), "{bad}");
        }
        let e = build(&AlgoSpec::named("bsl_hybrid"), &Rib::<u32>::new()).err().unwrap();
        assert!(e.to_string().contains("not available for"), "{e}");
    }
}
