/*
 * Tests of every function of fibforge.h, including error paths and one writer thread
 * updating a table while a reader thread looks up (offline, then online with quiescent
 * states: QSBR). The table tests run once per structure of STRUCTURES.
 *
 * Usage: test_fibforge TMPDIR MRT_IPV4 MRT_IPV6 [HOSTILE_FILE...]
 * Each HOSTILE_FILE (the hostile corpus of fibforge_io::hostile) must be refused by both
 * loads with a message naming it, leaving a table loaded before intact.
 * Prints "N passed, N failed" last; exits 0 only when nothing failed.
 */
#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The structures the table tests run on: the default, the B+-tree, and the B+-tree without
 * its directory and with two side slots, so that most updates go through rebuilds. */
static const char *const STRUCTURES[] = {"poptrie", "bplus", "bplus:dir=off,delta=2"};
#define N_STRUCTURES (sizeof STRUCTURES / sizeof STRUCTURES[0])

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

static void test_misc(void) {
    CHECK(strlen(fibforge_version()) > 0);
    CHECK(strcmp(fibforge_version(), FIBFORGE_VERSION_STRING) == 0);
    CHECK(strcmp(fibforge_status_str(FIBFORGE_OK), "FIBFORGE_OK") == 0);
    CHECK(strcmp(fibforge_status_str(FIBFORGE_ERR_PARSE), "FIBFORGE_ERR_PARSE") == 0);
    CHECK(strcmp(fibforge_status_str(FIBFORGE_ERR_PANIC), "FIBFORGE_ERR_PANIC") == 0);
    CHECK(strcmp(fibforge_status_str((fibforge_status)99), "unknown status") == 0);
    CHECK(strcmp(fibforge_last_error(), "") == 0);
    CHECK(fibforge_table4_new(NULL) == FIBFORGE_ERR_NULL);
    CHECK(error_mentions("out is NULL"));
    CHECK(fibforge_table6_new(NULL) == FIBFORGE_ERR_NULL);
    fibforge_table4_free(NULL);
    fibforge_table6_free(NULL);
    fibforge_reader4_free(NULL);
    fibforge_reader6_free(NULL);
    fibforge_reader4_online(NULL); /* ignored */
    fibforge_reader4_offline(NULL);
    fibforge_reader4_quiescent(NULL);
    fibforge_reader6_online(NULL);
    fibforge_reader6_offline(NULL);
    fibforge_reader6_quiescent(NULL);
    CHECK(fibforge_table4_len(NULL) == 0);
    CHECK(fibforge_table6_len(NULL) == 0);
    CHECK(fibforge_table4_next_hop_name(NULL, 0) == NULL);
    CHECK(fibforge_table6_next_hop_name(NULL, 0) == NULL);
}

static void test_insert_remove4(fibforge_table4 *t) {
    uint32_t prev = 0, removed = 0;
    CHECK(fibforge_table4_insert(t, IP4(10, 0, 0, 0), 8, 1, &prev) == FIBFORGE_OK);
    CHECK(prev == FIBFORGE_NO_ROUTE);
    CHECK(fibforge_table4_insert(t, IP4(10, 1, 0, 0), 16, 2, NULL) == FIBFORGE_OK);
    CHECK(fibforge_table4_insert(t, IP4(10, 0, 0, 0), 8, 3, &prev) == FIBFORGE_OK);
    CHECK(prev == 1);
    CHECK(fibforge_table4_insert(t, IP4(192, 0, 2, 1), 32, 100000, NULL) == FIBFORGE_OK);
    CHECK(fibforge_table4_insert(t, IP4(198, 51, 100, 0), 24, FIBFORGE_MAX_NEXT_HOP, NULL) == FIBFORGE_OK);
    CHECK(fibforge_table4_len(t) == 4);
    CHECK(fibforge_table4_insert(t, IP4(198, 51, 100, 0), 24, FIBFORGE_MAX_NEXT_HOP + 1, &prev) == FIBFORGE_ERR_LIMIT);
    CHECK(error_mentions("limit"));
    CHECK(fibforge_table4_lookup(t, IP4(198, 51, 100, 7)) == FIBFORGE_MAX_NEXT_HOP); /* unchanged */

    CHECK(fibforge_table4_insert(t, IP4(10, 0, 0, 0), 33, 1, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("33"));
    CHECK(fibforge_table4_insert(t, IP4(10, 0, 0, 1), 8, 1, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("host bits"));
    CHECK(fibforge_table4_insert(t, IP4(10, 0, 0, 0), 8, FIBFORGE_NO_ROUTE, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("FIBFORGE_NO_ROUTE"));
    CHECK(fibforge_table4_insert(NULL, 0, 0, 1, NULL) == FIBFORGE_ERR_NULL);
    CHECK(error_mentions("table is NULL"));
    CHECK(fibforge_table4_len(t) == 4);

    CHECK(fibforge_table4_lookup(t, IP4(10, 1, 2, 3)) == 2);
    CHECK(fibforge_table4_lookup(t, IP4(10, 2, 0, 0)) == 3);
    CHECK(fibforge_table4_lookup(t, IP4(192, 0, 2, 1)) == 100000);
    CHECK(fibforge_table4_lookup(t, IP4(198, 51, 100, 7)) == FIBFORGE_MAX_NEXT_HOP);
    CHECK(fibforge_table4_lookup(t, IP4(11, 0, 0, 0)) == FIBFORGE_NO_ROUTE);
    CHECK(fibforge_table4_lookup(NULL, IP4(10, 0, 0, 0)) == FIBFORGE_NO_ROUTE);

    CHECK(fibforge_table4_remove(t, IP4(10, 1, 0, 0), 16, &removed) == FIBFORGE_OK);
    CHECK(removed == 2);
    CHECK(fibforge_table4_remove(t, IP4(10, 1, 0, 0), 16, &removed) == FIBFORGE_OK);
    CHECK(removed == FIBFORGE_NO_ROUTE);
    CHECK(fibforge_table4_remove(t, IP4(10, 0, 0, 0), 40, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(fibforge_table4_remove(NULL, 0, 0, NULL) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table4_lookup(t, IP4(10, 1, 2, 3)) == 3);
    CHECK(fibforge_table4_insert(t, 0, 0, 9, NULL) == FIBFORGE_OK); /* default route */
    CHECK(fibforge_table4_lookup(t, IP4(11, 0, 0, 0)) == 9);
    CHECK(fibforge_table4_remove(t, 0, 0, NULL) == FIBFORGE_OK);
    CHECK(fibforge_table4_lookup(t, IP4(11, 0, 0, 0)) == FIBFORGE_NO_ROUTE);
}

static void test_batch4(fibforge_table4 *t) {
    enum { N = 3000 };
    static uint32_t addrs[N], out[N], inplace[N];
    int same = 1;
    for (uint32_t i = 0; i < N; i++) {
        addrs[i] = i % 3 == 0 ? IP4(10, i % 256, i / 256, 1) : i * 2654435761u;
        inplace[i] = addrs[i];
    }
    CHECK(fibforge_table4_lookup_batch(t, addrs, out, N) == FIBFORGE_OK);
    CHECK(fibforge_table4_lookup_batch(t, inplace, inplace, N) == FIBFORGE_OK);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t want = fibforge_table4_lookup(t, addrs[i]);
        same &= out[i] == want && inplace[i] == want;
    }
    CHECK(same);
    CHECK(out[0] == 3);
    CHECK(fibforge_table4_lookup_batch(t, NULL, NULL, 0) == FIBFORGE_OK);
    CHECK(fibforge_table4_lookup_batch(t, NULL, out, 1) == FIBFORGE_ERR_NULL);
    CHECK(error_mentions("addrs"));
    CHECK(fibforge_table4_lookup_batch(t, addrs, NULL, 1) == FIBFORGE_ERR_NULL);
    CHECK(error_mentions("out"));
    CHECK(fibforge_table4_lookup_batch(NULL, addrs, out, 1) == FIBFORGE_ERR_NULL);
}

static void test_reader4(fibforge_table4 *t) {
    fibforge_reader4 *r = NULL;
    uint32_t addrs[2] = {IP4(10, 9, 9, 9), IP4(11, 0, 0, 0)}, out[2] = {0, 0};
    CHECK(fibforge_table4_reader(NULL, &r) == FIBFORGE_ERR_NULL);
    CHECK(r == NULL);
    CHECK(fibforge_table4_reader(t, NULL) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table4_reader(t, &r) == FIBFORGE_OK && r != NULL);
    CHECK(fibforge_reader4_lookup(r, IP4(10, 9, 9, 9)) == 3);
    CHECK(fibforge_reader4_lookup(NULL, IP4(10, 9, 9, 9)) == FIBFORGE_NO_ROUTE);
    CHECK(error_mentions("reader is NULL"));
    CHECK(fibforge_reader4_lookup_batch(r, addrs, out, 2) == FIBFORGE_OK);
    CHECK(out[0] == 3 && out[1] == FIBFORGE_NO_ROUTE);
    CHECK(fibforge_reader4_lookup_batch(NULL, addrs, out, 2) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_reader4_lookup_batch(r, NULL, out, 2) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table4_insert(t, IP4(10, 9, 0, 0), 16, 5, NULL) == FIBFORGE_OK);
    CHECK(fibforge_reader4_lookup(r, IP4(10, 9, 9, 9)) == 5); /* readers see updates */
    /* QSBR: online, lookups, a quiescent state, updates seen, offline and online again */
    fibforge_reader4_online(r);
    fibforge_reader4_online(r); /* no-op when online */
    CHECK(fibforge_reader4_lookup(r, IP4(10, 9, 9, 9)) == 5);
    fibforge_reader4_quiescent(r);
    CHECK(fibforge_table4_insert(t, IP4(10, 9, 0, 0), 16, 6, NULL) == FIBFORGE_OK);
    fibforge_reader4_quiescent(r); /* an online reader takes a replaced structure here */
    CHECK(fibforge_reader4_lookup(r, IP4(10, 9, 9, 9)) == 6);
    CHECK(fibforge_reader4_lookup_batch(r, addrs, out, 2) == FIBFORGE_OK);
    CHECK(out[0] == 6 && out[1] == FIBFORGE_NO_ROUTE);
    fibforge_reader4_quiescent(r);
    fibforge_reader4_offline(r);
    fibforge_reader4_quiescent(r); /* no-op when offline */
    CHECK(fibforge_reader4_lookup(r, IP4(10, 9, 9, 9)) == 6);
    fibforge_reader4_online(r);
    CHECK(fibforge_table4_remove(t, IP4(10, 9, 0, 0), 16, NULL) == FIBFORGE_OK);
    fibforge_reader4_quiescent(r);
    CHECK(fibforge_reader4_lookup(r, IP4(10, 9, 9, 9)) == 3);
    fibforge_reader4_free(r); /* freed online: deregistered */
    CHECK(fibforge_table4_insert(t, IP4(10, 9, 0, 0), 16, 5, NULL) == FIBFORGE_OK);
}

static void test_table6(const char *algo) {
    fibforge_table6 *t = NULL;
    fibforge_reader6 *r = NULL;
    fibforge_ip6 addrs[3] = {ip6(1, 1), ip6(2, 1), ip6(0xffff, 0)};
    uint32_t out[3], prev = 0, removed = 0;
    CHECK(fibforge_table6_new_with(algo, &t) == FIBFORGE_OK && t != NULL);
    CHECK(strncmp(algo, fibforge_table6_structure(t), strlen(fibforge_table6_structure(t))) == 0);
    CHECK(fibforge_table6_insert(t, ip6(0, 0), 32, 1, &prev) == FIBFORGE_OK);
    CHECK(prev == FIBFORGE_NO_ROUTE);
    CHECK(fibforge_table6_insert(t, ip6(1, 0), 48, 2, NULL) == FIBFORGE_OK);
    CHECK(fibforge_table6_insert(t, ip6(1, 0), 129, 2, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(fibforge_table6_insert(t, ip6(1, 1), 48, 2, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("host bits"));
    CHECK(fibforge_table6_insert(NULL, ip6(1, 0), 48, 2, NULL) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table6_len(t) == 2);
    CHECK(fibforge_table6_lookup(t, ip6(1, 1)) == 2);
    CHECK(fibforge_table6_lookup(t, ip6(2, 1)) == 1);
    CHECK(fibforge_table6_lookup(NULL, ip6(2, 1)) == FIBFORGE_NO_ROUTE);
    CHECK(fibforge_table6_lookup_batch(t, addrs, out, 3) == FIBFORGE_OK);
    CHECK(out[0] == 2 && out[1] == 1 && out[2] == 1);
    CHECK(fibforge_table6_lookup_batch(t, NULL, out, 3) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table6_lookup_batch(NULL, addrs, out, 3) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table6_next_hop_name(t, 0) == NULL);

    CHECK(fibforge_table6_reader(t, &r) == FIBFORGE_OK && r != NULL);
    fibforge_reader6_free(r); /* the failing call below sets r to NULL: free it first */
    CHECK(fibforge_table6_reader(NULL, &r) == FIBFORGE_ERR_NULL && r == NULL);
    CHECK(fibforge_table6_reader(t, &r) == FIBFORGE_OK);
    CHECK(fibforge_table6_remove(t, ip6(1, 0), 48, &removed) == FIBFORGE_OK);
    CHECK(removed == 2);
    CHECK(fibforge_table6_remove(t, ip6(1, 0), 200, &removed) == FIBFORGE_ERR_INVALID);
    CHECK(fibforge_table6_remove(NULL, ip6(1, 0), 48, &removed) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_reader6_lookup(r, ip6(1, 1)) == 1);
    CHECK(fibforge_reader6_lookup(NULL, ip6(1, 1)) == FIBFORGE_NO_ROUTE);
    fibforge_reader6_online(r);
    CHECK(fibforge_table6_insert(t, ip6(1, 0), 48, 3, NULL) == FIBFORGE_OK);
    fibforge_reader6_quiescent(r); /* an online reader takes a replaced structure here */
    CHECK(fibforge_reader6_lookup(r, ip6(1, 1)) == 3);
    CHECK(fibforge_table6_remove(t, ip6(1, 0), 48, NULL) == FIBFORGE_OK);
    fibforge_reader6_quiescent(r);
    CHECK(fibforge_reader6_lookup(r, ip6(1, 1)) == 1);
    fibforge_reader6_offline(r);
    CHECK(fibforge_reader6_lookup_batch(r, addrs, out, 3) == FIBFORGE_OK);
    CHECK(out[0] == 1 && out[1] == 1);
    CHECK(fibforge_reader6_lookup_batch(r, addrs, NULL, 3) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_reader6_lookup_batch(NULL, addrs, out, 3) == FIBFORGE_ERR_NULL);
    fibforge_table6_free(t); /* the reader outlives its table */
    CHECK(fibforge_reader6_lookup(r, ip6(7, 7)) == 1);
    fibforge_reader6_free(r);
}

static void test_load(const char *dir, const char *mrt4, const char *mrt6) {
    char good[4096], bad[4096], missing[4096];
    fibforge_table4 *t4 = NULL;
    fibforge_table6 *t6 = NULL;
    uint32_t id;
    snprintf(good, sizeof good, "%s/good.txt", dir);
    snprintf(bad, sizeof bad, "%s/bad.txt", dir);
    snprintf(missing, sizeof missing, "%s/missing.txt", dir);
    write_file(good, "# comment\n10.0.0.0/8 gw-a\n192.168.0.0/16 gw-b\n2001:db8::/32 gw-c\n");
    write_file(bad, "10.0.0.0/8 gw-a\n10.0.0.1/8 gw-b\n");

    CHECK(fibforge_table4_load(good, &t4) == FIBFORGE_OK && t4 != NULL);
    CHECK(fibforge_table4_len(t4) == 2);
    id = fibforge_table4_lookup(t4, IP4(10, 1, 1, 1));
    CHECK(id != FIBFORGE_NO_ROUTE && strcmp(fibforge_table4_next_hop_name(t4, id), "gw-a") == 0);
    CHECK(fibforge_table4_next_hop_name(t4, 1000) == NULL);
    fibforge_table4_free(t4);
    CHECK(fibforge_table6_load(good, &t6) == FIBFORGE_OK && t6 != NULL);
    CHECK(fibforge_table6_len(t6) == 1);
    id = fibforge_table6_lookup(t6, ip6(5, 5));
    CHECK(id != FIBFORGE_NO_ROUTE && strcmp(fibforge_table6_next_hop_name(t6, id), "gw-c") == 0);
    fibforge_table6_free(t6);

    t4 = (fibforge_table4 *)1; /* must be reset to NULL on failure */
    CHECK(fibforge_table4_load(bad, &t4) == FIBFORGE_ERR_PARSE && t4 == NULL);
    CHECK(error_mentions("bad.txt:2") && error_mentions("host bits"));
    CHECK(fibforge_table6_load(bad, &t6) == FIBFORGE_ERR_PARSE && t6 == NULL);
    CHECK(fibforge_table4_load(missing, &t4) == FIBFORGE_ERR_IO && t4 == NULL);
    CHECK(error_mentions("missing.txt"));
    CHECK(fibforge_table6_load(missing, &t6) == FIBFORGE_ERR_IO);
    CHECK(fibforge_table4_load(NULL, &t4) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table4_load("", &t4) == FIBFORGE_ERR_INVALID);
    CHECK(fibforge_table4_load(good, NULL) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table6_load(NULL, &t6) == FIBFORGE_ERR_NULL);

    CHECK(fibforge_table4_load(mrt4, &t4) == FIBFORGE_OK && fibforge_table4_len(t4) > 0);
    fibforge_table4_free(t4);
    CHECK(fibforge_table6_load(mrt6, &t6) == FIBFORGE_OK && fibforge_table6_len(t6) > 0);
    fibforge_table6_free(t6);
}

static void test_hostile(const char *dir, char **files, int n) {
    char good[4096], v6only[4096];
    fibforge_table4 *t4 = NULL, *bad4;
    fibforge_table6 *t6 = NULL, *bad6;
    snprintf(good, sizeof good, "%s/intact.txt", dir);
    snprintf(v6only, sizeof v6only, "%s/v6only.txt", dir);
    write_file(good, "10.0.0.0/8 gw-a\n2001:db8::/32 gw-c\n");
    write_file(v6only, "2001:db8::/32 gw-c\n");
    CHECK(fibforge_table4_load(good, &t4) == FIBFORGE_OK);
    CHECK(fibforge_table6_load(good, &t6) == FIBFORGE_OK);
    for (int i = 0; i < n; i++) {
        bad4 = (fibforge_table4 *)1;
        bad6 = (fibforge_table6 *)1;
        fibforge_status s4 = fibforge_table4_load(files[i], &bad4);
        CHECK((s4 == FIBFORGE_ERR_PARSE || s4 == FIBFORGE_ERR_IO) && bad4 == NULL);
        CHECK(error_mentions(files[i]) && !error_mentions("lenient"));
        if (!error_mentions(files[i])) fprintf(stderr, "  for %s\n", files[i]);
        fibforge_status s6 = fibforge_table6_load(files[i], &bad6);
        CHECK((s6 == FIBFORGE_ERR_PARSE || s6 == FIBFORGE_ERR_IO) && bad6 == NULL);
        CHECK(error_mentions(files[i]));
    }
    /* No call aborts: a stream of zeros without a newline is refused at once. */
    CHECK(fibforge_table4_load("/dev/zero", &bad4) != FIBFORGE_OK && bad4 == NULL);
    CHECK(error_mentions("/dev/zero"));
    /* IPv6 text in an IPv4 table is an error, not an empty table. */
    CHECK(fibforge_table4_load(v6only, &bad4) == FIBFORGE_ERR_PARSE && bad4 == NULL);
    CHECK(error_mentions("v6only.txt") && error_mentions("none of them ipv4"));
    /* The tables loaded before are intact. */
    CHECK(fibforge_table4_len(t4) == 1 && fibforge_table6_len(t6) == 1);
    CHECK(strcmp(fibforge_table4_next_hop_name(t4, fibforge_table4_lookup(t4, IP4(10, 9, 9, 9))), "gw-a") == 0);
    CHECK(strcmp(fibforge_table6_next_hop_name(t6, fibforge_table6_lookup(t6, ip6(1, 1))), "gw-c") == 0);
    fibforge_table4_free(t4);
    fibforge_table6_free(t6);
}

/* Structure names: bad ones are refused with the valid choices named; a file loaded as a
 * B+-tree gives the table the default structure gives. */
static void test_structures(const char *dir, const char *mrt4, const char *mrt6) {
    const char *bad[] = {"dxr", "", "bplus:dir=maybe", "bplus:nope=1", "poptrie:s=99",
                         "bplus:delta=0", "bplus:isa"};
    char good[4096], missing[4096];
    fibforge_table4 *t4 = NULL, *b4 = NULL;
    fibforge_table6 *t6 = NULL, *b6 = NULL;
    snprintf(good, sizeof good, "%s/structures.txt", dir);
    snprintf(missing, sizeof missing, "%s/missing.txt", dir);
    write_file(good, "10.0.0.0/8 gw-a\n2001:db8::/32 gw-c\n");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t4 = (fibforge_table4 *)1;
        t6 = (fibforge_table6 *)1;
        CHECK(fibforge_table4_new_with(bad[i], &t4) == FIBFORGE_ERR_INVALID && t4 == NULL);
        CHECK(error_mentions("poptrie") && error_mentions("bplus") && error_mentions(bad[i]));
        CHECK(fibforge_table6_new_with(bad[i], &t6) == FIBFORGE_ERR_INVALID && t6 == NULL);
        CHECK(fibforge_table4_load_with(good, bad[i], &t4) == FIBFORGE_ERR_INVALID && t4 == NULL);
        CHECK(fibforge_table6_load_with(good, bad[i], &t6) == FIBFORGE_ERR_INVALID && t6 == NULL);
    }
    CHECK(fibforge_table4_new_with("dxr", &t4) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("unknown structure 'dxr'"));
    CHECK(fibforge_table4_new_with(NULL, &t4) == FIBFORGE_ERR_NULL && error_mentions("algo is NULL"));
    CHECK(fibforge_table6_new_with(NULL, &t6) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table4_new_with("bplus", NULL) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table4_load_with(good, NULL, &t4) == FIBFORGE_ERR_NULL && t4 == NULL);
    CHECK(fibforge_table4_load_with(NULL, "bplus", &t4) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_table6_load_with(missing, "bplus", &t6) == FIBFORGE_ERR_IO && t6 == NULL);
    CHECK(fibforge_table4_structure(NULL) == NULL && fibforge_table6_structure(NULL) == NULL);

    CHECK(fibforge_table4_new(&t4) == FIBFORGE_OK);
    CHECK(strcmp(fibforge_table4_structure(t4), "poptrie") == 0);
    fibforge_table4_free(t4);
    CHECK(fibforge_table4_new_with("poptrie16", &t4) == FIBFORGE_OK);
    CHECK(strcmp(fibforge_table4_structure(t4), "poptrie") == 0);
    fibforge_table4_free(t4);

    CHECK(fibforge_table4_load_with(good, "bplus", &b4) == FIBFORGE_OK && b4 != NULL);
    CHECK(strcmp(fibforge_table4_structure(b4), "bplus") == 0);
    CHECK(strcmp(fibforge_table4_next_hop_name(b4, fibforge_table4_lookup(b4, IP4(10, 9, 9, 9))), "gw-a") == 0);
    fibforge_table4_free(b4);

    /* The same loaded file gives the same table in both structures. */
    CHECK(fibforge_table4_load(mrt4, &t4) == FIBFORGE_OK);
    CHECK(fibforge_table4_load_with(mrt4, "bplus", &b4) == FIBFORGE_OK);
    CHECK(fibforge_table4_len(b4) > 0 && fibforge_table4_len(t4) == fibforge_table4_len(b4));
    fibforge_table4_free(b4);
    CHECK(fibforge_table6_load(mrt6, &t6) == FIBFORGE_OK);
    CHECK(fibforge_table6_load_with(mrt6, "bplus:dir=off", &b6) == FIBFORGE_OK);
    CHECK(strcmp(fibforge_table6_structure(b6), "bplus") == 0);
    CHECK(fibforge_table6_len(b6) > 0 && fibforge_table6_len(t6) == fibforge_table6_len(b6));
    fibforge_table4_free(t4);
    fibforge_table6_free(t6);
    fibforge_table6_free(b6);
}

/* 2000 random nested routes inserted into a Poptrie and a B+-tree table: every answer of
 * both, single and batch, writer and reader, is the same. */
static void test_structures_agree(const char *algo) {
    enum { ROUTES = 2000, N = 8192 };
    static uint32_t a4[N], want[N], got[N];
    static fibforge_ip6 a6[N];
    fibforge_table4 *t4 = NULL, *b4 = NULL;
    fibforge_table6 *t6 = NULL, *b6 = NULL;
    fibforge_reader4 *r4 = NULL;
    fibforge_reader6 *r6 = NULL;
    int ok = 1, same = 1, routed = 0;
    uint64_t x = 0x9e3779b97f4a7c15u;
    CHECK(fibforge_table4_new(&t4) == FIBFORGE_OK && fibforge_table4_new_with(algo, &b4) == FIBFORGE_OK);
    CHECK(fibforge_table6_new(&t6) == FIBFORGE_OK && fibforge_table6_new_with(algo, &b6) == FIBFORGE_OK);
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* routes in 10.0.0.0/8 and 2001:db8::/32, so that they nest and abut */
        a4[i] = IP4(10, 0, 0, 0) | ((uint32_t)x & 0x00ffffff);
        a6[i] = ip6((uint16_t)(x >> 32), (uint8_t)x);
        for (int b = 6; b < 15; b++) a6[i].bytes[b] = (uint8_t)(x >> (b * 5 % 56)) & (b % 3 ? 0x0f : 0xff);
        if (i < ROUTES) {
            uint8_t len4 = (uint8_t)(8 + (x >> 40) % 25), len6 = (uint8_t)(32 + (x >> 48) % 97);
            uint32_t addr = a4[i] & (len4 == 32 ? 0xffffffffu : ~(0xffffffffu >> len4));
            fibforge_ip6 p6 = a6[i];
            for (int b = 0; b < 16; b++) {
                int keep = len6 - 8 * b;
                p6.bytes[b] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : (uint8_t)(0xff << (8 - keep));
            }
            uint32_t hop = (uint32_t)(x >> 20) % 1000;
            ok &= fibforge_table4_insert(t4, addr, len4, hop, NULL) == FIBFORGE_OK;
            ok &= fibforge_table4_insert(b4, addr, len4, hop, NULL) == FIBFORGE_OK;
            ok &= fibforge_table6_insert(t6, p6, len6, hop, NULL) == FIBFORGE_OK;
            ok &= fibforge_table6_insert(b6, p6, len6, hop, NULL) == FIBFORGE_OK;
            if (i % 7 == 0) { /* withdraw some again */
                ok &= fibforge_table4_remove(t4, addr, len4, NULL) == FIBFORGE_OK;
                ok &= fibforge_table4_remove(b4, addr, len4, NULL) == FIBFORGE_OK;
                ok &= fibforge_table6_remove(t6, p6, len6, NULL) == FIBFORGE_OK;
                ok &= fibforge_table6_remove(b6, p6, len6, NULL) == FIBFORGE_OK;
            }
        }
    }
    CHECK(ok);
    CHECK(fibforge_table4_len(t4) == fibforge_table4_len(b4) && fibforge_table4_len(b4) > ROUTES / 2);
    CHECK(fibforge_table6_len(t6) == fibforge_table6_len(b6) && fibforge_table6_len(b6) > ROUTES / 2);
    CHECK(fibforge_table4_reader(b4, &r4) == FIBFORGE_OK && fibforge_table6_reader(b6, &r6) == FIBFORGE_OK);
    fibforge_reader4_online(r4);
    fibforge_reader6_online(r6);
    for (int i = 0; i < N; i++) {
        uint32_t v = fibforge_table4_lookup(t4, a4[i]), w = fibforge_table6_lookup(t6, a6[i]);
        same &= v == fibforge_table4_lookup(b4, a4[i]) && v == fibforge_reader4_lookup(r4, a4[i]);
        same &= w == fibforge_table6_lookup(b6, a6[i]) && w == fibforge_reader6_lookup(r6, a6[i]);
        routed += (v != FIBFORGE_NO_ROUTE) + (w != FIBFORGE_NO_ROUTE);
    }
    CHECK(same && routed > N / 2);
    CHECK(fibforge_table4_lookup_batch(t4, a4, want, N) == FIBFORGE_OK);
    CHECK(fibforge_table4_lookup_batch(b4, a4, got, N) == FIBFORGE_OK);
    CHECK(memcmp(want, got, sizeof want) == 0);
    CHECK(fibforge_reader4_lookup_batch(r4, a4, got, N) == FIBFORGE_OK);
    CHECK(memcmp(want, got, sizeof want) == 0);
    CHECK(fibforge_table6_lookup_batch(t6, a6, want, N) == FIBFORGE_OK);
    CHECK(fibforge_table6_lookup_batch(b6, a6, got, N) == FIBFORGE_OK);
    CHECK(memcmp(want, got, sizeof want) == 0);
    CHECK(fibforge_reader6_lookup_batch(r6, a6, got, N) == FIBFORGE_OK);
    CHECK(memcmp(want, got, sizeof want) == 0);
    fibforge_reader4_free(r4);
    fibforge_reader6_free(r6);
    fibforge_table4_free(t4);
    fibforge_table4_free(b4);
    fibforge_table6_free(t6);
    fibforge_table6_free(b6);
}

/* ---- one writer thread, one reader thread ------------------------------------------- */

struct shared {
    fibforge_reader4 *reader;
    int qsbr; /* online with a quiescent state per loop, else offline (synchronised calls) */
    atomic_int stop;
    long lookups, bad;
};

/* The writer flips 10.1.2.0/24 between next hops 20 and 21 and inserts/removes
 * 10.1.2.128/25 (next hop 22) under a fixed 10.0.0.0/8 (next hop 1): every answer for
 * 10.1.2.200 must be 20, 21 or 22, and 10.200.0.0 must always give 1. */
static void *reader_thread(void *arg) {
    struct shared *s = arg;
    uint32_t addrs[2] = {IP4(10, 1, 2, 200), IP4(10, 200, 0, 0)}, out[2];
    if (s->qsbr) fibforge_reader4_online(s->reader);
    while (!atomic_load(&s->stop)) {
        uint32_t v = fibforge_reader4_lookup(s->reader, addrs[0]);
        s->bad += !(v == 20 || v == 21 || v == 22);
        if (fibforge_reader4_lookup_batch(s->reader, addrs, out, 2) != FIBFORGE_OK) s->bad++;
        s->bad += !(out[0] == 20 || out[0] == 21 || out[0] == 22) + (out[1] != 1);
        s->lookups += 3;
        if (s->qsbr) fibforge_reader4_quiescent(s->reader);
    }
    if (s->qsbr) fibforge_reader4_offline(s->reader);
    return NULL;
}

static void test_two_threads(int qsbr, const char *algo) {
    fibforge_table4 *t = NULL;
    struct shared s = {NULL, qsbr, 0, 0, 0};
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
        /* unrelated churn elsewhere so the structure grows and moves */
        ok &= fibforge_table4_insert(t, IP4(172, 16 + (i % 16), (i >> 4) & 255, 0), 24, i % 1000, NULL) == FIBFORGE_OK;
    }
    atomic_store(&s.stop, 1);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(ok);
    CHECK(s.lookups > 0);
    CHECK(s.bad == 0);
    fibforge_table4_free(t);
    CHECK(fibforge_reader4_lookup(s.reader, IP4(10, 200, 0, 0)) == 1); /* outlives the table */
    fibforge_reader4_free(s.reader);
}

int main(int argc, char **argv) {
    fibforge_table4 *t = NULL;
    if (argc < 4) {
        fprintf(stderr, "usage: %s TMPDIR MRT_IPV4 MRT_IPV6 [HOSTILE_FILE...]\n", argv[0]);
        return 2;
    }
    test_misc();
    for (size_t i = 0; i < N_STRUCTURES; i++) {
        int before = failed;
        t = NULL;
        CHECK(fibforge_table4_new_with(STRUCTURES[i], &t) == FIBFORGE_OK && t != NULL);
        test_insert_remove4(t);
        test_batch4(t);
        test_reader4(t);
        fibforge_table4_free(t);
        test_table6(STRUCTURES[i]);
        test_two_threads(0, STRUCTURES[i]);
        test_two_threads(1, STRUCTURES[i]);
        if (i > 0) test_structures_agree(STRUCTURES[i]);
        if (failed > before) fprintf(stderr, "  (failures above: structure %s)\n", STRUCTURES[i]);
    }
    test_load(argv[1], argv[2], argv[3]);
    test_hostile(argv[1], argv + 4, argc - 4);
    test_structures(argv[1], argv[2], argv[3]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
