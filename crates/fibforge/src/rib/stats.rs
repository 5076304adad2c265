//! Table statistics: the prefix-length histogram and the binary-radix depth distribution of
//! the address space (Poptrie paper, Fig. 7).
//!
//! The depth of an address is how far a lookup in an uncompressed binary trie descends before
//! it runs out of nodes: the length of the deepest trie node on the address's path. It bounds
//! the work of every trie-based algorithm, which is why the Poptrie paper plots it. Shares are
//! fractions of the whole address space (`f64`, as 2^128 does not fit an integer).

use super::{NIL, NodeId, Rib};
use crate::addr::Address;

/// Number of routes per prefix length (index = length).
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct LengthHistogram(pub Vec<u64>);

/// Address-space shares by binary-radix depth and by matched prefix length.
#[derive(Clone, Debug, PartialEq)]
#[doc(hidden)]
pub struct DepthHistogram {
    /// `by_depth[d]`: share of addresses whose trie path ends at depth `d`.
    pub by_depth: Vec<f64>,
    /// `by_matched_len[l]`: share of addresses whose longest match has length `l`.
    pub by_matched_len: Vec<f64>,
    /// Share of addresses with no matching route.
    pub unmatched: f64,
}

impl<A: Address> Rib<A> {
    /// Routes per prefix length.
    #[doc(hidden)]
    pub fn length_histogram(&self) -> LengthHistogram {
        let mut h = vec![0u64; A::BITS as usize + 1];
        for (p, _) in self.iter() {
            h[p.len() as usize] += 1;
        }
        LengthHistogram(h)
    }

    /// The depth distribution of the address space (see the module doc).
    #[doc(hidden)]
    pub fn depth_histogram(&self) -> DepthHistogram {
        let bits = A::BITS as usize;
        let mut h = DepthHistogram {
            by_depth: vec![0.0; bits + 1],
            by_matched_len: vec![0.0; bits + 1],
            unmatched: 0.0,
        };
        if self.root == NIL {
            h.by_depth[0] = 1.0;
            h.unmatched = 1.0;
            return h;
        }
        let root_len = self.nodes[self.root as usize].prefix.len();
        // Addresses that leave the root's prefix early: they stop where they diverge.
        for k in 0..root_len {
            h.add(k, None, share(k + 1));
        }
        self.visit(self.root, None, &mut h);
        h
    }

    /// The binary-radix depth of one address (see the module doc): the length of the deepest
    /// node of the uncompressed binary trie of the routes on the path of `addr`, that is the
    /// largest `min(common_prefix_len(addr, p), len(p))` over all routes `p`. 0 when empty.
    #[doc(hidden)]
    pub fn trie_depth(&self, addr: A) -> u32 {
        let mut cur = self.root;
        let mut depth = 0;
        while cur != NIL {
            let n = &self.nodes[cur as usize];
            let len = n.prefix.len();
            let common = n.prefix.addr().common_prefix_len(addr).min(len);
            if common < len {
                return depth.max(common);
            }
            depth = len;
            if len == A::BITS {
                break;
            }
            cur = n.child[addr.bit(len) as usize];
        }
        depth
    }

    fn visit(&self, id: NodeId, inherited: Option<u32>, h: &mut DepthHistogram) {
        let n = &self.nodes[id as usize];
        let len = n.prefix.len();
        let matched = if n.value.is_some() { Some(len) } else { inherited };
        if len == A::BITS {
            h.add(len, matched, share(len));
            return;
        }
        for &c in &n.child {
            if c == NIL {
                h.add(len, matched, share(len + 1));
                continue;
            }
            let clen = self.nodes[c as usize].prefix.len();
            for k in len + 1..clen {
                h.add(k, matched, share(k + 1));
            }
            self.visit(c, matched, h);
        }
    }
}

/// Fraction of the address space in a prefix of length `len`.
fn share(len: u32) -> f64 {
    (-(len as f64)).exp2()
}

impl DepthHistogram {
    fn add(&mut self, depth: u32, matched: Option<u32>, s: f64) {
        self.by_depth[depth as usize] += s;
        match matched {
            Some(l) => self.by_matched_len[l as usize] += s,
            None => self.unmatched += s,
        }
    }
}
