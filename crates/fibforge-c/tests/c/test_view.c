/*
 * Tests of the inline lookup over a view (fibforge_reader4_view, fibforge_view4_lookup): it
 * answers exactly as fibforge_reader4_lookup on a real table and on small tables in every
 * leaf width (8, 16, 32 bits) and both dir widths, through updates; a view kept past updates
 * (until the next quiescent state) still answers for the arrays it was taken from; a reader
 * thread using views per burst while the writer updates sees only valid answers.
 *
 * Usage: test_view TABLE   (data/ris2015-as3856.tsv.gz)
 * Prints "N passed, N failed" last; exits 0 only when nothing failed.
 */
#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t xorshift(uint32_t *x) {
    *x ^= *x << 13, *x ^= *x >> 17, *x ^= *x << 5;
    return *x;
}

/* Address i of a probe stream: uniform, or (odd i) inside 10.0.0.0/8 where the small
 * tables' routes lie. */
static uint32_t probe(uint32_t *x, long i) {
    uint32_t a = xorshift(x);
    return (i & 1) ? IP4(10, 0, 0, 0) | (a & 0x00ffffffu) : a;
}

/* Lookups of n probe addresses where the view and the reader disagree (0 expected). */
static long mismatches(fibforge_reader4 *r, const fibforge_view4 *v, long n, uint32_t seed) {
    long bad = 0, hits = 0;
    for (long i = 0; i < n; i++) {
        uint32_t a = probe(&seed, i), want = fibforge_reader4_lookup(r, a);
        uint32_t got = fibforge_view4_lookup(v, a);
        hits += want != FIBFORGE_NO_ROUTE;
        if (got != want && bad++ < 5) {
            fprintf(stderr, "  %08x: view %u, reader %u\n", (unsigned)a, (unsigned)got,
                    (unsigned)want);
        }
    }
    CHECK(hits > 0 && hits < n); /* both routes and misses were compared */
    return bad;
}

static void test_errors(void) {
    fibforge_table4 *t = NULL, *b = NULL;
    fibforge_reader4 *r = NULL, *rb = NULL;
    fibforge_view4 v;
    memset(&v, 0xff, sizeof v);
    CHECK(strcmp(fibforge_status_str(FIBFORGE_ERR_UNSUPPORTED), "FIBFORGE_ERR_UNSUPPORTED") == 0);
    CHECK(fibforge_table4_new(&t) == FIBFORGE_OK && fibforge_table4_reader(t, &r) == FIBFORGE_OK);
    CHECK(fibforge_reader4_view(NULL, &v) == FIBFORGE_ERR_NULL);
    CHECK(strstr(fibforge_last_error(), "reader is NULL") != NULL);
    CHECK(v.version == 0 && v.dir == NULL && v.nodes == NULL && v.leaves == NULL);
    CHECK(fibforge_reader4_view(r, NULL) == FIBFORGE_ERR_NULL);
    memset(&v, 0xff, sizeof v);
    CHECK(fibforge_reader4_view(r, &v) == FIBFORGE_ERR_INVALID); /* offline */
    CHECK(strstr(fibforge_last_error(), "offline") != NULL);
    CHECK(v.version == 0 && v.dir == NULL);
    fibforge_reader4_online(r);
    CHECK(fibforge_reader4_view(r, &v) == FIBFORGE_OK);
    CHECK(v.version == FIBFORGE_VIEW4_VERSION && v.reserved == 0);
    CHECK(fibforge_view4_lookup(&v, IP4(10, 1, 2, 3)) == FIBFORGE_NO_ROUTE); /* empty table */
    CHECK(fibforge_table4_new_with("bplus", &b) == FIBFORGE_OK);
    CHECK(fibforge_table4_reader(b, &rb) == FIBFORGE_OK);
    fibforge_reader4_online(rb);
    CHECK(fibforge_reader4_view(rb, &v) == FIBFORGE_ERR_UNSUPPORTED);
    CHECK(strstr(fibforge_last_error(), "Poptrie") != NULL);
    fibforge_reader4_free(r);
    fibforge_reader4_free(rb);
    fibforge_table4_free(t);
    fibforge_table4_free(b);
}

/* The shipped table: a million random addresses, view against reader and writer lookups. */
static void test_real_table(const char *path) {
    fibforge_table4 *t = NULL;
    fibforge_reader4 *r = NULL;
    fibforge_view4 v;
    long bad = 0;
    uint32_t x = 2463534242u;
    CHECK(fibforge_table4_load(path, &t) == FIBFORGE_OK);
    CHECK(fibforge_table4_len(t) > 500000);
    CHECK(fibforge_table4_reader(t, &r) == FIBFORGE_OK);
    fibforge_reader4_online(r);
    CHECK(fibforge_reader4_view(r, &v) == FIBFORGE_OK);
    CHECK(v.s == 18 && v.dir_bits == 16);
    printf("%s: %zu routes, view s=%u dir %u-bit leaves %u-bit\n", path, fibforge_table4_len(t),
           (unsigned)v.s, (unsigned)v.dir_bits, (unsigned)v.leaf_bits);
    for (long i = 0; i < 1000000; i++) {
        uint32_t a = xorshift(&x), got = fibforge_view4_lookup(&v, a);
        bad += got != fibforge_reader4_lookup(r, a) || got != fibforge_table4_lookup(t, a);
        if ((i & 255) == 255) { /* the documented loop: report, then a fresh view */
            fibforge_reader4_quiescent(r);
            bad += fibforge_reader4_view(r, &v) != FIBFORGE_OK;
        }
    }
    CHECK(bad == 0);
    fibforge_reader4_free(r);
    fibforge_table4_free(t);
}

/* n routes inside 10.0.0.0/8 (lengths 9..32) with next hops base + (i % spread). */
static int insert_routes(fibforge_table4 *t, uint32_t *x, int n, uint32_t base, uint32_t spread) {
    int ok = 1;
    for (int i = 0; i < n; i++) {
        uint8_t len = (uint8_t)(9 + xorshift(x) % 24);
        uint32_t addr = (IP4(10, 0, 0, 0) | (xorshift(x) & 0x00ffffffu)) & (~0u << (32 - len));
        ok &= fibforge_table4_insert(t, addr, len, base + (uint32_t)i % spread, NULL) == FIBFORGE_OK;
    }
    return ok;
}

/* Answers of n probe addresses through a view, into out. */
static void answers(const fibforge_view4 *v, uint32_t *out, long n, uint32_t seed) {
    for (long i = 0; i < n; i++) out[i] = fibforge_view4_lookup(v, probe(&seed, i));
}

/* A small table grown through every leaf width; after each step (and a quiescent state) a
 * new view answers as the reader, and a view kept across an update that moved to new arrays
 * still answers for the arrays it was taken from. */
static void test_widths(const char *algo, uint32_t s_want, uint32_t dir_want) {
    enum { N = 200000 };
    static uint32_t before[N], kept[N];
    fibforge_table4 *t = NULL;
    fibforge_reader4 *r = NULL;
    fibforge_view4 v, old;
    uint32_t x = 88172645u;
    int before_failed = failed;
    CHECK(fibforge_table4_new_with(algo, &t) == FIBFORGE_OK);
    CHECK(fibforge_table4_reader(t, &r) == FIBFORGE_OK);
    fibforge_reader4_online(r);
    CHECK(fibforge_table4_insert(t, IP4(10, 0, 0, 0), 8, 7, NULL) == FIBFORGE_OK);
    fibforge_reader4_quiescent(r);
    CHECK(fibforge_reader4_view(r, &v) == FIBFORGE_OK);
    CHECK(v.s == s_want && v.dir_bits == dir_want && v.leaf_bits == 8);
    CHECK(insert_routes(t, &x, 3000, 0, 200)); /* next hops 0..199: 8-bit leaves */
    fibforge_reader4_quiescent(r);
    CHECK(fibforge_reader4_view(r, &v) == FIBFORGE_OK);
    CHECK(v.leaf_bits == 8); /* (dir may have widened: new roots outgrew its root region) */
    CHECK(mismatches(r, &v, 1000000, 1) == 0);

    /* a next hop of 300 widens the leaves to 16 bits: new arrays, and the old ones, kept
     * alive by the view until the next quiescent state, still answer as before */
    answers(&v, before, N, 2);
    old = v;
    CHECK(fibforge_table4_insert(t, IP4(10, 20, 48, 0), 20, 300, NULL) == FIBFORGE_OK);
    answers(&old, kept, N, 2);
    CHECK(memcmp(before, kept, sizeof before) == 0);
    fibforge_reader4_quiescent(r); /* old is stale from here */
    CHECK(fibforge_reader4_view(r, &v) == FIBFORGE_OK);
    CHECK(v.leaf_bits == 16 && v.nodes != old.nodes);
    CHECK(fibforge_view4_lookup(&v, IP4(10, 20, 50, 1)) ==
          fibforge_reader4_lookup(r, IP4(10, 20, 50, 1)));
    CHECK(insert_routes(t, &x, 1000, 200, 1000)); /* next hops up to 1199 */
    fibforge_reader4_quiescent(r);
    CHECK(fibforge_reader4_view(r, &v) == FIBFORGE_OK);
    CHECK(v.leaf_bits == 16);
    CHECK(mismatches(r, &v, 1000000, 3) == 0);

    /* withdrawals and changes within the same width, then a fresh view */
    for (int i = 0; i < 500; i++) {
        uint32_t a = IP4(10, 0, 0, 0) | (xorshift(&x) & 0x00ff0000u);
        CHECK(fibforge_table4_remove(t, a, 16, NULL) == FIBFORGE_OK);
        CHECK(fibforge_table4_insert(t, a | 0x100u, 24, 60000u + (uint32_t)i, NULL) == FIBFORGE_OK);
    }
    fibforge_reader4_quiescent(r);
    CHECK(fibforge_reader4_view(r, &v) == FIBFORGE_OK);
    CHECK(mismatches(r, &v, 1000000, 4) == 0);

    /* a next hop above 65534: 32-bit leaves; as a /8, a dir entry too: 32-bit dir */
    CHECK(fibforge_table4_insert(t, IP4(10, 0, 0, 0), 8, 70000, NULL) == FIBFORGE_OK);
    CHECK(insert_routes(t, &x, 500, 100000, 300));
    fibforge_reader4_quiescent(r);
    CHECK(fibforge_reader4_view(r, &v) == FIBFORGE_OK);
    CHECK(v.leaf_bits == 32 && (s_want < 8 || v.dir_bits == 32));
    CHECK(mismatches(r, &v, 1000000, 5) == 0);
    CHECK(fibforge_view4_lookup(&v, IP4(10, 255, 255, 255)) ==
          fibforge_reader4_lookup(r, IP4(10, 255, 255, 255)));
    fibforge_reader4_free(r); /* online: deregistered; the view is stale */
    fibforge_table4_free(t);
    if (failed > before_failed) fprintf(stderr, "  (failures above: %s)\n", algo);
}

/* ---- a reader thread on views while the writer updates -------------------------------- */

struct shared {
    fibforge_reader4 *reader;
    atomic_int stop;
    long lookups, bad;
};

/* As test_fibforge.c's two-thread test: 10.1.2.200 is always 20, 21 or 22 and 10.200.0.0
 * always 1, whatever update is under way; here through a view per burst of 64. */
static void *reader_thread(void *arg) {
    struct shared *s = arg;
    fibforge_view4 v;
    fibforge_reader4_online(s->reader);
    while (!atomic_load(&s->stop)) {
        if (fibforge_reader4_view(s->reader, &v) != FIBFORGE_OK) {
            s->bad++;
            break;
        }
        for (int i = 0; i < 64; i++) {
            uint32_t a = fibforge_view4_lookup(&v, IP4(10, 1, 2, 200));
            s->bad += !(a == 20 || a == 21 || a == 22);
            s->bad += fibforge_view4_lookup(&v, IP4(10, 200, 0, 0)) != 1;
        }
        s->lookups += 128;
        fibforge_reader4_quiescent(s->reader);
    }
    fibforge_reader4_offline(s->reader);
    return NULL;
}

static void test_two_threads(const char *algo) {
    fibforge_table4 *t = NULL;
    struct shared s = {NULL, 0, 0, 0};
    pthread_t th;
    int ok = 1;
    CHECK(fibforge_table4_new_with(algo, &t) == FIBFORGE_OK);
    CHECK(fibforge_table4_insert(t, IP4(10, 0, 0, 0), 8, 1, NULL) == FIBFORGE_OK);
    CHECK(fibforge_table4_insert(t, IP4(10, 1, 2, 0), 24, 20, NULL) == FIBFORGE_OK);
    CHECK(fibforge_table4_reader(t, &s.reader) == FIBFORGE_OK);
    CHECK(pthread_create(&th, NULL, reader_thread, &s) == 0);
    for (uint32_t i = 0; i < 20000; i++) {
        ok &= fibforge_table4_insert(t, IP4(10, 1, 2, 0), 24, 20 + (i & 1), NULL) == FIBFORGE_OK;
        if (i % 3 == 0) {
            ok &= fibforge_table4_insert(t, IP4(10, 1, 2, 128), 25, 22, NULL) == FIBFORGE_OK;
        } else {
            ok &= fibforge_table4_remove(t, IP4(10, 1, 2, 128), 25, NULL) == FIBFORGE_OK;
        }
        /* churn elsewhere, with next hops that widen the leaves, so the arrays move */
        ok &= fibforge_table4_insert(t, IP4(172, 16 + (i % 16), (i >> 4) & 255, 0), 24,
                                     i * 7, NULL) == FIBFORGE_OK;
    }
    atomic_store(&s.stop, 1);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(ok);
    CHECK(s.lookups > 0);
    CHECK(s.bad == 0);
    fibforge_reader4_free(s.reader);
    fibforge_table4_free(t);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s TABLE\n", argv[0]);
        return 2;
    }
    test_errors();
    test_widths("poptrie", 18, 16);
    test_widths("poptrie:dir16=off", 18, 32);
    test_widths("poptrie:s=0", 0, 16);
    test_widths("poptrie:s=16", 16, 16);
    test_two_threads("poptrie");
    test_two_threads("poptrie:dir16=off");
    test_real_table(argv[1]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
