//! Test support for incremental updates: random insert / remove / next-hop-change batches
//! over small address spaces or a sample of a shipped real table, applied to the RIB and to
//! a structure; after every batch the caller compares the structure with a fresh compile and
//! the RIB ([`probes_after`] adds the edges of every route touched, removed ones included).

use crate::addr::Address;
use crate::fib::Incremental;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;
use crate::verify::{self, XorShift64};

/// Every `every`-th route of a shipped table in `data/` (gzip text: a prefix, then
/// optionally a next hop, per line; prefix-only lines get next hops by line number), keeping
/// only routes of at most `max_len` bits.
pub(crate) fn shipped_sample<A: Address>(name: &str, every: usize, max_len: u32) -> Rib<A> {
    use std::io::BufRead;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data").join(name);
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut hops = std::collections::HashMap::new();
    let mut rib = Rib::new();
    let lines = std::io::BufReader::new(flate2::read::GzDecoder::new(file)).lines();
    for (i, line) in lines.enumerate().step_by(every.max(1)) {
        let line = line.unwrap();
        let mut fields = line.split_whitespace();
        let Some(Ok(prefix)) = fields.next().map(Prefix::<A>::parse) else { continue };
        if prefix.len() > max_len {
            continue;
        }
        let key = fields.next().map_or_else(|| format!("#{}", i % 250), str::to_owned);
        let n = hops.len() as u32;
        rib.insert(prefix, NextHop::from_index(*hops.entry(key).or_insert(n)));
    }
    assert!(rib.len() > 500, "{name}: {} routes", rib.len());
    rib
}

/// How random batches are drawn.
pub(crate) struct Batches<'a> {
    /// Number of batches.
    pub batches: usize,
    /// Operations per batch.
    pub per_batch: usize,
    /// Lengths of new routes, drawn uniformly.
    pub lengths: &'a [u32],
    /// Random top address bits (1 to 8) of new routes not drawn near an existing one; 8
    /// random bits follow and 4 more at bits 24–27, the rest is zero (a small space, so
    /// that routes nest and share slots).
    pub top_bits: u32,
    /// Next-hop indices are below this.
    pub hops: u32,
    /// Seed.
    pub seed: u64,
}

/// Applies `spec`'s random batches to `rib` and to `fib`, calling `check(rib, fib, touched,
/// label)` after each (and once before the first); `touched` holds every prefix changed so
/// far.
pub(crate) fn drive<A: Address, F: Incremental<A>>(
    rib: &mut Rib<A>,
    fib: &mut F,
    spec: &Batches<'_>,
    mut check: impl FnMut(&Rib<A>, &F, &[Prefix<A>], &str),
) {
    let mut rng = XorShift64::new(spec.seed);
    let mut touched = Vec::new();
    check(rib, fib, &touched, "compile");
    for b in 0..spec.batches {
        let mark = rib.change_mark();
        let routes: Vec<(Prefix<A>, NextHop)> = rib.iter().collect();
        for _ in 0..spec.per_batch {
            let pick = |rng: &mut XorShift64| routes[rng.next_u64() as usize % routes.len()];
            let hop = NextHop::from_index((rng.next_u64() % spec.hops as u64) as u32);
            match rng.next_u64() % 10 {
                0..=3 if !routes.is_empty() => {
                    rib.remove(&pick(&mut rng).0);
                }
                4..=5 if !routes.is_empty() => {
                    rib.insert(pick(&mut rng).0, hop);
                }
                k => {
                    let len = spec.lengths[rng.next_u64() as usize % spec.lengths.len()];
                    let random = rng.next_u128();
                    let addr = if k % 2 == 0 && !routes.is_empty() {
                        // Near an existing route: its top half, random bits below.
                        let near = pick(&mut rng).0;
                        let keep = near.len() / 2;
                        let mask = u128::MAX.checked_shr(keep + 128 - A::BITS).unwrap_or(0);
                        near.addr().to_u128() & !mask | random & mask
                    } else {
                        let t = spec.top_bits.clamp(1, 8);
                        let top = random >> (128 - t) << (A::BITS - t);
                        let mid = (random >> 64 & 0xFF) << (A::BITS - t - 8);
                        top | mid | (random >> 32 & 0xF) << (A::BITS - 28)
                    };
                    let p = Prefix::new_masked(A::from_u128(addr), len).expect("len <= BITS");
                    rib.insert(p, hop);
                }
            }
        }
        let changed = rib.changes_since(mark).to_vec();
        touched.extend_from_slice(&changed);
        fib.apply_changes(rib, &changed).unwrap_or_else(|e| panic!("batch {b}: {e}"));
        check(rib, fib, &touched, &format!("batch {b} ({} changes)", changed.len()));
    }
}

/// Probe addresses after updates: the RIB's route edges, the edges of every prefix in
/// `touched` and `random` random ones.
pub(crate) fn probes_after<A: Address>(rib: &Rib<A>, touched: &[Prefix<A>], seed: u64) -> Vec<A> {
    let mut v = verify::probes(rib, 1, 500, seed);
    for p in touched {
        let (first, last) = (p.addr().to_u128(), p.last().to_u128());
        v.extend([p.addr(), p.last()]);
        v.extend([A::from_u128(first.wrapping_sub(1)), A::from_u128(last.wrapping_add(1))]);
    }
    v
}
