/*
 * Tests of fibforge_iptable (both families in one handle): changes, lookups with the matched
 * prefix's length (single and batch, table and reader), exact gets, cursors, snapshots,
 * error paths, a reader thread beside a writer, and real tables checked route by route.
 *
 * Usage: test_iptable TMPDIR TABLE_V4 TABLE_V6
 * Every route of the real tables is checked: the lookup of its first address answers the
 * last route of the covering cursor of that address (the RIB's longest match), with the
 * same next hop as the per-family table loaded from the same file.
 * Prints "N passed, N failed" last; exits 0 only when nothing failed.
 */
#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const STRUCTURES[] = {"poptrie", "bplus"};
#define N_STRUCTURES (sizeof STRUCTURES / sizeof STRUCTURES[0])

static fibforge_prefix prefix4(uint32_t addr, uint8_t len) {
    fibforge_prefix p;
    memset(&p, 0, sizeof p);
    p.family = 4;
    p.len = len;
    p.addr4 = addr;
    return p;
}

static fibforge_prefix prefix6(fibforge_ip6 addr, uint8_t len) {
    fibforge_prefix p;
    memset(&p, 0, sizeof p);
    p.family = 6;
    p.len = len;
    p.addr6 = addr;
    return p;
}

/* The routes a cursor yields (at most max), their count; -1 if the cursor failed. */
static int drain(fibforge_ipcursor *c, fibforge_route *routes, int max) {
    int n = 0, more;
    fibforge_route r;
    while ((more = fibforge_ipcursor_next(c, &r)) == 1) {
        if (n < max) routes[n] = r;
        n++;
    }
    fibforge_ipcursor_free(c);
    return more == 0 ? n : -1;
}

/* The sample: 10/8 -> 1, 10.1/16 -> 2, 192.0.2.1/32 -> 7, 2001:db8::/32 -> 3, ::/0 -> 4,
 * 2001:db8:1::1/128 -> 7 (value 7 carried by both families). */
static void fill(fibforge_iptable *t) {
    uint32_t prev = 0;
    CHECK(fibforge_iptable_insert4(t, IP4(10, 0, 0, 0), 8, 1, &prev) == FIBFORGE_OK);
    CHECK(prev == FIBFORGE_NO_ROUTE);
    CHECK(fibforge_iptable_insert4(t, IP4(10, 1, 0, 0), 16, 9, NULL) == FIBFORGE_OK);
    CHECK(fibforge_iptable_insert4(t, IP4(10, 1, 0, 0), 16, 2, &prev) == FIBFORGE_OK);
    CHECK(prev == 9);
    CHECK(fibforge_iptable_insert4(t, IP4(192, 0, 2, 1), 32, 7, NULL) == FIBFORGE_OK);
    CHECK(fibforge_iptable_insert6(t, ip6(0, 0), 32, 3, NULL) == FIBFORGE_OK);
    fibforge_ip6 zero;
    memset(&zero, 0, sizeof zero);
    CHECK(fibforge_iptable_insert6(t, zero, 0, 4, NULL) == FIBFORGE_OK);
    CHECK(fibforge_iptable_insert6(t, ip6(1, 1), 128, 7, NULL) == FIBFORGE_OK);
    CHECK(fibforge_iptable_len(t) == 6);
}

static void check_sample_answers(fibforge_iptable *t) {
    uint8_t len = 99;
    CHECK(fibforge_iptable_lookup4(t, IP4(10, 1, 2, 3), &len) == 2 && len == 16);
    CHECK(fibforge_iptable_lookup4(t, IP4(10, 2, 0, 0), &len) == 1 && len == 8);
    CHECK(fibforge_iptable_lookup4(t, IP4(192, 0, 2, 1), &len) == 7 && len == 32);
    CHECK(fibforge_iptable_lookup4(t, IP4(11, 0, 0, 0), &len) == FIBFORGE_NO_ROUTE && len == 0);
    CHECK(fibforge_iptable_lookup4(t, IP4(10, 1, 2, 3), NULL) == 2);
    CHECK(fibforge_iptable_lookup6(t, ip6(0, 9), &len) == 3 && len == 32);
    CHECK(fibforge_iptable_lookup6(t, ip6(1, 1), &len) == 7 && len == 128);
    fibforge_ip6 other = ip6(0, 0);
    other.bytes[0] = 0x30;
    CHECK(fibforge_iptable_lookup6(t, other, &len) == 4 && len == 0);
}

static void test_changes_and_lookups(const char *algo) {
    fibforge_iptable *t = NULL;
    uint32_t hop = 0, removed = 0;
    uint8_t len = 0;
    CHECK(fibforge_iptable_new(algo, &t) == FIBFORGE_OK && t != NULL);
    CHECK(strcmp(fibforge_iptable_structure(t), algo) == 0);
    CHECK(fibforge_iptable_len(t) == 0);
    CHECK(fibforge_iptable_lookup4(t, IP4(10, 0, 0, 1), &len) == FIBFORGE_NO_ROUTE && len == 0);
    fill(t);
    check_sample_answers(t);

    /* exact gets: the prefix itself, not a covering one */
    CHECK(fibforge_iptable_get4(t, IP4(10, 1, 0, 0), 16, &hop) == FIBFORGE_OK && hop == 2);
    CHECK(fibforge_iptable_get4(t, IP4(10, 1, 0, 0), 17, &hop) == FIBFORGE_OK && hop == FIBFORGE_NO_ROUTE);
    CHECK(fibforge_iptable_get6(t, ip6(0, 0), 32, &hop) == FIBFORGE_OK && hop == 3);
    CHECK(fibforge_iptable_get6(t, ip6(0, 0), 48, &hop) == FIBFORGE_OK && hop == FIBFORGE_NO_ROUTE);
    CHECK(fibforge_iptable_get4(t, IP4(10, 1, 0, 1), 16, &hop) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("host bits"));
    CHECK(fibforge_iptable_get4(t, IP4(10, 1, 0, 0), 16, NULL) == FIBFORGE_ERR_NULL);
    CHECK(error_mentions("next_hop is NULL"));
    CHECK(fibforge_iptable_get6(NULL, ip6(0, 0), 32, &hop) == FIBFORGE_ERR_NULL);

    /* refused changes leave the table as it was */
    CHECK(fibforge_iptable_insert4(t, IP4(10, 0, 0, 0), 33, 1, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("33"));
    CHECK(fibforge_iptable_insert6(t, ip6(0, 0), 129, 1, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("129"));
    CHECK(fibforge_iptable_insert4(t, IP4(10, 0, 0, 1), 8, 1, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("host bits"));
    CHECK(fibforge_iptable_insert4(t, IP4(10, 0, 0, 0), 8, FIBFORGE_NO_ROUTE, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("FIBFORGE_NO_ROUTE"));
    CHECK(fibforge_iptable_insert4(t, IP4(10, 0, 0, 0), 8, FIBFORGE_MAX_NEXT_HOP + 1, NULL) == FIBFORGE_ERR_LIMIT);
    CHECK(fibforge_iptable_insert4(NULL, 0, 0, 1, NULL) == FIBFORGE_ERR_NULL);
    CHECK(error_mentions("table is NULL"));
    CHECK(fibforge_iptable_remove6(t, ip6(0, 1), 32, NULL) == FIBFORGE_ERR_INVALID);
    CHECK(fibforge_iptable_len(t) == 6);
    check_sample_answers(t);

    /* the largest next hop round-trips */
    CHECK(fibforge_iptable_insert4(t, IP4(198, 51, 100, 0), 24, FIBFORGE_MAX_NEXT_HOP, NULL) == FIBFORGE_OK);
    CHECK(fibforge_iptable_lookup4(t, IP4(198, 51, 100, 9), &len) == FIBFORGE_MAX_NEXT_HOP && len == 24);

    /* removals hand back the value; an absent route is not an error */
    CHECK(fibforge_iptable_remove4(t, IP4(198, 51, 100, 0), 24, &removed) == FIBFORGE_OK);
    CHECK(removed == FIBFORGE_MAX_NEXT_HOP);
    CHECK(fibforge_iptable_remove4(t, IP4(198, 51, 100, 0), 24, &removed) == FIBFORGE_OK);
    CHECK(removed == FIBFORGE_NO_ROUTE);
    CHECK(fibforge_iptable_remove4(t, IP4(10, 1, 0, 0), 16, &removed) == FIBFORGE_OK && removed == 2);
    CHECK(fibforge_iptable_lookup4(t, IP4(10, 1, 2, 3), &len) == 1 && len == 8);
    CHECK(fibforge_iptable_remove6(t, ip6(1, 1), 128, &removed) == FIBFORGE_OK && removed == 7);
    CHECK(fibforge_iptable_lookup6(t, ip6(1, 1), &len) == 3 && len == 32);
    CHECK(fibforge_iptable_lookup4(t, IP4(192, 0, 2, 1), &len) == 7 && len == 32); /* 7 lives on */
    CHECK(fibforge_iptable_len(t) == 4);

    /* NULL handles */
    CHECK(fibforge_iptable_lookup4(NULL, 1, &len) == FIBFORGE_NO_ROUTE && len == 0);
    CHECK(error_mentions("table is NULL"));
    CHECK(fibforge_iptable_lookup6(NULL, ip6(0, 0), NULL) == FIBFORGE_NO_ROUTE);
    fibforge_iptable_free(t);
}

static void test_batches(const char *algo) {
    fibforge_iptable *t = NULL;
    fibforge_ipreader *r = NULL;
    enum { N = 1000 };
    static uint32_t a4[N], hops[N], in_place[N];
    static fibforge_ip6 a6[N];
    static uint8_t lens[N];
    CHECK(fibforge_iptable_new(algo, &t) == FIBFORGE_OK);
    fill(t);
    for (int i = 0; i < N; i++) {
        a4[i] = (uint32_t)i * 2654435761u; /* spread over the space, some in 10/8 */
        if (i % 3 == 0) a4[i] = IP4(10, (uint8_t)i, 1, 2);
        a6[i] = ip6((uint16_t)(i % 3), (uint8_t)i);
        if (i % 5 == 0) a6[i].bytes[0] = 0x30;
    }
    CHECK(fibforge_iptable_reader(t, &r) == FIBFORGE_OK && r != NULL);
    for (int pass = 0; pass < 3; pass++) {
        /* pass 0: the table; 1: an offline reader; 2: an online reader */
        if (pass == 2) fibforge_ipreader_online(r);
        fibforge_status s4 = pass == 0 ? fibforge_iptable_lookup4_batch(t, a4, hops, lens, N)
                                       : fibforge_ipreader_lookup4_batch(r, a4, hops, lens, N);
        CHECK(s4 == FIBFORGE_OK);
        int same = 1;
        for (int i = 0; i < N; i++) {
            uint8_t len = 0;
            uint32_t hop = pass == 0 ? fibforge_iptable_lookup4(t, a4[i], &len)
                                     : fibforge_ipreader_lookup4(r, a4[i], &len);
            same &= hop == hops[i] && len == lens[i];
        }
        CHECK(same);
        fibforge_status s6 = pass == 0 ? fibforge_iptable_lookup6_batch(t, a6, hops, lens, N)
                                       : fibforge_ipreader_lookup6_batch(r, a6, hops, lens, N);
        CHECK(s6 == FIBFORGE_OK);
        same = 1;
        for (int i = 0; i < N; i++) {
            uint8_t len = 0;
            uint32_t hop = pass == 0 ? fibforge_iptable_lookup6(t, a6[i], &len)
                                     : fibforge_ipreader_lookup6(r, a6[i], &len);
            same &= hop == hops[i] && len == lens[i];
        }
        CHECK(same);
        fibforge_ipreader_quiescent(r);
    }
    /* in place, lengths not wanted */
    memcpy(in_place, a4, sizeof in_place);
    CHECK(fibforge_iptable_lookup4_batch(t, in_place, in_place, NULL, N) == FIBFORGE_OK);
    CHECK(fibforge_iptable_lookup4_batch(t, a4, hops, NULL, N) == FIBFORGE_OK);
    CHECK(memcmp(in_place, hops, sizeof hops) == 0);
    CHECK(fibforge_iptable_lookup4_batch(t, NULL, NULL, NULL, 0) == FIBFORGE_OK);
    CHECK(fibforge_iptable_lookup4_batch(t, NULL, hops, NULL, 1) == FIBFORGE_ERR_NULL);
    CHECK(error_mentions("addrs is NULL"));
    CHECK(fibforge_iptable_lookup6_batch(t, a6, NULL, lens, 1) == FIBFORGE_ERR_NULL);
    CHECK(error_mentions("next_hops is NULL"));
    CHECK(fibforge_ipreader_lookup4_batch(NULL, a4, hops, lens, 1) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_ipreader_lookup4(NULL, 1, NULL) == FIBFORGE_NO_ROUTE);
    CHECK(error_mentions("reader is NULL"));
    fibforge_ipreader_offline(r);
    fibforge_ipreader_free(r);
    fibforge_iptable_free(t);
}

static void test_cursors(void) {
    fibforge_iptable *t = NULL;
    fibforge_ipcursor *c = NULL;
    fibforge_route got[16];
    CHECK(fibforge_iptable_new(NULL, &t) == FIBFORGE_OK);
    fill(t);

    CHECK(fibforge_iptable_routes(t, &c) == FIBFORGE_OK && c != NULL);
    CHECK(drain(c, got, 16) == 6);
    /* IPv4 first, each family in prefix order (shorter first at one address) */
    CHECK(got[0].prefix.family == 4 && got[0].prefix.addr4 == IP4(10, 0, 0, 0) && got[0].prefix.len == 8 && got[0].next_hop == 1);
    CHECK(got[1].prefix.addr4 == IP4(10, 1, 0, 0) && got[1].prefix.len == 16 && got[1].next_hop == 2);
    CHECK(got[2].prefix.addr4 == IP4(192, 0, 2, 1) && got[2].prefix.len == 32 && got[2].next_hop == 7);
    CHECK(got[3].prefix.family == 6 && got[3].prefix.len == 0 && got[3].next_hop == 4);
    CHECK(got[4].prefix.len == 32 && memcmp(&got[4].prefix.addr6, &(fibforge_ip6){{0x20, 1, 0xd, 0xb8}}, 16) == 0);
    CHECK(got[5].prefix.len == 128 && got[5].next_hop == 7);
    CHECK(got[0].prefix.reserved[0] == 0 && got[0].prefix.reserved[1] == 0);

    fibforge_prefix host = prefix4(IP4(10, 1, 2, 3), 32);
    CHECK(fibforge_iptable_covering(t, &host, &c) == FIBFORGE_OK);
    CHECK(drain(c, got, 16) == 2);
    CHECK(got[0].prefix.len == 8 && got[1].prefix.len == 16); /* shortest first */
    fibforge_prefix ten = prefix4(IP4(10, 0, 0, 0), 8);
    CHECK(fibforge_iptable_covered(t, &ten, &c) == FIBFORGE_OK);
    CHECK(drain(c, got, 16) == 2);
    fibforge_prefix doc6 = prefix6(ip6(0, 0), 32);
    CHECK(fibforge_iptable_covered(t, &doc6, &c) == FIBFORGE_OK);
    CHECK(drain(c, got, 16) == 2);
    CHECK(got[0].prefix.len == 32 && got[1].prefix.len == 128);
    CHECK(fibforge_iptable_covering(t, &doc6, &c) == FIBFORGE_OK);
    CHECK(drain(c, got, 16) == 2);
    CHECK(got[0].prefix.len == 0 && got[0].next_hop == 4 && got[1].prefix.len == 32);

    /* bad prefixes and arguments */
    fibforge_prefix bad = prefix4(IP4(10, 0, 0, 1), 8);
    CHECK(fibforge_iptable_covered(t, &bad, &c) == FIBFORGE_ERR_INVALID && c == NULL);
    CHECK(error_mentions("host bits"));
    bad = prefix4(0, 0);
    bad.family = 5;
    CHECK(fibforge_iptable_covering(t, &bad, &c) == FIBFORGE_ERR_INVALID);
    CHECK(error_mentions("family 5"));
    CHECK(fibforge_iptable_covering(t, NULL, &c) == FIBFORGE_ERR_NULL);
    CHECK(error_mentions("prefix is NULL"));
    CHECK(fibforge_iptable_routes(NULL, &c) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_iptable_routes(t, NULL) == FIBFORGE_ERR_NULL);

    /* a cursor sees the table as it was, and outlives it */
    CHECK(fibforge_iptable_routes(t, &c) == FIBFORGE_OK);
    fibforge_route one;
    CHECK(fibforge_ipcursor_next(c, &one) == 1);
    CHECK(fibforge_ipcursor_next(c, NULL) == -1);
    CHECK(error_mentions("route is NULL"));
    CHECK(fibforge_iptable_remove4(t, IP4(10, 1, 0, 0), 16, NULL) == FIBFORGE_OK);
    fibforge_iptable_free(t);
    CHECK(fibforge_ipcursor_next(c, &one) == 1 && one.prefix.len == 16 && one.next_hop == 2);
    int rest = 0;
    while (fibforge_ipcursor_next(c, &one) == 1) rest++;
    CHECK(rest == 4);
    CHECK(fibforge_ipcursor_next(c, &one) == 0); /* and 0 again */
    CHECK(fibforge_ipcursor_next(NULL, &one) == -1);
    fibforge_ipcursor_free(c);
    fibforge_ipcursor_free(NULL);
}

static void test_snapshots(const char *tmp) {
    char path[4096], text[4096], missing[4096];
    snprintf(path, sizeof path, "%s/iptable.fibs", tmp);
    snprintf(text, sizeof text, "%s/iptable-text.txt", tmp);
    snprintf(missing, sizeof missing, "%s/no-such-dir/x.fibs", tmp);
    fibforge_iptable *t = NULL, *opened = NULL;
    CHECK(fibforge_iptable_new(NULL, &t) == FIBFORGE_OK);
    fill(t);
    CHECK(fibforge_iptable_is_mapped(t) == 0);
    CHECK(fibforge_iptable_save(t, path) == FIBFORGE_OK);
    CHECK(fibforge_iptable_open(path, &opened) == FIBFORGE_OK && opened != NULL);
    CHECK(fibforge_iptable_is_mapped(opened) == 1);
    CHECK(fibforge_iptable_len(opened) == 6);
    check_sample_answers(opened);
    uint32_t hop = 0;
    CHECK(fibforge_iptable_get6(opened, ip6(1, 1), 128, &hop) == FIBFORGE_OK && hop == 7);

    /* an opened table takes changes (the changed family compiles into memory of its own) */
    CHECK(fibforge_iptable_insert4(opened, IP4(10, 200, 0, 0), 16, 5, NULL) == FIBFORGE_OK);
    uint8_t len = 0;
    CHECK(fibforge_iptable_lookup4(opened, IP4(10, 200, 3, 4), &len) == 5 && len == 16);
    CHECK(fibforge_iptable_is_mapped(opened) == 1); /* IPv6 still reads the file */
    CHECK(fibforge_iptable_insert6(opened, ip6(2, 0), 48, 6, NULL) == FIBFORGE_OK);
    CHECK(fibforge_iptable_is_mapped(opened) == 0);
    check_sample_answers(opened);

    /* readers of an opened snapshot */
    fibforge_iptable *again = NULL;
    fibforge_ipreader *r = NULL;
    CHECK(fibforge_iptable_open(path, &again) == FIBFORGE_OK);
    CHECK(fibforge_iptable_reader(again, &r) == FIBFORGE_OK);
    fibforge_ipreader_online(r);
    CHECK(fibforge_ipreader_lookup4(r, IP4(10, 1, 9, 9), &len) == 2 && len == 16);
    fibforge_ipreader_free(r);
    fibforge_iptable_free(again);

    /* saving replaces the file whole; the saved copy of the changed table opens */
    CHECK(fibforge_iptable_save(opened, path) == FIBFORGE_OK);
    fibforge_iptable_free(opened);
    opened = NULL;
    CHECK(fibforge_iptable_open(path, &opened) == FIBFORGE_OK);
    CHECK(fibforge_iptable_len(opened) == 8);
    CHECK(fibforge_iptable_lookup6(opened, ip6(2, 1), &len) == 6 && len == 48);
    fibforge_iptable_free(opened);

    /* refusals: not a snapshot, missing file, bad arguments */
    FILE *f = fopen(text, "w");
    fputs("10.0.0.0/8 a\n", f);
    fclose(f);
    opened = (fibforge_iptable *)1;
    CHECK(fibforge_iptable_open(text, &opened) == FIBFORGE_ERR_PARSE && opened == NULL);
    CHECK(error_mentions("iptable-text.txt"));
    CHECK(fibforge_iptable_open(missing, &opened) == FIBFORGE_ERR_IO);
    CHECK(error_mentions("x.fibs"));
    CHECK(fibforge_iptable_save(t, missing) == FIBFORGE_ERR_IO);
    CHECK(error_mentions("x.fibs"));
    CHECK(fibforge_iptable_open(NULL, &opened) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_iptable_open(path, NULL) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_iptable_save(NULL, path) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_iptable_save(t, "") == FIBFORGE_ERR_INVALID);
    /* a damaged byte in the middle: the checksum names it */
    f = fopen(path, "r+b");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    int byte = fgetc(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(byte ^ 0x55, f);
    fclose(f);
    CHECK(fibforge_iptable_open(path, &opened) == FIBFORGE_ERR_PARSE);
    CHECK(error_mentions("checksum"));
    fibforge_iptable_free(t);
}

static void test_new_and_load_errors(const char *tmp) {
    fibforge_iptable *t = (fibforge_iptable *)1;
    CHECK(fibforge_iptable_new("nonsense", &t) == FIBFORGE_ERR_INVALID && t == NULL);
    CHECK(error_mentions("nonsense"));
    CHECK(fibforge_iptable_new(NULL, NULL) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_iptable_load(NULL, NULL, &t) == FIBFORGE_ERR_NULL);
    CHECK(fibforge_iptable_load("/no/such/file", NULL, &t) == FIBFORGE_ERR_IO);
    CHECK(fibforge_iptable_load("/no/such/file", "poptrie:zz=1", &t) == FIBFORGE_ERR_INVALID);
    char path[4096];
    snprintf(path, sizeof path, "%s/iptable-bad.txt", tmp);
    FILE *f = fopen(path, "w");
    fputs("10.0.0.0/8 a\nnot-a-prefix b\n", f);
    fclose(f);
    CHECK(fibforge_iptable_load(path, NULL, &t) == FIBFORGE_ERR_PARSE && t == NULL);
    CHECK(error_mentions("iptable-bad.txt:2"));
    snprintf(path, sizeof path, "%s/iptable-mixed.txt", tmp);
    f = fopen(path, "w");
    fputs("# both families\n10.0.0.0/8 a\n2001:db8::/32 b\n10.1.0.0/16 b\n", f);
    fclose(f);
    CHECK(fibforge_iptable_load(path, "bplus", &t) == FIBFORGE_OK);
    uint8_t len = 0;
    uint32_t hop = fibforge_iptable_lookup6(t, ip6(0, 1), &len);
    CHECK(hop == 1 && len == 32 && strcmp(fibforge_iptable_next_hop_name(t, hop), "b") == 0);
    hop = fibforge_iptable_lookup4(t, IP4(10, 9, 9, 9), &len);
    CHECK(hop == 0 && len == 8 && strcmp(fibforge_iptable_next_hop_name(t, hop), "a") == 0);
    CHECK(fibforge_iptable_next_hop_name(t, 2) == NULL);
    CHECK(fibforge_iptable_next_hop_name(NULL, 0) == NULL);
    CHECK(fibforge_iptable_structure(NULL) == NULL);
    CHECK(fibforge_iptable_len(NULL) == 0 && fibforge_iptable_is_mapped(NULL) == 0);
    fibforge_iptable_free(t);
    fibforge_iptable_free(NULL);
    fibforge_ipreader_free(NULL);
    fibforge_ipreader_online(NULL);
    fibforge_ipreader_offline(NULL);
    fibforge_ipreader_quiescent(NULL);
}

/* ---- a reader thread beside the writer ---------------------------------------------- */

struct shared {
    fibforge_ipreader *reader;
    atomic_int stop;
    atomic_long wrong, lookups;
};

/* 10.1/16 -> 2 and 2001:db8::/32 -> 3 never change; the writer churns longer routes beside
 * them (10.2.x.0/24 and 2001:db8:2:x::/64), so the stable answers must hold throughout. */
static void *reader_thread(void *arg) {
    struct shared *s = arg;
    fibforge_ipreader_online(s->reader);
    long n = 0;
    while (!atomic_load(&s->stop)) {
        uint8_t len = 0;
        if (fibforge_ipreader_lookup4(s->reader, IP4(10, 1, (uint8_t)n, 1), &len) != 2 || len != 16)
            atomic_fetch_add(&s->wrong, 1);
        if (fibforge_ipreader_lookup6(s->reader, ip6(3, (uint8_t)n), &len) != 3 || len != 32)
            atomic_fetch_add(&s->wrong, 1);
        uint32_t churned = fibforge_ipreader_lookup4(s->reader, IP4(10, 2, (uint8_t)n, 1), &len);
        if (!((churned == 1 && len == 8) || (churned == 100u + (uint8_t)n % 7u && len == 24)))
            atomic_fetch_add(&s->wrong, 1);
        if (++n % 64 == 0) fibforge_ipreader_quiescent(s->reader);
    }
    fibforge_ipreader_offline(s->reader);
    atomic_store(&s->lookups, n);
    return NULL;
}

static void test_reader_thread(const char *algo) {
    fibforge_iptable *t = NULL;
    struct shared s = {0};
    CHECK(fibforge_iptable_new(algo, &t) == FIBFORGE_OK);
    fill(t);
    CHECK(fibforge_iptable_reader(t, &s.reader) == FIBFORGE_OK);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, reader_thread, &s) == 0);
    for (int round = 0; round < 4000; round++) {
        uint8_t x = (uint8_t)round;
        fibforge_ip6 net = ip6(2, 0);
        net.bytes[6] = x;
        if (round % 2 == 0) {
            CHECK(fibforge_iptable_insert4(t, IP4(10, 2, x, 0), 24, 100 + x % 7, NULL) == FIBFORGE_OK);
            CHECK(fibforge_iptable_insert6(t, net, 64, 200 + x, NULL) == FIBFORGE_OK);
        } else {
            CHECK(fibforge_iptable_remove4(t, IP4(10, 2, (uint8_t)(x - 1), 0), 24, NULL) == FIBFORGE_OK);
            CHECK(fibforge_iptable_remove6(t, net, 64, NULL) == FIBFORGE_OK);
        }
    }
    atomic_store(&s.stop, 1);
    pthread_join(th, NULL);
    CHECK(atomic_load(&s.wrong) == 0);
    CHECK(atomic_load(&s.lookups) > 0);
    fibforge_ipreader_free(s.reader);
    fibforge_iptable_free(t);
}

/* ---- real tables -------------------------------------------------------------------- */

/* Every route of the table: its first address's lookup answers the covering cursor's last
 * route (the RIB's longest match) and the per-family table's next hop. */
static void check_real(fibforge_iptable *t, fibforge_table4 *t4, fibforge_table6 *t6) {
    fibforge_ipcursor *all = NULL, *cov = NULL;
    fibforge_route r, last, c;
    long checked = 0, wrong = 0;
    CHECK(fibforge_iptable_routes(t, &all) == FIBFORGE_OK);
    while (fibforge_ipcursor_next(all, &r) == 1) {
        uint8_t len = 0;
        uint32_t hop;
        fibforge_prefix host = r.prefix;
        if (r.prefix.family == 4) {
            host.len = 32;
            hop = fibforge_iptable_lookup4(t, r.prefix.addr4, &len);
            if (hop != fibforge_table4_lookup(t4, r.prefix.addr4)) wrong++;
        } else {
            host.len = 128;
            hop = fibforge_iptable_lookup6(t, r.prefix.addr6, &len);
            if (hop != fibforge_table6_lookup(t6, r.prefix.addr6)) wrong++;
        }
        if (fibforge_iptable_covering(t, &host, &cov) != FIBFORGE_OK) {
            wrong++;
            continue;
        }
        memset(&last, 0, sizeof last);
        while (fibforge_ipcursor_next(cov, &c) == 1) last = c;
        fibforge_ipcursor_free(cov);
        if (hop != last.next_hop || len != last.prefix.len || len < r.prefix.len) wrong++;
        checked++;
    }
    fibforge_ipcursor_free(all);
    CHECK(wrong == 0);
    CHECK(checked == (long)fibforge_iptable_len(t));
    printf("real table: %ld routes checked, %ld wrong\n", checked, wrong);
}

static void test_real(const char *tmp, const char *v4, const char *v6) {
    const char *files[2] = {v4, v6};
    char path[4096];
    snprintf(path, sizeof path, "%s/real.fibs", tmp);
    for (int i = 0; i < 2; i++) {
        fibforge_iptable *t = NULL, *opened = NULL;
        fibforge_table4 *t4 = NULL;
        fibforge_table6 *t6 = NULL;
        CHECK(fibforge_iptable_load(files[i], NULL, &t) == FIBFORGE_OK);
        CHECK(fibforge_iptable_len(t) > 1000);
        if (i == 0) {
            CHECK(fibforge_table4_load(files[i], &t4) == FIBFORGE_OK);
            CHECK(fibforge_table6_new(&t6) == FIBFORGE_OK);
        } else {
            CHECK(fibforge_table4_new(&t4) == FIBFORGE_OK);
            CHECK(fibforge_table6_load(files[i], &t6) == FIBFORGE_OK);
        }
        check_real(t, t4, t6);
        CHECK(fibforge_iptable_save(t, path) == FIBFORGE_OK);
        CHECK(fibforge_iptable_open(path, &opened) == FIBFORGE_OK);
        check_real(opened, t4, t6);
        fibforge_iptable_free(opened);
        fibforge_iptable_free(t);
        fibforge_table4_free(t4);
        fibforge_table6_free(t6);
    }
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s TMPDIR TABLE_V4 TABLE_V6\n", argv[0]);
        return 2;
    }
    test_new_and_load_errors(argv[1]);
    for (size_t i = 0; i < N_STRUCTURES; i++) {
        int before = failed;
        test_changes_and_lookups(STRUCTURES[i]);
        test_batches(STRUCTURES[i]);
        test_reader_thread(STRUCTURES[i]);
        if (failed > before) fprintf(stderr, "  (failures above: structure %s)\n", STRUCTURES[i]);
    }
    test_cursors();
    test_snapshots(argv[1]);
    test_real(argv[1], argv[2], argv[3]);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
