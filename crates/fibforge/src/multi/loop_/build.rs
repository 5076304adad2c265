//! Building LOOP chunks from the tables' RIBs (paper §III-A to §III-C, Algorithm 1).
//!
//! For a chunk rooted at prefix `base` (layer `l`, covering bits `d .. d+s`), each table's FPA
//! starts as the table's longest match for `base` and is overwritten by the table's routes of
//! lengths `d ..= d+s` inside `base`, visited in preorder (a route before the routes it covers),
//! which is the level-order overriding of Algorithm 1 without leaf pushing. An element under
//! which some table has a longer route becomes a pointer to a next-layer chunk; the others
//! become the PortMapTable index of their composite (one raw next hop per table).

use super::encode::{Special, encode_group, encode_sparse};
use super::layout::{Shape, TAG_CHUNK, TAG_PMT, TAG_SPARSE, entry};
use super::pmt::columns::Book;
use super::words::{PAYLOAD_MAX, limit_error};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// Where the emitted words go: plain vectors at build time, the live arrays during updates.
pub(super) trait Sink {
    /// Stores `words` in the arena; returns their offset.
    fn place(&mut self, words: &[u32]) -> Result<u32, BuildError>;
    /// Allocates a chunk id (a row of group pointers).
    fn new_chunk(&mut self) -> Result<u32, BuildError>;
    /// Points group `g` of `chunk` at arena `offset`.
    fn set_group(&mut self, chunk: u32, g: u32, offset: u32);
    /// The PortMapTable index of a composite (one raw next hop per table).
    fn intern(&mut self, composite: &[u32]) -> Result<u32, BuildError>;
}

/// What a chunk's routes say, before encoding.
pub(super) struct ChunkValues {
    /// Per element, per table: the raw next hop (0 = none).
    pub fpa: Vec<u32>,
    /// Per element: some table has a route longer than this layer under it.
    pub deeper: Vec<bool>,
    /// Distinct relative prefixes of routes and pointers (capped at `limit + 1`).
    pub specials: Vec<Special>,
}

impl ChunkValues {
    /// `n` elements, each starting as the composite `defaults` (one value per table).
    pub(super) fn new(n: usize, defaults: &[u32]) -> Self {
        let fpa = (0..n).flat_map(|_| defaults.iter().copied()).collect();
        ChunkValues { fpa, deeper: vec![false; n], specials: Vec::new() }
    }

    /// Overrides column `v` with the routes of `rib` inside the chunk at (`l`, `base`), in
    /// preorder (Algorithm 1's level-order overriding), noting pointers and specials.
    pub(super) fn overlay<A: Address>(
        &mut self,
        rib: &Rib<A>,
        v: usize,
        (shape, limit): (&Shape, usize),
        l: usize,
        base: Prefix<A>,
    ) {
        let (d, s) = (shape.starts[l], shape.strides[l]);
        let t = self.fpa.len() / self.deeper.len().max(1);
        for (p, h) in rib.covered(&base) {
            let len = p.len();
            let first = p.addr().bits(d, s) as usize;
            if len > d + s {
                self.deeper[first] = true;
                note_special(&mut self.specials, Special { bits: first as u32, len: s }, limit);
                continue;
            }
            let span = 1usize << (d + s - len);
            for e in first..first + span {
                self.fpa[e * t + v] = h.raw();
            }
            if len > d {
                let bits = (first >> (d + s - len)) as u32;
                note_special(&mut self.specials, Special { bits, len: len - d }, limit);
            }
        }
    }
}

/// The build context: the tables and the shape.
pub(super) struct Emitter<'a, A: Address> {
    pub ribs: &'a [Option<Rib<A>>],
    pub shape: &'a Shape,
    pub sparse_limit: usize,
}

impl<A: Address> Emitter<'_, A> {
    fn vrfs(&self) -> usize {
        self.ribs.len()
    }

    /// The element prefix of element `e` of a chunk rooted at `base` in layer `l`.
    pub(super) fn element_prefix(&self, base: Prefix<A>, l: usize, e: u32) -> Prefix<A> {
        let end = self.shape.starts[l] + self.shape.strides[l];
        let shift = A::BITS - end;
        let addr = A::from_u128(base.addr().to_u128() | ((e as u128) << shift));
        Prefix::from_parts_unchecked(addr, end)
    }

    fn chunk_values(&self, l: usize, base: Prefix<A>, defaults: &[u32]) -> ChunkValues {
        let mut cv = ChunkValues::new(1usize << self.shape.strides[l], defaults);
        for (v, rib) in self.ribs.iter().enumerate() {
            if let Some(rib) = rib {
                cv.overlay(rib, v, (self.shape, self.sparse_limit), l, base);
            }
        }
        cv
    }

    /// Per-table longest match for `prefix` (the defaults of a chunk rooted there).
    pub(super) fn defaults_for(&self, prefix: &Prefix<A>) -> Vec<u32> {
        self.ribs
            .iter()
            .map(|r| {
                r.as_ref().and_then(|r| r.longest_covering(prefix)).map_or(0, |(_, h)| h.raw())
            })
            .collect()
    }

    /// True when some table has a route strictly longer than `prefix` inside it.
    pub(super) fn has_deeper(&self, prefix: &Prefix<A>) -> bool {
        self.ribs.iter().flatten().any(|r| r.covered(prefix).any(|(p, _)| p.len() > prefix.len()))
    }

    /// The entries of every element of the chunk at (`l`, `base`), emitting child chunks.
    pub(super) fn element_entries(
        &self,
        l: usize,
        base: Prefix<A>,
        defaults: &[u32],
        sink: &mut impl Sink,
    ) -> Result<(Vec<u32>, Vec<Special>), BuildError> {
        let cv = self.chunk_values(l, base, defaults);
        let t = self.vrfs();
        let mut elems: Vec<u32> = Vec::with_capacity(cv.deeper.len());
        for (e, &deep) in cv.deeper.iter().enumerate() {
            let composite = &cv.fpa[e * t..(e + 1) * t];
            let same_as_previous =
                e > 0 && !deep && !cv.deeper[e - 1] && composite == &cv.fpa[(e - 1) * t..e * t];
            let value = if same_as_previous {
                elems[e - 1] // ranges are long: skip hashing the same composite again
            } else if deep {
                let child = self.element_prefix(base, l, e as u32);
                self.emit_chunk(l + 1, child, composite, sink)?
            } else {
                entry(TAG_PMT, sink.intern(composite)?)
            };
            elems.push(value);
        }
        Ok((elems, cv.specials))
    }

    /// Emits the chunk of layer `l >= 1` rooted at `base`; returns the entry pointing at it.
    pub(super) fn emit_chunk(
        &self,
        l: usize,
        base: Prefix<A>,
        defaults: &[u32],
        sink: &mut impl Sink,
    ) -> Result<u32, BuildError> {
        let (elems, specials) = self.element_entries(l, base, defaults, sink)?;
        encode_chunk(self.shape, self.sparse_limit, l, &elems, Some(&specials), sink)
    }

    /// The entry of one element, recomputed from the RIBs (emitting its subtree when needed).
    pub(super) fn element_entry(
        &self,
        elem: Prefix<A>,
        l: usize,
        sink: &mut impl Sink,
    ) -> Result<u32, BuildError> {
        let values = self.defaults_for(&elem);
        if l + 1 < self.shape.strides.len() && self.has_deeper(&elem) {
            self.emit_chunk(l + 1, elem, &values, sink)
        } else {
            Ok(entry(TAG_PMT, sink.intern(&values)?))
        }
    }
}

/// Stores a chunk of layer `l` with entries `elems`: sparse when `specials` (the relative
/// prefixes of its routes and pointers, if known) express it within `limit`, else grouped.
/// Returns the entry pointing at it.
pub(super) fn encode_chunk(
    shape: &Shape,
    limit: usize,
    l: usize,
    elems: &[u32],
    specials: Option<&[Special]>,
    sink: &mut impl Sink,
) -> Result<u32, BuildError> {
    let sparse = specials.and_then(|sp| encode_sparse(sp, elems, shape.strides[l], limit));
    if let Some(words) = sparse {
        return Ok(entry(TAG_SPARSE, checked(sink.place(&words)?, "sparse chunk offset")?));
    }
    let id = checked(sink.new_chunk()?, "chunk id")?;
    for (k, group) in elems.chunks(shape.group as usize).enumerate() {
        let offset = sink.place(&encode_group(group))?;
        sink.set_group(id, k as u32, offset);
    }
    Ok(entry(TAG_CHUNK, id))
}

fn checked(v: u32, what: &'static str) -> Result<u32, BuildError> {
    if v > PAYLOAD_MAX { Err(limit_error(what)) } else { Ok(v) }
}

pub(super) fn note_special(list: &mut Vec<Special>, s: Special, limit: usize) {
    if list.len() <= limit && !list.contains(&s) {
        list.push(s);
    }
}

/// The build-time sink: growable vectors, turned into atomics afterwards.
#[derive(Default)]
pub(super) struct VecSink {
    pub arena: Vec<u32>,
    pub chunk_groups: Vec<u32>,
    pub chunks: u32,
    pub chunk_stride: u32,
    /// PortMapTable composites, row after row (`book.top` rows).
    pub pmt: Vec<u32>,
    pub book: Book,
}

impl Sink for VecSink {
    fn place(&mut self, words: &[u32]) -> Result<u32, BuildError> {
        let at = self.arena.len();
        self.arena.extend_from_slice(words);
        u32::try_from(at).map_err(|_| limit_error("arena words"))
    }
    fn new_chunk(&mut self) -> Result<u32, BuildError> {
        self.chunks += 1;
        self.chunk_groups.resize(self.chunks as usize * self.chunk_stride as usize, 0);
        Ok(self.chunks - 1)
    }
    fn set_group(&mut self, chunk: u32, g: u32, offset: u32) {
        self.chunk_groups[(chunk * self.chunk_stride + g) as usize] = offset;
    }
    fn intern(&mut self, composite: &[u32]) -> Result<u32, BuildError> {
        let (h, t) = (super::pmt::index::hash(composite), composite.len());
        let rows = &self.pmt;
        if let Some(i) = self.book.index.find(h, |i| &rows[i as usize * t..][..t] == composite) {
            return Ok(i);
        }
        let i = checked(self.book.top, "PortMapTable entries")?;
        self.pmt.extend_from_slice(composite);
        self.book.top += 1;
        self.book.hashes.push(h);
        self.book.index.note(h, i);
        Ok(i)
    }
}
