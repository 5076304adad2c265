/*
 * The C side of the bench's C ABI rows (src/runner/api.rs): loops written in C that call
 * include/fibforge.h as a C program would, on uniform random IPv4 addresses drawn in the
 * loop. Each returns the sum of the answers so that no call can be optimised away; the Rust
 * side times the calls.
 *
 * Addresses: four xorshift32 streams used in turn (state[0..3]), as the Rust rows draw from
 * four xorshift64 streams: one stream's chain of dependent shifts would set the pace of the
 * fastest walks. Every loop below draws the same sequence for the same state and n (a
 * multiple of 4 and of the burst), so all answer sums agree (tested in src/runner/capi.rs).
 */
#include "fibforge.h"

#define XS32(x) ((x) ^= (x) << 13, (x) ^= (x) >> 17, (x) ^= (x) << 5, (x))

/* The header's inline walk compiled with the popcount instruction, as the header asks of a
 * user who wants its speed; the Rust side calls these loops only on CPUs that have it. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define FIBFORGE_BENCH_POPCNT __attribute__((target("popcnt")))
#else
#define FIBFORGE_BENCH_POPCNT
#endif

/* n single lookups through the library call; a quiescent state every `burst` lookups when
 * burst > 0 (a multiple of 4). */
uint64_t fibforge_bench_c_single(fibforge_reader4 *r, uint64_t n, uint32_t state[4],
                                 uint64_t burst) {
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint64_t sum = 0, left = burst;
    for (uint64_t i = 0; i < n; i += 4) {
        sum += fibforge_reader4_lookup(r, XS32(a));
        sum += fibforge_reader4_lookup(r, XS32(b));
        sum += fibforge_reader4_lookup(r, XS32(c));
        sum += fibforge_reader4_lookup(r, XS32(d));
        if (burst && (left -= 4) == 0) {
            fibforge_reader4_quiescent(r);
            left = burst;
        }
    }
    state[0] = a, state[1] = b, state[2] = c, state[3] = d;
    return sum;
}

/* The next 64 addresses into addrs. */
static void draw64(uint32_t state[4], uint32_t addrs[64]) {
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    for (int k = 0; k < 64; k += 4) {
        addrs[k] = XS32(a);
        addrs[k + 1] = XS32(b);
        addrs[k + 2] = XS32(c);
        addrs[k + 3] = XS32(d);
    }
    state[0] = a, state[1] = b, state[2] = c, state[3] = d;
}

/* n / 64 batches of 64 lookups, a quiescent state after each when quiescent != 0. */
uint64_t fibforge_bench_c_batch(fibforge_reader4 *r, uint64_t n, uint32_t state[4],
                                int quiescent) {
    uint32_t addrs[64], out[64];
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n / 64; i++) {
        draw64(state, addrs);
        if (fibforge_reader4_lookup_batch(r, addrs, out, 64) != FIBFORGE_OK) return 0;
        for (int k = 0; k < 64; k++) sum += out[k];
        if (quiescent) fibforge_reader4_quiescent(r);
    }
    return sum;
}

/* n single lookups walked inline over a view of the online reader r, in bursts of `burst`
 * (a multiple of 4 dividing n): a quiescent state and a new view after each, as the header's
 * typical loop. 0 when the reader gives no view. */
FIBFORGE_BENCH_POPCNT
uint64_t fibforge_bench_c_view_single(fibforge_reader4 *r, uint64_t n, uint32_t state[4],
                                      uint64_t burst) {
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n / burst; i++) {
        fibforge_view4 v;
        if (fibforge_reader4_view(r, &v) != FIBFORGE_OK) return 0;
        for (uint64_t k = 0; k < burst; k += 4) {
            sum += fibforge_view4_lookup(&v, XS32(a));
            sum += fibforge_view4_lookup(&v, XS32(b));
            sum += fibforge_view4_lookup(&v, XS32(c));
            sum += fibforge_view4_lookup(&v, XS32(d));
        }
        fibforge_reader4_quiescent(r);
    }
    state[0] = a, state[1] = b, state[2] = c, state[3] = d;
    return sum;
}

/* n / 64 groups of 64 addresses drawn first, then walked inline over one view (the batch a
 * C user writes with the view), a quiescent state after each group. */
FIBFORGE_BENCH_POPCNT
uint64_t fibforge_bench_c_view_batch(fibforge_reader4 *r, uint64_t n, uint32_t state[4]) {
    uint32_t addrs[64];
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n / 64; i++) {
        fibforge_view4 v;
        draw64(state, addrs);
        if (fibforge_reader4_view(r, &v) != FIBFORGE_OK) return 0;
        for (int k = 0; k < 64; k++) sum += fibforge_view4_lookup(&v, addrs[k]);
        fibforge_reader4_quiescent(r);
    }
    return sum;
}
