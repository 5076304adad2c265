//! Incremental updates: rebuild only the range table of the chunks a changed route covers
//! (as FreeBSD's DXR does per chunk), not the whole structure.
//!
//! A changed route of length `l` covers one chunk when `l >= k`, else the `2^(k - l)` chunks
//! inside it. Each is re-cut from the RIB ([`Rib::ranges_within`] of the chunk's /k) and
//! stored as a compile would store it (leaf, or short or long ranges), with its ranges
//! written:
//! - **in place** when the chunk already had ranges in the same format and at least as many
//!   (the leftover tail entries become dead);
//! - **appended** at the end of the format's array otherwise (the old ones become dead).
//!
//! A chunk whose size needs the `wide` table reuses its old `wide` slot or appends one (an
//! unused `wide` slot is left until the next rebuild). Afterwards each chunk answers exactly
//! as a fresh compile's (same ranges, same format); only the positions in the arrays differ.
//!
//! The structure is rebuilt from the RIB (path `"rebuild"`) when:
//! - an appended base or `wide` index does not fit the descriptor's `base` field: the rebuild
//!   gives `base` one more bit, so that appends have room again;
//! - dead entries outnumber live ones (and there are more than [`COMPACT_MIN`]): the rebuild
//!   compacts the arrays;
//! - a batch covers more than 1/[`REBUILD_SHARE`] of the chunks (a default route change, or a
//!   /8 with `k = 16` would touch 256 of 65,536 chunks: that one is in place).

use super::build::{self, raw};
use super::{Config, DESCRIPTOR, Dxr, FIELDS, SHORT};
use crate::addr::Address;
use crate::fib::{BuildError, Incremental};
use crate::prefix::Prefix;
use crate::rib::{Range, Rib};

/// Dead range entries tolerated whatever the live count, before compacting.
pub(super) const COMPACT_MIN: usize = 4096;
/// A batch touching more than `1 / REBUILD_SHARE` of the chunks rebuilds.
const REBUILD_SHARE: usize = 4;

/// A descriptor's `base` or `wide` index past its field: the arrays must be rebuilt wider.
struct FieldFull;

impl<A: Address> Dxr<A> {
    /// The chunks the routes `changed` cover, sorted, or `None` when they are more than
    /// `1 / REBUILD_SHARE` of all.
    fn touched_chunks(&self, changed: &[Prefix<A>]) -> Option<Vec<usize>> {
        let limit = self.direct.len() / REBUILD_SHARE;
        let mut chunks = Vec::new();
        for p in changed {
            let first = p.addr().bits(0, self.k) as usize;
            let count = 1usize << self.k.saturating_sub(p.len());
            if chunks.len() + count > limit {
                return None;
            }
            chunks.extend(first..first + count);
        }
        chunks.sort_unstable();
        chunks.dedup();
        Some(chunks)
    }

    /// `wide` index of a descriptor whose size is in `wide`.
    fn wide_index(&self, entry: u32) -> Option<usize> {
        let fields = entry & FIELDS;
        (entry & DESCRIPTOR != 0 && fields >> self.base_bits == self.size_max)
            .then_some((fields & self.base_mask) as usize)
    }

    /// Re-cuts chunk `chunk` from the RIB and stores it.
    fn rewrite(&mut self, chunk: usize, rib: &Rib<A>) -> Result<(), FieldFull> {
        let lo = A::from_u128((chunk as u128) << (A::BITS - self.k));
        let ranges = rib.ranges_within(&Prefix::from_parts_unchecked(lo, self.k));
        let old = self.direct[chunk];
        let old_span = (old & DESCRIPTOR != 0).then(|| (old & SHORT != 0, self.span(old)));
        let first = raw(ranges[0].hop);
        if ranges.len() == 1 && first & DESCRIPTOR == 0 {
            self.dead += old_span.map_or(0, |(_, (_, size))| size);
            self.direct[chunk] = first;
            return Ok(());
        }
        let short = self.use_short && ranges.iter().all(|r| raw(r.hop) <= u16::MAX as u32);
        let size = ranges.len();
        let base = match old_span {
            Some((s, (base, old_size))) if s == short && old_size >= size => {
                self.dead += old_size - size;
                base
            }
            _ => {
                self.dead += old_span.map_or(0, |(_, (_, size))| size);
                self.grow(short, size)
            }
        };
        self.write(short, base, &ranges);
        if base > self.base_mask as usize {
            return Err(FieldFull);
        }
        let (base, size) = (base as u32, u32::try_from(size).map_err(|_| FieldFull)?);
        let fields = if size >= self.size_max {
            let index = self.wide_index(old).unwrap_or_else(|| {
                self.wide.push((0, 0));
                self.wide.len() - 1
            });
            if index > self.base_mask as usize {
                return Err(FieldFull);
            }
            self.wide[index] = (base, size);
            (self.size_max << self.base_bits) | index as u32
        } else {
            (size << self.base_bits) | base
        };
        self.direct[chunk] = DESCRIPTOR | if short { SHORT } else { 0 } | fields;
        Ok(())
    }

    /// Appends `size` placeholder entries to the format's array; their first index.
    fn grow(&mut self, short: bool, size: usize) -> usize {
        use crate::algo::grow_by_eighths;
        if short {
            grow_by_eighths(&mut self.short, size);
            self.short.resize(self.short.len() + size, 0);
            self.short.len() - size
        } else {
            grow_by_eighths(&mut self.long_starts, size);
            grow_by_eighths(&mut self.long_hops, size);
            self.long_starts.resize(self.long_starts.len() + size, A::ZERO);
            self.long_hops.resize(self.long_hops.len() + size, 0);
            self.long_hops.len() - size
        }
    }

    /// Writes `ranges` at `base` of the format's array.
    fn write(&mut self, short: bool, base: usize, ranges: &[Range<A>]) {
        for (i, r) in ranges.iter().enumerate() {
            if short {
                self.short[base + i] = ((r.start.to_u128() as u32) << 16) | raw(r.hop);
            } else {
                self.long_starts[base + i] = r.start;
                self.long_hops[base + i] = raw(r.hop);
            }
        }
    }

    /// Rebuilds from the RIB with `base` fields of at least `min_base_bits` bits.
    fn rebuild(&mut self, rib: &Rib<A>, min_base_bits: u32) -> Result<(), BuildError> {
        let cfg = Config { k: self.k, short: self.use_short };
        *self = build::build(rib, &cfg, min_base_bits)?;
        self.last_path = "rebuild";
        Ok(())
    }
}

impl<A: Address> Incremental<A> for Dxr<A> {
    /// Re-cuts the chunks the changed routes cover (path `"in place"`), or rebuilds (path
    /// `"rebuild"`) as the module documentation says.
    fn apply_changes(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        let Some(chunks) = self.touched_chunks(changed) else {
            return self.rebuild(rib, self.base_bits);
        };
        for chunk in chunks {
            if self.rewrite(chunk, rib).is_err() {
                return self.rebuild(rib, self.base_bits + 1);
            }
        }
        let live = self.short.len() + self.long_starts.len() - self.dead;
        if self.dead > live.max(COMPACT_MIN) {
            return self.rebuild(rib, self.base_bits);
        }
        self.last_path = "in place";
        Ok(())
    }

    fn last_update_path(&self) -> Option<&'static str> {
        Some(self.last_path)
    }
}
