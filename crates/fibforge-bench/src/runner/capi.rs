//! The C ABI rows of [`super::api`]: a table and reader made through `fibforge-c`, looked up
//! from the C loops of `csrc/capi_harness.c` (compiled by `build.rs` when a C compiler works;
//! otherwise one "not available" row says why).

use super::api::{ApiFamily, row, time_chunks};
use super::measure::Ctx;
use crate::report::Row;
use crate::timing::Mode;
#[cfg(have_capi_harness)]
use crate::timing::Run;

#[cfg(have_capi_harness)]
mod harness {
    use fibforge_c::{Reader4, Table4};
    use std::ffi::{c_int, c_void};

    // The reader is opaque to C (`fibforge_reader4 *`).
    unsafe extern "C" {
        fn fibforge_bench_c_single(r: *mut c_void, n: u64, state: *mut [u32; 4], burst: u64)
        -> u64;
        fn fibforge_bench_c_batch(r: *mut c_void, n: u64, state: *mut [u32; 4], q: c_int) -> u64;
        fn fibforge_bench_c_view_single(
            r: *mut c_void,
            n: u64,
            s: *mut [u32; 4],
            burst: u64,
        ) -> u64;
        fn fibforge_bench_c_view_batch(r: *mut c_void, n: u64, state: *mut [u32; 4]) -> u64;
    }

    /// A C table and one reader of it (freed on drop).
    pub struct Handles {
        table: *mut Table4,
        pub reader: *mut Reader4,
    }

    impl Handles {
        pub fn new(rib: &fibforge::Rib<u32>) -> Option<Handles> {
            let table = Box::into_raw(Box::new(Table4::from_rib(rib.clone()).ok()?));
            let mut reader = std::ptr::null_mut();
            // SAFETY: `table` is a live table of this library; `reader` a valid out-pointer.
            let status = unsafe { fibforge_c::fibforge_table4_reader(table, &mut reader) };
            if status != fibforge_c::Status::Ok {
                // SAFETY: made above, freed once.
                unsafe { fibforge_c::fibforge_table4_free(table) };
                return None;
            }
            Some(Handles { table, reader })
        }

        /// `n` C single lookups (a quiescent state every `burst`, 0: never; the C loop steps
        /// by 4 lookups, so both are multiples of 4).
        pub fn single(&self, n: u64, state: &mut [u32; 4], burst: u64) -> u64 {
            assert!(
                n.is_multiple_of(4) && burst.is_multiple_of(4),
                "n {n} and burst {burst}: multiples of 4"
            );
            // SAFETY: a live reader used by this thread only; `state` is writable.
            unsafe { fibforge_bench_c_single(self.reader.cast(), n, state, burst) }
        }

        /// `n` lookups in C batches of 64.
        pub fn batch(&self, n: u64, state: &mut [u32; 4], quiescent: bool) -> u64 {
            // SAFETY: as in `single`.
            unsafe { fibforge_bench_c_batch(self.reader.cast(), n, state, quiescent.into()) }
        }

        /// `n` single lookups walked inline over views (online reader; a quiescent state and
        /// a new view every `burst`). Panics without the popcount instruction
        /// ([`super::has_popcnt`]), which the C loop is compiled for.
        pub fn view_single(&self, n: u64, state: &mut [u32; 4], burst: u64) -> u64 {
            assert!(super::has_popcnt(), "the view loops need the popcount instruction");
            assert!(
                burst > 0 && burst.is_multiple_of(4) && n.is_multiple_of(burst),
                "burst {burst} for {n}"
            );
            // SAFETY: a live, online reader used by this thread only; `state` is writable;
            // the CPU has the instruction the loop is compiled for (checked above).
            unsafe { fibforge_bench_c_view_single(self.reader.cast(), n, state, burst) }
        }

        /// `n` lookups walked inline over one view per group of 64 (panics as `view_single`).
        pub fn view_batch(&self, n: u64, state: &mut [u32; 4]) -> u64 {
            assert!(super::has_popcnt(), "the view loops need the popcount instruction");
            // SAFETY: as in `view_single`.
            unsafe { fibforge_bench_c_view_batch(self.reader.cast(), n, state) }
        }
    }

    impl Drop for Handles {
        fn drop(&mut self) {
            // SAFETY: both made in `new`, freed once, in any order (the header allows it).
            unsafe {
                fibforge_c::fibforge_reader4_free(self.reader);
                fibforge_c::fibforge_table4_free(self.table);
            }
        }
    }
}

/// Lookups per timed C call.
#[cfg(have_capi_harness)]
const CALL: u64 = 1 << 14;

/// `c-qsbr`, `c-view` (the header's inline walk; where the CPU has popcount) and
/// `c-offline`, single and batch (random traffic drawn in C).
#[cfg(have_capi_harness)]
pub fn rows(ctx: &Ctx<'_, u32>) -> Vec<Row> {
    let Some(h) = harness::Handles::new(ctx.rib) else { return Vec::new() };
    let burst = crate::timing::POLL_BURST;
    let mut rows = Vec::new();
    // SAFETY: the live reader of `h`, used by this thread only.
    unsafe { fibforge_c::fibforge_reader4_online(h.reader) };
    rows.extend(c_rows(ctx, "c-qsbr", |mode, x| match mode {
        Mode::Single => h.single(CALL, x, burst),
        Mode::Batch => h.batch(CALL, x, true),
    }));
    if has_popcnt() {
        rows.extend(c_rows(ctx, "c-view", |mode, x| match mode {
            Mode::Single => h.view_single(CALL, x, burst),
            Mode::Batch => h.view_batch(CALL, x),
        }));
    }
    // SAFETY: as above.
    unsafe { fibforge_c::fibforge_reader4_offline(h.reader) };
    rows.extend(c_rows(ctx, "c-offline", |mode, x| match mode {
        Mode::Single => h.single(CALL, x, 0),
        Mode::Batch => h.batch(CALL, x, false),
    }));
    rows
}

/// One row per mode of `ctx`: `call(mode, xorshift state)` timed over the repeats.
#[cfg(have_capi_harness)]
fn c_rows(
    ctx: &Ctx<'_, u32>,
    name: &str,
    mut call: impl FnMut(Mode, &mut [u32; 4]) -> u64,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for &mode in &ctx.s.modes {
        let runs: Vec<Run> = (0..ctx.s.repeats.max(1))
            .map(|i| {
                let mut x = streams(ctx.s.seed ^ i as u64);
                time_chunks(ctx.duration, || call(mode, &mut x))
            })
            .collect();
        rows.push(row(ctx, name, mode, "random (C)", &runs));
    }
    rows
}

/// Four nonzero xorshift32 states from a seed (the C loops' address streams).
#[cfg(have_capi_harness)]
fn streams(seed: u64) -> [u32; 4] {
    std::array::from_fn(|k| {
        let x = seed.wrapping_add(k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (x >> 32) as u32 | 1
    })
}

/// Whether the harness's inline-walk loops (compiled for the popcount instruction) may run.
#[cfg(have_capi_harness)]
fn has_popcnt() -> bool {
    #[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
    return std::arch::is_x86_feature_detected!("popcnt");
    #[cfg(not(any(target_arch = "x86_64", target_arch = "x86")))]
    true
}

/// Without a C compiler at build time: one row that says so.
#[cfg(not(have_capi_harness))]
pub fn rows(ctx: &Ctx<'_, u32>) -> Vec<Row> {
    use crate::report::Status;
    let first = ctx.first_traffic();
    let mut r =
        ctx.row(fibforge::registry::DEFAULT, "c-qsbr", Mode::Single, first, Status::NotAvailable);
    r.note = Some(format!("C ABI rows skipped: {}", env!("FIBFORGE_CAPI_MISSING")));
    vec![r]
}

impl ApiFamily for u128 {
    fn c_rows(_: &Ctx<'_, u128>) -> Vec<Row> {
        Vec::new() // the harness drives IPv4 (fibforge_reader6_* are the same code)
    }
}

impl ApiFamily for u32 {
    fn c_rows(ctx: &Ctx<'_, u32>) -> Vec<Row> {
        rows(ctx)
    }
}

#[cfg(all(test, have_capi_harness))]
mod tests {
    use super::harness::Handles;
    use fibforge::{NextHop, Rib};

    /// Routes above, at and below the direct-pointing bits, and a default route.
    fn rib() -> Rib<u32> {
        ["0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "10.1.2.0/24", "10.1.2.128/25", "192.0.2.1/32"]
            .iter()
            .enumerate()
            .map(|(i, p)| (p.parse().unwrap(), NextHop::from_index(i as u32 + 1)))
            .collect()
    }

    /// What every C loop must sum: the library's own lookup on the same draws (four
    /// xorshift32 streams in turn).
    fn expected(h: &Handles, mut s: [u32; 4], n: u64) -> u64 {
        (0..n as usize)
            .map(|i| {
                let x = &mut s[i % 4];
                *x ^= *x << 13;
                *x ^= *x >> 17;
                *x ^= *x << 5;
                // SAFETY: a live reader of this thread.
                u64::from(unsafe { fibforge_c::fibforge_reader4_lookup(h.reader, *x) })
            })
            .sum()
    }

    #[test]
    fn every_c_loop_answers_as_the_library_call() {
        let h = Handles::new(&rib()).unwrap();
        let (n, seed) = (4096, super::streams(7));
        let want = expected(&h, seed, n);
        let run = |f: &dyn Fn(&mut [u32; 4]) -> u64| {
            let mut x = seed;
            let sum = f(&mut x);
            (sum, x)
        };
        let (offline, end) = run(&|x| h.single(n, x, 0));
        assert_eq!(offline, want);
        assert_eq!(run(&|x| h.batch(n, x, false)), (want, end));
        // SAFETY: the live reader of `h`, used by this thread only.
        unsafe { fibforge_c::fibforge_reader4_online(h.reader) };
        assert_eq!(run(&|x| h.single(n, x, 256)), (want, end));
        assert_eq!(run(&|x| h.batch(n, x, true)), (want, end));
        if super::has_popcnt() {
            assert_eq!(run(&|x| h.view_single(n, x, 256)), (want, end));
            assert_eq!(run(&|x| h.view_batch(n, x)), (want, end));
        }
        // SAFETY: as above.
        unsafe { fibforge_c::fibforge_reader4_offline(h.reader) };
    }
}
