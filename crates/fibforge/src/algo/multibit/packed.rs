//! Packed-array nodes (§4.3, §5.1): a sparse node stored as its runs in one cache line.
//!
//! A node of stride `s` whose `2^s` entries form at most a handful of runs of equal entries
//! is stored as the runs' start indices and values; a lookup counts the starts at or below
//! its index (branch-free, all in registers) and reads that run's value.
//!
//! Leaf-pushed layout, 16 × `u32`: `[0]` = stride | runs << 8, `[1..8]` = starts of runs
//! 1..=7 (unused: `u32::MAX`), `[8..16]` = values of runs 0..=7. Up to 8 runs.
//!
//! Non-leaf-pushed layout, 8 × `u64`: `[0]` = stride | runs << 8, `[1..3]` = starts of runs
//! 1..=4 as `u32` halves (low half first), `[3..8]` = values of runs 0..=4. Up to 5 runs.

/// Most runs of a packed leaf-pushed node.
pub(crate) const LP_RUNS: usize = 8;
/// Most runs of a packed non-leaf-pushed node.
pub(crate) const NLP_RUNS: usize = 5;

/// The runs of `entries` as (start index, value), or `None` when there are more than `max`.
pub(crate) fn runs<T: Copy + PartialEq>(entries: &[T], max: usize) -> Option<Vec<(u32, T)>> {
    let mut out: Vec<(u32, T)> = Vec::with_capacity(max);
    for (i, &e) in entries.iter().enumerate() {
        if out.last().is_none_or(|&(_, v)| v != e) {
            if out.len() == max {
                return None;
            }
            out.push((i as u32, e));
        }
    }
    Some(out)
}

/// The stride recorded in a packed node's header.
#[inline]
pub(crate) fn stride_of(header: u64) -> u32 {
    (header & 0xff) as u32
}

/// Encodes runs of a leaf-pushed node of `stride` bits into one line.
pub(crate) fn lp_encode(stride: u32, runs: &[(u32, u32)], line: &mut [u32]) {
    debug_assert!(!runs.is_empty() && runs.len() <= LP_RUNS && runs[0].0 == 0);
    line[0] = stride | (runs.len() as u32) << 8;
    for j in 0..LP_RUNS - 1 {
        line[1 + j] = runs.get(j + 1).map_or(u32::MAX, |r| r.0);
    }
    for j in 0..LP_RUNS {
        line[8 + j] = runs.get(j).map_or(0, |r| r.1);
    }
}

/// The entry of a packed leaf-pushed node for index `idx`.
#[inline]
pub(crate) fn lp_search(line: &[u32], idx: u32) -> u32 {
    let starts: &[u32; 7] = line[1..8].try_into().expect("a packed node is one line");
    let run: usize = starts.iter().map(|&s| (s <= idx) as usize).sum();
    line[8 + run]
}

/// Expands a packed leaf-pushed node into its `2^stride` entries.
#[cfg(test)]
pub(crate) fn lp_decode(line: &[u32]) -> Vec<u32> {
    let stride = stride_of(line[0] as u64);
    (0..1u32 << stride).map(|i| lp_search(line, i)).collect()
}

/// Encodes runs of a non-leaf-pushed node of `stride` bits into one line.
pub(crate) fn nlp_encode(stride: u32, runs: &[(u32, u64)], line: &mut [u64]) {
    debug_assert!(!runs.is_empty() && runs.len() <= NLP_RUNS && runs[0].0 == 0);
    line[0] = stride as u64 | (runs.len() as u64) << 8;
    let start = |j: usize| runs.get(j + 1).map_or(u32::MAX, |r| r.0) as u64;
    line[1] = start(0) | start(1) << 32;
    line[2] = start(2) | start(3) << 32;
    for j in 0..NLP_RUNS {
        line[3 + j] = runs.get(j).map_or(0, |r| r.1);
    }
}

/// The entry of a packed non-leaf-pushed node for index `idx`.
#[inline]
pub(crate) fn nlp_search(line: &[u64], idx: u32) -> u64 {
    let (a, b) = (line[1], line[2]);
    let le = |s: u64| ((s as u32) <= idx) as usize;
    let run = le(a) + le(a >> 32) + le(b) + le(b >> 32);
    line[3 + run]
}

/// Expands a packed non-leaf-pushed node into its `2^stride` entries.
pub(crate) fn nlp_decode(line: &[u64]) -> Vec<u64> {
    let stride = stride_of(line[0]);
    (0..1u32 << stride).map(|i| nlp_search(line, i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_pushed_round_trip() {
        let mut entries = vec![3u32; 64];
        entries[10..20].fill(5);
        entries[40] = 0x8000_0010;
        entries[63] = 9;
        let r = runs(&entries, LP_RUNS).unwrap();
        assert_eq!(r.len(), 6);
        let mut line = [0u32; 16];
        lp_encode(6, &r, &mut line);
        assert_eq!(lp_decode(&line), entries);
        entries[1] = 1;
        entries[3] = 1;
        assert!(runs(&entries, LP_RUNS).is_none());
    }

    #[test]
    fn non_leaf_pushed_round_trip() {
        let mut entries = vec![0u64; 32];
        entries[0] = 1;
        entries[7] = (5 << 32) | 2;
        entries[31] = 4;
        let r = runs(&entries, NLP_RUNS).unwrap();
        assert_eq!(r.len(), 5);
        let mut line = [0u64; 8];
        nlp_encode(5, &r, &mut line);
        assert_eq!(nlp_decode(&line), entries);
    }
}
