//! Node layouts for the two strides, and the bit arithmetic shared by lookup, build and
//! update.
//!
//! A node covers the `S` address bits after its depth `d`:
//! - the *internal* bitmap marks the prefixes of lengths `d..d+S` stored in the node. The
//!   prefix of `l` bits (`0 <= l < S`) with value `v` (the `l` bits after depth `d`) is bit
//!   `(1 << l) | v` ("heap order": bit 1 is the node's own prefix, bits 2–3 its two halves,
//!   and so on; bit 0 is unused). Longer prefixes have higher positions.
//! - the *external* bitmap marks bit `c` when the child for the next `S` bits equal to `c`
//!   exists.
//!
//! Example (S = 4): the node at depth 8 under 10.0.0.0/8 holding 10.0.0.0/8 (l = 0: bit 1)
//! and 10.64.0.0/10 (l = 2, v = 0b01: bit `(1 << 2) | 1` = 5). Address 10.85.x.x has the chunk
//! `0b0101` (85 = `0101_0101`); its path mask is bits {1, 2 | 0, 4 | 1, 8 | 2} = {1, 2, 5, 10},
//! so `internal & path` = {1, 5} and the longest match is bit 5, 10.64.0.0/10, whose result
//! is the second of the node (one set bit below bit 5). A /12 is not in this node: it is the
//! l = 0 prefix of the child at depth 12.

/// A node: two bitmaps, the index of its first child and of its first result.
#[doc(hidden)]
pub trait NodeLayout: Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static {
    /// Address bits consumed per node.
    const STRIDE: u32;
    /// Name used in errors and reports.
    const NAME: &'static str;
    /// A node from its parts (bitmaps must fit the stride).
    fn new(internal: u64, external: u64, child: u32, result: u32) -> Self;
    /// Prefixes stored in the node, heap-ordered.
    fn internal(&self) -> u64;
    /// Children that exist, by chunk value.
    fn external(&self) -> u64;
    /// Index of the first child in the node array.
    fn child(&self) -> u32;
    /// Index of the first result in the result array.
    fn result(&self) -> u32;
    /// The bits of the internal bitmap on the path of `chunk`: for every `l < STRIDE`,
    /// bit `(1 << l) | chunk >> (STRIDE - l)`.
    fn path_mask(chunk: u64) -> u64;
}

/// Builds the path masks of every chunk of `stride` bits (see [`NodeLayout::path_mask`]).
const fn path_masks<const N: usize>(stride: u32) -> [u64; N] {
    let mut table = [0u64; N];
    let mut chunk = 0;
    while chunk < N {
        let mut l = 0;
        while l < stride {
            table[chunk] |= 1 << ((1 << l) | (chunk >> (stride - l)));
            l += 1;
        }
        chunk += 1;
    }
    table
}

static PATHS4: [u64; 16] = path_masks::<16>(4);
static PATHS6: [u64; 64] = path_masks::<64>(6);

/// A 16-ary node (stride 4): 15 internal and 16 external bits in one word, 12 bytes.
#[derive(Copy, Clone, Default, PartialEq, Eq, Debug)]
#[doc(hidden)]
pub struct Node4 {
    /// `external << 16 | internal`.
    bitmaps: u32,
    child: u32,
    result: u32,
}

impl NodeLayout for Node4 {
    const STRIDE: u32 = 4;
    const NAME: &'static str = "treebitmap4";
    #[inline(always)]
    fn new(internal: u64, external: u64, child: u32, result: u32) -> Self {
        debug_assert!(internal < 1 << 16 && internal & 1 == 0 && external < 1 << 16);
        Node4 { bitmaps: ((external as u32) << 16) | internal as u32, child, result }
    }
    #[inline(always)]
    fn internal(&self) -> u64 {
        (self.bitmaps & 0xFFFF) as u64
    }
    #[inline(always)]
    fn external(&self) -> u64 {
        (self.bitmaps >> 16) as u64
    }
    #[inline(always)]
    fn child(&self) -> u32 {
        self.child
    }
    #[inline(always)]
    fn result(&self) -> u32 {
        self.result
    }
    #[inline(always)]
    fn path_mask(chunk: u64) -> u64 {
        PATHS4[chunk as usize & 15]
    }
}

/// A 64-ary node (stride 6): 63 internal and 64 external bits, 24 bytes.
#[derive(Copy, Clone, Default, PartialEq, Eq, Debug)]
#[doc(hidden)]
pub struct Node6 {
    internal: u64,
    external: u64,
    child: u32,
    result: u32,
}

impl NodeLayout for Node6 {
    const STRIDE: u32 = 6;
    const NAME: &'static str = "treebitmap6";
    #[inline(always)]
    fn new(internal: u64, external: u64, child: u32, result: u32) -> Self {
        debug_assert!(internal & 1 == 0);
        Node6 { internal, external, child, result }
    }
    #[inline(always)]
    fn internal(&self) -> u64 {
        self.internal
    }
    #[inline(always)]
    fn external(&self) -> u64 {
        self.external
    }
    #[inline(always)]
    fn child(&self) -> u32 {
        self.child
    }
    #[inline(always)]
    fn result(&self) -> u32 {
        self.result
    }
    #[inline(always)]
    fn path_mask(chunk: u64) -> u64 {
        PATHS6[chunk as usize & 63]
    }
}

/// Set bits of `bitmap` below bit `bit` (`bit < 64`): the rank of `bit` among them.
#[inline(always)]
pub(super) fn rank(bitmap: u64, bit: u32) -> u32 {
    (bitmap & ((1u64 << bit) - 1)).count_ones()
}

/// The internal-bitmap position of a prefix of `l < STRIDE` bits with value `v`.
#[inline(always)]
pub(super) fn position(l: u32, v: u64) -> u32 {
    (1 << l) | v as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_masks_follow_the_heap_order() {
        // chunk 0b0101 (S = 4): l=0 → 1, l=1 → 2|0 = 2, l=2 → 4|1 = 5, l=3 → 8|2 = 10.
        assert_eq!(Node4::path_mask(0b0101), (1 << 1) | (1 << 2) | (1 << 5) | (1 << 10));
        assert_eq!(Node6::path_mask(0).count_ones(), 6);
        assert_eq!(
            Node6::path_mask(63),
            (1 << 1) | (1 << 3) | (1 << 7) | (1 << 15) | (1 << 31) | (1 << 63)
        );
        assert_eq!(rank(0b1011, 3), 2);
        assert_eq!(rank(u64::MAX, 63), 63);
        assert_eq!(position(2, 0b11), 7);
    }

    #[test]
    fn nodes_round_trip() {
        let n = Node4::new(0xFFFE, 0xFFFF, 7, 9);
        assert_eq!((n.internal(), n.external(), n.child(), n.result()), (0xFFFE, 0xFFFF, 7, 9));
        let n = Node6::new(u64::MAX - 1, u64::MAX, 1, 2);
        assert_eq!((n.internal(), n.external()), (u64::MAX - 1, u64::MAX));
        assert_eq!(std::mem::size_of::<Node4>(), 12);
        assert_eq!(std::mem::size_of::<Node6>(), 24);
    }
}
