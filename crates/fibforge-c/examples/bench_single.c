/*
 * An independent C driver for single lookups through include/fibforge.h: random IPv4
 * addresses drawn in the loop (xorshift32), one call per address, as a data plane would.
 * Paths: the writer-side fibforge_table4_lookup, a reader online (QSBR, a quiescent state
 * every 256 lookups), a reader offline (each call synchronised), reader batches of 64, and
 * the inline fibforge_view4_lookup over a view of an online reader (a quiescent state and a
 * new view every 256 lookups; Poptrie tables only, the row is skipped otherwise); then the
 * dual-family fibforge_iptable of the same file, whose lookups also answer the matched
 * prefix's length: the table's call, a reader online, reader batches of 64.
 *
 * Build (after `cargo build --release -p fibforge-c`):
 *   cc -O2 -I crates/fibforge-c/include crates/fibforge-c/examples/bench_single.c \
 *      target/release/libfibforge_c.a -lpthread -ldl -lm -o target/bench_single
 * (add -mpopcnt or -march=native so that the inline walk's popcount is one instruction)
 * Run: target/bench_single [TABLE] [N] [ALGO]   (default data/ris2015-as3856.tsv.gz, 2^26,
 *      and the default structure; ALGO as for fibforge_table4_load_with, e.g. "bplus")
 * Prints, per path, the median of 5 runs in M lookups/s by the thread's CPU time (less
 * disturbed on a shared machine) and by wall-clock time.
 */
#define _POSIX_C_SOURCE 199309L
#include "fibforge.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum path { TABLE, QSBR, OFFLINE, BATCH64, VIEW, IPTABLE, IPREADER, IPBATCH64 };

/* The matched lengths, summed so that the compiler keeps them. */
static volatile uint64_t length_sink;

static double now(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The dual-family table's paths: next hops summed as the other rows do, lengths aside. */
static uint64_t run_ip(enum path p, fibforge_iptable *t, fibforge_ipreader *r, size_t n) {
    uint32_t x = 2463534242u, addrs[64], out[64];
    uint8_t len = 0, lens[64];
    uint64_t sum = 0, lengths = 0;
    if (p == IPBATCH64) {
        for (size_t i = 0; i < n / 64; i++) {
            for (int k = 0; k < 64; k++) {
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                addrs[k] = x;
            }
            fibforge_ipreader_lookup4_batch(r, addrs, out, lens, 64);
            for (int k = 0; k < 64; k++) sum += out[k], lengths += lens[k];
            fibforge_ipreader_quiescent(r);
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            if (p == IPTABLE) {
                sum += fibforge_iptable_lookup4(t, x, &len);
            } else {
                sum += fibforge_ipreader_lookup4(r, x, &len);
                if ((i & 255) == 255) fibforge_ipreader_quiescent(r);
            }
            lengths += len;
        }
    }
    length_sink += lengths;
    return sum;
}

static uint64_t run(enum path p, fibforge_table4 *t, fibforge_reader4 *r, size_t n) {
    uint32_t x = 2463534242u, addrs[64], out[64];
    uint64_t sum = 0;
    if (p == VIEW) {
        fibforge_view4 v;
        for (size_t i = 0; i < n / 256; i++) {
            fibforge_reader4_view(r, &v);
            for (int k = 0; k < 256; k++) {
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                sum += fibforge_view4_lookup(&v, x);
            }
            fibforge_reader4_quiescent(r);
        }
        return sum;
    }
    if (p == BATCH64) {
        for (size_t i = 0; i < n / 64; i++) {
            for (int k = 0; k < 64; k++) {
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                addrs[k] = x;
            }
            fibforge_reader4_lookup_batch(r, addrs, out, 64);
            for (int k = 0; k < 64; k++) sum += out[k];
            fibforge_reader4_quiescent(r);
        }
        return sum;
    }
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        if (p == TABLE) {
            sum += fibforge_table4_lookup(t, x);
        } else {
            sum += fibforge_reader4_lookup(r, x);
            if (p == QSBR && (i & 255) == 255) fibforge_reader4_quiescent(r);
        }
    }
    return sum;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "data/ris2015-as3856.tsv.gz";
    size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : (size_t)1 << 26;
    const char *names[] = {"table4_lookup (writer thread)", "reader4_lookup, online (QSBR)",
                           "reader4_lookup, offline", "reader4_lookup_batch, 64, QSBR",
                           "view4_lookup (inline), QSBR", "iptable_lookup4 (+ length)",
                           "ipreader_lookup4, online (+ length)",
                           "ipreader_lookup4_batch, 64 (+ lengths)"};
    fibforge_view4 probe;
    fibforge_table4 *t = NULL;
    fibforge_reader4 *r = NULL;
    fibforge_iptable *it = NULL;
    fibforge_ipreader *ir = NULL;
    const char *algo = argc > 3 ? argv[3] : NULL;
    fibforge_status loaded = algo ? fibforge_table4_load_with(path, algo, &t)
                                  : fibforge_table4_load(path, &t);
    if (loaded != FIBFORGE_OK || fibforge_table4_reader(t, &r) != FIBFORGE_OK ||
        fibforge_iptable_load(path, algo, &it) != FIBFORGE_OK ||
        fibforge_iptable_reader(it, &ir) != FIBFORGE_OK) {
        fprintf(stderr, "error: %s\n", fibforge_last_error());
        return 1;
    }
    printf("%zu routes, %zu lookups per run\n", fibforge_table4_len(t), n);
    for (int p = TABLE; p <= IPBATCH64; p++) {
        double wall[5], cpu[5];
        uint64_t sum = 0;
        if (p == QSBR || p == BATCH64 || p == VIEW) fibforge_reader4_online(r);
        if (p == IPREADER || p == IPBATCH64) fibforge_ipreader_online(ir);
        if (p == VIEW && fibforge_reader4_view(r, &probe) != FIBFORGE_OK) {
            printf("%-40s skipped: %s\n", names[p], fibforge_last_error());
            continue;
        }
        for (int k = 0; k < 5; k++) {
            double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
            sum += p >= IPTABLE ? run_ip(p, it, ir, n) : run(p, t, r, n);
            wall[k] = now(CLOCK_MONOTONIC) - w0;
            cpu[k] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
        }
        fibforge_reader4_offline(r);
        fibforge_ipreader_offline(ir);
        qsort(wall, 5, sizeof wall[0], cmp);
        qsort(cpu, 5, sizeof cpu[0], cmp);
        printf("%-40s %7.1f M/s by CPU time, %7.1f by wall time (checksum %llu)\n", names[p],
               n / cpu[2] / 1e6, n / wall[2] / 1e6, (unsigned long long)sum);
    }
    fibforge_reader4_free(r);
    fibforge_table4_free(t);
    fibforge_ipreader_free(ir);
    fibforge_iptable_free(it);
    return 0;
}
