//! Forged Poptrie files: each check of `import_check.rs` meets a file that breaks it (edited
//! in its arrays, then written with a valid checksum), and must answer `Invalid` — never a
//! panic, a hang or a structure. Random byte edits must give an error or a structure whose
//! lookups stay in bounds.

use super::layout::{DIRECT_LEAF, Node};
use super::record::{get_node, put_node};
use super::tests::{cfg, hop};
use super::tests_export::reimport;
use super::*;
use crate::export::{Array, ExportError, ExportFile};

/// A small IPv4 structure, `s = 8`, with walks of two and three levels and 1-byte leaves.
fn base() -> (Rib<u32>, ExportFile) {
    let mut rib = Rib::new();
    for (i, r) in ["10.0.0.0/8", "10.1.2.0/24", "10.1.2.128/30", "10.1.3.0/26", "192.0.2.0/25"]
        .iter()
        .enumerate()
    {
        rib.insert(r.parse().unwrap(), hop(i as u32));
    }
    let file = Poptrie::compile(&rib, &cfg(8, true, true, false)).unwrap().to_export().unwrap();
    (rib, file)
}

fn nodes(f: &ExportFile) -> Vec<Node> {
    f.arrays[1].bytes.chunks_exact(24).map(get_node).collect()
}

fn set_nodes(f: &mut ExportFile, nodes: &[Node]) {
    f.arrays[1].bytes.clear();
    nodes.iter().for_each(|n| put_node(n, &mut f.arrays[1].bytes));
}

/// The first node with children and the index of a `dir` entry naming a node.
fn landmarks(f: &ExportFile) -> (usize, usize) {
    let parent = nodes(f).iter().position(|n| n.vector != 0).expect("a node with children");
    let dir = f.arrays[0].values::<u32>("dir").unwrap();
    let root = dir.iter().position(|&d| d & DIRECT_LEAF == 0).expect("a root");
    (parent, root)
}

/// `edit` applied to the base file must be refused as invalid, naming `array`.
fn refused(what: &str, array: &str, edit: impl FnOnce(&mut ExportFile)) {
    let mut f = base().1;
    edit(&mut f);
    match reimport::<u32>(&f) {
        Err(ExportError::Invalid { algo: "poptrie", array: a, what: w }) => {
            assert_eq!(a, array, "{what}: refused for {w}");
        }
        Err(e) => panic!("{what}: wrong error {e}"),
        Ok(_) => panic!("{what}: accepted"),
    }
}

fn edit_node(f: &mut ExportFile, i: usize, edit: impl FnOnce(&mut Node)) {
    let mut n = nodes(f);
    edit(&mut n[i]);
    set_nodes(f, &n);
}

fn edit_dir(f: &mut ExportFile, i: usize, value: u32) {
    let mut d = f.arrays[0].values::<u32>("dir").unwrap();
    d[i] = value;
    f.arrays[0] = Array::of(&d);
}

#[test]
fn the_base_file_is_accepted() {
    let (rib, f) = base();
    let p = reimport::<u32>(&f).unwrap();
    crate::algo::testkit::assert_same("base", &p, &rib, &super::tests::probes(&rib, 100, 3));
}

#[test]
fn header_and_array_shapes_are_checked() {
    refused("s above 24", "header", |f| f.params[0] = 25);
    refused("s off by one", "dir", |f| f.params[0] = 9);
    refused("leaf size 3", "header", |f| f.params[1] = 3);
    refused("leaf size 2 for 1-byte leaves", "leaves", |f| f.params[1] = 2);
    refused("aggregation flag 2", "header", |f| f.params[2] = 2);
    refused("IPv6 file", "header", |f| f.family = 6);
    refused("two arrays", "arrays", |f| drop(f.arrays.pop()));
    refused("four arrays", "arrays", |f| f.arrays.push(Array::of(&[0u32])));
    refused("dir of u16", "dir", |f| f.arrays[0] = Array::of(&vec![0u16; 1 << 8]));
    refused("nodes of 12 bytes", "nodes", |f| f.arrays[1].elem_bytes = 12);
    refused("dir one short", "dir", |f| drop(f.arrays[0].bytes.drain(..4)));
}

#[test]
fn dir_entries_are_checked() {
    let (_, f) = base();
    let (n, (_, root)) = (nodes(&f).len() as u32, landmarks(&f));
    refused("dir node out of range", "dir", |f| edit_dir(f, root, n));
    refused("dir hop wider than the leaves", "dir", |f| edit_dir(f, 0, DIRECT_LEAF | 256));
    refused("two entries share a root", "nodes", |f| {
        let d = f.arrays[0].values::<u32>("dir").unwrap();
        edit_dir(f, root + 1, d[root]);
    });
}

#[test]
fn node_records_are_checked() {
    let (_, f) = base();
    let (n, leaves) = (nodes(&f).len() as u32, f.arrays[2].len() as u32);
    let (parent, _) = landmarks(&f);
    refused("child out of range", "nodes", |f| edit_node(f, parent, |x| x.base1 = n));
    refused("child base overflowing u32", "nodes", |f| edit_node(f, parent, |x| x.base1 = !0));
    refused("leaves out of range", "nodes", |f| edit_node(f, parent, |x| x.base0 = leaves));
    refused("vector and leafvec overlap", "nodes", |f| {
        edit_node(f, parent, |x| x.leafvec |= x.vector & x.vector.wrapping_neg())
    });
    refused("rank-0 leaf slot", "nodes", |f| {
        edit_node(f, parent, |x| x.leafvec &= !(1 << (!x.vector).trailing_zeros()))
    });
    refused("unused base1 not zero", "nodes", |f| {
        let leaf = nodes(f).iter().position(|x| x.vector == 0).unwrap();
        edit_node(f, leaf, |x| x.base1 = n + 5)
    });
}

#[test]
fn cycles_and_shared_blocks_are_refused() {
    let (_, f) = base();
    let (parent, _) = landmarks(&f);
    refused("self-cycle", "nodes", |f| {
        edit_node(f, parent, |x| {
            x.base1 = parent as u32;
            x.vector = 1 << 7;
            x.leafvec = 1;
        })
    });
    refused("children blocks overlap", "nodes", |f| {
        let other = nodes(f).iter().rposition(|x| x.vector != 0).unwrap();
        let b = nodes(f)[parent].base1;
        edit_node(f, other, |x| x.base1 = b);
        assert_ne!(other, parent, "the base table has two parents");
    });
    refused("leaf blocks overlap", "leaves", |f| {
        // The lowest leaf block, claimed again by another node (still in range).
        let (a, b) = {
            let n = nodes(f);
            let mut with_leaves: Vec<usize> = (0..n.len()).filter(|&i| n[i].leafvec != 0).collect();
            with_leaves.sort_by_key(|&i| n[i].base0);
            (with_leaves[1], n[with_leaves[0]].base0)
        };
        edit_node(f, a, |x| x.base0 = b);
    });
}

/// A chain of `len` nodes under `dir[0]` (IPv4, `s = 18`, so at most 3 levels).
fn chain(len: u32) -> ExportFile {
    let mut f = base().1;
    f.params[0] = 18;
    let mut dir = vec![DIRECT_LEAF | 1; 1 << 18];
    dir[0] = 0;
    f.arrays[0] = Array::of(&dir);
    let link = |k: u32| Node { vector: 1, leafvec: 2, base0: k, base1: k + 1 };
    let mut n: Vec<Node> = (0..len - 1).map(link).collect();
    n.push(Node { vector: 0, leafvec: 1, base0: len - 1, base1: 0 });
    set_nodes(&mut f, &n);
    f.arrays[2] = Array::of(&vec![3u8; len as usize]);
    f
}

#[test]
fn walks_deeper_than_the_address_are_refused() {
    let p = reimport::<u32>(&chain(3)).unwrap();
    assert_eq!(p.lookup(0).map(|h| h.raw()), Some(3), "the deepest leaf");
    assert_eq!(p.lookup(1 << 8).map(|h| h.raw()), Some(3), "a leaf of the root");
    let err = reimport::<u32>(&chain(4)).err().expect("four levels below s = 18");
    assert!(err.to_string().contains("depth 4"), "{err}");
}

#[test]
fn random_byte_edits_never_panic_or_read_out_of_bounds() {
    let (rib, f) = base();
    let addrs = super::tests::probes(&rib, 50, 4);
    let mut rng = crate::verify::XorShift64::new(77);
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..2000 {
        let mut g = f.clone();
        for _ in 0..1 + rng.below(3) {
            let a = &mut g.arrays[1 + rng.below(2) as usize];
            let at = rng.below(a.bytes.len() as u64) as usize;
            a.bytes[at] ^= 1 << rng.below(8);
        }
        match reimport::<u32>(&g) {
            Ok(p) => {
                accepted += 1;
                addrs.iter().for_each(|&a| {
                    let _ = p.lookup(a);
                });
            }
            Err(ExportError::Invalid { .. }) => refused += 1,
            Err(e) => panic!("not an Invalid error: {e}"),
        }
    }
    assert!(refused > 500, "{refused} refused, {accepted} accepted");
}
