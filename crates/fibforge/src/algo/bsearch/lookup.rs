//! The searches: one address, and a batch in lock step (see the module doc).

use super::MAX_LANES;
use crate::addr::Address;
use crate::algo::prefetch;
use crate::nexthop::NextHop;

/// The answer of endpoint `i` for `addr` (`eq` when `addr` is the endpoint, else `gt`).
#[inline(always)]
fn answer<A: Address>(keys: &[A], answers: &[[u32; 2]], i: usize, addr: A) -> Option<NextHop> {
    NextHop::from_raw(answers[i][(keys[i] != addr) as usize])
}

/// One lookup: the last endpoint `<= addr` (keys[0] is 0, so there is one), branch-free.
#[inline]
pub(super) fn one<A: Address>(keys: &[A], answers: &[[u32; 2]], addr: A) -> Option<NextHop> {
    // Invariant: the answer index is in base..base + n, and base + n <= keys.len().
    let (mut base, mut n) = (0usize, keys.len());
    while n > 1 {
        let half = n / 2;
        let mid = base + half;
        base = if keys[mid] <= addr { mid } else { base };
        n -= half;
    }
    answer(keys, answers, base, addr)
}

/// `addrs` in groups of `lanes`, each group searched in lock step: every lane takes the same
/// steps (one array), and each lane's next probe is prefetched as soon as it is known.
pub(super) fn batch<A: Address>(
    keys: &[A],
    answers: &[[u32; 2]],
    lanes: usize,
    addrs: &[A],
    out: &mut [Option<NextHop>],
) {
    let lanes = lanes.clamp(1, MAX_LANES);
    for (group, out) in addrs.chunks(lanes).zip(out.chunks_mut(lanes)) {
        let mut base = [0usize; MAX_LANES];
        let base = &mut base[..group.len()];
        let mut n = keys.len();
        while n > 1 {
            let half = n / 2;
            let next_half = (n - half) / 2;
            for (b, &a) in base.iter_mut().zip(group) {
                let mid = *b + half;
                *b = if keys[mid] <= a { mid } else { *b };
                prefetch::read(keys, *b + next_half);
            }
            n -= half;
        }
        for ((o, &b), &a) in out.iter_mut().zip(base.iter()).zip(group) {
            *o = answer(keys, answers, b, a);
        }
    }
}
