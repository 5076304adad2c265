//! Differential update sequences: a byte string decoded into route inserts, removals and
//! next-hop changes over a small address space, applied to the RIB and to every
//! [`Incremental`] structure; after each batch every structure must answer exactly as the RIB.
//!
//! The `diff_updates_*` fuzz targets (`fuzz/`) run [`run_one`] (the first byte picks one
//! structure, the rest is the sequence); the tests run [`run`] (every structure) on fixed and
//! random byte strings. [`run`] panics, naming the structure, the
//! batch and the first differing addresses, when a structure disagrees with the RIB or refuses
//! an update; any other outcome is a pass. A structure that reports a documented structural
//! limit (`LimitExceeded` with its count above the limit) leaves the run instead, counted in
//! [`Outcome::at_limit`].
//!
//! Layout of the input: byte 0 says how many of the first operations build the table that is
//! compiled (`b % 32`); the rest are 4-byte operations `[kind|hop, len, hi, lo]`:
//! - `kind = b & 3`: 0 and 1 set the route (insert or next-hop change), 2 removes it (present
//!   or not), 3 ends a batch: the changes so far are applied and every structure is checked;
//! - `hop = (b >> 2) % 12`: few next hops, so neighbouring routes often share one (the
//!   aggregating structures merge and split them);
//! - `len = len % (BITS + 1)`; the address has `hi` as its top byte, `lo & 15` as its next
//!   four bits and, below, zeros, ones, a `01` pattern or `hi` repeated (`lo >> 4 & 3`), so
//!   routes nest and collide often while every level of every structure is reached.
//!
//! Probes (where answers can go wrong): the first and last address of every route ever
//! touched (removed ones too: their space must fall back to the covering route) and their
//! outside neighbours, plus the ends of the address space; each is looked up through
//! `lookup` and `lookup_batch`.

use super::check::{Probes, Report, compare};
use crate::addr::Address;
use crate::algo::{bloom, bplus, dir24_8, dxr, miht, multibit, poptrie, radix, sail, treebitmap};
use crate::fib::{BuildError, Incremental, Lookup};
use crate::multi::loop_;
use crate::multi::loop_::LoopFib;
use crate::nexthop::NextHop;
use crate::prefix::Prefix;
use crate::rib::Rib;

/// The key cap of the `bloomfwd` subject (its default is 2^28), the Bloom property tests'
/// cap: these inputs are full of short IPv6 routes, which its expansion can turn into
/// gigabytes within the default bound, and one input of seconds costs the fuzzer thousands of
/// others (the finding and the rates are in docs/lab/reliability.md). Below the cap
/// every update path runs (in-place fan-outs, span fills, new levels, rebuilds); a fan-out
/// that could pass it rebuilds, and a rebuild above it reports `LimitExceeded`, which
/// [`run_with`] accepts as the end of that subject's run.
pub const BLOOM_MAX_KEYS: u128 = 1 << 18;

/// Bytes per operation.
pub const OP_BYTES: usize = 4;
/// Operations decoded at most (longer inputs are cut), so one input stays fast.
pub const MAX_OPS: usize = 96;

/// One decoded operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op<A: Address> {
    /// Insert the route or change its next hop.
    Set(Prefix<A>, NextHop),
    /// Remove the route (a no-op when absent).
    Remove(Prefix<A>),
    /// Apply the batch and check.
    Check,
}

/// An input decoded: the operations building the compiled table, then the updates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequence<A: Address> {
    /// Applied to the RIB before the structures are compiled.
    pub initial: Vec<Op<A>>,
    /// Applied afterwards, in batches ended by [`Op::Check`] (and by the end).
    pub updates: Vec<Op<A>>,
}

/// Decodes `bytes` (see the module documentation); never fails.
pub fn decode<A: Address>(bytes: &[u8]) -> Sequence<A> {
    let Some((&first, rest)) = bytes.split_first() else {
        return Sequence { initial: Vec::new(), updates: Vec::new() };
    };
    let mut ops: Vec<Op<A>> = rest.chunks_exact(OP_BYTES).take(MAX_OPS).map(decode_op).collect();
    let updates = ops.split_off((first as usize % 32).min(ops.len()));
    Sequence { initial: ops, updates }
}

fn decode_op<A: Address>(b: &[u8]) -> Op<A> {
    let (kind, hop) = (b[0] & 3, NextHop::from_index(u32::from(b[0] >> 2) % 12));
    if kind == 3 {
        return Op::Check;
    }
    let len = u32::from(b[1]) % (A::BITS + 1);
    let (hi, lo) = (u128::from(b[2]), u128::from(b[3]));
    let fill = match lo >> 4 & 3 {
        0 => 0,
        1 => u128::MAX,
        2 => u128::MAX / 3,
        _ => u128::MAX / 255 * hi,
    };
    let bits = hi << 120 | (lo & 15) << 116 | fill >> 12;
    let prefix = Prefix::new_masked(A::from_u128(bits >> (128 - A::BITS)), len)
        .expect("the length is reduced modulo BITS + 1");
    if kind == 2 { Op::Remove(prefix) } else { Op::Set(prefix, hop) }
}

/// A structure under test, behind one object-safe interface.
pub trait Subject<A: Address> {
    /// [`Incremental::apply_changes`].
    fn apply(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError>;
    /// The structure, for lookups.
    fn fib(&self) -> &dyn Lookup<A>;
}

impl<A: Address, T: Incremental<A> + 'static> Subject<A> for T {
    fn apply(&mut self, rib: &Rib<A>, changed: &[Prefix<A>]) -> Result<(), BuildError> {
        self.apply_changes(rib, changed)
    }
    fn fib(&self) -> &dyn Lookup<A> {
        self
    }
}

/// Compiles a structure under test from a RIB.
pub type Builder<A> = fn(&Rib<A>) -> Result<Box<dyn Subject<A>>, BuildError>;

fn make<A: Address, T: Incremental<A> + 'static>(
    rib: &Rib<A>,
    cfg: &T::Config,
) -> Result<Box<dyn Subject<A>>, BuildError> {
    Ok(Box::new(T::compile(rib, cfg)?))
}

/// The IPv4 subjects whose compile fills a fixed array of 2^18 entries or more (DIR-24-8,
/// SAIL_B and SAIL_U: 2^24; Poptrie s=18 with and without the leaf vector and DXR k=18:
/// 2^18), by label (an entry ending in a space matches the labels it starts).
pub const WIDE_V4: &[&str] =
    &["poptrie s=18 ", "poptrie s=18", "dir24_8", "sail_b", "sail_u", "dxr18"];

/// The slowest IPv6 subjects per input: Poptrie s=18 (its compile fills 2^18 entries, with
/// and without the leaf vector) and bloomfwd (it expands the short prefixes these inputs are
/// full of into its levels).
pub const WIDE_V6: &[&str] = &["poptrie s=18 ", "poptrie s=18", "bloomfwd"];

/// True when subject `name` is one of `wide`'s (see [`WIDE_V4`]).
pub fn is_wide(wide: &[&str], name: &str) -> bool {
    wide.iter().any(|w| name == *w || (w.ends_with(' ') && name.starts_with(w)))
}

/// Address families with the list of their [`Incremental`] structures.
pub trait SequenceFamily: poptrie::Key + bplus::Key + bloom::BloomKey {
    /// Every incremental structure of the family, by name (with its configuration).
    fn subjects() -> Vec<(&'static str, Builder<Self>)>;
}

fn common<A: SequenceFamily>() -> Vec<(&'static str, Builder<A>)> {
    vec![
        ("radix", |r| make::<A, radix::Radix<A>>(r, &())),
        ("poptrie s=18", |r| make::<A, poptrie::Poptrie<A>>(r, &pop(18, false))),
        ("poptrie s=0", |r| make::<A, poptrie::Poptrie<A>>(r, &pop(0, false))),
        ("poptrie s=16 aggregate=off", |r| {
            let cfg = poptrie::Config { aggregate: false, ..pop(16, false) };
            make::<A, poptrie::Poptrie<A>>(r, &cfg)
        }),
        ("poptrie s=18 leafvec=off", |r| {
            let cfg = poptrie::Config { leafvec: false, ..pop(18, false) };
            make::<A, poptrie::Poptrie<A>>(r, &cfg)
        }),
        ("treebitmap4", |r| make::<A, treebitmap::TreeBitmap4<A>>(r, &())),
        ("treebitmap6", |r| make::<A, treebitmap::TreeBitmap6<A>>(r, &())),
        ("miht", |r| make::<A, miht::Miht<A>>(r, &miht::Config::default())),
        ("cpe_var (updatable)", |r| make::<A, multibit::UpdatableTrie<A>>(r, &cpe(true))),
        ("cpe_fixed (updatable)", |r| make::<A, multibit::UpdatableTrie<A>>(r, &cpe(false))),
        ("bloom_naive", |r| make::<A, bloom::BloomFib<A>>(r, &bloom::Config::naive())),
        ("bloom_base", |r| make::<A, bloom::BloomFib<A>>(r, &bloom::Config::baseline())),
        ("bloomfwd", |r| {
            let cfg = bloom::Config { max_keys: BLOOM_MAX_KEYS, ..Default::default() };
            make::<A, bloom::BloomFib<A>>(r, &cfg)
        }),
        ("loop", |r| make::<A, LoopFib<A>>(r, &loop_::Config::default())),
        ("bplus", |r| make::<A, bplus::BPlus<A>>(r, &bplus::Config::default())),
        ("bplus isa=portable", |r| {
            make::<A, bplus::BPlus<A>>(
                r,
                &bplus::Config { isa: Some(crate::cpu::Isa::Portable), ..Default::default() },
            )
        }),
        ("bplus delta=1 dir=off", |r| {
            let cfg = bplus::Config { delta: 1, dir: false, ..Default::default() };
            make::<A, bplus::BPlus<A>>(r, &cfg)
        }),
        // Every leaf layout (the default picks plain lines for IPv4 and hop leaves for IPv6,
        // so one of these two repeats it per family).
        ("bplus leaf=rel", |r| {
            let cfg = bplus::Config { leaf: Some(bplus::Leaf::Rel), ..Default::default() };
            make::<A, bplus::BPlus<A>>(r, &cfg)
        }),
        ("bplus leaf=hop", |r| {
            let cfg = bplus::Config { leaf: Some(bplus::Leaf::Hop), ..Default::default() };
            make::<A, bplus::BPlus<A>>(r, &cfg)
        }),
        // Root fan-out is IPv6 only; IPv4 ignores the flag (and must still answer right).
        ("poptrie s=16 fanout", |r| make::<A, poptrie::Poptrie<A>>(r, &pop(16, true))),
        ("dxr16", |r| make::<A, dxr::Dxr<A>>(r, &dxr::Config::with_k(16))),
        ("dxr k=8", |r| make::<A, dxr::Dxr<A>>(r, &dxr::Config::with_k(8))),
    ]
}

fn cpe(variable: bool) -> multibit::Config {
    multibit::Config { variable, ..Default::default() }
}

fn pop(s: u32, fanout: bool) -> poptrie::Config {
    poptrie::Config { s, fanout, ..Default::default() }
}

impl SequenceFamily for u32 {
    fn subjects() -> Vec<(&'static str, Builder<u32>)> {
        let mut v = common::<u32>();
        v.push(("dir24_8", |r| make::<u32, dir24_8::Dir24_8>(r, &())));
        v.push(("sail_b", |r| make::<u32, sail::SailB>(r, &sail::Config::default())));
        v.push(("sail_u", |r| make::<u32, sail::SailU>(r, &sail::Config::default())));
        // SAIL_L is IPv4 here: the sequences' IPv6 routes run to /128, past its /64.
        v.push(("sail_l", |r| make::<u32, sail::SailL<u32>>(r, &sail::Config::default())));
        v.push(("dxr18", |r| make::<u32, dxr::Dxr<u32>>(r, &dxr::Config::with_k(18))));
        v
    }
}

impl SequenceFamily for u128 {
    fn subjects() -> Vec<(&'static str, Builder<u128>)> {
        common::<u128>()
    }
}

/// What [`run`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Batches applied and checked.
    pub batches: usize,
    /// Lookups compared with the RIB, all structures together.
    pub checked: u64,
    /// Structures that left the run by reporting a structural limit
    /// ([`BuildError::LimitExceeded`]) at their compile or an update.
    pub at_limit: usize,
}

/// Runs `bytes` as a sequence against every structure `keep` selects (by name).
///
/// # Panics
/// When a structure fails to compile or update (other than at a documented limit), or
/// answers differently from the RIB.
pub fn run<A: SequenceFamily>(bytes: &[u8], keep: impl Fn(&str) -> bool) -> Outcome {
    let subjects = A::subjects().into_iter().filter(|(name, _)| keep(name)).collect();
    run_with(bytes, subjects)
}

/// Runs the rest of `bytes` as a sequence against ONE of the structures `keep` selects: the
/// first byte picks it (modulo their number, in [`SequenceFamily::subjects`] order), so an
/// input costs one structure's compile and updates, and coverage guidance spreads the inputs
/// over all of them. Returns the structure's name with the outcome; `None` for an empty input
/// or when `keep` selects nothing.
///
/// # Panics
/// As [`run`].
pub fn run_one<A: SequenceFamily>(
    bytes: &[u8],
    keep: impl Fn(&str) -> bool,
) -> Option<(&'static str, Outcome)> {
    let (&pick, rest) = bytes.split_first()?;
    let mut subjects: Vec<_> = A::subjects().into_iter().filter(|(name, _)| keep(name)).collect();
    if subjects.is_empty() {
        return None;
    }
    let chosen = subjects.swap_remove(usize::from(pick) % subjects.len());
    Some((chosen.0, run_with(rest, vec![chosen])))
}

/// Runs `bytes` as a sequence against the given structures.
///
/// # Panics
/// As [`run`].
pub fn run_with<A: Address>(bytes: &[u8], builders: Vec<(&'static str, Builder<A>)>) -> Outcome {
    let seq = decode::<A>(bytes);
    let mut rib = Rib::new();
    let mut touched = Vec::new();
    for op in &seq.initial {
        apply_to_rib(&mut rib, op, &mut touched);
    }
    let mut out = Outcome::default();
    let mut subjects: Vec<(&str, Box<dyn Subject<A>>)> = builders
        .into_iter()
        .filter_map(|(name, build)| match build(&rib) {
            Ok(s) => Some((name, s)),
            Err(e) if beyond_limit(&e) => {
                out.at_limit += 1;
                None
            }
            Err(e) => panic!("{name}: compile of {} routes failed: {e}", rib.len()),
        })
        .collect();
    out.checked += check_all(&subjects, &rib, &touched, "after compile");
    let mut changed = Vec::new();
    let batches = seq.updates.split(|op| *op == Op::Check);
    for (i, batch) in batches.enumerate() {
        changed.clear();
        for op in batch {
            changed.extend(apply_to_rib(&mut rib, op, &mut touched));
        }
        // A structure that reports its documented limit leaves the run: what it holds after
        // a refused update is unspecified.
        subjects.retain_mut(|(name, s)| match s.apply(&rib, &changed) {
            Ok(()) => true,
            Err(e) if beyond_limit(&e) => {
                out.at_limit += 1;
                false
            }
            Err(e) => panic!("{name}: batch {i} ({changed:?}) refused: {e}"),
        });
        out.checked += check_all(&subjects, &rib, &touched, &format!("after batch {i}"));
        out.batches += 1;
    }
    out
}

/// True for a `LimitExceeded` whose count is above its limit: a documented refusal, not a
/// failure (any other error, or a limit error that does not hold, fails the run).
fn beyond_limit(e: &BuildError) -> bool {
    matches!(e, BuildError::LimitExceeded { limit, found, .. } if found > limit)
}

/// Applies `op` to `rib`, noting its prefix in `touched`; the prefix when the RIB changed.
fn apply_to_rib<A: Address>(
    rib: &mut Rib<A>,
    op: &Op<A>,
    touched: &mut Vec<Prefix<A>>,
) -> Option<Prefix<A>> {
    let (p, changed) = match *op {
        Op::Set(p, hop) => (p, rib.insert(p, hop) != Some(hop)),
        Op::Remove(p) => (p, rib.remove(&p).is_some()),
        Op::Check => return None,
    };
    touched.push(p);
    changed.then_some(p)
}

/// Checks every subject on the edges of the touched prefixes; the lookups compared.
fn check_all<A: Address>(
    subjects: &[(&str, Box<dyn Subject<A>>)],
    rib: &Rib<A>,
    touched: &[Prefix<A>],
    when: &str,
) -> u64 {
    let mut addrs = vec![A::ZERO, A::from_u128(u128::MAX)];
    for p in touched {
        let (first, last) = (p.addr().to_u128(), p.last().to_u128());
        addrs.extend([p.addr(), p.last()]);
        addrs.extend([A::from_u128(first.wrapping_sub(1)), A::from_u128(last.wrapping_add(1))]);
    }
    addrs.sort_unstable();
    addrs.dedup();
    // Sequential on purpose: a fuzz input is small, and a thread pool per process would cost
    // more than it saves.
    let expected = addrs.iter().map(|&a| rib.lookup(a)).collect();
    let probes = Probes { addrs, expected };
    let mut checked = 0;
    let mut got = vec![None; probes.addrs.len()];
    for (name, s) in subjects {
        let fib = s.fib();
        let mut report = Report::default();
        for (g, &a) in got.iter_mut().zip(&probes.addrs) {
            *g = fib.lookup(a);
        }
        report.merge(compare(&got, &probes, "lookup"));
        fib.lookup_batch(&probes.addrs, &mut got);
        report.merge(compare(&got, &probes, "lookup_batch"));
        report.assert_ok(&format!("{name} {when} ({} routes)", rib.len()));
        checked += report.checked;
    }
    checked
}

#[cfg(test)]
mod tests;
