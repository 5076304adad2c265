//! Configuration and stride plans: which stride every trie node gets.

use crate::addr::Address;
use crate::algo::cpe::{
    CostModel, DepthProfile, FixedStrideDp, Levels, MAX_STRIDE, OneBitTrie, VarPlan, VarStrideDp,
};
use crate::fib::BuildError;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::time::{Duration, Instant};

/// Default level bound for IPv4: the paper's 4-level tries.
#[doc(hidden)]
pub const DEFAULT_IPV4_LEVELS: u32 = 4;
/// Default level bound for IPv6. Routes reach /128 and every level holds at most
/// [`MAX_STRIDE`] bits, so an IPv6 trie needs at least 6 levels, and sparse deep paths make
/// few levels expensive: on tier1-2024-v6 (160,147 routes) the variable-stride program gives
/// 36 MiB leaf-pushed with 8 levels, 4.8 MiB with 12, 3.6 MiB with 16 and 3.3 MiB with 32;
/// the fixed-stride one 26 MiB with 12 and 8.1 MiB with 16. 16 levels is the bound; lookups
/// for the common /48 and shorter routes take far fewer in variable-stride tries.
#[doc(hidden)]
pub const DEFAULT_IPV6_LEVELS: u32 = 16;
/// Default largest stride of the updatable (non-leaf-pushed) tries: the paper's 17 bits,
/// which bounds a node rebuild on insert or delete to 2^17 entries.
#[doc(hidden)]
pub const DEFAULT_UPDATABLE_MAX_STRIDE: u32 = 17;

/// How to build an expanded trie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Most levels; `None`: [`DEFAULT_IPV4_LEVELS`] or [`DEFAULT_IPV6_LEVELS`].
    pub levels: Option<u32>,
    /// Per-node strides (variable-stride program) instead of per-level ones.
    pub variable: bool,
    /// Store sparse nodes as packed arrays (one cache line).
    pub packed: bool,
    /// Largest stride; `None`: [`MAX_STRIDE`] for leaf-pushed tries,
    /// [`DEFAULT_UPDATABLE_MAX_STRIDE`] for updatable ones.
    pub max_stride: Option<u32>,
    /// The leaf-pushed trie (`leafpush=on`, the default, fast) rather than the updatable one
    /// (read by the registry, which picks the type; the tries themselves ignore it).
    pub leaf_pushed: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { levels: None, variable: true, packed: false, max_stride: None, leaf_pushed: true }
    }
}

impl Config {
    /// The level bound for addresses of type `A`.
    #[doc(hidden)]
    pub fn levels_for<A: Address>(&self) -> u32 {
        self.levels.unwrap_or(if A::BITS == 32 { DEFAULT_IPV4_LEVELS } else { DEFAULT_IPV6_LEVELS })
    }
}

/// The stride of every node: one per level, or one per node.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub enum StridePlan<A: Address> {
    /// A fixed-stride trie: its level ends and the matching strides.
    Fixed {
        /// The level ends (prefix lengths).
        levels: Levels,
        /// The stride of each level.
        strides: Vec<u32>,
    },
    /// Per-node strides from the variable-stride program.
    Variable(VarPlan<A>),
}

impl<A: Address> StridePlan<A> {
    /// The planned stride of the node whose path is `node`, at `level` (root = 0).
    pub fn stride(&self, node: &Prefix<A>, level: usize) -> Option<u32> {
        match self {
            StridePlan::Fixed { strides, .. } => strides.get(level).copied(),
            StridePlan::Variable(v) => v.stride_of(node),
        }
    }
}

/// A plan with what the dynamic program predicted and how long it took.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct Plan<A: Address> {
    /// The strides.
    pub strides: StridePlan<A>,
    /// The level bound.
    pub levels: u32,
    /// Bytes of node arrays the program predicts.
    pub predicted_bytes: u64,
    /// Time of the dynamic program (and of the 1-bit trie it runs on).
    pub dp_time: Duration,
}

/// Runs the dynamic program `cfg` asks for under `model`.
#[doc(hidden)]
pub fn make_plan<A: Address>(
    rib: &Rib<A>,
    cfg: &Config,
    model: CostModel,
    max_stride: u32,
) -> Result<Plan<A>, BuildError> {
    let levels = cfg.levels_for::<A>();
    // More levels than address bits cannot help (every stride is at least 1 bit), and the
    // dynamic programs' time and tables grow with the level count.
    if levels == 0 || levels > A::BITS || max_stride == 0 || max_stride > MAX_STRIDE {
        return Err(BuildError::BadOption {
            algo: "multibit",
            option: format!("levels={levels},maxstride={max_stride}"),
            reason: format!("levels must be in 1..={} and maxstride in 1..={MAX_STRIDE}", A::BITS),
        });
    }
    let start = Instant::now();
    let (strides, predicted_bytes) = if cfg.variable {
        let trie = OneBitTrie::new(rib);
        let plan = VarStrideDp::run(&trie, levels, model, max_stride).plan(&trie, levels)?;
        let bytes = plan.bytes();
        (StridePlan::Variable(plan), bytes)
    } else {
        let prof = DepthProfile::of(rib);
        let dp = FixedStrideDp::run(&prof, levels, model.entry_bytes, max_stride);
        let found = dp.levels(levels).cloned().zip(dp.bytes(levels));
        let (l, bytes) = found.ok_or_else(|| BuildError::Unsupported {
            algo: "cpe_fixed",
            reason: format!(
                "no fixed-stride trie of {levels} levels with strides <= {max_stride} reaches /{}",
                prof.depth
            ),
        })?;
        (StridePlan::Fixed { strides: l.strides(), levels: l }, bytes)
    };
    Ok(Plan { strides, levels, predicted_bytes, dp_time: start.elapsed() })
}

/// Fails when a next hop's raw id exceeds `max_raw` (the entry encoding's limit).
pub(crate) fn check_hops<A: Address>(
    rib: &Rib<A>,
    max_raw: u32,
    algo: &'static str,
) -> Result<(), BuildError> {
    match rib.iter().map(|(_, h)| h.raw()).max() {
        Some(raw) if raw > max_raw => Err(BuildError::LimitExceeded {
            algo,
            what: "next-hop id",
            limit: max_raw as u64,
            found: raw as u64,
        }),
        _ => Ok(()),
    }
}

impl Config {
    /// The configuration `spec` names (`cpe_fixed` or `cpe_var`: the strides per level or per
    /// node) with options `levels=K`, `packed=on|off`, `maxstride=S`, and whether it asks for
    /// the leaf-pushed trie (`leafpush=on`, the default) or the updatable one.
    #[doc(hidden)]
    pub fn from_spec(spec: &crate::spec::AlgoSpec) -> Result<Self, BuildError> {
        let variable = spec.name == "cpe_var";
        let name = if variable { "cpe_var" } else { "cpe_fixed" };
        spec.check_options(name, &["levels", "leafpush", "packed", "maxstride"])?;
        let optional = |key| spec.options.get(key).map(|_| spec.get_u32(name, key, 0)).transpose();
        let cfg = Config {
            levels: optional("levels")?,
            variable,
            packed: spec.get_bool(name, "packed", false)?,
            max_stride: optional("maxstride")?,
            leaf_pushed: spec.get_bool(name, "leafpush", true)?,
        };
        Ok(cfg)
    }
}
