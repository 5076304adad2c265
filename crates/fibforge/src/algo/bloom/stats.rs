//! Probe statistics: how often each level's filter passes and its table confirms, for a set
//! of addresses (the measured false-positive rate that decides the cost of a lookup).

use super::{BloomFib, BloomKey};

/// Counts of one level over a set of lookups ([`BloomFib::probe_stats`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[doc(hidden)]
pub struct ProbeStats {
    /// Key length of the level.
    pub len: u32,
    /// Lookups that reached the level (no longer level answered them).
    pub reached: u64,
    /// Of those, lookups whose filter test passed (table read).
    pub filter_pass: u64,
    /// Of those, lookups the table answered (the rest are false positives).
    pub table_hits: u64,
    /// Table slots read by those lookups (probe-run lengths summed).
    pub slots_read: u64,
}

impl ProbeStats {
    /// Measured false-positive rate: filter passes the table did not confirm, per lookup
    /// whose key is absent.
    pub fn false_positive_rate(&self) -> f64 {
        let absent = self.reached - self.table_hits;
        if absent == 0 { 0.0 } else { (self.filter_pass - self.table_hits) as f64 / absent as f64 }
    }
}

impl<A: BloomKey> BloomFib<A> {
    /// Per level (longest first), what the lookups of `addrs` did there.
    #[doc(hidden)]
    pub fn probe_stats(&self, addrs: &[A]) -> Vec<ProbeStats> {
        let mut stats: Vec<ProbeStats> =
            self.levels.iter().map(|l| ProbeStats { len: l.len(), ..Default::default() }).collect();
        for &addr in addrs {
            for (level, s) in self.levels.iter().zip(&mut stats) {
                s.reached += 1;
                let key = level.key(addr);
                if !level.filter_pass(key) {
                    continue;
                }
                s.filter_pass += 1;
                s.slots_read += level.table_run(key) as u64;
                if level.probe(addr).is_some() {
                    s.table_hits += 1;
                    break;
                }
            }
        }
        stats
    }
}
