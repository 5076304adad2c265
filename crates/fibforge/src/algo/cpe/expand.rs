//! Controlled prefix expansion with prefix capture (§4.1).
//!
//! Every route goes to the first target length `Lj` at least as long as itself and is replaced
//! by the `2^(Lj - len)` prefixes of length `Lj` it covers. Where expansions of several routes
//! of the same window collide, the longest original route *captures* the expanded prefix.
//! Routes of other windows never capture each other: a longest-match search over the expanded
//! set gives the same answer as over the original one, because an address's longest original
//! match lies in exactly one window and its expansion is the only one of that window and at
//! least that long.
//!
//! The core is [`sweep`]: one pass over routes in (address, length) order with a stack of
//! enclosing routes, emitting maximal runs of target-length prefixes that share one capturing
//! route. Each expanded prefix is produced once, so the cost is linear in the output; the
//! tries paint their node arrays with the same sweep.

use super::levels::Levels;
use crate::addr::Address;
use crate::fib::BuildError;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// `x >> n` that yields 0 for shifts of 128 or more.
#[inline]
pub(crate) fn shr128(x: u128, n: u32) -> u128 {
    if n >= 128 { 0 } else { x >> n }
}

/// `2^n - 1` for `n` in `0..=128`.
#[inline]
pub(crate) fn low_ones(n: u32) -> u128 {
    if n >= 128 { u128::MAX } else { (1u128 << n) - 1 }
}

/// Paints `routes` onto the target-length prefixes inside `base`.
///
/// `routes` must be in (address, length) order, inside `base`, and at most `target` long
/// (`base.len() <= target`). For every maximal run of target-length prefixes inside `base`
/// covered by the same longest route, calls `emit(first, last, hop)` with the run's unit
/// indices relative to `base` (unit `i` is the `i`-th prefix of length `target` inside
/// `base`), in increasing order. Units no route covers are skipped.
pub(crate) fn sweep<A: Address>(
    routes: impl IntoIterator<Item = (Prefix<A>, NextHop)>,
    base: Prefix<A>,
    target: u32,
    mut emit: impl FnMut(u128, u128, NextHop),
) {
    debug_assert!(base.len() <= target && target <= A::BITS);
    let unit_shift = A::BITS - target;
    let base_addr = base.addr().to_u128();
    // Enclosing routes: (last unit, hop); `next` is the first unit not yet emitted.
    let mut stack: Vec<(u128, NextHop)> = Vec::with_capacity(A::BITS as usize + 1);
    let mut next: u128 = 0;
    for (p, hop) in routes {
        debug_assert!(base.covers(&p) && p.len() <= target, "{p} outside {base}/{target}");
        let first = shr128(p.addr().to_u128() - base_addr, unit_shift);
        let last = first + low_ones(target - p.len());
        close_before(&mut stack, &mut next, first, &mut emit);
        if let Some(&(_, outer)) = stack.last()
            && next < first
        {
            emit(next, first - 1, outer);
        }
        next = first;
        stack.push((last, hop));
    }
    // The rest of each enclosing route, innermost first; the outermost may end at the very
    // last unit, where `next` would overflow.
    let mut next = Some(next);
    while let Some((last, hop)) = stack.pop() {
        if let Some(n) = next.filter(|&n| n <= last) {
            emit(n, last, hop);
            next = last.checked_add(1);
        }
    }
}

/// Pops the enclosing routes that end before unit `first`, emitting what is left of each.
fn close_before(
    stack: &mut Vec<(u128, NextHop)>,
    next: &mut u128,
    first: u128,
    emit: &mut impl FnMut(u128, u128, NextHop),
) {
    while let Some(&(last, hop)) = stack.last() {
        if last >= first {
            return;
        }
        if *next <= last {
            emit(*next, last, hop);
            *next = last + 1; // cannot overflow: last < first
        }
        stack.pop();
    }
}

/// The result of `expand`: for each target length, its expanded prefixes in address order.
#[derive(Clone, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct Expansion<A: Address> {
    levels: Levels,
    tables: Vec<Vec<(Prefix<A>, NextHop)>>,
}

impl<A: Address> Expansion<A> {
    /// The target lengths.
    pub fn levels(&self) -> &Levels {
        &self.levels
    }

    /// The expanded prefixes of level `j` (all of length `levels().lens()[j]`), by address.
    pub fn level(&self, j: usize) -> &[(Prefix<A>, NextHop)] {
        &self.tables[j]
    }

    /// Total number of expanded prefixes.
    pub fn total(&self) -> usize {
        self.tables.iter().map(Vec::len).sum()
    }

    /// All expanded prefixes, level by level.
    pub fn iter(&self) -> impl Iterator<Item = (Prefix<A>, NextHop)> + '_ {
        self.tables.iter().flatten().copied()
    }

    /// The longest expanded prefix containing `addr` (a reference lookup for tests).
    pub fn lookup(&self, addr: A) -> Option<NextHop> {
        self.tables.iter().rev().find_map(|t| {
            let i = t.partition_point(|(p, _)| p.addr() <= addr);
            (i > 0 && t[i - 1].0.contains(addr)).then(|| t[i - 1].1)
        })
    }
}

/// Largest number of prefixes `expand` materialises.
#[doc(hidden)]
pub const MAX_EXPANDED: u128 = u32::MAX as u128;

/// Routes with their next hops.
type Routes<A> = Vec<(Prefix<A>, NextHop)>;

/// Routes of `rib` grouped by the level whose window holds them, in (address, length) order.
fn routes_by_level<A: Address>(
    rib: &Rib<A>,
    levels: &Levels,
) -> Result<Vec<Routes<A>>, BuildError> {
    let mut by_level = vec![Vec::new(); levels.len()];
    for (p, h) in rib.iter() {
        let j = levels.level_of(p.len()).ok_or_else(|| BuildError::Unsupported {
            algo: "cpe",
            reason: format!("route {p} is longer than the longest target length {}", levels.last()),
        })?;
        by_level[j].push((p, h));
    }
    Ok(by_level)
}

/// Streams the controlled expansion of `rib` to `levels`: `f(level, prefix, hop)` for every
/// expanded prefix, level by level, in address order within a level.
///
/// Fails when a route is longer than the longest target length.
#[doc(hidden)]
pub fn expand_each<A: Address>(
    rib: &Rib<A>,
    levels: &Levels,
    mut f: impl FnMut(usize, Prefix<A>, NextHop),
) -> Result<(), BuildError> {
    for (j, routes) in routes_by_level(rib, levels)?.into_iter().enumerate() {
        let target = levels.lens()[j];
        let shift = A::BITS - target;
        sweep(routes, Prefix::DEFAULT_ROUTE, target, |first, last, hop| {
            let mut unit = first;
            loop {
                let addr = A::from_u128(if shift >= 128 { 0 } else { unit << shift });
                f(j, Prefix::from_parts_unchecked(addr, target), hop);
                if unit == last {
                    break;
                }
                unit += 1;
            }
        });
    }
    Ok(())
}

/// Number of expanded prefixes per level (saturating at `u128::MAX`), without producing them.
#[doc(hidden)]
pub fn expansion_count<A: Address>(rib: &Rib<A>, levels: &Levels) -> Result<Vec<u128>, BuildError> {
    let mut counts = vec![0u128; levels.len()];
    for (j, routes) in routes_by_level(rib, levels)?.into_iter().enumerate() {
        sweep(routes, Prefix::DEFAULT_ROUTE, levels.lens()[j], |first, last, _| {
            counts[j] = counts[j].saturating_add(last - first).saturating_add(1);
        });
    }
    Ok(counts)
}

/// Expands `rib` to the target lengths `levels` with prefix capture (§4.1).
///
/// Fails when a route is longer than the longest target length, or when the expansion has
/// more than [`MAX_EXPANDED`] prefixes (use [`expand_each`] to stream larger ones).
#[doc(hidden)]
pub fn expand<A: Address>(rib: &Rib<A>, levels: &Levels) -> Result<Expansion<A>, BuildError> {
    let counts = expansion_count(rib, levels)?;
    let total = counts.iter().fold(0u128, |a, &c| a.saturating_add(c));
    if total > MAX_EXPANDED {
        return Err(BuildError::LimitExceeded {
            algo: "cpe",
            what: "expanded prefixes",
            limit: MAX_EXPANDED as u64,
            found: total.min(u64::MAX as u128) as u64,
        });
    }
    let mut tables: Vec<Vec<_>> = counts.iter().map(|&c| Vec::with_capacity(c as usize)).collect();
    expand_each(rib, levels, |j, p, h| tables[j].push((p, h)))?;
    Ok(Expansion { levels: levels.clone(), tables })
}
