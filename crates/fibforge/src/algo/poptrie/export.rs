//! Export and import of the compiled arrays (`docs/reference/export-format.md`, algorithm `poptrie`).
//!
//! Both directions go through one *repack*: the trie below each direct-pointing entry is
//! copied into fresh vectors in exactly the order a compile emits it (a node's subtrees in
//! slot order, then its children block, then its leaf block; roots numbered in `dir` order).
//! So an export is canonical — the same routes give the same bytes whatever the update
//! history (no allocator gaps), `dir` width or fan-out — and an import places the arrays the
//! way a compile would (`place_core`: a 16-bit `dir` and root fan-out where a compile of the
//! default configuration would choose them, fresh allocators), so an imported structure takes
//! incremental updates like a compiled one.
//!
//! The file is checked entirely before the repack (`import_check.rs`): the repack then walks
//! a tree of bounded depth with no shared blocks, so it cannot loop or blow up.

use super::build::VecSink;
use super::import_check::{Checked, Leaves};
use super::layout::{DIRECT_LEAF, Node};
use super::record::{NODE_BYTES, P_AGGREGATE, P_LEAF, P_S, put_node};
use super::*;
use crate::export::file::{Algorithm, Array, Element, ExportError, ExportFile, PARAMS};

impl<A: super::Key> Poptrie<A> {
    /// The compiled arrays as an export file, in the canonical shape (32-bit `dir`, no
    /// fan-out, blocks packed in compile order); `hops` is left empty. The basic layout
    /// (`leafvec=off`) has no export: the file holds 24-byte `leafvec` records.
    #[doc(hidden)]
    pub fn to_export(&self) -> Result<ExportFile, ExportError> {
        self.fib.to_export(self.cfg.aggregate)
    }

    /// The structure an export file holds, every length and index checked first; it answers
    /// lookups and takes incremental updates (with the default configuration's `dir` width,
    /// fan-out and instruction set, and the file's `s`, aggregation and leaf width).
    #[doc(hidden)]
    pub fn from_export(file: &ExportFile) -> Result<Self, ExportError> {
        let checked = Checked::of::<A>(file)?;
        match checked.leaves {
            Leaves::U8(ref v) => import_core::<A, u8>(&checked, v, Cores::Tiny),
            Leaves::U16(ref v) => import_core::<A, u16>(&checked, v, Cores::Narrow),
            Leaves::U32(ref v) => import_core::<A, u32>(&checked, v, Cores::Wide),
        }
    }
}

impl<A: super::Key> Fib<A> {
    /// The arrays as an export file (see [`Poptrie::to_export`]); `aggregate` is the
    /// configuration updates would continue with (recorded in the file).
    pub(crate) fn to_export(&self, aggregate: bool) -> Result<ExportFile, ExportError> {
        with_leafvec_core!(&self.cores, c => export_core(c, aggregate), basic => {
            Err(ExportError::Unsupported(
                "poptrie with leafvec=off (the basic layout) cannot be exported: the export \
                 format holds leafvec records; build it with leafvec=on"
                    .into(),
            ))
        })
    }
}

/// The export of one leaf width.
fn export_core<A: Key, L: Leaf + Element>(
    c: &Core<A, L>,
    aggregate: bool,
) -> Result<ExportFile, ExportError> {
    let dir = (0..c.dir.len()).map(|i| c.direct(i));
    let (entries, mut sink) =
        repack_all(dir, |i| c.nodes.get(i), |i| c.leaves.get(i)).map_err(unsupported)?;
    let leaves = std::mem::take(&mut sink.leaves);
    let roots = sink.roots.len() as u32;
    let nodes = sink.into_nodes(roots);
    let mut bytes = Vec::with_capacity(nodes.len() * NODE_BYTES);
    nodes.iter().for_each(|n| put_node(n, &mut bytes));
    let mut params = [0; PARAMS];
    params[P_S] = c.s as u64;
    params[P_LEAF] = L::BYTES as u64;
    params[P_AGGREGATE] = aggregate as u64;
    Ok(ExportFile {
        algorithm: Algorithm::Poptrie,
        family: if A::BITS == 32 { 4 } else { 6 },
        params,
        arrays: vec![
            Array::of(&entries),
            Array { elem_bytes: NODE_BYTES as u32, bytes },
            Array::of(&leaves),
        ],
        hops: Vec::new(),
    })
}

fn unsupported(e: BuildError) -> ExportError {
    ExportError::Unsupported(e.to_string())
}

/// The structure of a checked file with leaves `leaves`, placed as a compile would.
fn import_core<A: Key, L: Leaf>(
    checked: &Checked,
    leaves: &[L],
    wrap: fn(Core<A, L>) -> Cores<A>,
) -> Result<Poptrie<A>, ExportError> {
    let cfg = Config { s: checked.s, aggregate: checked.aggregate, ..Config::for_family::<A>() };
    let invalid = |e: BuildError| ExportError::Invalid {
        algo: "poptrie",
        array: "nodes",
        what: e.to_string(),
    };
    let nodes = &checked.nodes;
    let dir = checked.dir.iter().copied();
    let (entries, sink) =
        repack_all(dir, |i| nodes[i as usize], |i| leaves[i as usize]).map_err(invalid)?;
    let (core, node_alloc, n_leaves) =
        place_core::<A, L, Node>(&cfg, &entries, sink, checked.max_raw).map_err(invalid)?;
    Poptrie::assemble(&cfg, wrap(core), node_alloc, n_leaves).map_err(unsupported)
}

/// The direct-pointing entries `dir` (wide encoding) with every root's tree repacked into a
/// fresh sink, roots numbered in `dir` order.
fn repack_all<L: Leaf>(
    dir: impl Iterator<Item = u32>,
    node: impl Fn(u32) -> Node,
    leaf: impl Fn(u32) -> L,
) -> Result<(Vec<u32>, VecSink<L, Node>), BuildError> {
    let mut sink = VecSink::new();
    let mut entries = Vec::with_capacity(dir.size_hint().0);
    for d in dir {
        let e = if d & DIRECT_LEAF != 0 {
            d
        } else {
            let root = repack(node(d), &node, &leaf, &mut sink)?;
            build::Sink::put_root(&mut sink, root)?
        };
        entries.push(e);
    }
    Ok((entries, sink))
}

/// Copies the subtree of `n` into `sink` in compile order (`build::emit`) and returns its
/// record with the new bases.
fn repack<L: Leaf>(
    n: Node,
    node: &impl Fn(u32) -> Node,
    leaf: &impl Fn(u32) -> L,
    sink: &mut VecSink<L, Node>,
) -> Result<Node, BuildError> {
    use build::Sink;
    let (nc, nl) = (n.children() as usize, n.leaf_count() as usize);
    let mut kids = [Node::default(); 64];
    for (i, k) in kids[..nc].iter_mut().enumerate() {
        *k = repack(node(n.base1 + i as u32), node, leaf, sink)?;
    }
    let mut leaves = [L::default(); 64];
    for (i, l) in leaves[..nl].iter_mut().enumerate() {
        *l = leaf(n.base0 + i as u32);
    }
    let base1 = if nc == 0 { 0 } else { sink.put_nodes(&kids[..nc])? };
    let base0 = if nl == 0 { 0 } else { sink.put_leaves(&leaves[..nl])? };
    Ok(Node { vector: n.vector, leafvec: n.leafvec, base0, base1 })
}
