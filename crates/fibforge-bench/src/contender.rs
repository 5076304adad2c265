//! A structure under test: ours (built through the registry) or a peer's, behind `Lookup`.

use fibforge::Lookup;

/// Who made a structure: `"fibforge"` or the peer's name.
pub const OURS: &str = "fibforge";

/// A built structure with what the report needs to know about it.
pub struct Contender<A> {
    /// The algorithm name: a registry spec, or the peer API name (`rte_lpm`, `bart`, ...).
    pub algo: String,
    /// `"fibforge"` or the peer (`dpdk`, `prefix-trie`, ...).
    pub implementation: String,
    /// The structure.
    pub fib: Box<dyn Lookup<A>>,
    /// `lookup` is a meaningful row of its own.
    pub single: bool,
    /// `lookup_batch` is a meaningful row of its own.
    pub batch: bool,
    /// Build time in milliseconds.
    pub compile_ms: f64,
    /// Bytes of the structure (`None`: not known).
    pub memory_bytes: Option<u64>,
    /// Remarks for the report (limits, selected code paths).
    pub note: Option<String>,
}
