//! What a trie node costs, in bytes: the memory model both dynamic programs minimise.
//!
//! A node of stride `s` is an array of `2^s` entries. With packed-array nodes (§4.3, "packed
//! arrays"; Tables 7 and 8), a node whose array splits into at most `max_segments` segments
//! is stored instead as one cache line of (start, entry) pairs. A *segment* is a region of the
//! array that the 1-bit trie below the node leaves undivided: the subtree of a node with no
//! children, a missing child, or a single entry at the node's full depth. Every segment holds
//! one value, so the number of distinct runs is at most the number of segments; the dynamic
//! program uses segments (computable from the trie shape), the builders pack by actual runs,
//! so a built trie is never larger than its plan says.

/// Bytes a trie entry and a packed node take.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct CostModel {
    /// Bytes per array entry (4 for leaf-pushed tries, 8 for tries with pointer and prefix).
    pub entry_bytes: u64,
    /// Packed-array nodes, if allowed.
    pub packed: Option<PackedCost>,
}

/// The size and capacity of a packed-array node.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct PackedCost {
    /// Bytes of one packed node (a cache line).
    pub bytes: u64,
    /// Most segments a packed node holds.
    pub max_segments: u64,
}

/// Saturating "infinite" cost: no plan of that shape exists (or it would not fit anyway).
#[doc(hidden)]
pub const INFEASIBLE: u64 = u64::MAX;

impl CostModel {
    /// Leaf-pushed trie entries (4 bytes: a pointer or a next hop); packed nodes are one
    /// 64-byte line with up to 8 segments (a header, 7 starts, 8 entries).
    pub const fn leaf_pushed(packed: bool) -> Self {
        CostModel {
            entry_bytes: 4,
            packed: if packed { Some(PackedCost { bytes: 64, max_segments: 8 }) } else { None },
        }
    }

    /// Non-leaf-pushed trie entries (8 bytes: a pointer and a next hop); packed nodes are one
    /// 64-byte line with up to 5 segments (a header, 4 starts, 5 entries).
    pub const fn non_leaf_pushed(packed: bool) -> Self {
        CostModel {
            entry_bytes: 8,
            packed: if packed { Some(PackedCost { bytes: 64, max_segments: 5 }) } else { None },
        }
    }

    /// The bytes of an array node of stride `s`.
    #[inline]
    pub fn array_bytes(&self, stride: u32) -> u64 {
        if stride >= 63 {
            return INFEASIBLE;
        }
        self.entry_bytes.saturating_mul(1u64 << stride)
    }

    /// The bytes of a node of stride `s` whose array has `segments` segments.
    #[inline]
    pub fn node_bytes(&self, stride: u32, segments: u64) -> u64 {
        let full = self.array_bytes(stride);
        match self.packed {
            Some(p) if segments <= p.max_segments && p.bytes < full => p.bytes,
            _ => full,
        }
    }

    /// True when a node with `segments` segments may still be packed.
    #[inline]
    pub fn may_pack(&self, segments: u64) -> bool {
        self.packed.is_some_and(|p| segments <= p.max_segments)
    }
}
