//! Incremental updates: repaint the region each changed route touches.

use super::{Dir24_8, build};
use crate::fib::{BuildError, Incremental};
use crate::prefix::Prefix;
use crate::rib::Rib;

/// The region of `tbl24` a change of `prefix` can affect: the prefix itself when it is at most
/// a /24, otherwise the /24 block holding it.
fn region_of(prefix: &Prefix<u32>) -> Prefix<u32> {
    if prefix.len() > 24 { prefix.truncated(24) } else { *prefix }
}

/// The regions of `changed`, sorted, without any region inside another.
fn disjoint_regions(changed: &[Prefix<u32>]) -> Vec<Prefix<u32>> {
    let mut regions: Vec<_> = changed.iter().map(region_of).collect();
    // (address, length) order puts an enclosing region before everything inside it.
    regions.sort_unstable();
    regions.dedup();
    let mut kept: Vec<Prefix<u32>> = Vec::with_capacity(regions.len());
    for r in regions {
        if !kept.last().is_some_and(|k| k.covers(&r)) {
            kept.push(r);
        }
    }
    kept
}

impl Incremental<u32> for Dir24_8 {
    /// Repaints each affected region from the RIB. On error (a next hop too large for an
    /// entry) nothing has been changed.
    fn apply_changes(&mut self, rib: &Rib<u32>, changed: &[Prefix<u32>]) -> Result<(), BuildError> {
        let regions = disjoint_regions(changed);
        let painted: Vec<_> = regions.iter().map(|r| rib.ranges_within(r)).collect();
        for ranges in &painted {
            build::check_hops(ranges)?;
        }
        for (region, ranges) in regions.iter().zip(&painted) {
            self.paint(region, ranges, false);
        }
        Ok(())
    }
}
