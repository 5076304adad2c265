//! What readers look up in: the tree, the interval answers and the side tables.

use super::dir::Dir;
use super::hops::Hops;
use super::key::{Answer, Key, intervals};
use super::node::TreeKey;
use super::side::{Side, Sides};
use super::tree::{Layout, Leaves, Tree};
use super::{Config, Leaf};
use crate::cpu;
use crate::fib::BuildError;
use crate::rib::Rib;

/// The compiled interval B+-tree of one table (the part readers share).
#[doc(hidden)]
pub struct Fib<A: Key> {
    pub(super) isa: cpu::Isa,
    /// Lanes of a batch's lock step (8, 16 or 32).
    pub(super) lanes: usize,
    /// Batch lanes start at their directory node, grouped by level (option `bgroup`).
    pub(super) group_starts: bool,
    pub(super) tree: Tree<A::T>,
    pub(super) dir: Dir,
    /// One word per interval, and one more when the last key (`K::MAX`) starts an interval
    /// of its own (the tree cannot hold that key, see `tree.rs`).
    pub(super) hops: Hops,
    /// The interval of the last key.
    pub(super) max_pos: usize,
    /// Side slots; those filled at build come first, the rest serve updates.
    pub(super) sides: Sides<A>,
}

/// The largest raw next hop or side slot a build accepts (the tag bit is above it).
pub(super) const WIDE_LIMIT: u32 = (1 << 31) - 1;

fn raw_hop<A: Key>(answer: &Answer<A>) -> u32 {
    match answer {
        Answer::Hop(h) => h.map_or(0, |h| h.raw()),
        // Sides hold full next hops, whatever the width.
        Answer::Ranges(_) => 0,
    }
}

impl<A: Key> Fib<A> {
    /// Compiles the routes of `rib` (`isa`: the instruction set `cfg` resolved to).
    pub fn build(rib: &Rib<A>, cfg: &Config, isa: cpu::Isa) -> Result<Self, BuildError> {
        let delta_slots = cfg.delta;
        let (mut keys, mut answers): (Vec<A::T>, Vec<Answer<A>>) =
            intervals::<A>(&rib.ranges()).into_iter().unzip();
        // The last key cannot be a tree key: its interval gets the word after the others.
        let max_pos = if keys.last() == Some(&A::T::MAX) {
            keys.pop();
            keys.len()
        } else {
            keys.len() - 1
        };
        let built_sides = answers.iter().filter(|a| matches!(a, Answer::Ranges(_))).count();
        let sides = Sides::new(built_sides + delta_slots);
        let largest_hop = answers.iter().map(raw_hop).max().unwrap_or(0);
        let largest = largest_hop.max(sides.capacity() as u32);
        if largest > WIDE_LIMIT {
            return Err(BuildError::LimitExceeded {
                algo: "bplus",
                what: "raw next-hop id or side slot",
                limit: WIDE_LIMIT as u64,
                found: largest as u64,
            });
        }
        let tag = Hops::tag_for(largest);
        let mut slot = 0;
        let words: Vec<u32> = answers
            .drain(..)
            .map(|a| match a {
                Answer::Hop(h) => h.map_or(0, |h| h.raw()),
                Answer::Ranges(r) => {
                    sides.publish(slot, Side::new(&r));
                    slot += 1;
                    tag | (slot as u32 - 1)
                }
            })
            .collect();
        let hops = Hops::new(&words, largest);
        // IPv6 keys pack tighter as offsets; IPv4 plain lines already hold 16 keys, and were
        // faster than either packed layout (`docs/lab/bplus.md`).
        let leaf = cfg.leaf.unwrap_or(if A::T::PER_NODE < super::leaf::MAX_KEYS {
            Leaf::Hop
        } else {
            Leaf::Plain
        });
        let layout = match leaf {
            Leaf::Plain => Layout::Plain,
            Leaf::Rel => Layout::Rel,
            // Hop leaves hold 16-bit words; wider answers keep them apart, in relative leaves.
            Leaf::Hop if matches!(hops, Hops::Narrow(_)) => Layout::Hop(&words[..keys.len()]),
            Leaf::Hop => Layout::Rel,
        };
        let tree = Tree::build(&keys, layout);
        let dir = Dir::build(&tree, &keys, max_pos, cfg, |p| hops.get(p), hops.tag());
        Ok(Fib {
            isa,
            lanes: cfg.lanes,
            group_starts: cfg.dir && cfg.bgroup,
            tree,
            dir,
            hops,
            max_pos,
            sides,
        })
    }

    /// The interval holding key `k`.
    #[inline]
    pub(super) fn position(&self, k: A::T) -> usize {
        if k == A::T::MAX { self.max_pos } else { self.search(k) }
    }

    /// The first key of the interval at `pos`.
    pub(super) fn key_at(&self, pos: usize) -> A::T {
        if pos < self.tree.len() { self.tree.key(pos) } else { A::T::MAX }
    }

    /// Writes `word` as the answer of the interval at `pos`, and into the directory blocks
    /// inside it (see `dir.rs`).
    pub(super) fn set_word(&self, pos: usize, word: u32) {
        self.hops.set(pos, word);
        if let Some(leaves) = self.tree.hop_leaves().filter(|_| pos < self.tree.len()) {
            leaves.set_word(pos, word);
        }
        let last = if pos == self.max_pos {
            A::T::MAX
        } else {
            A::T::from_u128_lossy(self.key_at(pos + 1).to_u128() - 1)
        };
        self.dir.refresh(pos, self.key_at(pos), last, word, self.hops.tag());
    }

    /// The first address of the interval at `pos`.
    pub(super) fn first_addr(&self, pos: usize) -> A {
        A::block_first(self.key_at(pos))
    }

    /// The last address of the interval at `pos`.
    pub(super) fn last_addr(&self, pos: usize) -> A {
        if pos == self.max_pos {
            return A::from_u128(u128::MAX);
        }
        let next = self.key_at(pos + 1);
        A::block_last(A::T::from_u128_lossy(next.to_u128() - 1))
    }

    /// Number of intervals (positions `0..intervals()`).
    pub(super) fn intervals(&self) -> usize {
        self.max_pos + 1
    }

    /// Bytes of every array.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.tree.memory_bytes()
            + self.dir.memory_bytes()
            + self.hops.memory_bytes()
            + self.sides.memory_bytes()
    }

    /// The shape for reports: intervals, lines per level (root first), word width, the
    /// directory's direct blocks, side tables and instruction set.
    pub fn describe(&self) -> String {
        let levels: Vec<String> =
            (0..=self.tree.height()).map(|l| self.tree.level_len(l).to_string()).collect();
        let leaves = match self.tree.leaves() {
            Leaves::Plain => "plain",
            Leaves::Rel(_) => "relative",
            Leaves::Hop(_) => "hop",
        };
        let sides = (0..self.sides.capacity()).filter(|&s| self.sides.is_used(s)).count();
        let dir = match self.dir.direct_share() {
            Some(share) => format!(
                "dir: {:.1} % of /16 blocks direct, {} second-level tables",
                share * 100.0,
                self.dir.sub_tables()
            ),
            None => "no dir".to_string(),
        };
        format!(
            "{} intervals; lines per level {} ({leaves} leaves); {}-bit words; {dir}; {sides} side \
             tables; {}",
            self.intervals(),
            levels.join("/"),
            self.hops.width(),
            self.isa.name()
        )
    }

    /// Inner levels above the leaf level.
    pub fn height(&self) -> usize {
        self.tree.height()
    }

    /// The instruction set of the node searches.
    pub fn isa(&self) -> cpu::Isa {
        self.isa
    }
}
