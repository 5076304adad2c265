//! Compiling binary search on lengths: the searched lengths and their prefixes (the routes,
//! or their controlled expansion), then the markers with precomputed best matching prefixes,
//! then one hash table per length (an array for the first with `first=array`).

use super::level::Level;
use super::{Bsl, Config, FirstLevel, MARKER, MAX_ARRAY_BITS, MAX_ENTRIES};
use crate::addr::Address;
use crate::algo::cpe::{
    ExpansionCosts, Levels, expand_each, expansion_count, min_expansion_levels,
};
use crate::fib::BuildError;
use crate::prefix::Prefix;
use crate::rib::Rib;
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

/// Prefixes of one searched length: address → value.
type Entries<A> = HashMap<A, u32>;

pub(super) fn build<A: Address>(rib: &Rib<A>, cfg: &Config) -> Result<Bsl<A>, BuildError> {
    if let Some((_, h)) = rib.iter().find(|(_, h)| h.raw() & MARKER != 0) {
        let found = h.raw() as u64;
        let (what, limit) = ("raw next hop", (MARKER - 1) as u64);
        return Err(BuildError::LimitExceeded { algo: "bsl", what, limit, found });
    }
    let default = rib.get(&Prefix::DEFAULT_ROUTE).map_or(0, |h| h.raw());
    let rest: Rib<A> = rib.iter().filter(|(p, _)| p.len() > 0).collect();
    let (lens, mut maps) = match (cfg.levels, &cfg.lengths) {
        (Some(k), _) => expanded(&rest, k)?,
        (None, Some(lengths)) => fixed(&rest, lengths)?,
        (None, None) => by_length(&rest),
    };
    let array = cfg.first == FirstLevel::Array;
    if let Some(&first) = lens.first().filter(|&&l| array && l > MAX_ARRAY_BITS) {
        let reason = format!(
            "the first searched length is {first}; a full array is allowed up to \
             {MAX_ARRAY_BITS} bits (use first=hash, or levels/lengths that start shorter)"
        );
        return Err(BuildError::BadOption { algo: "bsl", option: "first=array".into(), reason });
    }
    add_markers(rib, &lens, &mut maps);
    let mut hash_time = Duration::ZERO;
    let mut levels = Vec::with_capacity(lens.len());
    for (j, (&len, m)) in lens.iter().zip(&maps).enumerate() {
        let t0 = Instant::now();
        levels.push(Level::build(len, m, array && j == 0));
        if !(array && j == 0) {
            hash_time += t0.elapsed();
        }
    }
    Ok(Bsl { default, levels, hash_time })
}

/// The routes grouped by their length.
fn by_length<A: Address>(rib: &Rib<A>) -> (Vec<u32>, Vec<Entries<A>>) {
    let mut groups: BTreeMap<u32, Entries<A>> = BTreeMap::new();
    for (p, h) in rib.iter() {
        groups.entry(p.len()).or_default().insert(p.addr(), h.raw());
    }
    groups.into_iter().unzip()
}

/// The controlled expansion of `rib` (no default route) to the `k` lengths with the fewest
/// expanded prefixes; lengths that receive no prefix are dropped.
fn expanded<A: Address>(rib: &Rib<A>, k: u32) -> Result<(Vec<u32>, Vec<Entries<A>>), BuildError> {
    if k == 0 || k > A::BITS {
        let reason = format!("levels must be in 1..={}", A::BITS);
        return Err(BuildError::BadOption { algo: "bsl", option: format!("levels={k}"), reason });
    }
    if rib.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let costs = ExpansionCosts::of(rib);
    let Some((count, levels)) = min_expansion_levels(&costs, k) else {
        return Ok((Vec::new(), Vec::new()));
    };
    expand_to(rib, &levels, count)
}

/// The controlled expansion of `rib` (no default route) to the given `lengths`.
fn fixed<A: Address>(
    rib: &Rib<A>,
    lengths: &[u32],
) -> Result<(Vec<u32>, Vec<Entries<A>>), BuildError> {
    let levels = Levels::new(lengths, A::BITS).map_err(|e| match e {
        BuildError::BadOption { option, reason, .. } => BuildError::BadOption {
            algo: "bsl",
            option: option.replacen("levels", "lengths", 1),
            reason,
        },
        e => e,
    })?;
    let counts = expansion_count(rib, &levels)?;
    let count = counts.iter().fold(0u128, |a, &c| a.saturating_add(c));
    expand_to(rib, &levels, u64::try_from(count).unwrap_or(u64::MAX))
}

/// The expansion of `rib` to `levels` (`count` prefixes, refused above [`MAX_ENTRIES`]);
/// lengths that receive no prefix are dropped.
fn expand_to<A: Address>(
    rib: &Rib<A>,
    levels: &Levels,
    count: u64,
) -> Result<(Vec<u32>, Vec<Entries<A>>), BuildError> {
    if count > MAX_ENTRIES {
        let what = "expanded prefixes";
        return Err(BuildError::LimitExceeded {
            algo: "bsl",
            what,
            limit: MAX_ENTRIES,
            found: count,
        });
    }
    let mut maps: Vec<Entries<A>> = vec![HashMap::new(); levels.len()];
    expand_each(rib, levels, |j, p, h| {
        maps[j].insert(p.addr(), h.raw());
    })?;
    Ok(levels.lens().iter().copied().zip(maps).filter(|(l, m)| *l > 0 && !m.is_empty()).unzip())
}

/// Places the markers of every prefix: at each length the binary search towards the
/// prefix's length visits and leaves to the right. A marker that is not a prefix gets the
/// RIB's longest match of length `<=` its own as its value.
fn add_markers<A: Address>(rib: &Rib<A>, lens: &[u32], maps: &mut [Entries<A>]) {
    for j in 1..lens.len() {
        let keys: Vec<A> = maps[j].keys().copied().collect();
        let path = search_path(lens.len(), j);
        for a in keys {
            for &mid in &path {
                let len = lens[mid];
                let key = a.truncate(len);
                maps[mid]
                    .entry(key)
                    .and_modify(|v| *v |= MARKER)
                    .or_insert_with(|| MARKER | best_match(rib, key, len));
            }
        }
    }
}

/// The lengths (indices below `j`) where the binary search over `0..n` towards `j` turns
/// right.
fn search_path(n: usize, j: usize) -> Vec<usize> {
    let (mut lo, mut hi, mut path) = (0, n, Vec::new());
    while lo < hi {
        let mid = (lo + hi) / 2;
        match mid.cmp(&j) {
            std::cmp::Ordering::Equal => break,
            std::cmp::Ordering::Less => {
                path.push(mid);
                lo = mid + 1;
            }
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
    path
}

/// Raw next hop of the longest route covering `addr/len` (0: none).
fn best_match<A: Address>(rib: &Rib<A>, addr: A, len: u32) -> u32 {
    let p = Prefix::from_parts_unchecked(addr, len);
    rib.longest_covering(&p).map_or(0, |(_, h)| h.raw())
}
