//! The records of a `poptrie` export file (`docs/reference/export-format.md`): the header parameters'
//! positions and the node record's encoding. Shared by the export ([`super::export`]) and
//! the checks of an import ([`super::import_check`]), in a file below both so that neither
//! imports the other.

use super::layout::Node;

/// `p[0]`: direct-pointing bits.
pub(super) const P_S: usize = 0;
/// `p[1]`: leaf width in bytes.
pub(super) const P_LEAF: usize = 1;
/// `p[2]`: route aggregation (1 on, 0 off), the configuration updates continue with.
pub(super) const P_AGGREGATE: usize = 2;

/// Bytes of a node record in the file.
pub(super) const NODE_BYTES: usize = 24;

/// Appends `n` as `{vector: u64, leafvec: u64, base0: u32, base1: u32}`, little-endian.
pub(super) fn put_node(n: &Node, out: &mut Vec<u8>) {
    out.extend_from_slice(&n.vector.to_le_bytes());
    out.extend_from_slice(&n.leafvec.to_le_bytes());
    out.extend_from_slice(&n.base0.to_le_bytes());
    out.extend_from_slice(&n.base1.to_le_bytes());
}

/// A node record from exactly [`NODE_BYTES`] bytes.
pub(super) fn get_node(b: &[u8]) -> Node {
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    Node { vector: u64_at(0), leafvec: u64_at(8), base0: u32_at(16), base1: u32_at(20) }
}
