//! Soak: a long real-shaped update run against a concurrent [`Table`] with every reader
//! answer checked, and the process's memory sampled.
//!
//! Method:
//! 1. The updates are real streams (LINX, MRT) replayed in rounds with perturbations:
//!    [`perturbed`] maps update number `i` to round `i / n` of the `n` base updates, where the
//!    next hops rotate by the round, and one update in eight moves to its sibling prefix and
//!    one in sixteen flips between announce and withdraw (a pure function of `i`, so every
//!    thread computes the same stream without storing it).
//! 2. One writer applies update `i` between `started = i + 1` and `done = i + 1` (release
//!    stores). Each reader keeps its own RIB at the version it has seen; per burst it reads
//!    `v0 = done`, brings its RIB to `v0`, looks up addresses chosen around the next update's
//!    prefix (first, last, outside neighbours, one inside) and random ones in the table's
//!    space, then reads `v1 = started`. Every answer must be the RIB's answer at some version
//!    in `v0..=v1`: the reader replays updates `v0..v1` on its RIB collecting each address's
//!    answers. Bursts overtaken by more than [`MAX_SPAN`] updates are counted, not checked.
//! 3. A sampler records the resident set size (`/proc/self/statm`) every `samples`-th of the
//!    run; after warm-up (the first quarter) it must not keep growing.
//!
//! Invariant: `violations` counts answers that were neither the old nor any newer answer of
//! their address during their lookup; it must be 0.

use crate::BenchAddress;
use crate::replay::Update;
use crate::rng::XorShift64;
use fibforge::sync::Concurrent;
use fibforge::{Address, BuildError, NextHop, Prefix, Rib, Table};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering, fence};
use std::time::Instant;

/// Bursts during which more updates than this were applied are not checked (the reader would
/// replay them all for one burst).
pub const MAX_SPAN: u64 = 256;
/// Addresses per reader burst.
const BURST: usize = 16;

/// Soak settings.
#[derive(Clone, Debug)]
pub struct SoakSettings {
    /// Updates to apply in all.
    pub updates: u64,
    /// Reader threads.
    pub readers: usize,
    /// Memory samples over the run.
    pub samples: usize,
    /// Seed of the readers' random addresses.
    pub seed: u64,
    /// Set to the updates applied so far, for a progress display (of [`SoakSettings::updates`]).
    pub progress: Option<Arc<AtomicU64>>,
}

/// One memory sample.
#[derive(Clone, Debug, Serialize)]
pub struct MemSample {
    /// Updates applied when sampled.
    pub updates: u64,
    /// Resident set size in bytes (0 where `/proc/self/statm` is missing).
    pub rss_bytes: u64,
    /// The structure's own arrays.
    pub fib_bytes: usize,
    /// Routes in the RIB.
    pub routes: usize,
    /// Retired memory not yet freed ([`Table::pending_reclaim`]): the soak's readers report
    /// quiescent states, so this stays small unless reclamation is stuck.
    pub pending_reclaim_bytes: usize,
    /// The pending memory is over the library's warning threshold.
    pub pending_reclaim_over: bool,
}

/// What a soak run did.
#[derive(Clone, Debug, Serialize)]
pub struct SoakReport {
    /// Updates applied.
    pub updates: u64,
    /// Base updates (one round).
    pub base_updates: usize,
    /// Reader answers checked.
    pub checks: u64,
    /// Checked answers that were no answer of their address during their lookup.
    pub violations: u64,
    /// The first violations, readable.
    pub examples: Vec<String>,
    /// Reader bursts left unchecked because more than [`MAX_SPAN`] updates overtook them.
    pub overtaken_bursts: u64,
    /// Seconds of the run.
    pub seconds: f64,
    /// Memory over the run.
    pub memory: Vec<MemSample>,
}

/// Update `i` of the perturbed stream over `base` (see the module documentation); `hops` are
/// the next hops to rotate through (sorted, non-empty).
pub fn perturbed<A: Address>(base: &[Update<A>], hops: &[NextHop], i: u64) -> Update<A> {
    let n = base.len() as u64;
    let (round, (p, hop)) = (i / n, base[(i % n) as usize]);
    let h = fibforge::verify::xorshift64_step(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let p = match p.len() {
        len if round > 0 && h.is_multiple_of(8) && len > 0 => {
            Prefix::new_masked(A::from_u128(p.addr().to_u128() ^ A::bit_value(len - 1)), len)
                .expect("same length")
        }
        _ => p,
    };
    let rotate = |x: NextHop| {
        let at = hops.binary_search(&x).unwrap_or(0) as u64;
        hops[((at + round) % hops.len() as u64) as usize]
    };
    let hop = match hop {
        Some(_) if round > 0 && h % 16 == 1 => None,
        None if round > 0 && h % 16 == 1 => Some(hops[(h >> 8) as usize % hops.len()]),
        other => other.map(rotate),
    };
    (p, hop)
}

trait BitValue {
    fn bit_value(i: u32) -> u128;
}

impl<A: Address> BitValue for A {
    /// The value of bit `i` counted from the top (bit 0 is the most significant).
    fn bit_value(i: u32) -> u128 {
        1u128 << (A::BITS - 1 - i)
    }
}

struct Shared<A: Address> {
    base: Vec<Update<A>>,
    hops: Vec<NextHop>,
    started: AtomicU64,
    done: AtomicU64,
    stop: AtomicBool,
}

impl<A: Address> Shared<A> {
    fn update(&self, i: u64) -> Update<A> {
        perturbed(&self.base, &self.hops, i)
    }
}

#[derive(Default)]
struct Tally {
    checks: u64,
    violations: u64,
    overtaken: u64,
    examples: Vec<String>,
}

/// Runs the soak on `table` (the updates mutate it).
pub fn soak<A: BenchAddress, F: Concurrent<A>>(
    table: &mut Table<A, F>,
    base: Vec<Update<A>>,
    s: &SoakSettings,
) -> Result<SoakReport, BuildError> {
    let mut hops: Vec<NextHop> = base.iter().filter_map(|u| u.1).collect();
    hops.sort_unstable();
    hops.dedup();
    if base.is_empty() || hops.is_empty() {
        return Err(BuildError::Unsupported {
            algo: "soak",
            reason: "the update streams hold no announcement of this family".into(),
        });
    }
    let shared = Arc::new(Shared {
        base,
        hops,
        started: AtomicU64::new(0),
        done: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    });
    let t0 = Instant::now();
    let every = (s.updates / s.samples.max(1) as u64).max(1);
    let mut memory = vec![sample(table, 0)];
    let tallies = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..s.readers)
            .map(|r| {
                let (shared, mut reader) = (shared.clone(), table.reader());
                let rib = table.rib().clone();
                let seed = s.seed ^ (r as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D);
                scope.spawn(move || read_loop(&shared, &mut reader, rib, seed))
            })
            .collect();
        let written = write_loop(table, &shared, s, every, &mut memory);
        shared.stop.store(true, Ordering::Release);
        let tallies: Vec<Tally> = handles.into_iter().map(|h| h.join().expect("reader")).collect();
        written.map(|()| tallies)
    })?;
    memory.push(sample(table, s.updates));
    let mut report = SoakReport {
        updates: s.updates,
        base_updates: shared.base.len(),
        checks: 0,
        violations: 0,
        examples: Vec::new(),
        overtaken_bursts: 0,
        seconds: t0.elapsed().as_secs_f64(),
        memory,
    };
    for t in tallies {
        report.checks += t.checks;
        report.violations += t.violations;
        report.overtaken_bursts += t.overtaken;
        report.examples.extend(t.examples.into_iter().take(10 - report.examples.len().min(10)));
    }
    Ok(report)
}

fn write_loop<A: Address, F: Concurrent<A>>(
    table: &mut Table<A, F>,
    shared: &Shared<A>,
    s: &SoakSettings,
    every: u64,
    memory: &mut Vec<MemSample>,
) -> Result<(), BuildError> {
    for i in 0..s.updates {
        let (p, hop) = shared.update(i);
        shared.started.store(i + 1, Ordering::Relaxed);
        // Orders `started` before every store of the update (see `read_loop`).
        fence(Ordering::Release);
        match hop {
            Some(h) => table.insert(p, h).map(drop)?,
            None => table.remove(&p).map(drop)?,
        }
        shared.done.store(i + 1, Ordering::Release);
        if (i + 1).is_multiple_of(every) {
            memory.push(sample(table, i + 1));
        }
        if let Some(p) = &s.progress {
            // Relaxed: a progress figure only, read by a display thread.
            p.store(i + 1, Ordering::Relaxed);
        }
    }
    Ok(())
}

fn read_loop<A: BenchAddress, V: fibforge::Lookup<A>>(
    shared: &Shared<A>,
    reader: &mut fibforge::sync::Reader<A, V>,
    mut rib: Rib<A>,
    seed: u64,
) -> Tally {
    let mut rng = XorShift64::new(seed);
    let (mut seen, mut tally) = (0u64, Tally::default());
    let mut addrs = [A::ZERO; BURST];
    let mut got = [None; BURST];
    let mut answers: Vec<Vec<Option<NextHop>>> = vec![Vec::new(); BURST];
    while !shared.stop.load(Ordering::Acquire) {
        let v0 = shared.done.load(Ordering::Acquire);
        if v0 < seen {
            // The last burst replayed an update still in flight: this RIB is ahead of `v0`
            // and cannot give the older answers; wait for the writer to finish it.
            std::thread::yield_now();
            continue;
        }
        catch_up(shared, &mut rib, &mut seen, v0);
        choose(&mut addrs, shared.update(v0).0, &mut rng);
        for (ans, &a) in answers.iter_mut().zip(&addrs) {
            ans.clear();
            ans.push(rib.lookup(a));
        }
        {
            let pinned = reader.pin();
            for (g, &a) in got.iter_mut().zip(&addrs) {
                *g = pinned.lookup(a);
            }
        }
        // Pairs with the writer's release fence: a lookup that saw any store of update k
        // makes this load see `started >= k + 1` (the seqlock pattern).
        fence(Ordering::Acquire);
        let v1 = shared.started.load(Ordering::Relaxed);
        if v1 - v0 > MAX_SPAN {
            tally.overtaken += 1;
            continue;
        }
        while seen < v1 {
            let (p, _) = apply(shared, &mut rib, seen);
            seen += 1;
            for (ans, &a) in answers.iter_mut().zip(&addrs) {
                if p.contains(a) {
                    ans.push(rib.lookup(a));
                }
            }
        }
        for ((ans, &a), &g) in answers.iter().zip(&addrs).zip(&got) {
            tally.checks += 1;
            if !ans.contains(&g) {
                tally.violations += 1;
                if tally.examples.len() < 10 {
                    tally.examples.push(format!(
                        "{} during updates {v0}..{v1}: got {g:?}, answers {ans:?}",
                        a.to_std()
                    ));
                }
            }
        }
    }
    tally
}

/// Applies updates `*seen..until` to `rib`.
fn catch_up<A: Address>(shared: &Shared<A>, rib: &mut Rib<A>, seen: &mut u64, until: u64) {
    while *seen < until {
        apply(shared, rib, *seen);
        *seen += 1;
    }
    // A clone of the table's RIB inherits its enabled change log, which nobody reads here:
    // left alone it would grow by one prefix per update.
    let mark = rib.change_mark();
    rib.trim_changes(mark);
}

fn apply<A: Address>(shared: &Shared<A>, rib: &mut Rib<A>, i: u64) -> Update<A> {
    let (p, hop) = shared.update(i);
    match hop {
        Some(h) => rib.insert(p, h),
        None => rib.remove(&p),
    };
    (p, hop)
}

/// Addresses around `next` (the update likely in flight) and random ones.
fn choose<A: BenchAddress>(addrs: &mut [A; BURST], next: Prefix<A>, rng: &mut XorShift64) {
    let (first, last) = (next.addr().to_u128(), next.last().to_u128());
    let inside = first | (rng.next_u128() & (last - first));
    let near = [first, last, first.wrapping_sub(1), last.wrapping_add(1), inside];
    for (a, x) in addrs.iter_mut().zip(near) {
        *a = A::from_u128(x);
    }
    for a in &mut addrs[near.len()..] {
        *a = A::random(rng);
    }
}

fn sample<A: Address, F: Concurrent<A>>(table: &Table<A, F>, updates: u64) -> MemSample {
    MemSample {
        updates,
        rss_bytes: rss_bytes().unwrap_or(0),
        fib_bytes: table.fib().memory_bytes(),
        routes: table.rib().len(),
        pending_reclaim_bytes: table.pending_reclaim().bytes,
        pending_reclaim_over: table.pending_reclaim().over_threshold,
    }
}

/// The resident set size of this process, from `/proc/self/statm` (Linux).
pub fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a configuration value; no memory is passed.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok().filter(|&p| p > 0)?)
}

#[cfg(test)]
mod tests;
