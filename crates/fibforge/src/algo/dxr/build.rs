//! Compilation: cut the RIB's range partition at chunk boundaries, store each chunk as a leaf
//! or a descriptor of its ranges, then choose the descriptor field widths.

use super::{Config, DESCRIPTOR, Dxr, FIELD_BITS, FIELDS, MIN_SIZE_BITS, SHORT};
use crate::addr::Address;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::rib::{Range, Rib};

/// The raw form of an answer (0 = no route).
#[inline]
pub(super) fn raw(hop: Option<NextHop>) -> u32 {
    hop.map_or(0, NextHop::raw)
}

/// Bits needed to write `x` (at least 1).
fn bits_for(x: u64) -> u32 {
    (64 - x.leading_zeros()).max(1)
}

/// A chunk with more than one range, before descriptor widths are known.
struct Pending {
    chunk: usize,
    short: bool,
    base: u32,
    size: u32,
}

/// The range arrays and the chunks pointing into them.
struct Builder<A: Address> {
    use_short: bool,
    direct: Vec<u32>,
    short: Vec<u32>,
    long_starts: Vec<A>,
    long_hops: Vec<u32>,
    pending: Vec<Pending>,
}

impl<A: Address> Builder<A> {
    /// Stores chunk `chunk` (first address `lo`) answered by `ranges`, the first of which
    /// contains `lo` and the others start inside the chunk.
    fn add_chunk(&mut self, chunk: usize, lo: A, ranges: &[Range<A>]) -> Result<(), BuildError> {
        let first = raw(ranges[0].hop);
        if ranges.len() == 1 && first & DESCRIPTOR == 0 {
            self.direct[chunk] = first;
            return Ok(());
        }
        let short = self.use_short && ranges.iter().all(|r| raw(r.hop) <= u16::MAX as u32);
        let size = u32::try_from(ranges.len()).map_err(|_| too_many(ranges.len()))?;
        let starts = std::iter::once(lo).chain(ranges[1..].iter().map(|r| r.start));
        let base = if short {
            let base = self.short.len();
            for (s, r) in starts.zip(ranges) {
                self.short.push(((s.to_u128() as u32) << 16) | raw(r.hop));
            }
            base
        } else {
            let base = self.long_starts.len();
            self.long_starts.extend(starts);
            self.long_hops.extend(ranges.iter().map(|r| raw(r.hop)));
            base
        };
        let base = u32::try_from(base).map_err(|_| too_many(base))?;
        self.pending.push(Pending { chunk, short, base, size });
        Ok(())
    }

    /// Chooses `base_bits` (at least `min_base_bits`) and writes the descriptors.
    fn finish(self, k: u32, min_base_bits: u32) -> Result<Dxr<A>, BuildError> {
        let max_base = self.pending.iter().map(|p| p.base as u64).max().unwrap_or(0);
        let min_base_bits = min_base_bits.min(FIELD_BITS - MIN_SIZE_BITS);
        let mut base_bits = bits_for(max_base).max(min_base_bits);
        let (wide_count, size_max) = loop {
            let size_max = (1u32 << (FIELD_BITS - base_bits.min(FIELD_BITS - 1))) - 1;
            let wide = self.pending.iter().filter(|p| p.size >= size_max).count() as u64;
            let needed = bits_for(max_base.max(wide.saturating_sub(1))).max(min_base_bits);
            if needed > FIELD_BITS - MIN_SIZE_BITS {
                return Err(too_many(max_base.max(wide) as usize));
            }
            if needed == base_bits {
                break (wide, size_max);
            }
            base_bits = needed;
        };
        let mut direct = self.direct;
        let mut wide = Vec::with_capacity(wide_count as usize);
        for p in &self.pending {
            let fields = if p.size >= size_max {
                wide.push((p.base, p.size));
                (size_max << base_bits) | (wide.len() as u32 - 1)
            } else {
                (p.size << base_bits) | p.base
            };
            debug_assert!(fields <= FIELDS);
            direct[p.chunk] = DESCRIPTOR | if p.short { SHORT } else { 0 } | fields;
        }
        Ok(Dxr {
            k,
            use_short: self.use_short,
            dead: 0,
            last_path: "compile",
            base_bits,
            base_mask: (1 << base_bits) - 1,
            size_max,
            direct: direct.into_boxed_slice(),
            short: shrunk(self.short),
            long_starts: shrunk(self.long_starts),
            long_hops: shrunk(self.long_hops),
            wide,
        })
    }
}

fn shrunk<T>(mut v: Vec<T>) -> Vec<T> {
    v.shrink_to_fit();
    v
}

/// The error for a range array whose indices do not fit a descriptor.
pub(super) fn too_many(found: usize) -> BuildError {
    BuildError::LimitExceeded {
        algo: "dxr",
        what: "ranges in one range array (descriptor base field of 28 bits)",
        limit: 1 << (FIELD_BITS - MIN_SIZE_BITS),
        found: found as u64,
    }
}

/// Compiles `rib` with `cfg.k` direct bits (`cfg.k` already checked) and descriptor `base`
/// fields of at least `min_base_bits` bits (room for updates to append ranges).
pub(super) fn build<A: Address>(
    rib: &Rib<A>,
    cfg: &Config,
    min_base_bits: u32,
) -> Result<Dxr<A>, BuildError> {
    let ranges = rib.ranges();
    let k = cfg.k;
    let shift = A::BITS - k;
    let mut b = Builder {
        use_short: cfg.short && A::BITS == 32 && k >= 16,
        direct: vec![0u32; 1 << k],
        short: Vec::new(),
        long_starts: Vec::new(),
        long_hops: Vec::new(),
        pending: Vec::new(),
    };
    // `i`: the range holding the first address of chunk `chunk`.
    let (mut i, mut chunk) = (0, 0);
    let chunks = 1usize << k;
    while chunk < chunks {
        let lo = (chunk as u128) << shift;
        let hi = lo | ((1u128 << shift) - 1);
        while i + 1 < ranges.len() && ranges[i + 1].start.to_u128() <= lo {
            i += 1;
        }
        let mut j = i + 1;
        while j < ranges.len() && ranges[j].start.to_u128() <= hi {
            j += 1;
        }
        let hop = raw(ranges[i].hop);
        if j == i + 1 && hop & DESCRIPTOR == 0 {
            // Every chunk before the one holding the next range's start is this leaf too.
            let next = ranges.get(j).map_or(chunks, |r| (r.start.to_u128() >> shift) as usize);
            let end = next.clamp(chunk + 1, chunks);
            b.direct[chunk..end].fill(hop);
            chunk = end;
            continue;
        }
        b.add_chunk(chunk, A::from_u128(lo), &ranges[i..j])?;
        i = j - 1;
        chunk += 1;
    }
    b.finish(k, min_base_bits)
}
