/*
 * The C side of the bench's C ABI rows (src/runner/api.rs): loops written in C that call
 * include/fibforge.h as a C program would, on uniform random IPv4 addresses drawn in the
 * loop (xorshift32, as crates/fibforge-c/examples/bench_single.c). Each returns the sum of
 * the answers so that no call can be optimised away; the Rust side times the calls.
 */
#include "fibforge.h"

/* n single lookups; a quiescent state every `burst` lookups when burst > 0. */
uint64_t fibforge_bench_c_single(fibforge_reader4 *r, uint64_t n, uint32_t *state,
                                 uint64_t burst) {
    uint32_t x = *state;
    uint64_t sum = 0, left = burst;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        sum += fibforge_reader4_lookup(r, x);
        if (burst && --left == 0) {
            fibforge_reader4_quiescent(r);
            left = burst;
        }
    }
    *state = x;
    return sum;
}

/* n / 64 batches of 64 lookups, a quiescent state after each when quiescent != 0. */
uint64_t fibforge_bench_c_batch(fibforge_reader4 *r, uint64_t n, uint32_t *state, int quiescent) {
    uint32_t addrs[64], out[64], x = *state;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n / 64; i++) {
        for (int k = 0; k < 64; k++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            addrs[k] = x;
        }
        if (fibforge_reader4_lookup_batch(r, addrs, out, 64) != FIBFORGE_OK) return 0;
        for (int k = 0; k < 64; k++) sum += out[k];
        if (quiescent) fibforge_reader4_quiescent(r);
    }
    *state = x;
    return sum;
}

/* The header's inline walk (fibforge_view4_lookup) compiled with the popcount instruction,
 * as the header asks of a user who wants its speed; called only on CPUs that have it. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define FIBFORGE_BENCH_POPCNT __attribute__((target("popcnt")))
#else
#define FIBFORGE_BENCH_POPCNT
#endif

/* n single lookups walked inline over a view of the online reader r, in bursts of `burst`
 * (a multiple dividing n): a quiescent state and a new view after each, as the header's
 * typical loop. 0 when the reader gives no view. */
FIBFORGE_BENCH_POPCNT
uint64_t fibforge_bench_c_view_single(fibforge_reader4 *r, uint64_t n, uint32_t *state,
                                      uint64_t burst) {
    uint32_t x = *state;
    uint64_t sum = 0;
    for (uint64_t b = 0; b < n / burst; b++) {
        fibforge_view4 v;
        if (fibforge_reader4_view(r, &v) != FIBFORGE_OK) return 0;
        for (uint64_t i = 0; i < burst; i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            sum += fibforge_view4_lookup(&v, x);
        }
        fibforge_reader4_quiescent(r);
    }
    *state = x;
    return sum;
}

/* n / 64 groups of 64 addresses drawn first, then walked inline over one view (the batch a
 * C user writes with the view), a quiescent state after each group. */
FIBFORGE_BENCH_POPCNT
uint64_t fibforge_bench_c_view_batch(fibforge_reader4 *r, uint64_t n, uint32_t *state) {
    uint32_t addrs[64], x = *state;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n / 64; i++) {
        fibforge_view4 v;
        for (int k = 0; k < 64; k++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            addrs[k] = x;
        }
        if (fibforge_reader4_view(r, &v) != FIBFORGE_OK) return 0;
        for (int k = 0; k < 64; k++) sum += fibforge_view4_lookup(&v, addrs[k]);
        fibforge_reader4_quiescent(r);
    }
    *state = x;
    return sum;
}
