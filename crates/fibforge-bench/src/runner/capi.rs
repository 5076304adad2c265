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
        fn fibforge_bench_c_single(r: *mut c_void, n: u64, state: *mut u32, burst: u64) -> u64;
        fn fibforge_bench_c_batch(r: *mut c_void, n: u64, state: *mut u32, q: c_int) -> u64;
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

        /// `n` C single lookups (a quiescent state every `burst`, 0: never).
        pub fn single(&self, n: u64, state: &mut u32, burst: u64) -> u64 {
            // SAFETY: a live reader used by this thread only; `state` is writable.
            unsafe { fibforge_bench_c_single(self.reader.cast(), n, state, burst) }
        }

        /// `n` lookups in C batches of 64.
        pub fn batch(&self, n: u64, state: &mut u32, quiescent: bool) -> u64 {
            // SAFETY: as in `single`.
            unsafe { fibforge_bench_c_batch(self.reader.cast(), n, state, quiescent.into()) }
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

/// `c-qsbr` and `c-offline`, single and batch (random traffic drawn in C).
#[cfg(have_capi_harness)]
pub fn rows(ctx: &Ctx<'_, u32>) -> Vec<Row> {
    let Some(h) = harness::Handles::new(ctx.rib) else { return Vec::new() };
    let burst = u64::from(super::api::BURST);
    let mut rows = Vec::new();
    for (name, online) in [("c-qsbr", true), ("c-offline", false)] {
        if online {
            // SAFETY: the live reader of `h`, used by this thread only.
            unsafe { fibforge_c::fibforge_reader4_online(h.reader) };
        }
        for &mode in &ctx.s.modes {
            let runs: Vec<Run> = (0..ctx.s.repeats.max(1))
                .map(|i| {
                    let mut x = (ctx.s.seed as u32 ^ i as u32) | 1;
                    time_chunks(ctx.duration, || match mode {
                        Mode::Single => h.single(1 << 14, &mut x, if online { burst } else { 0 }),
                        Mode::Batch => h.batch(1 << 14, &mut x, online),
                    })
                })
                .collect();
            rows.push(row(ctx, name, mode, "random (C)", &runs));
        }
        // SAFETY: as above.
        unsafe { fibforge_c::fibforge_reader4_offline(h.reader) };
    }
    rows
}

/// Without a C compiler at build time: one row that says so.
#[cfg(not(have_capi_harness))]
pub fn rows(ctx: &Ctx<'_, u32>) -> Vec<Row> {
    use crate::report::Status;
    let first = ctx.first_traffic();
    let mut r = ctx.row("poptrie", "c-qsbr", Mode::Single, first, Status::NotAvailable);
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
