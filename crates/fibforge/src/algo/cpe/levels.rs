//! Target lengths of an expansion: `L1 < L2 < … < Lk`, which are also the level ends of a
//! fixed-stride trie (level `j` consumes bits `L(j-1)..Lj`, the root bits `0..L1`).

use crate::fib::BuildError;
use std::fmt;
use std::ops::RangeInclusive;

/// Strictly increasing target prefix lengths `L1 < … < Lk` (each at most the address width).
///
/// Level `j` receives the routes whose length lies in its *window* `(L(j-1), Lj]`
/// (`[0, L1]` for the first level), each expanded to length `Lj`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub struct Levels(Vec<u32>);

impl Levels {
    /// Checks and wraps target lengths for addresses of `bits` bits.
    pub fn new(lens: &[u32], bits: u32) -> Result<Self, BuildError> {
        let bad = |reason: String| BuildError::BadOption {
            algo: "cpe",
            option: format!("levels={}", join(lens)),
            reason,
        };
        if lens.is_empty() {
            return Err(bad("at least one target length is needed".into()));
        }
        if lens.windows(2).any(|w| w[0] >= w[1]) {
            return Err(bad("target lengths must be strictly increasing".into()));
        }
        if let Some(&last) = lens.last().filter(|&&l| l > bits) {
            return Err(bad(format!("length {last} exceeds the address width {bits}")));
        }
        Ok(Levels(lens.to_vec()))
    }

    /// The target lengths, shortest first.
    pub fn lens(&self) -> &[u32] {
        &self.0
    }

    /// Number of levels `k`.
    #[allow(clippy::len_without_is_empty)] // never empty by construction
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The longest target length `Lk`.
    pub fn last(&self) -> u32 {
        *self.0.last().expect("levels are never empty")
    }

    /// Strides of the matching fixed-stride trie: `L1, L2 - L1, …`.
    pub fn strides(&self) -> Vec<u32> {
        let mut prev = 0;
        self.0
            .iter()
            .map(|&l| {
                let s = l - prev;
                prev = l;
                s
            })
            .collect()
    }

    /// The route lengths level `j` (0-based) receives.
    pub fn window(&self, j: usize) -> RangeInclusive<u32> {
        let lo = if j == 0 { 0 } else { self.0[j - 1] + 1 };
        lo..=self.0[j]
    }

    /// The level whose window holds routes of length `len` (`None` when `len > Lk`).
    pub fn level_of(&self, len: u32) -> Option<usize> {
        let j = self.0.partition_point(|&l| l < len);
        (j < self.0.len()).then_some(j)
    }
}

fn join(lens: &[u32]) -> String {
    lens.iter().map(|l| l.to_string()).collect::<Vec<_>>().join("/")
}

impl fmt::Display for Levels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&join(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_strides_and_levels() {
        let l = Levels::new(&[2, 5, 7], 32).unwrap();
        assert_eq!(l.strides(), [2, 3, 2]);
        assert_eq!(l.window(0), 0..=2);
        assert_eq!(l.window(1), 3..=5);
        assert_eq!(l.level_of(0), Some(0));
        assert_eq!(l.level_of(3), Some(1));
        assert_eq!(l.level_of(7), Some(2));
        assert_eq!(l.level_of(8), None);
        assert_eq!(l.to_string(), "2/5/7");
        assert!(Levels::new(&[], 32).is_err());
        assert!(Levels::new(&[4, 4], 32).is_err());
        assert!(Levels::new(&[8, 33], 32).is_err());
        assert!(Levels::new(&[0, 128], 128).is_ok());
    }
}
