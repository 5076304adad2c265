//! A read-only Poptrie whose arrays lie in a [`Region`] (a snapshot file mapped into memory):
//! the export layout (`export.rs`: 32-bit `dir` entries, 24-byte `leafvec` records, no root
//! fan-out), checked exactly as an import is (`import_check.rs`: every index in range, no
//! shared block or cycle, no walk deeper than the address) and then walked where it lies,
//! neither copied nor repacked, so processes that map one file share its pages.
//!
//! The structure has no writer: it is a [`Fib`] (what readers walk), never inside a
//! [`Poptrie`](super::Poptrie), so nothing can write into the mapping.

use super::dir::DirTable;
use super::import_check::{check_dir, check_node, check_tree, invalid, max_depth};
use super::layout::{Arena, Core, DIRECT_LEAF, Key, Leaf, MAX_DIRECT_RAW, MAX_NODES, Node};
use super::{Cores, Fib, MAX_S};
use crate::cpu::Isa;
use crate::export::file::ExportError;
use crate::mapped::{Plain, Region, Slab};
use std::ops::Range;
use std::sync::Arc;

/// What next hops a mapped structure may answer (the table above it knows).
pub(crate) trait AcceptHop {
    /// True when raw next hop `raw` (not 0) is one the table can read: called for every leaf,
    /// so plain arithmetic that the compiler can vectorise.
    fn accepts(&self, raw: u32) -> bool;
    /// Why `raw` is refused (for the error).
    fn why(&self, raw: u32) -> String;
}

/// Where a Poptrie's arrays lie in a region (byte ranges) and how to read them.
#[derive(Clone, Debug)]
pub(crate) struct MappedArrays {
    /// Direct-pointing bits.
    pub(crate) s: u32,
    /// Leaf width in bytes (1, 2 or 4).
    pub(crate) leaf_bytes: u32,
    /// `2^s` wide entries (`u32`).
    pub(crate) dir: Range<usize>,
    /// 24-byte node records.
    pub(crate) nodes: Range<usize>,
    /// Leaves of `leaf_bytes` each.
    pub(crate) leaves: Range<usize>,
}

impl<A: Key> Fib<A> {
    /// The structure of `arrays` in `region`, every length and index checked first, and
    /// every raw next hop it can answer (not 0) accepted by `hop` (an [`AcceptHop`]). Lookups
    /// walk the region's bytes in place.
    pub(crate) fn in_region(
        region: &Arc<Region>,
        arrays: &MappedArrays,
        hop: &impl AcceptHop,
    ) -> Result<Self, ExportError> {
        if arrays.s > MAX_S {
            return Err(invalid("header", format!("s = {} (at most {MAX_S})", arrays.s)));
        }
        let cores = match arrays.leaf_bytes {
            1 => Cores::Tiny(mapped_core::<A, u8>(region, arrays, hop)?),
            2 => Cores::Narrow(mapped_core::<A, u16>(region, arrays, hop)?),
            4 => Cores::Wide(mapped_core::<A, u32>(region, arrays, hop)?),
            n => return Err(invalid("header", format!("leaf size {n} (1, 2 or 4)"))),
        };
        let isa = Isa::resolve("poptrie", None).map_err(|e| invalid("header", e.to_string()))?;
        Ok(Fib::new(cores, isa))
    }
}

/// The elements of `range`, or an error naming `array` when they are not whole aligned
/// elements of the region.
fn slab<T: Plain>(
    region: &Arc<Region>,
    range: &Range<usize>,
    array: &'static str,
) -> Result<Slab<T>, ExportError> {
    Slab::in_region(region, range.clone()).ok_or_else(|| {
        let what = format!("bytes {range:?} are not aligned {}-byte elements", size_of::<T>());
        invalid(array, what)
    })
}

/// The checked [`Core`] of leaf type `L`.
fn mapped_core<A: Key, L: Leaf + Plain>(
    region: &Arc<Region>,
    arrays: &MappedArrays,
    hop: &impl AcceptHop,
) -> Result<Core<A, L>, ExportError> {
    let s = arrays.s;
    let dir: Slab<u32> = slab(region, &arrays.dir, "dir")?;
    if dir.len() != 1 << s {
        return Err(invalid("dir", format!("{} entries (expected 2^{s})", dir.len())));
    }
    let nodes: Slab<Node> = slab(region, &arrays.nodes, "nodes")?;
    if nodes.len() > MAX_NODES as usize {
        return Err(invalid("nodes", format!("{} records (at most {MAX_NODES})", nodes.len())));
    }
    let leaves: Slab<L> = slab(region, &arrays.leaves, "leaves")?;
    let max_leaf = check_hops(leaves.iter().map(|l| l.raw()), hop, "leaves", "leaf")?;
    check_dir(&dir, nodes.len(), max_leaf, arrays.leaf_bytes)?;
    let direct = dir.iter().map(|&d| if d & DIRECT_LEAF != 0 { d & !DIRECT_LEAF } else { 0 });
    check_hops(direct, hop, "dir", "entry")?;
    for (i, n) in nodes.iter().enumerate() {
        check_node(i, n, nodes.len(), leaves.len())?;
    }
    check_tree(&dir, &nodes, leaves.len(), max_depth(A::BITS, s))?;
    let unaligned = || invalid("arrays", "not aligned in the region");
    Ok(Core::new(
        s,
        DirTable::wide_in_region(region, arrays.dir.clone()).ok_or_else(unaligned)?,
        Arena::in_region(region, arrays.nodes.clone()).ok_or_else(unaligned)?,
        Arena::in_region(region, arrays.leaves.clone()).ok_or_else(unaligned)?,
        None,
    ))
}

/// Checks every raw next hop of `raws` (0: none): within the structure's limit, and accepted
/// by `hop`; returns the largest. Folds chunks without a branch per element, and looks for
/// the culprit only in a chunk that fails.
fn check_hops(
    raws: impl ExactSizeIterator<Item = u32> + Clone,
    hop: &impl AcceptHop,
    array: &'static str,
    item: &str,
) -> Result<u32, ExportError> {
    if raws.len() > u32::MAX as usize {
        return Err(invalid(array, format!("{} entries (at most {})", raws.len(), u32::MAX)));
    }
    let good = |r: u32| r <= MAX_DIRECT_RAW && (r == 0 || hop.accepts(r));
    let (max, all_good) = raws.clone().fold((0, true), |(m, ok), r| (m.max(r), ok & good(r)));
    if let Some((i, r)) = (!all_good).then(|| raws.enumerate().find(|&(_, r)| !good(r))).flatten() {
        let why = if r > MAX_DIRECT_RAW {
            format!("next hop {r} above {MAX_DIRECT_RAW}")
        } else {
            hop.why(r)
        };
        return Err(invalid(array, format!("{item} {i}: {why}")));
    }
    Ok(max)
}
