//! The DPDK 22.11 peer through FFI to the C shim `csrc/dpdk_shim.c` (compiled by `build.rs`
//! when `pkg-config` finds `libdpdk`; this module exists only with `cfg(have_dpdk)`).
//!
//! Rows: `rte_lpm` (`rte_lpm_lookup` single, `rte_lpm_lookup_bulk_func` batch), `rte_lpm_x4`
//! (`rte_lpm_lookupx4`, batch), `rte_fib` DIR24_8 (scalar bulk), `rte_fib_avx512` (AVX-512
//! bulk), `rte_lpm6` (single and bulk), `rte_fib6` TRIE (scalar bulk), `rte_fib6_avx512`.
//! Sizes and limits come from [`super::dpdk_plan`]; a table beyond a limit, a CPU without
//! AVX-512 or a DPDK without the AVX-512 code gives a "not available: reason" row.
//!
//! Safety model: every DPDK structure lives behind a `Handle` that owns it (freed once, in
//! `Drop`). After the last `add`, the structures are only read: DPDK's lookups do not write to
//! the structure, so sharing a handle between threads is sound. All pointers passed to the
//! shim point into live Rust slices or stack buffers of at least the length passed with them.
//!
//! Memory: rows report the lookup tables as configured (tbl24 and the whole tbl8 pool), like
//! our structures, which exclude the RIB; the note adds the growth of DPDK's heap
//! (`rte_malloc_get_socket_stats`) over the build, which also holds the control-plane rule
//! tables (`rte_lpm*`) or RIB (`rte_fib*`). IPv6 lookups convert `u128` addresses to DPDK's 16-byte arrays
//! in chunks on the stack (a cost our own structures do not pay).

use super::dpdk_plan::{
    LPM_MAX_NH, LPM_MAX_TBL8, LPM6_MAX_NH, Plan, V4_BOUNDARIES, V6_BOUNDARIES, dir24_8_image,
    fib_width, hop, lpm_add_cost, nh_sz, trie_reservation,
};
use super::{Built, Peer, PeerError, Variant};
use fibforge::{Address, Lookup, NextHop, Prefix, Rib};
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::hash::{Hash, Hasher};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// Addresses per shim call (stack buffers).
const CHUNK: usize = 64;
/// Linux `ENOSPC`: a DPDK table ran out of tbl8 groups.
const ENOSPC: c_int = 28;
/// Creation attempts, doubling the tbl8 groups after an `ENOSPC`.
const ATTEMPTS: usize = 4;

mod ffi {
    use std::ffi::{c_char, c_int, c_uint, c_void};
    unsafe extern "C" {
        pub fn ff_eal_init(huge: c_int, err: *mut c_char, len: usize) -> c_int;
        pub fn ff_avx512_usable() -> c_int;
        pub fn ff_heap_bytes() -> u64;
        pub fn ff_errno() -> c_int;
        pub fn ff_strerror(e: c_int) -> *const c_char;
        pub fn ff_lpm_create(max_rules: u32, tbl8s: u32) -> *mut c_void;
        pub fn ff_lpm_add(lpm: *mut c_void, ip: u32, depth: u8, nh: u32) -> c_int;
        pub fn ff_lpm_free(lpm: *mut c_void);
        pub fn ff_lpm_fill(lpm: *mut c_void, tbl24: *const u32, tbl8: *const u32, groups: u32);
        pub fn ff_lpm_lookup(lpm: *const c_void, ip: u32) -> u32;
        pub fn ff_lpm_lookup_bulk(lpm: *const c_void, ips: *const u32, out: *mut u32, n: c_uint);
        pub fn ff_lpm_lookup_x4(lpm: *const c_void, ips: *const u32, out: *mut u32, n: c_uint);
        pub fn ff_fib_create(max: u32, default_nh: u64, nh_sz: c_int, tbl8: u32) -> *mut c_void;
        pub fn ff_fib_add(fib: *mut c_void, ip: u32, depth: u8, nh: u64) -> c_int;
        pub fn ff_fib_select(fib: *mut c_void, avx512: c_int) -> c_int;
        pub fn ff_fib_lookup(fib: *const c_void, ips: *const u32, out: *mut u32, n: c_uint);
        pub fn ff_fib_lookup_one(fib: *const c_void, ip: u32) -> u32;
        pub fn ff_fib_free(fib: *mut c_void);
        pub fn ff_lpm6_create(max_rules: u32, tbl8s: u32) -> *mut c_void;
        pub fn ff_lpm6_add(lpm: *mut c_void, ip: *const u8, depth: u8, nh: u32) -> c_int;
        pub fn ff_lpm6_lookup(lpm: *const c_void, ip: *const u8) -> u32;
        pub fn ff_lpm6_lookup_bulk(
            lpm: *const c_void,
            ips: *const [u8; 16],
            out: *mut u32,
            n: c_uint,
        );
        pub fn ff_lpm6_free(lpm: *mut c_void);
        pub fn ff_fib6_create(max: u32, default_nh: u64, nh_sz: c_int, tbl8: u32) -> *mut c_void;
        pub fn ff_fib6_add(fib: *mut c_void, ip: *const u8, depth: u8, nh: u64) -> c_int;
        pub fn ff_fib6_select(fib: *mut c_void, avx512: c_int) -> c_int;
        pub fn ff_fib6_lookup(fib: *const c_void, ips: *const [u8; 16], out: *mut u32, n: c_uint);
        pub fn ff_fib6_lookup_one(fib: *const c_void, ip: *const u8) -> u32;
        pub fn ff_fib6_free(fib: *mut c_void);
    }
}

/// Free huge pages (bytes) that `FIBFORGE_DPDK_HUGE=1` needs: DPDK's tables for the project's
/// largest table (tier1-v6: `rte_fib6` 394 MiB of heap, `rte_lpm6` 113 MiB) fit with room to
/// spare.
const HUGE_BYTES_WANTED: u64 = 1 << 30;

/// Whether the EAL runs on huge pages: only with `FIBFORGE_DPDK_HUGE=1`, and then only when
/// [`HUGE_BYTES_WANTED`] of them are free (an error says so otherwise).
///
/// DPDK is deployed on huge pages, but on this project's machine (a VM) they did not make it
/// faster (figures in `docs/lab/bench.md`, "DPDK on huge pages"), so the default
/// stays 4 KiB pages, the setting of every figure before this option.
fn huge_pages() -> Result<bool, String> {
    if std::env::var("FIBFORGE_DPDK_HUGE").as_deref() != Ok("1") {
        return Ok(false);
    }
    let free = std::fs::read_to_string("/proc/meminfo").map_or(0, |m| free_huge_bytes(&m));
    if free < HUGE_BYTES_WANTED {
        return Err(format!(
            "FIBFORGE_DPDK_HUGE=1 but {} MiB of huge pages are free ({} MiB wanted; e.g. \
             `sysctl vm.nr_hugepages=512` for 2 MiB pages)",
            free >> 20,
            HUGE_BYTES_WANTED >> 20
        ));
    }
    Ok(true)
}

/// Free huge page bytes from `/proc/meminfo` text (`HugePages_Free` × `Hugepagesize`).
fn free_huge_bytes(meminfo: &str) -> u64 {
    let field = |name: &str| {
        meminfo.lines().find_map(|l| {
            let rest = l.strip_prefix(name)?.strip_prefix(':')?;
            rest.split_whitespace().next()?.parse::<u64>().ok()
        })
    };
    match (field("HugePages_Free"), field("Hugepagesize")) {
        (Some(pages), Some(kib)) => pages.saturating_mul(kib).saturating_mul(1024),
        _ => 0,
    }
}

/// Starts DPDK's EAL once per process; later calls return the first outcome: whether it runs
/// on huge pages, or why it does not run.
pub fn init() -> Result<bool, String> {
    static EAL: OnceLock<Result<bool, String>> = OnceLock::new();
    EAL.get_or_init(|| {
        let huge = huge_pages()?;
        let mut buf = [0 as c_char; 256];
        // SAFETY: `buf` is writable for its whole length, which is passed along; the shim
        // writes a NUL-terminated message of at most that length.
        let ret = unsafe { ffi::ff_eal_init(c_int::from(huge), buf.as_mut_ptr(), buf.len()) };
        if ret == 0 {
            return Ok(huge);
        }
        // SAFETY: `buf` is NUL-terminated (zero-initialised, snprintf terminates).
        Err(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned())
    })
    .clone()
}

/// `Ok(version and memory)` when the EAL runs, else why not.
pub fn availability() -> Result<String, String> {
    init().map(|huge| {
        let pages = if huge { "huge pages" } else { "4 KiB pages" };
        format!("DPDK {} ({pages})", env!("FIBFORGE_DPDK_VERSION"))
    })
}

fn strerror(e: c_int) -> String {
    // SAFETY: `ff_strerror` returns a pointer to a static NUL-terminated string.
    unsafe { CStr::from_ptr(ffi::ff_strerror(e)) }.to_string_lossy().into_owned()
}

fn heap_bytes() -> u64 {
    // SAFETY: reads DPDK's heap statistics; the EAL is initialised before any build.
    unsafe { ffi::ff_heap_bytes() }
}

/// An owned DPDK structure, freed on drop.
struct Handle {
    ptr: NonNull<c_void>,
    free: unsafe extern "C" fn(*mut c_void),
}

// SAFETY: the structure is only read after it is built (see the module's safety model), and
// DPDK's lookups are thread-safe for readers.
unsafe impl Send for Handle {}
// SAFETY: as above: shared references only ever look up.
unsafe impl Sync for Handle {}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from the matching create function and is freed exactly once.
        unsafe { (self.free)(self.ptr.as_ptr()) }
    }
}

/// The calls to make a structure of one kind.
struct Maker<'a, A: Address> {
    api: &'static str,
    create: &'a dyn Fn(u64) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void),
    add: &'a dyn Fn(*mut c_void, &Prefix<A>, u32) -> c_int,
}

/// Creates and fills a structure with `tbl8` groups, doubling them after `ENOSPC`.
/// Returns the handle, the DPDK heap growth and the groups used.
fn make<A: Address>(
    m: &Maker<'_, A>,
    routes: &[(Prefix<A>, u32)],
    mut tbl8: u64,
    max_tbl8: u64,
) -> Result<(Handle, u64, u64), PeerError> {
    for _ in 0..ATTEMPTS {
        if tbl8 > max_tbl8 {
            break;
        }
        let before = heap_bytes();
        let ptr = NonNull::new((m.create)(tbl8)).ok_or_else(|| {
            // SAFETY: reads DPDK's per-thread errno.
            let e = unsafe { ffi::ff_errno() };
            PeerError::NotAvailable(format!("{} create failed: {}", m.api, strerror(e)))
        })?;
        let h = Handle { ptr, free: m.free };
        let mut failed = None;
        for (p, raw) in routes {
            let ret = (m.add)(h.ptr.as_ptr(), p, *raw);
            if ret != 0 {
                failed = Some((ret, *p));
                break;
            }
        }
        match failed {
            None => return Ok((h, heap_bytes().saturating_sub(before), tbl8)),
            Some((ret, _)) if ret == -ENOSPC => tbl8 *= 2,
            Some((ret, p)) => {
                return Err(PeerError::Failed(format!("{} add {p}: {}", m.api, strerror(ret))));
            }
        }
    }
    Err(PeerError::NotAvailable(format!(
        "{} ran out of tbl8 groups (limit {max_tbl8}, tried up to {tbl8})",
        m.api
    )))
}

fn capped(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

type Single4 = unsafe extern "C" fn(*const c_void, u32) -> u32;
type Batch4 = unsafe extern "C" fn(*const c_void, *const u32, *mut u32, c_uint);
type Single6 = unsafe extern "C" fn(*const c_void, *const u8) -> u32;
type Batch6 = unsafe extern "C" fn(*const c_void, *const [u8; 16], *mut u32, c_uint);

/// An IPv4 DPDK structure with its lookup entry points.
struct Dpdk4 {
    h: Arc<Handle>,
    single: Single4,
    batch: Batch4,
    memory: u64,
}

impl Lookup<u32> for Dpdk4 {
    #[inline]
    fn lookup(&self, addr: u32) -> Option<NextHop> {
        // SAFETY: the handle is live and of the kind `single` expects.
        hop(unsafe { (self.single)(self.h.ptr.as_ptr(), addr) })
    }

    fn lookup_batch(&self, addrs: &[u32], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let mut buf = [0u32; CHUNK];
        for (a, o) in addrs.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
            // SAFETY: `a` holds `a.len()` addresses and `buf` room for CHUNK >= a.len()
            // answers; the handle is live and of the kind `batch` expects.
            unsafe {
                (self.batch)(self.h.ptr.as_ptr(), a.as_ptr(), buf.as_mut_ptr(), a.len() as c_uint)
            };
            for (o, &raw) in o.iter_mut().zip(&buf[..a.len()]) {
                *o = hop(raw);
            }
        }
    }

    fn memory_bytes(&self) -> usize {
        self.memory as usize
    }
}

/// An IPv6 DPDK structure with its lookup entry points.
struct Dpdk6 {
    h: Handle,
    single: Single6,
    batch: Batch6,
    memory: u64,
}

impl Lookup<u128> for Dpdk6 {
    #[inline]
    fn lookup(&self, addr: u128) -> Option<NextHop> {
        let ip = addr.to_be_bytes();
        // SAFETY: `ip` is 16 readable bytes; the handle is live and of the kind expected.
        hop(unsafe { (self.single)(self.h.ptr.as_ptr(), ip.as_ptr()) })
    }

    fn lookup_batch(&self, addrs: &[u128], out: &mut [Option<NextHop>]) {
        assert!(out.len() >= addrs.len(), "output shorter than input");
        let mut ips = [[0u8; 16]; CHUNK];
        let mut buf = [0u32; CHUNK];
        for (a, o) in addrs.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
            for (ip, &x) in ips.iter_mut().zip(a) {
                *ip = x.to_be_bytes();
            }
            // SAFETY: `ips` holds `a.len()` converted addresses and `buf` room for as many
            // answers; the handle is live and of the kind `batch` expects.
            unsafe {
                (self.batch)(self.h.ptr.as_ptr(), ips.as_ptr(), buf.as_mut_ptr(), a.len() as c_uint)
            };
            for (o, &raw) in o.iter_mut().zip(&buf[..a.len()]) {
                *o = hop(raw);
            }
        }
    }

    fn memory_bytes(&self) -> usize {
        self.memory as usize
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

/// Memory figures: rows report the lookup tables (tbl24 and the tbl8 pool, as configured),
/// comparable with our structures, which exclude the RIB; the note adds DPDK's heap growth,
/// which includes the control-plane `what` (rule table or RIB).
fn memory_note(heap: u64, what: &str) -> String {
    format!("memory = tbl24 + tbl8 pool; DPDK heap grew {:.1} MiB incl. {what}", mib(heap))
}

/// The `rte_lpm` built for the `rte_lpm` row, kept for the `rte_lpm_x4` row that follows it
/// (the same structure; building it twice would double the slowest build of the run).
struct LpmCache {
    fingerprint: u64,
    handle: Arc<Handle>,
    memory: u64,
    note: String,
    compile_ms: f64,
}

static LPM_CACHE: Mutex<Option<LpmCache>> = Mutex::new(None);

/// A hash of every route and next hop of `rib`.
fn fingerprint<A: Address>(rib: &Rib<A>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for (p, hop) in rib.iter() {
        (p.addr(), p.len(), hop).hash(&mut h);
    }
    h.finish()
}

/// `rte_lpm_add` comparisons above which the table is written as an image instead (about
/// a few seconds of adds).
const LPM_ADD_LIMIT: u64 = 2_000_000_000;

/// Builds an `rte_lpm`. `rte_lpm_add` scans every rule of the new rule's depth (DPDK 22.11
/// `rule_add`), so a full table costs a minute, nearly all in the 300k /24 rules. Above
/// [`LPM_ADD_LIMIT`] comparisons (unless `FIBFORGE_RTE_LPM_ADD=1`), the shim writes the
/// DIR-24-8 image those adds would produce straight into DPDK's `tbl24`/`tbl8`
/// ([`dir24_8_image`]); lookups are DPDK's own code either way, and the note says which.
fn lpm_build(rib: &Rib<u32>) -> Result<LpmCache, PeerError> {
    init().map_err(PeerError::NotAvailable)?;
    let t0 = Instant::now();
    let plan = Plan::of(rib, &V4_BOUNDARIES);
    plan.check_nh("rte_lpm", LPM_MAX_NH).map_err(PeerError::NotAvailable)?;
    let routes = plan.routes_without_depth0();
    let cost = lpm_add_cost(&routes);
    let force = std::env::var_os("FIBFORGE_RTE_LPM_ADD").is_some_and(|v| v == "1");
    let (h, memory, tbl8, how) = if cost <= LPM_ADD_LIMIT || force {
        let max_rules = capped(routes.len() as u64 + 1);
        let create = |tbl8: u64| {
            // SAFETY: plain values; DPDK copies what it keeps.
            unsafe { ffi::ff_lpm_create(max_rules, capped(tbl8)) }
        };
        let add = |p: *mut c_void, pfx: &Prefix<u32>, raw: u32| {
            // SAFETY: `p` is a live rte_lpm from `create`.
            unsafe { ffi::ff_lpm_add(p, pfx.addr(), pfx.len() as u8, raw) }
        };
        let m = Maker { api: "rte_lpm", create: &create, free: ffi::ff_lpm_free, add: &add };
        let (h, memory, tbl8) = make(&m, &routes, plan.tbl8_with_margin(), LPM_MAX_TBL8)?;
        (h, memory, tbl8, format!("{} rules added with rte_lpm_add", routes.len()))
    } else {
        let (tbl24, tbl8) = dir24_8_image(rib);
        let groups = (tbl8.len() / 256) as u64;
        let before = heap_bytes();
        // SAFETY: plain values; at least one rule and one group (DPDK refuses zero).
        let ptr = unsafe { ffi::ff_lpm_create(1, capped(groups.max(1))) };
        let ptr = NonNull::new(ptr).ok_or_else(|| {
            // SAFETY: reads DPDK's per-thread errno.
            let errno = unsafe { ffi::ff_errno() };
            PeerError::NotAvailable(format!("rte_lpm create failed: {}", strerror(errno)))
        })?;
        let h = Handle { ptr, free: ffi::ff_lpm_free };
        // SAFETY: the rte_lpm is live and empty with `groups` tbl8 groups; `tbl24` holds
        // 2^24 entries and `tbl8` exactly 256 per group, as the shim reads.
        unsafe { ffi::ff_lpm_fill(h.ptr.as_ptr(), tbl24.as_ptr(), tbl8.as_ptr(), capped(groups)) };
        let how = format!(
            "DIR-24-8 image written into rte_lpm's tables: {} rte_lpm_add calls would make ~{:.0e} rule comparisons (set FIBFORGE_RTE_LPM_ADD=1 to add them)",
            routes.len(),
            cost as f64
        );
        (h, heap_bytes().saturating_sub(before), groups, how)
    };
    let dataplane = (1u64 << 24) * 4 + tbl8 * 256 * 4;
    let note = format!(
        "{how}; {tbl8} tbl8 groups ({} needed); {}",
        plan.tbl8,
        memory_note(memory, "rules")
    );
    let compile_ms = t0.elapsed().as_secs_f64() * 1e3;
    Ok(LpmCache { fingerprint: 0, handle: Arc::new(h), memory: dataplane, note, compile_ms })
}

fn lpm_built(c: &LpmCache, batch: Batch4, note: String) -> Built<u32> {
    let fib = Dpdk4 { h: c.handle.clone(), single: ffi::ff_lpm_lookup, batch, memory: c.memory };
    Built { fib: Box::new(fib), memory: Some(c.memory), note: Some(note), compile_ms: None }
}

fn build_lpm(rib: &Rib<u32>) -> Result<Built<u32>, PeerError> {
    let mut c = lpm_build(rib)?;
    c.fingerprint = fingerprint(rib);
    let built = lpm_built(&c, ffi::ff_lpm_lookup_bulk, c.note.clone());
    *LPM_CACHE.lock().unwrap_or_else(|e| e.into_inner()) = Some(c);
    Ok(built)
}

fn build_lpm_x4(rib: &Rib<u32>) -> Result<Built<u32>, PeerError> {
    let cached = LPM_CACHE.lock().unwrap_or_else(|e| e.into_inner()).take();
    match cached {
        Some(c) if c.fingerprint == fingerprint(rib) => {
            let note = format!("the rte_lpm row's structure; {}", c.note);
            let mut built = lpm_built(&c, ffi::ff_lpm_lookup_x4, note);
            built.compile_ms = Some(c.compile_ms);
            Ok(built)
        }
        _ => {
            let c = lpm_build(rib)?;
            Ok(lpm_built(&c, ffi::ff_lpm_lookup_x4, c.note.clone()))
        }
    }
}

fn avx512_check(api: &str) -> Result<(), PeerError> {
    // SAFETY: reads CPU flags and an EAL setting; the EAL is initialised.
    if unsafe { ffi::ff_avx512_usable() } == 0 {
        return Err(PeerError::NotAvailable(format!(
            "{api}: this CPU has no AVX-512F (or DPDK's max SIMD width is below 512 bits)"
        )));
    }
    Ok(())
}

/// The next-hop width (bytes, at least `min_width`) of an `rte_fib`/`rte_fib6` for next hops
/// up to `max_raw` and `tbl8` groups (with room for the doublings of `make`), and the most
/// tbl8 groups that width can name.
fn fib_sizes(api: &str, max_raw: u32, tbl8: u64, min_width: u32) -> Result<(u32, u64), PeerError> {
    let width = fib_width(max_raw, tbl8 << (ATTEMPTS - 1), min_width).ok_or_else(|| {
        PeerError::NotAvailable(format!("{api}: next hops or tbl8 groups exceed 63 bits"))
    })?;
    Ok((width, (1u64 << (8 * width - 1)) - 1))
}

/// The result of DPDK's `call` (a `*_select_lookup`) choosing `api`'s lookup function.
fn selected(api: &str, call: &str, ret: c_int) -> Result<(), PeerError> {
    if ret == 0 {
        return Ok(());
    }
    Err(PeerError::NotAvailable(format!(
        "{api}: {call} refused ({}): this DPDK build lacks that lookup",
        strerror(ret)
    )))
}

fn fib(rib: &Rib<u32>, avx512: bool) -> Result<Built<u32>, PeerError> {
    init().map_err(PeerError::NotAvailable)?;
    let api = if avx512 { "rte_fib_avx512" } else { "rte_fib" };
    if avx512 {
        avx512_check(api)?;
    }
    let plan = Plan::of(rib, &V4_BOUNDARIES);
    let tbl8 = plan.tbl8_with_margin();
    let (width, max_tbl8) = fib_sizes(api, plan.max_raw, tbl8, 1)?;
    let max_routes = capped(plan.routes.len() as u64 + 1);
    let default = u64::from(plan.default_raw);
    let create = |tbl8: u64| {
        // SAFETY: plain values; DPDK copies its configuration.
        unsafe { ffi::ff_fib_create(max_routes, default, nh_sz(width), capped(tbl8)) }
    };
    let add = |p: *mut c_void, pfx: &Prefix<u32>, raw: u32| {
        // SAFETY: `p` is a live rte_fib from `create`.
        unsafe { ffi::ff_fib_add(p, pfx.addr(), pfx.len() as u8, u64::from(raw)) }
    };
    let m = Maker { api, create: &create, free: ffi::ff_fib_free, add: &add };
    let (h, memory, tbl8) = make(&m, &plan.routes, tbl8, max_tbl8)?;
    // SAFETY: `h` is a live rte_fib; selecting a lookup function only sets a pointer.
    let ret = unsafe { ffi::ff_fib_select(h.ptr.as_ptr(), c_int::from(avx512)) };
    selected(api, "rte_fib_select_lookup", ret)?;
    let dataplane = ((1u64 << 24) + (tbl8 + 1) * 256) * u64::from(width);
    Ok(Built {
        fib: Box::new(Dpdk4 {
            h: Arc::new(h),
            single: ffi::ff_fib_lookup_one,
            batch: ffi::ff_fib_lookup,
            memory: dataplane,
        }),
        memory: Some(dataplane),
        compile_ms: None,
        note: Some(format!(
            "DIR24_8 {width}-byte next hops, {tbl8} tbl8 ({} needed); {}",
            plan.tbl8,
            memory_note(memory, "the RIB")
        )),
    })
}

fn build_fib(rib: &Rib<u32>) -> Result<Built<u32>, PeerError> {
    fib(rib, false)
}

fn build_fib_avx512(rib: &Rib<u32>) -> Result<Built<u32>, PeerError> {
    fib(rib, true)
}

fn build_lpm6(rib: &Rib<u128>) -> Result<Built<u128>, PeerError> {
    init().map_err(PeerError::NotAvailable)?;
    let plan = Plan::of(rib, &V6_BOUNDARIES);
    plan.check_nh("rte_lpm6", LPM6_MAX_NH).map_err(PeerError::NotAvailable)?;
    let routes = plan.routes_without_depth0();
    let max_rules = capped(routes.len() as u64 + 1);
    let create = |tbl8: u64| {
        // SAFETY: plain values; DPDK copies what it keeps.
        unsafe { ffi::ff_lpm6_create(max_rules, capped(tbl8)) }
    };
    let add = |p: *mut c_void, pfx: &Prefix<u128>, raw: u32| {
        let ip = pfx.addr().to_be_bytes();
        // SAFETY: `p` is a live rte_lpm6; `ip` is 16 readable bytes.
        unsafe { ffi::ff_lpm6_add(p, ip.as_ptr(), pfx.len() as u8, raw) }
    };
    let m = Maker { api: "rte_lpm6", create: &create, free: ffi::ff_lpm6_free, add: &add };
    // tbl8 group indices share the 21-bit next-hop field.
    let (h, memory, tbl8) = make(&m, &routes, plan.tbl8_with_margin(), LPM6_MAX_NH)?;
    let dataplane = ((1u64 << 24) + tbl8 * 256) * 4;
    Ok(Built {
        fib: Box::new(Dpdk6 {
            h,
            single: ffi::ff_lpm6_lookup,
            batch: ffi::ff_lpm6_lookup_bulk,
            memory: dataplane,
        }),
        memory: Some(dataplane),
        compile_ms: None,
        note: Some(format!(
            "{tbl8} tbl8 groups ({} needed); {}",
            plan.tbl8,
            memory_note(memory, "rules")
        )),
    })
}

fn fib6(rib: &Rib<u128>, avx512: bool) -> Result<Built<u128>, PeerError> {
    init().map_err(PeerError::NotAvailable)?;
    let api = if avx512 { "rte_fib6_avx512" } else { "rte_fib6" };
    if avx512 {
        avx512_check(api)?;
    }
    let plan = Plan::of(rib, &V6_BOUNDARIES);
    let reserve = trie_reservation(rib);
    let tbl8 = plan.tbl8_with_margin().max(reserve);
    let (width, max_tbl8) = fib_sizes(api, plan.max_raw, tbl8, 2)?;
    let max_routes = capped(plan.routes.len() as u64 + 1);
    let default = u64::from(plan.default_raw);
    let create = |tbl8: u64| {
        // SAFETY: plain values; DPDK copies its configuration.
        unsafe { ffi::ff_fib6_create(max_routes, default, nh_sz(width), capped(tbl8)) }
    };
    let add = |p: *mut c_void, pfx: &Prefix<u128>, raw: u32| {
        let ip = pfx.addr().to_be_bytes();
        // SAFETY: `p` is a live rte_fib6; `ip` is 16 readable bytes.
        unsafe { ffi::ff_fib6_add(p, ip.as_ptr(), pfx.len() as u8, u64::from(raw)) }
    };
    let m = Maker { api, create: &create, free: ffi::ff_fib6_free, add: &add };
    let (h, memory, tbl8) = make(&m, &plan.routes, tbl8, max_tbl8)?;
    // SAFETY: `h` is a live rte_fib6; selecting a lookup function only sets a pointer.
    let ret = unsafe { ffi::ff_fib6_select(h.ptr.as_ptr(), c_int::from(avx512)) };
    selected(api, "rte_fib6_select_lookup", ret)?;
    let dataplane = ((1u64 << 24) + (tbl8 + 1) * 256) * u64::from(width);
    Ok(Built {
        fib: Box::new(Dpdk6 {
            h,
            single: ffi::ff_fib6_lookup_one,
            batch: ffi::ff_fib6_lookup,
            memory: dataplane,
        }),
        memory: Some(dataplane),
        compile_ms: None,
        note: Some(format!(
            "TRIE {width}-byte next hops, {tbl8} tbl8 ({} used, {reserve} reserved by DPDK's accounting); {}",
            plan.tbl8,
            memory_note(memory, "the RIB")
        )),
    })
}

fn build_fib6(rib: &Rib<u128>) -> Result<Built<u128>, PeerError> {
    fib6(rib, false)
}

fn build_fib6_avx512(rib: &Rib<u128>) -> Result<Built<u128>, PeerError> {
    fib6(rib, true)
}

fn variant<A: Address>(
    algo: &'static str,
    single: bool,
    build: fn(&Rib<A>) -> Result<Built<A>, PeerError>,
) -> Variant<A> {
    Variant { peer: Peer::Dpdk, algo, single, batch: true, build }
}

/// The IPv4 rows.
pub fn variants_v4() -> Result<Vec<Variant<u32>>, String> {
    availability()?;
    Ok(vec![
        variant("rte_lpm", true, build_lpm),
        variant("rte_lpm_x4", false, build_lpm_x4),
        variant("rte_fib", false, build_fib),
        variant("rte_fib_avx512", false, build_fib_avx512),
    ])
}

/// The IPv6 rows.
pub fn variants_v6() -> Result<Vec<Variant<u128>>, String> {
    availability()?;
    Ok(vec![
        variant("rte_lpm6", true, build_lpm6),
        variant("rte_fib6", false, build_fib6),
        variant("rte_fib6_avx512", false, build_fib6_avx512),
    ])
}

#[cfg(test)]
mod tests {
    use super::free_huge_bytes;

    #[test]
    fn free_huge_bytes_reads_meminfo() {
        let m = "MemTotal:  24000000 kB\nHugePages_Total:    1100\nHugePages_Free:      899\n\
                 HugePages_Rsvd:        0\nHugepagesize:       2048 kB\n";
        assert_eq!(free_huge_bytes(m), 899 * 2048 * 1024);
        assert_eq!(free_huge_bytes("HugePages_Free: 0\nHugepagesize: 2048 kB\n"), 0);
        assert_eq!(free_huge_bytes("HugePages_Free: 12\n"), 0, "no page size");
        assert_eq!(free_huge_bytes("HugePages_Freed: 12\nHugepagesize: 2048 kB\n"), 0);
    }
}
