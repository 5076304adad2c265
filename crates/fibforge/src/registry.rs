//! Algorithms by name: what the CLI, the benchmarks and the bindings build.
//!
//! An [`AlgoSpec`] is a name with options, written `name` or `name:key=value,key=value`
//! (`poptrie:s=18,aggregate=off`). [`ALGORITHMS`] lists every name with its families.
//! [`build`] compiles a RIB into the named structure behind `Box<dyn Lookup>`.

use crate::addr::{Address, Family};
use crate::algo;
use crate::fib::{BuildError, Compile, Lookup};
use crate::rib::Rib;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// One algorithm known to the registry.
#[derive(Debug, Clone, Copy)]
pub struct AlgoInfo {
    /// The name used on the command line.
    pub name: &'static str,
    /// Supports IPv4 tables.
    pub ipv4: bool,
    /// Supports IPv6 tables.
    pub ipv6: bool,
    /// One line on what it is.
    pub summary: &'static str,
}

impl AlgoInfo {
    /// True when the algorithm handles `family`.
    pub fn supports(&self, family: Family) -> bool {
        match family {
            Family::Ipv4 => self.ipv4,
            Family::Ipv6 => self.ipv6,
        }
    }
}

/// Every algorithm, in the order reports show them.
pub const ALGORITHMS: &[AlgoInfo] = &[
    AlgoInfo {
        name: "radix",
        ipv4: true,
        ipv6: true,
        summary: "binary radix (Patricia) tree: the RIB itself, the baseline",
    },
    AlgoInfo {
        name: "loop",
        ipv4: true,
        ipv6: true,
        summary: "LOOP layered overlay bitmaps (Mi, Yang et al.), one table; many tables via `verify DIR`",
    },
    AlgoInfo {
        name: "bloom_naive",
        ipv4: true,
        ipv6: true,
        summary: "Bloom filter + hash table per prefix length (Dharmapurikar; Lucchesi §3.1)",
    },
    AlgoInfo {
        name: "bloom_base",
        ipv4: true,
        ipv6: true,
        summary: "counting Bloom filters, asymmetric sizes, IPv4 CPE /20+/24+/32 (Lucchesi §3.2)",
    },
    AlgoInfo {
        name: "bloomfwd",
        ipv4: true,
        ipv6: true,
        summary: "Bloomfwd: H2/Murmur/Knuth double hashing, SIMD batches, DPCPE for IPv6 (Lucchesi §4)",
    },
    AlgoInfo {
        name: "poptrie",
        ipv4: true,
        ipv6: true,
        summary: "Poptrie (Asai & Ohara 2015): 64-ary popcount trie; options s=N, aggregate=on|off, dir16=on|off, fanout=on|off",
    },
    AlgoInfo {
        name: "poptrie0",
        ipv4: true,
        ipv6: true,
        summary: "Poptrie without direct pointing (s=0)",
    },
    AlgoInfo {
        name: "poptrie16",
        ipv4: true,
        ipv6: true,
        summary: "Poptrie, direct pointing on the first 16 address bits (s=16)",
    },
    AlgoInfo {
        name: "poptrie18",
        ipv4: true,
        ipv6: true,
        summary: "Poptrie, direct pointing on the first 18 address bits (s=18)",
    },
    AlgoInfo {
        name: "bplus",
        ipv4: true,
        ipv6: true,
        summary: "interval B+-tree (after PlanB, NSDI 2026): predecessor search over the RIB's \
                  ranges in 64-byte SIMD nodes; options isa=auto|portable|avx2|avx512, delta=N, dir=on|off, lanes=8|16|32",
    },
    AlgoInfo {
        name: "dir24_8",
        ipv4: true,
        ipv6: false,
        summary: "DIR-24-8-BASIC (Gupta et al. 1998): 2^24 first-level table + 256-entry chunks",
    },
    AlgoInfo {
        name: "dxr16",
        ipv4: true,
        ipv6: true,
        summary: "DXR D16R (Zec, Rizzo, Mikuc 2012): 2^16 direct table + binary-searched range \
                  tables; option short=on|off (IPv6: long format, Poptrie paper §4.10)",
    },
    AlgoInfo {
        name: "dxr18",
        ipv4: true,
        ipv6: true,
        summary: "DXR D18R: 2^18 direct table + binary-searched range tables; option short=on|off",
    },
    AlgoInfo {
        name: "sail_b",
        ipv4: true,
        ipv6: false,
        summary: "SAIL_B (Yang 2014): bitmaps per length 0-24, pivot pushing to /32 chunks",
    },
    AlgoInfo {
        name: "sail_u",
        ipv4: true,
        ipv6: false,
        summary: "SAIL_U (Yang 2014): pushed to levels 6/12/18/24, one bitmap word per update",
    },
    AlgoInfo {
        name: "sail_l",
        ipv4: true,
        ipv6: true,
        summary: "SAIL_L (Yang 2014): pushed to levels 16/24/32 (IPv6: to /64), chunk ids",
    },
    AlgoInfo {
        name: "miht",
        ipv4: true,
        ipv6: true,
        summary: "MIHT (Lin, Hsu, Hsieh 2014): B+ tree on k-bit keys + priority tries; \
                  options k=N (16 v4, 32 v6), m=16|32",
    },
    AlgoInfo {
        name: "treebitmap4",
        ipv4: true,
        ipv6: true,
        summary: "Tree Bitmap (Eatherton, Varghese, Dittia 2004), stride 4 (16-ary): internal + \
                  external bitmaps, popcount; incremental updates",
    },
    AlgoInfo {
        name: "treebitmap6",
        ipv4: true,
        ipv6: true,
        summary: "Tree Bitmap, stride 6 (64-ary, as in the Poptrie paper); incremental updates",
    },
    AlgoInfo {
        name: "bsearch",
        ipv4: true,
        ipv6: true,
        summary: "binary search on prefix endpoints with precomputed = and > answers (Lampson, \
                  Srinivasan, Varghese 1998; CPE Table 2); option lanes=N (batch lock step)",
    },
    AlgoInfo {
        name: "bsl",
        ipv4: true,
        ipv6: true,
        summary: "binary search on prefix lengths with markers (Waldvogel 1997), one cache line \
                  per probe; option levels=K: CPE to K lengths (Srinivasan-Varghese §6)",
    },
    AlgoInfo {
        name: "bsl_hybrid",
        ipv4: false,
        ipv6: true,
        summary: "IPv6 hybrid of Srinivasan-Varghese §7: hashing on lengths 32/64/96 (two probes), \
                  then a leaf-pushed trie over the 32 bits left; options stride=4|8, packed=on|off",
    },
    AlgoInfo {
        name: "sail_m",
        ipv4: true,
        ipv6: true,
        summary: "SAIL_M (Yang 2014): SAIL_L over the merged trie of many tables (IPv6: to /64); \
                  one table here, many via `verify DIR` and `bench --multi DIR`",
    },
    AlgoInfo {
        name: "cpe_fixed",
        ipv4: true,
        ipv6: true,
        summary: "fixed-stride multibit trie, strides by dynamic programming (Srinivasan-Varghese 1998); \
                  options levels=K, leafpush=on|off, packed=on|off, maxstride=S",
    },
    AlgoInfo {
        name: "cpe_var",
        ipv4: true,
        ipv6: true,
        summary: "variable-stride multibit trie, per-node strides by dynamic programming \
                  (Srinivasan-Varghese 1998); options levels=K, leafpush=on|off, packed=on|off, maxstride=S",
    },
];

/// Looks up an algorithm by name.
pub fn info(name: &str) -> Option<&'static AlgoInfo> {
    ALGORITHMS.iter().find(|a| a.name == name)
}

/// An algorithm name with options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AlgoSpec {
    /// The algorithm's name.
    pub name: String,
    /// Options as given (`key=value`).
    pub options: BTreeMap<String, String>,
}

/// A malformed algorithm specification.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid algorithm '{text}': {reason}")]
pub struct SpecError {
    text: String,
    reason: String,
}

impl FromStr for AlgoSpec {
    type Err = SpecError;
    fn from_str(text: &str) -> Result<Self, SpecError> {
        let err = |reason: &str| SpecError { text: text.into(), reason: reason.into() };
        let (name, opts) = text.split_once(':').unwrap_or((text, ""));
        let name = name.trim();
        if name.is_empty() {
            return Err(err("empty name"));
        }
        let mut options = BTreeMap::new();
        for kv in opts.split(',').filter(|s| !s.trim().is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| err("options are key=value"))?;
            options.insert(k.trim().to_string(), v.trim().to_string());
        }
        Ok(AlgoSpec { name: name.to_string(), options })
    }
}

impl fmt::Display for AlgoSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.options.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

impl AlgoSpec {
    /// A spec without options.
    pub fn named(name: &str) -> Self {
        AlgoSpec { name: name.into(), options: BTreeMap::new() }
    }

    /// Adds or replaces an option.
    pub fn with(mut self, key: &str, value: impl ToString) -> Self {
        self.options.insert(key.into(), value.to_string());
        self
    }

    /// Errors on any option not in `known`.
    pub fn check_options(&self, algo: &'static str, known: &[&str]) -> Result<(), BuildError> {
        match self.options.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => Err(BuildError::BadOption {
                algo,
                option: k.clone(),
                reason: format!("unknown option (known: {})", known.join(", ")),
            }),
        }
    }

    /// An unsigned option, or `default` when absent.
    pub fn get_u32(&self, algo: &'static str, key: &str, default: u32) -> Result<u32, BuildError> {
        match self.options.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| bad(algo, key, v, "expected an unsigned integer")),
        }
    }

    /// A float option, or `default` when absent.
    pub fn get_f64(&self, algo: &'static str, key: &str, default: f64) -> Result<f64, BuildError> {
        match self.options.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| bad(algo, key, v, "expected a number")),
        }
    }

    /// A boolean option (`on/off`, `true/false`, `1/0`, `yes/no`), or `default`.
    pub fn get_bool(
        &self,
        algo: &'static str,
        key: &str,
        default: bool,
    ) -> Result<bool, BuildError> {
        match self.options.get(key).map(|s| s.as_str()) {
            None => Ok(default),
            Some("on" | "true" | "1" | "yes") => Ok(true),
            Some("off" | "false" | "0" | "no") => Ok(false),
            Some(v) => Err(bad(algo, key, v, "expected on or off")),
        }
    }
}

fn bad(algo: &'static str, key: &str, value: &str, why: &str) -> BuildError {
    BuildError::BadOption { algo, option: format!("{key}={value}"), reason: why.into() }
}

/// Address families the registry can build for (IPv4 and IPv6).
pub trait RegistryFamily: Address {
    /// Builds the structure named by `spec` for this family.
    fn build(spec: &AlgoSpec, rib: &Rib<Self>) -> Result<Box<dyn Lookup<Self>>, BuildError>;
}

/// Compiles `rib` into the structure named by `spec`.
pub fn build<A: RegistryFamily>(
    spec: &AlgoSpec,
    rib: &Rib<A>,
) -> Result<Box<dyn Lookup<A>>, BuildError> {
    A::build(spec, rib)
}

fn unknown(spec: &AlgoSpec, family: Family) -> BuildError {
    let reason = match info(&spec.name) {
        Some(_) => format!("not available for {family}"),
        None => {
            let names: Vec<_> = ALGORITHMS.iter().map(|a| a.name).collect();
            format!("unknown algorithm (known: {})", names.join(", "))
        }
    };
    BuildError::Unsupported { algo: "registry", reason: format!("'{}': {reason}", spec.name) }
}

fn boxed<A: Address, F: Compile<A> + 'static>(f: F) -> Box<dyn Lookup<A>> {
    Box::new(f)
}

/// Builds the algorithms every family has.
fn build_common<A: algo::bloom::BloomKey>(
    spec: &AlgoSpec,
    rib: &Rib<A>,
) -> Option<Result<Box<dyn Lookup<A>>, BuildError>> {
    let built = match spec.name.as_str() {
        "radix" => spec
            .check_options("radix", &[])
            .and_then(|_| algo::radix::Radix::compile(rib, &()).map(boxed)),
        "loop" => crate::multi::loop_::LoopConfig::from_spec(spec)
            .and_then(|cfg| crate::multi::loop_::LoopFib::compile(rib, &cfg).map(boxed)),
        "bloom_naive" | "bloom_base" | "bloomfwd" => {
            bloom_config(spec).and_then(|cfg| algo::bloom::BloomFib::compile(rib, &cfg).map(boxed))
        }
        "sail_l" => sail_config("sail_l", spec)
            .and_then(|cfg| algo::sail::SailL::compile(rib, &cfg).map(boxed)),
        "dxr16" => build_dxr(spec, "dxr16", 16, rib),
        "dxr18" => build_dxr(spec, "dxr18", 18, rib),
        "miht" => miht_config(spec).and_then(|cfg| algo::miht::Miht::compile(rib, &cfg).map(boxed)),
        "treebitmap4" => spec
            .check_options("treebitmap4", &[])
            .and_then(|_| algo::treebitmap::TreeBitmap4::compile(rib, &()).map(boxed)),
        "treebitmap6" => spec
            .check_options("treebitmap6", &[])
            .and_then(|_| algo::treebitmap::TreeBitmap6::compile(rib, &()).map(boxed)),
        "bsearch" => algo::bsearch::BsearchConfig::from_spec(spec)
            .and_then(|cfg| algo::bsearch::Bsearch::compile(rib, &cfg).map(boxed)),
        "bsl" => bsl_config(spec).and_then(|cfg| algo::bsl::Bsl::compile(rib, &cfg).map(boxed)),
        "sail_m" => sail_config("sail_m", spec).and_then(|cfg| {
            crate::multi::sail_m::SailMFib::build(rib, &cfg)
                .map(|f| Box::new(f) as Box<dyn Lookup<A>>)
        }),
        "cpe_fixed" => build_cpe(spec, "cpe_fixed", false, rib),
        "cpe_var" => build_cpe(spec, "cpe_var", true, rib),
        _ => return None,
    };
    Some(built)
}

/// Options of the Bloom family: `fpr=F`, `hash=h2|murmur|knuth`, `levels=N` (DPCPE levels;
/// 0 = one level per length), `cpe=on|off` (IPv4 /20+/24+/32 grouping).
pub fn bloom_config(spec: &AlgoSpec) -> Result<algo::bloom::BloomConfig, BuildError> {
    use algo::bloom::{BloomConfig, Expansion, HashFn};
    let (name, mut cfg) = match spec.name.as_str() {
        "bloom_naive" => ("bloom_naive", BloomConfig::naive()),
        "bloom_base" => ("bloom_base", BloomConfig::baseline()),
        _ => ("bloomfwd", BloomConfig::default()),
    };
    spec.check_options(name, &["fpr", "hash", "levels", "cpe"])?;
    cfg.fpr = spec.get_f64(name, "fpr", cfg.fpr)?;
    if let Some(h) = spec.options.get("hash") {
        cfg.hash = Some(
            HashFn::parse(h).ok_or_else(|| bad(name, "hash", h, "expected h2, murmur or knuth"))?,
        );
    }
    if spec.options.contains_key("levels") {
        cfg.expansion = match spec.get_u32(name, "levels", 0)? {
            0 => Expansion::None,
            n => Expansion::Levels(n as usize),
        };
    }
    if spec.options.contains_key("cpe") {
        let on = spec.get_bool(name, "cpe", true)?;
        cfg.expansion = if on { Expansion::Ipv4Groups } else { Expansion::None };
    }
    Ok(cfg)
}

/// Options of `miht`: `k=N` (key bits), `m=16|32` (B+ tree order).
pub fn miht_config(spec: &AlgoSpec) -> Result<algo::miht::MihtConfig, BuildError> {
    spec.check_options("miht", &["k", "m"])?;
    let opt = |key| spec.options.get(key).map(|_| spec.get_u32("miht", key, 0)).transpose();
    Ok(algo::miht::MihtConfig { k: opt("k")?, m: opt("m")? })
}

/// Options of `bsl`: `levels=K` (expand to K lengths; 0 or absent: every route length).
fn bsl_config(spec: &AlgoSpec) -> Result<algo::bsl::BslConfig, BuildError> {
    spec.check_options("bsl", &["levels"])?;
    let levels = spec.get_u32("bsl", "levels", 0)?;
    Ok(algo::bsl::BslConfig { levels: (levels > 0).then_some(levels) })
}

/// Options of `bsl_hybrid`: `stride=4|8` (bits per trie level), `packed=on|off`.
fn hybrid_config(spec: &AlgoSpec) -> Result<algo::bsl::hybrid::HybridConfig, BuildError> {
    let default = algo::bsl::hybrid::HybridConfig::default();
    spec.check_options("bsl_hybrid", &["stride", "packed"])?;
    Ok(algo::bsl::hybrid::HybridConfig {
        stride: spec.get_u32("bsl_hybrid", "stride", default.stride)?,
        packed: spec.get_bool("bsl_hybrid", "packed", default.packed)?,
    })
}

/// The Poptrie configuration `spec` names (`poptrie`, `poptrie0`, `poptrie16`, `poptrie18`
/// with options `s`, `aggregate`, `dir16` and `fanout`), or `None` when `spec` is another
/// algorithm.
pub fn poptrie_config<A: algo::poptrie::Key>(
    spec: &AlgoSpec,
) -> Option<Result<algo::poptrie::Config, BuildError>> {
    let default = algo::poptrie::Config::for_family::<A>();
    let s = match spec.name.as_str() {
        "poptrie" => default.s,
        "poptrie0" => 0,
        "poptrie16" => 16,
        "poptrie18" => 18,
        _ => return None,
    };
    Some((|| {
        spec.check_options("poptrie", &["s", "aggregate", "dir16", "fanout"])?;
        Ok(algo::poptrie::Config {
            s: spec.get_u32("poptrie", "s", s)?,
            aggregate: spec.get_bool("poptrie", "aggregate", default.aggregate)?,
            narrow_dir: spec.get_bool("poptrie", "dir16", default.narrow_dir)?,
            fanout: fanout_option::<A>(spec, default.fanout)?,
        })
    })())
}

/// Poptrie's `fanout=on|off`: IPv6 only (the IPv4 lookup has no fan-out path).
fn fanout_option<A: algo::poptrie::Key>(
    spec: &AlgoSpec,
    default: bool,
) -> Result<bool, BuildError> {
    let on = spec.get_bool("poptrie", "fanout", default)?;
    if on && !A::FANOUT {
        return Err(BuildError::BadOption {
            algo: "poptrie",
            option: "fanout=on".into(),
            reason: "root fan-out is for IPv6 tables only".into(),
        });
    }
    Ok(on)
}

/// Builds `poptrie` and its shorthands (`poptrie0`, `poptrie16`, `poptrie18`).
fn build_poptrie<A: algo::poptrie::Key>(
    spec: &AlgoSpec,
    rib: &Rib<A>,
) -> Option<Result<Box<dyn Lookup<A>>, BuildError>> {
    let cfg = poptrie_config::<A>(spec)?;
    Some(cfg.and_then(|cfg| algo::poptrie::Poptrie::compile(rib, &cfg).map(boxed)))
}

/// The options of the SAIL variants: `width=auto|16|32`.
pub fn sail_config(
    algo: &'static str,
    spec: &AlgoSpec,
) -> Result<algo::sail::SailConfig, BuildError> {
    spec.check_options(algo, &["width"])?;
    let width = match spec.options.get("width") {
        Some(w) => algo::sail::Width::parse(algo, w)?,
        None => algo::sail::Width::Auto,
    };
    Ok(algo::sail::SailConfig { width })
}

/// `dxr16` / `dxr18`: options `short=on|off` (the short range format, IPv4 only) and `k=N`
/// (direct-table bits, overriding the name's).
fn build_dxr<A: Address>(
    spec: &AlgoSpec,
    name: &'static str,
    k: u32,
    rib: &Rib<A>,
) -> Result<Box<dyn Lookup<A>>, BuildError> {
    spec.check_options(name, &["short", "k"])?;
    let cfg = algo::dxr::DxrConfig {
        k: spec.get_u32(name, "k", k)?,
        short: spec.get_bool(name, "short", true)?,
    };
    algo::dxr::Dxr::compile(rib, &cfg).map(boxed)
}

/// `cpe_fixed` / `cpe_var`: a leaf-pushed trie, or with `leafpush=off` the updatable one.
fn build_cpe<A: Address>(
    spec: &AlgoSpec,
    name: &'static str,
    variable: bool,
    rib: &Rib<A>,
) -> Result<Box<dyn Lookup<A>>, BuildError> {
    use algo::multibit::{LeafPushedTrie, UpdatableTrie};
    let (cfg, leafpush) = cpe_config(spec, name, variable)?;
    if leafpush {
        LeafPushedTrie::compile(rib, &cfg).map(boxed)
    } else {
        UpdatableTrie::compile(rib, &cfg).map(boxed)
    }
}

/// The options of `cpe_fixed` / `cpe_var` (`levels`, `packed`, `maxstride`) and whether
/// the trie is leaf-pushed (`leafpush=on`, the default) or the updatable one.
pub fn cpe_config(
    spec: &AlgoSpec,
    name: &'static str,
    variable: bool,
) -> Result<(algo::multibit::TrieConfig, bool), BuildError> {
    spec.check_options(name, &["levels", "leafpush", "packed", "maxstride"])?;
    let cfg = algo::multibit::TrieConfig {
        levels: spec.options.get("levels").map(|_| spec.get_u32(name, "levels", 0)).transpose()?,
        variable,
        packed: spec.get_bool(name, "packed", false)?,
        max_stride: spec
            .options
            .get("maxstride")
            .map(|_| spec.get_u32(name, "maxstride", 0))
            .transpose()?,
    };
    Ok((cfg, spec.get_bool(name, "leafpush", true)?))
}

fn build_bplus<A: algo::bplus::Key>(
    spec: &AlgoSpec,
    rib: &Rib<A>,
) -> Result<Box<dyn Lookup<A>>, BuildError> {
    let cfg = algo::bplus::config_from_spec(spec)?;
    algo::bplus::BPlus::compile(rib, &cfg).map(boxed)
}

impl RegistryFamily for u32 {
    fn build(spec: &AlgoSpec, rib: &Rib<u32>) -> Result<Box<dyn Lookup<u32>>, BuildError> {
        if let Some(r) = build_common(spec, rib) {
            return r;
        }
        if let Some(r) = build_poptrie(spec, rib) {
            return r;
        }
        match spec.name.as_str() {
            "bplus" => build_bplus(spec, rib),
            "dir24_8" => spec
                .check_options("dir24_8", &[])
                .and_then(|_| algo::dir24_8::Dir24_8::compile(rib, &()).map(boxed)),
            "sail_b" => sail_config("sail_b", spec)
                .and_then(|cfg| algo::sail::SailB::compile(rib, &cfg).map(boxed)),
            "sail_u" => sail_config("sail_u", spec)
                .and_then(|cfg| algo::sail::SailU::compile(rib, &cfg).map(boxed)),
            _ => Err(unknown(spec, Family::Ipv4)),
        }
    }
}

impl RegistryFamily for u128 {
    fn build(spec: &AlgoSpec, rib: &Rib<u128>) -> Result<Box<dyn Lookup<u128>>, BuildError> {
        if let Some(r) = build_common(spec, rib) {
            return r;
        }
        if let Some(r) = build_poptrie(spec, rib) {
            return r;
        }
        match spec.name.as_str() {
            "bplus" => build_bplus(spec, rib),
            "bsl_hybrid" => hybrid_config(spec)
                .and_then(|cfg| algo::bsl::hybrid::BslHybrid::compile(rib, &cfg).map(boxed)),
            _ => Err(unknown(spec, Family::Ipv6)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        let s: AlgoSpec = "poptrie:s=18,aggregate=off".parse().unwrap();
        assert_eq!(s.name, "poptrie");
        assert_eq!(s.get_u32("poptrie", "s", 16).unwrap(), 18);
        assert!(!s.get_bool("poptrie", "aggregate", true).unwrap());
        assert_eq!(s.to_string(), "poptrie:aggregate=off,s=18");
        assert!("poptrie:s".parse::<AlgoSpec>().is_err());
        assert!("".parse::<AlgoSpec>().is_err());
        assert!(s.check_options("poptrie", &["s"]).is_err());
    }

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
        let v4 = poptrie_config::<u32>(&AlgoSpec::named("poptrie")).unwrap().unwrap();
        let v6 = poptrie_config::<u128>(&AlgoSpec::named("poptrie")).unwrap().unwrap();
        assert_eq!((v4.fanout, v6.fanout), (false, true));
        let off = poptrie_config::<u128>(&"poptrie:fanout=off".parse().unwrap()).unwrap();
        assert!(!off.unwrap().fanout);
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
