//! Peers: other implementations measured in the same run, on the same table and addresses,
//! each cross-checked against the oracle before timing.
//!
//! | peer | rows (`algo`) | how |
//! |---|---|---|
//! | `dpdk` | `rte_lpm`, `rte_lpm_x4`, `rte_fib`, `rte_fib_avx512`, `rte_lpm6`, `rte_fib6`, `rte_fib6_avx512` | DPDK 22.11 through a C shim (`csrc/dpdk_shim.c`), when `pkg-config` finds `libdpdk` at build time |
//! | `bart` | `bart` | Go `github.com/gaissmai/bart` in a helper program (`tools/bart-peer`), when `go` is installed |
//! | `prefix-trie` | `prefix_trie` | the `prefix-trie` crate (feature `peer-prefix-trie`) |
//! | `ip_network_table` | `ip_network_table` | the `ip_network_table` crate (feature `peer-ip-network-table`) |
//! | `poptrie` | `poptrie_crate` | the `poptrie` crate (feature `peer-poptrie`) |
//! | `treebitmap` | `treebitmap` | `IpLookupTable` of the `ip_network_table-deps-treebitmap` crate, the `treebitmap` fork `ip_network_table` uses (feature `peer-treebitmap`) |
//!
//! A peer that is not built in or not installed yields rows with status `not_available` and
//! the reason; it is never silently dropped.

pub mod bart;
#[cfg(have_dpdk)]
pub mod dpdk;
pub mod dpdk_plan;
pub mod rust_crates;

use crate::family::BenchAddress;
use crate::report::PeerStatus;
use fibforge::{Lookup, Rib};
use std::fmt;
use std::str::FromStr;

/// A peer implementation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Peer {
    /// DPDK 22.11 `rte_lpm`, `rte_fib`, `rte_lpm6`, `rte_fib6`.
    Dpdk,
    /// Go `gaissmai/bart`.
    Bart,
    /// Rust `prefix-trie`.
    PrefixTrie,
    /// Rust `ip_network_table`.
    IpNetworkTable,
    /// Rust `poptrie`.
    PoptrieCrate,
    /// Rust `treebitmap` (the `ip_network_table-deps-treebitmap` fork).
    TreeBitmap,
}

impl Peer {
    /// Every peer, in report order.
    pub const ALL: [Peer; 6] = [
        Peer::Dpdk,
        Peer::Bart,
        Peer::PrefixTrie,
        Peer::IpNetworkTable,
        Peer::PoptrieCrate,
        Peer::TreeBitmap,
    ];

    /// The name used on the command line and in the `impl` field.
    pub fn name(self) -> &'static str {
        match self {
            Peer::Dpdk => "dpdk",
            Peer::Bart => "bart",
            Peer::PrefixTrie => "prefix-trie",
            Peer::IpNetworkTable => "ip_network_table",
            Peer::PoptrieCrate => "poptrie",
            Peer::TreeBitmap => "treebitmap",
        }
    }

    /// Availability in this build and on this machine.
    pub fn status(self) -> PeerStatus {
        let (available, detail) = match self.availability() {
            Ok(v) => (true, v),
            Err(why) => (false, why),
        };
        PeerStatus { name: self.name().into(), available, detail }
    }

    /// `Ok(version)` or `Err(why not)`.
    pub fn availability(self) -> Result<String, String> {
        match self {
            Peer::Dpdk => dpdk_availability(),
            Peer::Bart => bart_availability(),
            Peer::PrefixTrie => rust_crates::availability(self),
            Peer::IpNetworkTable => rust_crates::availability(self),
            Peer::PoptrieCrate => rust_crates::availability(self),
            Peer::TreeBitmap => rust_crates::availability(self),
        }
    }
}

impl fmt::Display for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Peer {
    type Err = String;
    fn from_str(s: &str) -> Result<Peer, String> {
        let s = s.trim();
        Peer::ALL
            .into_iter()
            .find(|p| p.name() == s || (s == "prefix_trie" && *p == Peer::PrefixTrie))
            .ok_or_else(|| {
                let names: Vec<_> = Peer::ALL.iter().map(|p| p.name()).collect();
                format!("unknown peer '{s}' (known: {}, all, none)", names.join(", "))
            })
    }
}

/// Parses `all`, `none` or a comma-separated list of peers.
pub fn parse_list(list: &str) -> Result<Vec<Peer>, String> {
    match list.trim() {
        "all" => Ok(Peer::ALL.to_vec()),
        "none" | "" => Ok(Vec::new()),
        l => l.split(',').map(str::parse).collect(),
    }
}

/// A built peer structure.
pub struct Built<A> {
    /// The structure behind the common lookup interface.
    pub fib: Box<dyn Lookup<A>>,
    /// Its bytes when the peer can say; `None`: measure the heap growth of the build.
    pub memory: Option<u64>,
    /// Remarks (limits, selected code path).
    pub note: Option<String>,
    /// Build time when the structure was built earlier for another row and is reused
    /// (`None`: the time of the build call).
    pub compile_ms: Option<f64>,
}

/// One row family of a peer: an API (`rte_lpm_x4`) with the call modes it stands for.
pub struct Variant<A: fibforge::Address> {
    /// The peer.
    pub peer: Peer,
    /// The API name used as `algo`.
    pub algo: &'static str,
    /// Its `lookup` is measured as a single-mode row.
    pub single: bool,
    /// Its `lookup_batch` is measured as a batch-mode row.
    pub batch: bool,
    /// Builds it from the routes.
    pub build: fn(&Rib<A>) -> Result<Built<A>, PeerError>,
}

/// Why a peer variant was not built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerError {
    /// The peer cannot do it here: a structural limit of the peer, a CPU feature or library
    /// build option missing. The row says "not available" with the reason.
    NotAvailable(String),
    /// The peer failed unexpectedly. The row says "error".
    Failed(String),
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerError::NotAvailable(why) => write!(f, "not available: {why}"),
            PeerError::Failed(why) => f.write_str(why),
        }
    }
}

/// Families with in-process peers.
pub trait PeerFamily: BenchAddress {
    /// The variants of `peer` for this family: `Err(reason)` when not available, an empty list
    /// when the peer does not handle this family or runs out of process.
    fn variants(peer: Peer) -> Result<Vec<Variant<Self>>, String>;
}

impl PeerFamily for u32 {
    fn variants(peer: Peer) -> Result<Vec<Variant<u32>>, String> {
        match peer {
            Peer::Dpdk => dpdk_variants_v4(),
            Peer::Bart => Ok(Vec::new()),
            _ => rust_crates::variants_v4(peer),
        }
    }
}

impl PeerFamily for u128 {
    fn variants(peer: Peer) -> Result<Vec<Variant<u128>>, String> {
        match peer {
            Peer::Dpdk => dpdk_variants_v6(),
            Peer::Bart => Ok(Vec::new()),
            _ => rust_crates::variants_v6(peer),
        }
    }
}

#[cfg(have_dpdk)]
fn dpdk_availability() -> Result<String, String> {
    dpdk::availability()
}

#[cfg(not(have_dpdk))]
fn dpdk_availability() -> Result<String, String> {
    Err(format!("not built in: {}", env!("FIBFORGE_DPDK_MISSING")))
}

#[cfg(have_dpdk)]
fn dpdk_variants_v4() -> Result<Vec<Variant<u32>>, String> {
    dpdk::variants_v4()
}

#[cfg(have_dpdk)]
fn dpdk_variants_v6() -> Result<Vec<Variant<u128>>, String> {
    dpdk::variants_v6()
}

#[cfg(not(have_dpdk))]
fn dpdk_variants_v4() -> Result<Vec<Variant<u32>>, String> {
    dpdk_availability().map(|_| Vec::new())
}

#[cfg(not(have_dpdk))]
fn dpdk_variants_v6() -> Result<Vec<Variant<u128>>, String> {
    dpdk_availability().map(|_| Vec::new())
}

fn bart_availability() -> Result<String, String> {
    bart::availability()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse() {
        assert_eq!(parse_list("all").unwrap(), Peer::ALL.to_vec());
        assert_eq!(Peer::ALL.len(), 6);
        assert!(parse_list("none").unwrap().is_empty());
        assert_eq!(parse_list("dpdk,bart").unwrap(), vec![Peer::Dpdk, Peer::Bart]);
        assert_eq!(
            parse_list("treebitmap,prefix_trie").unwrap(),
            vec![Peer::TreeBitmap, Peer::PrefixTrie]
        );
        assert!(parse_list("dpdk,nope").is_err());
    }
}
