//! Interleaved batch lookups for Trie Braiding (`braiding`, through `walk_plain`), in the
//! manner of LOOP's batch (`loop_/batch.rs`). It is kept where it wins over key-by-key
//! lookups: Merged Trie, Trie Overlap and the Bitmap-assisted Trie measured slower with it.
//!
//! A trie walk is a chain of dependent loads, one node per level, so a lone lookup leaves
//! the memory system idle between misses. [`batch`] keeps [`LANES`] keys in flight and
//! advances them round-robin one [`Walk::step`] at a time; each step prefetches what its lane
//! reads next (the next node, or the PortMapTable entry it found), which has then had the
//! other lanes' steps to arrive. A lane that finishes writes its answer and takes the next
//! key at once, so lanes of different depths do not wait for each other.
//!
//! **Invariant** (tested against `lookup` and the RIBs): every key's answer is what the
//! structure's single `lookup` returns; keys of unknown VRFs get `None` without a lane.

use super::VrfId;
use crate::addr::Address;
use crate::nexthop::NextHop;

/// Keys walked in step.
pub(super) const LANES: usize = 16;

/// One structure's lookup cut into steps of one node each.
pub(super) trait Walk<A: Address> {
    /// A lane's position in its walk.
    type State: Copy + Default;
    /// The state at the root for a key of a known VRF.
    fn start(&self, vrf: usize, addr: A) -> Self::State;
    /// Advances one node; true when the walk is over (prefetches what the lane reads next).
    fn step(&self, st: &mut Self::State, vrf: usize, addr: A) -> bool;
    /// The answer of a finished walk.
    fn finish(&self, st: &Self::State, vrf: usize) -> Option<NextHop>;
}

/// Looks up every key into the same position of `out`, [`LANES`] walks interleaved.
pub(super) fn batch<A: Address, W: Walk<A>>(
    w: &W,
    vrfs: usize,
    keys: &[(VrfId, A)],
    out: &mut [Option<NextHop>],
) {
    assert!(out.len() >= keys.len(), "output shorter than input");
    let mut lane = [usize::MAX; LANES];
    let mut st = [W::State::default(); LANES];
    let mut next = 0;
    let mut live = 0;
    for (l, s) in lane.iter_mut().zip(&mut st) {
        if let Some(k) = take(keys, vrfs, out, &mut next) {
            *l = k;
            *s = w.start(keys[k].0 as usize, keys[k].1);
            live += 1;
        }
    }
    while live > 0 {
        for (l, s) in lane.iter_mut().zip(&mut st) {
            if *l == usize::MAX {
                continue;
            }
            let (v, a) = (keys[*l].0 as usize, keys[*l].1);
            if !w.step(s, v, a) {
                continue;
            }
            out[*l] = w.finish(s, v);
            match take(keys, vrfs, out, &mut next) {
                Some(k) => {
                    *l = k;
                    *s = w.start(keys[k].0 as usize, keys[k].1);
                }
                None => {
                    *l = usize::MAX;
                    live -= 1;
                }
            }
        }
    }
}

/// The next key of a known VRF from `*next` on, answering the unknown ones before it.
#[inline]
fn take<A: Address>(
    keys: &[(VrfId, A)],
    vrfs: usize,
    out: &mut [Option<NextHop>],
    next: &mut usize,
) -> Option<usize> {
    while *next < keys.len() {
        let k = *next;
        *next += 1;
        if (keys[k].0 as usize) < vrfs {
            return Some(k);
        }
        out[k] = None;
    }
    None
}
