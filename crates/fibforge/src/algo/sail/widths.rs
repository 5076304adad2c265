//! The word width of SAIL_B and SAIL_U: a structure is kept in 16-bit words while its next
//! hops and chunk ids fit them, else in 32-bit words (`width=auto`, or as requested), and an
//! update that overflows 16-bit words rebuilds it in 32-bit ones. The variants differ only in
//! their core (`Variant::Core`, a [`WordCore`] in either width), so the choice, the dispatch,
//! the rebuild and the lookups live here once.

use super::entry::{Entry, Overflow};
use super::push::{CHUNK, ChunkPool};
use crate::algo::prefetch;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::fmt::Debug;

/// A variant's structure in words of type `E`: a word per slot, answered by a next hop or by
/// the chunk (below the /24 pivot) that the word names.
pub(crate) trait WordCore<E: Entry>: Sized {
    fn build(rib: &Rib<u32>) -> Result<Self, Overflow>;
    /// Applies changed routes (the RIB already holds them).
    fn apply(&mut self, rib: &Rib<u32>, changed: &[Prefix<u32>]) -> Result<(), Overflow>;
    fn memory_bytes(&self) -> usize;
    /// The word of the longest route slot that holds one for `addr`.
    fn deepest(&self, addr: u32) -> Option<E>;
    /// Starts loading what `deepest(addr)` reads first (a batch's first pass).
    fn prefetch_top(&self, addr: u32);
    fn chunks(&self) -> &ChunkPool<E>;
    /// True when both answer every address alike (chunks compared by content, since their
    /// ids depend on the order of allocation).
    #[cfg(test)]
    fn same_answers(&self, other: &Self) -> bool;

    /// True when word `a` of `self` and word `b` of `other` give the same answers (chunks
    /// by content).
    #[cfg(test)]
    fn same_word(&self, a: E, other: &Self, b: E) -> bool {
        match (a.is_chunk(), b.is_chunk()) {
            (true, true) => self.chunks().chunk(a.payload()) == other.chunks().chunk(b.payload()),
            _ => a == b,
        }
    }

    /// The answer for `addr` given its deepest word.
    #[inline]
    fn resolve(&self, word: E, addr: u32) -> Option<NextHop> {
        if word.is_chunk() {
            return self.chunks().chunk(word.payload())[addr as usize % CHUNK].next_hop();
        }
        word.next_hop()
    }

    #[inline]
    fn lookup(&self, addr: u32) -> Option<NextHop> {
        self.deepest(addr).and_then(|w| self.resolve(w, addr))
    }

    /// Groups of 16: prefetch what each address reads first, find the deepest words,
    /// prefetch the chunk entries they name, resolve.
    fn lookup_batch(&self, addrs: &[u32], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        const G: usize = 16;
        for (group, res) in addrs.chunks(G).zip(out.chunks_mut(G)) {
            for &a in group {
                self.prefetch_top(a);
            }
            let mut words = [None; G];
            for (w, &a) in words.iter_mut().zip(group) {
                *w = self.deepest(a);
                if let Some(word) = w.filter(|w| w.is_chunk()) {
                    let entry = word.payload() as usize * CHUNK + a as usize % CHUNK;
                    prefetch::read(&self.chunks().entries, entry);
                }
            }
            for ((o, &a), w) in res.iter_mut().zip(group).zip(words) {
                *o = w.and_then(|w| self.resolve(w, a));
            }
        }
    }
}

/// A SAIL variant: its name in errors and its core in either width.
pub(crate) trait Variant: Clone + Debug {
    const NAME: &'static str;
    type Core<E: Entry>: WordCore<E> + Clone + Debug;
}

/// The structure in the width chosen for it.
#[derive(Clone, Debug)]
pub(crate) enum Tables<V: Variant> {
    Narrow(V::Core<u16>),
    Wide(V::Core<u32>),
}

impl<V: Variant> Tables<V> {
    /// Builds in 32-bit words when `wide`, else in 16-bit ones.
    pub(crate) fn build(rib: &Rib<u32>, wide: bool) -> Result<Self, BuildError> {
        Ok(if wide {
            Tables::Wide(V::Core::build(rib).map_err(|o| o.into_error::<u32>(V::NAME))?)
        } else {
            Tables::Narrow(V::Core::build(rib).map_err(|o| o.into_error::<u16>(V::NAME))?)
        })
    }

    /// Applies changed routes; when 16-bit words overflow, rebuilds in 32-bit words.
    pub(crate) fn apply(
        &mut self,
        rib: &Rib<u32>,
        changed: &[Prefix<u32>],
    ) -> Result<(), BuildError> {
        match self {
            Tables::Narrow(t) => {
                if t.apply(rib, changed).is_err() {
                    *self = Self::build(rib, true)?;
                }
                Ok(())
            }
            Tables::Wide(t) => t.apply(rib, changed).map_err(|o| o.into_error::<u32>(V::NAME)),
        }
    }

    /// Number of level-32 chunks in use.
    pub(crate) fn chunks_in_use(&self) -> usize {
        super::dispatch!(self, t => t.chunks().in_use())
    }

    /// The word width in bits (16 or 32).
    pub(crate) fn width_bits(&self) -> u32 {
        match self {
            Tables::Narrow(_) => 16,
            Tables::Wide(_) => 32,
        }
    }

    #[inline]
    pub(crate) fn lookup(&self, addr: u32) -> Option<NextHop> {
        super::dispatch!(self, t => t.lookup(addr))
    }

    pub(crate) fn lookup_batch(&self, addrs: &[u32], out: &mut [Option<NextHop>]) {
        super::dispatch!(self, t => t.lookup_batch(addrs, out))
    }

    pub(crate) fn memory_bytes(&self) -> usize {
        super::dispatch!(self, t => t.memory_bytes())
    }

    /// True when both answer every address alike, in the same width.
    #[cfg(test)]
    pub(crate) fn same_answers(&self, other: &Self) -> bool {
        match (self, other) {
            (Tables::Narrow(a), Tables::Narrow(b)) => a.same_answers(b),
            (Tables::Wide(a), Tables::Wide(b)) => a.same_answers(b),
            _ => false,
        }
    }
}

/// `Lookup<u32>` for a public SAIL type whose `tables` field is a [`Tables`].
macro_rules! lookup_via_tables {
    ($sail:ty) => {
        impl $crate::fib::Lookup<u32> for $sail {
            #[inline]
            fn lookup(&self, addr: u32) -> Option<$crate::nexthop::NextHop> {
                self.tables.lookup(addr)
            }
            fn lookup_batch(&self, addrs: &[u32], out: &mut [Option<$crate::nexthop::NextHop>]) {
                self.tables.lookup_batch(addrs, out)
            }
            fn memory_bytes(&self) -> usize {
                self.tables.memory_bytes()
            }
        }
    };
}
pub(crate) use lookup_via_tables;
