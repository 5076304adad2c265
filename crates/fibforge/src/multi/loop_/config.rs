//! LOOP's build parameters ([`Config`], checked into a [`Shape`]) and storage counters
//! ([`LoopStats`]).

use super::layout::Shape;
use crate::addr::Address;
use crate::fib::BuildError;

/// LOOP build parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Bits per layer; `None` gives `[16, 8, 8]` for IPv4 and `[16, 8 × 14]` for IPv6.
    pub strides: Option<Vec<u32>>,
    /// Elements per group: 32, 64 (default) or 128.
    pub group: u32,
    /// Chunks with at most this many relative prefixes are sparse (`K`, default 3).
    pub sparse_limit: usize,
    /// Spare capacity reserved for updates, as a fraction of the built size (default 0.5).
    pub headroom: f64,
    /// Bitmap-compress the PortMapTable (§V-B, `S_pmt2`; default off: one access fewer).
    pub compress_pmt: bool,
    /// Optimization 1 of §III-E for announcements (default on; off to measure without it).
    pub optimization1: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            strides: None,
            group: 64,
            sparse_limit: 3,
            headroom: 0.5,
            compress_pmt: false,
            optimization1: true,
        }
    }
}

impl Config {
    pub(super) fn shape<A: Address>(&self) -> Result<Shape, BuildError> {
        let strides = self.strides.clone().unwrap_or_else(|| {
            let mut v = vec![16];
            v.extend(std::iter::repeat_n(8, (A::BITS as usize - 16) / 8));
            v
        });
        let bad = |reason: String| BuildError::BadOption {
            algo: "loop",
            option: "strides/group".into(),
            reason,
        };
        if ![32, 64, 128].contains(&self.group) {
            return Err(bad(format!("group size {} is not 32, 64 or 128", self.group)));
        }
        if strides.iter().sum::<u32>() != A::BITS
            || strides.is_empty()
            || !(1..=24).contains(&strides[0])
        {
            return Err(bad(format!(
                "strides {strides:?} must sum to {} with a root of 1..=24 bits",
                A::BITS
            )));
        }
        if let Some(s) = strides[1..].iter().find(|&&s| s > 16 || (1u32 << s) < self.group) {
            return Err(bad(format!(
                "lower-layer stride {s} must hold a whole group and be at most 16"
            )));
        }
        Ok(Shape::new(strides, self.group))
    }
}

/// Counters describing the structure (the paper's storage terms).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[doc(hidden)]
pub struct LoopStats {
    /// Table slots (PortMapTable width).
    pub vrfs: usize,
    /// Grouped chunks in lower layers.
    pub chunks: usize,
    /// Arena words in use (group structures and sparse chunks).
    pub arena_words: usize,
    /// Distinct composites in the PortMapTable.
    pub pmt_entries: usize,
    /// Bytes of the PortMapTable in use (`S_pmt`, or `S_pmt2` when compressed).
    pub pmt_bytes: usize,
    /// Group or root pointers modified by updates so far (Table III's "modified pointers").
    pub modified_pointers: u64,
}
