//! The checks of an imported Poptrie file (`docs/reference/export-format.md`), all done before anything
//! is built, so that a corrupted or hostile file gives [`ExportError::Invalid`] naming the
//! array and the entry, never an out-of-bounds read, a loop or a blow-up.
//!
//! In order: the header (family, `s`, leaf width, aggregation flag), the array count and
//! element sizes, `dir`'s length and node indices, every node record on its own (disjoint
//! vectors, children and leaf blocks in range, a leaf rank of at least 1), leaf values within
//! the structure's limit; then the reachable structure, frontier by frontier from the roots:
//! every node and leaf slot belongs to at most one block (a shared block or a cycle is an
//! error: the structure is a tree, as compiles and updates leave it) and no node lies deeper
//! than `⌈(W - s) / 6⌉` levels. Each node is expanded at most once, so the walk is linear in
//! the file's size whatever the file holds.

use super::layout::{DIRECT_LEAF, Key, MAX_DIRECT_RAW, MAX_NODES, Node, Record, STRIDE};
use super::record::{NODE_BYTES, P_AGGREGATE, P_LEAF, P_S, get_node};
use crate::export::file::{Algorithm, Array, ExportError, ExportFile};

/// A file that passed every check.
pub(super) struct Checked {
    pub(super) s: u32,
    pub(super) aggregate: bool,
    /// `2^s` entries, wide encoding.
    pub(super) dir: Vec<u32>,
    pub(super) nodes: Vec<Node>,
    pub(super) leaves: Leaves,
    /// The largest raw next hop in `dir` and `leaves`.
    pub(super) max_raw: u32,
}

/// The leaves in the file's width.
pub(super) enum Leaves {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

pub(super) fn invalid(array: &'static str, what: impl Into<String>) -> ExportError {
    ExportError::Invalid { algo: "poptrie", array, what: what.into() }
}

impl Checked {
    /// Checks `file` as an export of a Poptrie for family `A`.
    pub(super) fn of<A: Key>(file: &ExportFile) -> Result<Self, ExportError> {
        let (s, aggregate, leaf_bytes) = header::<A>(file)?;
        if file.arrays.len() != 3 {
            let what = format!("{} arrays (expected 3: dir, nodes, leaves)", file.arrays.len());
            return Err(invalid("arrays", what));
        }
        let [dir, nodes, leaves] = [0, 1, 2].map(|i| &file.arrays[i]);
        let dir = dir_entries(dir, s)?;
        let nodes = node_records(nodes)?;
        let (leaves, max_leaf) = leaf_values(leaves, leaf_bytes)?;
        let n_leaves = leaves.len();
        let max_raw = check_dir(&dir, nodes.len(), max_leaf, leaf_bytes)?;
        for (i, n) in nodes.iter().enumerate() {
            check_node(i, n, nodes.len(), n_leaves)?;
        }
        check_tree(&dir, &nodes, n_leaves, max_depth(A::BITS, s))?;
        Ok(Checked { s, aggregate, dir, nodes, leaves, max_raw })
    }
}

impl Leaves {
    fn len(&self) -> usize {
        match self {
            Leaves::U8(v) => v.len(),
            Leaves::U16(v) => v.len(),
            Leaves::U32(v) => v.len(),
        }
    }
}

/// `(s, aggregate, leaf bytes)` from the header.
fn header<A: Key>(file: &ExportFile) -> Result<(u32, bool, u32), ExportError> {
    if file.algorithm != Algorithm::Poptrie {
        return Err(invalid("header", format!("a {} file", file.algorithm.name())));
    }
    let family = if A::BITS == 32 { 4 } else { 6 };
    if file.family != family {
        return Err(invalid("header", format!("IPv{} file read as IPv{family}", file.family)));
    }
    let p = &file.params;
    if p[P_S] > super::MAX_S as u64 {
        return Err(invalid("header", format!("p[0] = s = {} (at most {})", p[P_S], super::MAX_S)));
    }
    if ![1, 2, 4].contains(&p[P_LEAF]) {
        return Err(invalid("header", format!("p[1] = leaf size {} (1, 2 or 4)", p[P_LEAF])));
    }
    if p[P_AGGREGATE] > 1 {
        return Err(invalid("header", format!("p[2] = aggregation {} (0 or 1)", p[P_AGGREGATE])));
    }
    Ok((p[P_S] as u32, p[P_AGGREGATE] == 1, p[P_LEAF] as u32))
}

fn elem_size(a: &Array, array: &'static str, want: u32) -> Result<(), ExportError> {
    if a.elem_bytes != want {
        return Err(invalid(array, format!("element size {} (expected {want})", a.elem_bytes)));
    }
    Ok(())
}

fn dir_entries(a: &Array, s: u32) -> Result<Vec<u32>, ExportError> {
    elem_size(a, "dir", 4)?;
    if a.len() != 1 << s {
        return Err(invalid("dir", format!("{} entries (expected 2^{s})", a.len())));
    }
    a.values::<u32>("dir")
}

fn node_records(a: &Array) -> Result<Vec<Node>, ExportError> {
    elem_size(a, "nodes", NODE_BYTES as u32)?;
    if a.len() > MAX_NODES as usize {
        return Err(invalid("nodes", format!("{} records (at most {MAX_NODES})", a.len())));
    }
    Ok(a.bytes.chunks_exact(NODE_BYTES).map(get_node).collect())
}

/// The leaves and the largest of them.
fn leaf_values(a: &Array, bytes: u32) -> Result<(Leaves, u32), ExportError> {
    elem_size(a, "leaves", bytes)?;
    if a.len() > u32::MAX as usize {
        return Err(invalid("leaves", format!("{} leaves (at most {})", a.len(), u32::MAX)));
    }
    let leaves = match bytes {
        1 => Leaves::U8(a.values("leaves")?),
        2 => Leaves::U16(a.values("leaves")?),
        _ => Leaves::U32(a.values("leaves")?),
    };
    let (max, at) = match &leaves {
        Leaves::U8(v) => max_at(v.iter().map(|&x| x as u32)),
        Leaves::U16(v) => max_at(v.iter().map(|&x| x as u32)),
        Leaves::U32(v) => max_at(v.iter().copied()),
    };
    if max > MAX_DIRECT_RAW {
        return Err(invalid("leaves", format!("leaf {at}: next hop {max} above {MAX_DIRECT_RAW}")));
    }
    Ok((leaves, max))
}

/// The largest value and its index (0 and 0 when empty).
pub(super) fn max_at(values: impl Iterator<Item = u32>) -> (u32, usize) {
    values.enumerate().fold((0, 0), |(m, at), (i, v)| if v > m { (v, i) } else { (m, at) })
}

/// Checks every node index of `dir`, and that its next hops fit the leaf width (a compile
/// picks the width that holds them all); returns the largest next hop of the structure.
pub(super) fn check_dir(
    dir: &[u32],
    nodes: usize,
    max_leaf: u32,
    bytes: u32,
) -> Result<u32, ExportError> {
    let width_max = if bytes == 4 { MAX_DIRECT_RAW } else { (1u32 << (8 * bytes)) - 1 };
    let mut max = max_leaf;
    for (i, &d) in dir.iter().enumerate() {
        if d & DIRECT_LEAF == 0 && d as usize >= nodes {
            return Err(invalid("dir", format!("entry {i}: node {d} of {nodes}")));
        }
        let raw = d & !DIRECT_LEAF;
        if d & DIRECT_LEAF != 0 && raw > width_max {
            let what = format!("entry {i}: next hop {raw} wider than the {bytes}-byte leaves");
            return Err(invalid("dir", what));
        }
        if d & DIRECT_LEAF != 0 {
            max = max.max(raw);
        }
    }
    Ok(max)
}

/// Checks one node record on its own.
pub(super) fn check_node(
    i: usize,
    n: &Node,
    nodes: usize,
    leaves: usize,
) -> Result<(), ExportError> {
    let bad = |what: String| Err(invalid("nodes", format!("node {i}: {what}")));
    if n.vector & n.leafvec != 0 {
        return bad(format!("vector {:#x} and leafvec {:#x} overlap", n.vector, n.leafvec));
    }
    if n.base1 as u64 + n.children() as u64 > nodes as u64 {
        return bad(format!("children {}+{} beyond {nodes} nodes", n.base1, n.children()));
    }
    if n.base0 as u64 + n.leaf_count() as u64 > leaves as u64 {
        return bad(format!("leaves {}+{} beyond {leaves} leaves", n.base0, n.leaf_count()));
    }
    let first_leaf = (!n.vector).trailing_zeros();
    if n.vector != u64::MAX && n.leafvec & (1 << first_leaf) == 0 {
        return bad(format!("first leaf slot {first_leaf} without its leafvec bit (rank 0)"));
    }
    Ok(())
}

/// The most node levels below `dir` an address of `bits` bits allows: `⌈(bits - s) / 6⌉`.
pub(super) fn max_depth(bits: u32, s: u32) -> u32 {
    (bits - s).div_ceil(STRIDE)
}

/// One bit per slot, to claim slots for blocks.
struct Claims {
    bits: Vec<u64>,
    array: &'static str,
}

impl Claims {
    fn new(n: usize, array: &'static str) -> Self {
        Claims { bits: vec![0; n.div_ceil(64)], array }
    }

    /// Claims `start..start + len` (in range: checked per node; at most 64 slots, a node's
    /// block) for `owner` (named only in an error: formatting a name per node would cost
    /// more than the check). Whole words at a time: two at most.
    fn claim(
        &mut self,
        start: u32,
        len: u32,
        owner: impl Fn() -> String,
    ) -> Result<(), ExportError> {
        debug_assert!(len <= 64);
        let (mut at, end) = (start as usize, start as usize + len as usize);
        while at < end {
            let (w, bit) = (at / 64, at % 64);
            let n = (end - at).min(64 - bit);
            let mask = (u64::MAX >> (64 - n)) << bit;
            if self.bits[w] & mask != 0 {
                let i = w * 64 + (self.bits[w] & mask).trailing_zeros() as usize;
                let what =
                    format!("{} {i} is in two blocks ({} reaches it again)", self.array, owner());
                return Err(invalid(self.array, what));
            }
            self.bits[w] |= mask;
            at += n;
        }
        Ok(())
    }
}

/// Walks the structure from each root, depth first: no slot in two blocks (so no sharing and
/// no cycle), no node deeper than `depth` levels. Depth first, so the walk holds at most 64
/// nodes per level (a breadth-first frontier holds a whole level: hundreds of KiB that a
/// mapped snapshot's open would leave in each process's heap).
pub(super) fn check_tree(
    dir: &[u32],
    nodes: &[Node],
    leaves: usize,
    depth: u32,
) -> Result<(), ExportError> {
    let mut node_claims = Claims::new(nodes.len(), "nodes");
    let mut leaf_claims = Claims::new(leaves, "leaves");
    let mut stack: Vec<(u32, u32)> = Vec::with_capacity(64 * depth as usize + 1);
    for (e, &d) in dir.iter().enumerate() {
        if d & DIRECT_LEAF != 0 {
            continue;
        }
        node_claims.claim(d, 1, || format!("dir entry {e}"))?;
        stack.push((d, 1));
        while let Some((i, level)) = stack.pop() {
            if level > depth {
                let what = format!("node {i} at depth {level} (at most {depth} for this s)");
                return Err(invalid("nodes", what));
            }
            let n = &nodes[i as usize];
            let owner = || format!("node {i}");
            node_claims.claim(n.base1, n.children(), owner)?;
            leaf_claims.claim(n.base0, n.leaf_count(), owner)?;
            stack.extend((n.base1..n.base1 + n.children()).map(|c| (c, level + 1)));
        }
    }
    Ok(())
}
