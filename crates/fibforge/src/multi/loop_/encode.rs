//! Turning a chunk's merged FPA (one lookup entry per element) into group structures or a
//! sparse chunk (paper §III-B, §III-E, §IV Optimization 2).

use super::layout::{TAG_PMT, codeword};

/// Words of one group structure: codewords, then one lookup entry per range head.
///
/// A range head is an element whose entry differs from the previous element's; the first
/// element of a group is always a head, so groups can be regenerated independently.
pub(super) fn encode_group(elems: &[u32]) -> Vec<u32> {
    let clusters = elems.len() / 8;
    let mut codewords = vec![0u32; clusters.div_ceil(2)];
    let mut entries = Vec::with_capacity(8);
    let mut before = 0u32;
    for c in 0..clusters {
        let mut bitset = 0u32;
        for (k, i) in (c * 8..c * 8 + 8).enumerate() {
            if i == 0 || elems[i] != elems[i - 1] {
                bitset |= 0x80 >> k;
                entries.push(elems[i]);
            }
        }
        let cw = bitset << 8 | before;
        codewords[c / 2] |= cw << (16 * (c % 2));
        before += bitset.count_ones();
    }
    codewords.extend(entries);
    codewords
}

/// Length in words of the group structure starting with `codewords` (`group` elements).
pub(super) fn group_len(first_words: impl Fn(usize) -> u32, group: u32) -> usize {
    let clusters = (group / 8) as usize;
    let last = clusters - 1;
    let word = first_words(last / 2);
    let cw = codeword(word, last);
    let heads = (cw & 0xff) + (cw >> 8).count_ones();
    clusters.div_ceil(2) + heads as usize
}

/// A prefix inside a chunk, relative to the chunk: `bits` are the top `len` bits of the
/// element index.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Special {
    pub bits: u32,
    pub len: u32,
}

impl Special {
    fn covers(&self, elem: u32, stride: u32) -> bool {
        elem >> (stride - self.len) == self.bits
    }
}

/// The sparse form of a chunk whose routes (and next-layer pointers) are at most `limit`
/// relative prefixes, or `None` when it does not exist or would not reproduce `elems` exactly.
///
/// Words: `[count, default, (bits << 8 | shift, entry) * count]`, longest prefix first, so the
/// first match is the longest.
pub(super) fn encode_sparse(
    specials: &[Special],
    elems: &[u32],
    stride: u32,
    limit: usize,
) -> Option<Vec<u32>> {
    if specials.len() > limit {
        return None;
    }
    let mut order: Vec<Special> = specials.to_vec();
    order.sort_by(|a, b| b.len.cmp(&a.len).then(a.bits.cmp(&b.bits)));
    order.dedup();
    let n = elems.len() as u32;
    let first_match = |e: u32| order.iter().position(|s| s.covers(e, stride));
    let mut values: Vec<Option<u32>> = vec![None; order.len()];
    let mut default = None;
    for e in 0..n {
        match first_match(e) {
            Some(k) => values[k] = values[k].or(Some(elems[e as usize])),
            None => default = default.or(Some(elems[e as usize])),
        }
    }
    let default = default.unwrap_or_else(|| super::layout::entry(TAG_PMT, 0));
    let mut words = vec![0, default];
    for (s, v) in order.iter().zip(&values) {
        if let Some(v) = v {
            words.push(s.bits << 8 | (stride - s.len));
            words.push(*v);
        }
    }
    words[0] = ((words.len() - 2) / 2) as u32;
    // Exactness check: the sparse form must give every element its entry.
    let reproduces = (0..n).all(|e| sparse_pick(&words, e) == elems[e as usize]);
    reproduces.then_some(words)
}

/// The entry a sparse chunk's words give element `elem` (mirror of the reader's loop).
pub(super) fn sparse_pick(words: &[u32], elem: u32) -> u32 {
    let count = words[0] as usize;
    for k in 0..count {
        let key = words[2 + 2 * k];
        if elem >> (key & 0xff) == key >> 8 {
            return words[3 + 2 * k];
        }
    }
    words[1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_round_trip() {
        let elems: Vec<u32> =
            (0..64).map(|i| [5, 5, 7, 7, 7, 9][i % 6] + (i as u32 / 20)).collect();
        let words = encode_group(&elems);
        let len = group_len(|w| words[w], 64);
        assert_eq!(len, words.len());
        for (i, &want) in elems.iter().enumerate() {
            let cluster = i / 8;
            let word = words[cluster / 2];
            let cw = codeword(word, cluster);
            let idx = (cw & 0xff) + ((cw >> 8) >> (7 - (i & 7))).count_ones() - 1;
            assert_eq!(words[4 + idx as usize], want, "element {i}");
        }
    }

    #[test]
    fn sparse_is_exact_or_refused() {
        let mut elems = vec![1u32; 256];
        elems[16..32].fill(2);
        elems[20] = 3;
        let specials = [Special { bits: 1, len: 4 }, Special { bits: 20, len: 8 }];
        let words = encode_sparse(&specials, &elems, 8, 3).unwrap();
        for e in 0..256 {
            assert_eq!(sparse_pick(&words, e), elems[e as usize]);
        }
        assert!(encode_sparse(&specials[..1], &elems, 8, 3).is_none(), "cannot express element 20");
        assert!(encode_sparse(&specials, &elems, 8, 1).is_none(), "over the limit");
    }
}
