/*
 * Measures fibforge_reader4_lookup_batch on an array of random IPv4 addresses.
 *
 * Build (after `cargo build --release -p fibforge-c`):
 *   cc -O2 -I crates/fibforge-c/include crates/fibforge-c/examples/bench_batch.c \
 *      target/release/libfibforge_c.a -lpthread -ldl -lm -o target/bench_batch
 * Run: target/bench_batch [TABLE] [N]   (default data/ris2015-as3856.tsv.gz, 10,000,000)
 * Prints the median rate of 5 runs, by wall-clock time and by the thread's CPU time (which a
 * machine shared with other work disturbs less).
 */
#define _POSIX_C_SOURCE 199309L
#include "fibforge.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "data/ris2015-as3856.tsv.gz";
    size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000000;
    fibforge_table4 *table = NULL;
    fibforge_reader4 *reader = NULL;
    uint32_t *addrs = malloc(n * sizeof *addrs), *out = malloc(n * sizeof *out), x = 2463534242u;
    double times[5], cpu[5];
    size_t routed = 0;
    if (!addrs || !out) return 1;
    if (fibforge_table4_load(path, &table) != FIBFORGE_OK ||
        fibforge_table4_reader(table, &reader) != FIBFORGE_OK) {
        fprintf(stderr, "error: %s\n", fibforge_last_error());
        return 1;
    }
    for (size_t i = 0; i < n; i++) { /* xorshift32 */
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        addrs[i] = x;
    }
    for (int r = 0; r < 5; r++) {
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
        if (fibforge_reader4_lookup_batch(reader, addrs, out, n) != FIBFORGE_OK) return 1;
        times[r] = now(CLOCK_MONOTONIC) - t0;
        cpu[r] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
    }
    for (size_t i = 0; i < n; i++) routed += out[i] != FIBFORGE_NO_ROUTE;
    qsort(times, 5, sizeof times[0], cmp);
    qsort(cpu, 5, sizeof cpu[0], cmp);
    printf("%zu routes; %.1f M lookups/s, %.1f by CPU time (median of 5); %zu of %zu routed\n",
           fibforge_table4_len(table), n / times[2] / 1e6, n / cpu[2] / 1e6, routed, n);
    fibforge_reader4_free(reader);
    fibforge_table4_free(table);
    free(addrs);
    free(out);
    return 0;
}
