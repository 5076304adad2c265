//! Compilation: split the sorted routes into the base and prefix vectors, then build the
//! level- and path-compressed trie over the base vector top-down, children blocks allocated
//! in the order the paper's `buildrec` allocates them.

use super::{Config, Entry, LcTrie, MAX_BRANCH, NONE, Node};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// Compiles `rib` into an LC-trie.
pub(super) fn build<A: Address>(rib: &Rib<A>, cfg: &Config) -> Result<LcTrie<A>, BuildError> {
    let (base, prefixes) = split(rib)?;
    let mut b = Builder { cfg, base: &base, trie: vec![Node::default()], empty: 0, depth: 1 };
    if base.is_empty() {
        b.trie[0] = Node { adr: NONE, skip: 0, branch: 0 };
    } else {
        b.node(0, 0, base.len(), 0, 1)?;
    }
    let (mut trie, empty_leaves, max_depth) = (b.trie, b.empty, b.depth);
    trie.shrink_to_fit();
    Ok(LcTrie { trie, base, prefixes, cfg: *cfg, empty_leaves, max_depth })
}

/// The base vector (routes that are no prefix of another route) and the prefix vector (the
/// others), each entry's `pre` pointing at its longest proper prefix in the prefix vector.
type Vectors<A> = (Vec<Entry<A>>, Vec<Entry<A>>);

fn split<A: Address>(rib: &Rib<A>) -> Result<Vectors<A>, BuildError> {
    let routes: Vec<_> = rib.iter().collect();
    let (mut base, mut prefixes) = (Vec::new(), Vec::new());
    // Routes enclosing the current one, with their prefix-vector indices.
    let mut stack: Vec<(Prefix<A>, u32)> = Vec::with_capacity(A::BITS as usize + 1);
    for (i, &(p, hop)) in routes.iter().enumerate() {
        while stack.last().is_some_and(|(s, _)| !s.covers(&p)) {
            stack.pop();
        }
        let pre = stack.last().map_or(NONE, |&(_, at)| at);
        let e = Entry { addr: p.addr(), hop, pre, len: p.len() as u8 };
        // Preorder: a route's descendants follow it directly.
        if routes.get(i + 1).is_some_and(|(next, _)| p.covers(next)) {
            stack.push((p, index(prefixes.len(), "prefix vector entries")?));
            prefixes.push(e);
        } else {
            index(base.len(), "base vector entries")?;
            base.push(e);
        }
    }
    Ok((base, prefixes))
}

/// `i` as a `u32` index below `NONE`.
fn index(i: usize, what: &'static str) -> Result<u32, BuildError> {
    u32::try_from(i).ok().filter(|&i| i < NONE).ok_or(BuildError::LimitExceeded {
        algo: "lctrie",
        what,
        limit: NONE as u64 - 1,
        found: i as u64,
    })
}

struct Builder<'a, A: Address> {
    cfg: &'a Config,
    base: &'a [Entry<A>],
    trie: Vec<Node>,
    empty: usize,
    depth: u32,
}

impl<A: Address> Builder<'_, A> {
    /// Writes at `trie[at]` the subtrie of the `n` base strings from `first`, which share
    /// their first `pos` bits; `depth` counts the root as 1.
    fn node(
        &mut self,
        at: usize,
        first: usize,
        n: usize,
        pos: u32,
        depth: u32,
    ) -> Result<(), BuildError> {
        self.depth = self.depth.max(depth);
        if n == 1 {
            self.trie[at] = Node { adr: first as u32, skip: 0, branch: 0 };
            return Ok(());
        }
        let (lo, hi) = (self.base[first].addr, self.base[first + n - 1].addr);
        // Prefix-free and sorted: the strings share exactly the bits the first and last share,
        // and every one is longer than that.
        let common = lo.common_prefix_len(hi);
        let branch = if depth == 1 && self.cfg.root > 0 {
            self.cfg.root.min(A::BITS - common)
        } else {
            self.branch(first, n, common)
        };
        let adr = index(self.trie.len(), "trie nodes")?;
        let width = 1usize << branch;
        index(self.trie.len() + width, "trie nodes")?;
        self.trie.resize(self.trie.len() + width, Node::default());
        self.trie[at] = Node { adr, skip: (common - pos) as u8, branch: branch as u8 };
        let next = common + branch;
        let mut p = first;
        for pat in 0..width as u64 {
            let k = self.base[p..first + n]
                .iter()
                .take_while(|e| e.addr.bits(common, branch) == pat)
                .count();
            let child = adr as usize + pat as usize;
            if k == 0 {
                let slot =
                    A::from_u128(lo.truncate(common).to_u128() | (pat as u128) << (A::BITS - next));
                let leaf = self.neighbour(p, slot, next);
                self.trie[child] = Node { adr: leaf as u32, skip: 0, branch: 0 };
                self.empty += 1;
                self.depth = self.depth.max(depth + 1);
            } else {
                self.node(child, p, k, next, depth + 1)?;
            }
            p += k;
        }
        Ok(())
    }

    /// The paper's `computebranch`: the largest `b` (at least 1) such that at least
    /// `fill · 2^b` of the 2^b patterns of bits `pos..pos + b` occur among the `n` strings.
    fn branch(&self, first: usize, n: usize, pos: u32) -> u32 {
        if n == 2 {
            return 1;
        }
        let fill = self.cfg.fill;
        let mut b = 1;
        while b < MAX_BRANCH && pos + b < A::BITS {
            let next = b + 1;
            let need = fill * (1u64 << next) as f64;
            if (n as f64) < need || (self.patterns(first, n, pos, next) as f64) < need {
                break;
            }
            b = next;
        }
        b
    }

    /// How many distinct values bits `pos..pos + b` take among the `n` strings (sorted, so
    /// equal values are adjacent).
    fn patterns(&self, first: usize, n: usize, pos: u32, b: u32) -> usize {
        let strings = &self.base[first..first + n];
        1 + strings.windows(2).filter(|w| w[0].addr.bits(pos, b) != w[1].addr.bits(pos, b)).count()
    }

    /// For an empty slot (the `len`-bit prefix at `slot`) before base index `p`: whichever
    /// of entries `p − 1` and `p` shares more leading bits with the slot.
    fn neighbour(&self, p: usize, slot: A, len: u32) -> usize {
        let shared = |i: usize| {
            let e = &self.base[i];
            slot.common_prefix_len(e.addr).min(e.len as u32).min(len)
        };
        match (p.checked_sub(1), p < self.base.len()) {
            (Some(before), true) if shared(before) >= shared(p) => before,
            (Some(before), false) => before,
            _ => p,
        }
    }
}
