/*
 * fibforge's C paths beside the reference Poptrie C code (Asai & Ohara, github.com/pixos/poptrie,
 * s = 18) in one process: the same table, the same random addresses (xorshift32 drawn in the
 * loop), one call or inline walk per address. Checks first that the reference and the view
 * agree on 2^20 addresses. Not built by cargo: it needs the reference sources.
 *
 * Build (after `cargo build --release -p fibforge-c`; REF = a checkout of pixos/poptrie):
 *   touch $REF/config.h
 *   cc -O2 -mpopcnt -I crates/fibforge-c/include -I $REF crates/fibforge-c/examples/bench_reference.c \
 *      $REF/poptrie.c $REF/poptrie4.c $REF/buddy.c target/release/libfibforge_c.a \
 *      -lpthread -ldl -lm -o target/bench_reference
 * Run: target/bench_reference [TABLE] [N]  (a text table "prefix<TAB>next-hop...", gzip read
 *      through zcat; default data/ris2015-as3856.tsv.gz and 2^25 lookups per run)
 * Prints per path the median of 5 runs in M lookups per CPU second, and each path's share of
 * the reference.
 */
#define _POSIX_C_SOURCE 200809L
#include "fibforge.h"
#include "poptrie.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum path { REF, VIEW, READER, TABLE, NPATHS };

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Next-hop text -> id in order of first appearance (as fibforge_table4_load numbers them). */
static char names[4096][64];
static int n_names;
static int hop_id(const char *name) {
    for (int i = 0; i < n_names; i++)
        if (strcmp(names[i], name) == 0) return i;
    if (n_names == 4096) return -1;
    snprintf(names[n_names], sizeof names[0], "%s", name);
    return n_names++;
}

static int load_reference(struct poptrie *p, const char *path) {
    char cmd[4200], line[512];
    snprintf(cmd, sizeof cmd, "zcat -f '%s'", path);
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        unsigned a, b, c, d, len;
        char hop[64];
        if (line[0] == '#' || sscanf(line, "%u.%u.%u.%u/%u %63s", &a, &b, &c, &d, &len, hop) != 6)
            continue;
        int id = hop_id(hop);
        uint32_t addr = (a << 24) | (b << 16) | (c << 8) | d;
        if (id < 0 || poptrie_route_add(p, addr, (int)len, (void *)(uintptr_t)(id + 1)) < 0) {
            pclose(f);
            return -1;
        }
    }
    return pclose(f) == 0 ? 0 : -1;
}

static uint64_t run(enum path p, struct poptrie *ref, fibforge_table4 *t, fibforge_reader4 *r,
                    size_t n) {
    uint32_t x = 2463534242u;
    uint64_t sum = 0;
    fibforge_view4 v;
    for (size_t i = 0; i < n / 256; i++) {
        if (p == VIEW) fibforge_reader4_view(r, &v);
        for (int k = 0; k < 256; k++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            switch (p) {
            case REF: sum += (uint32_t)((uintptr_t)poptrie_lookup(ref, x) - 1); break;
            case VIEW: sum += fibforge_view4_lookup(&v, x); break;
            case READER: sum += fibforge_reader4_lookup(r, x); break;
            default: sum += fibforge_table4_lookup(t, x); break;
            }
        }
        fibforge_reader4_quiescent(r);
    }
    return sum;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "data/ris2015-as3856.tsv.gz";
    size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : (size_t)1 << 25;
    const char *label[NPATHS] = {"reference poptrie_lookup", "view4_lookup (inline), QSBR",
                                 "reader4_lookup, QSBR", "table4_lookup (writer thread)"};
    struct poptrie *ref = poptrie_init(NULL, 20, 24);
    fibforge_table4 *t = NULL;
    fibforge_reader4 *r = NULL;
    fibforge_view4 v;
    if (!ref || load_reference(ref, path) != 0) {
        fprintf(stderr, "error: the reference could not load %s\n", path);
        return 1;
    }
    if (fibforge_table4_load(path, &t) != FIBFORGE_OK || fibforge_table4_reader(t, &r) != FIBFORGE_OK) {
        fprintf(stderr, "error: %s\n", fibforge_last_error());
        return 1;
    }
    fibforge_reader4_online(r);
    if (fibforge_reader4_view(r, &v) != FIBFORGE_OK) {
        fprintf(stderr, "error: %s\n", fibforge_last_error());
        return 1;
    }
    uint32_t x = 88172645u;
    long bad = 0;
    for (long i = 0; i < 1L << 20; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        bad += (uint32_t)((uintptr_t)poptrie_lookup(ref, x) - 1) != fibforge_view4_lookup(&v, x);
    }
    fibforge_reader4_quiescent(r);
    printf("%zu routes, %d next hops, %zu lookups per run, %ld disagreements in 2^20\n",
           fibforge_table4_len(t), n_names, n, bad);
    double rate[NPATHS][5];
    uint64_t sums[NPATHS] = {0};
    for (int k = 0; k < 5; k++) { /* interleaved rounds: load changes hit every path alike */
        for (int p = 0; p < NPATHS; p++) {
            double c0 = cpu_now();
            sums[p] += run((enum path)p, ref, t, r, n);
            rate[p][k] = n / (cpu_now() - c0) / 1e6;
        }
    }
    for (int p = 0; p < NPATHS; p++) {
        qsort(rate[p], 5, sizeof rate[p][0], cmp);
    }
    for (int p = 0; p < NPATHS; p++) {
        printf("%-30s %7.1f M/s by CPU time (%5.1f %% of the reference; checksum %llu)\n", label[p],
               rate[p][2], 100 * rate[p][2] / rate[REF][2], (unsigned long long)sums[p]);
    }
    fibforge_reader4_free(r);
    fibforge_table4_free(t);
    poptrie_release(ref);
    return bad == 0 ? 0 : 1;
}
