/*
 * fibforge_iptable in a few lines: load a routing table of both families, look addresses up
 * with the matched prefix, save a snapshot and open it again (mapped), list the routes
 * inside a prefix.
 *
 * Build (after `cargo build --release -p fibforge-c`):
 *   cc -O2 -I crates/fibforge-c/include crates/fibforge-c/examples/iptable.c \
 *      target/release/libfibforge_c.a -lpthread -ldl -lm -o target/iptable
 * Run: target/iptable TABLE SNAPSHOT ADDRESS...
 *   e.g. target/iptable data/ris2015-as3856.tsv.gz /tmp/t.fibs 8.8.8.8 2001:db8::1
 * Prints one line per address ("8.8.8.8 -> 8.8.8.0/24 via 15169"), then the routes of the
 * first IPv4 address's matched prefix and those it covers.
 */
#define _POSIX_C_SOURCE 200112L
#include "fibforge.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* "prefix/len" of a route's prefix. */
static void format_prefix(const fibforge_prefix *p, char *out, size_t size) {
    char addr[INET6_ADDRSTRLEN];
    if (p->family == 4) {
        uint32_t be = htonl(p->addr4);
        inet_ntop(AF_INET, &be, addr, sizeof addr);
    } else {
        inet_ntop(AF_INET6, p->addr6.bytes, addr, sizeof addr);
    }
    snprintf(out, size, "%s/%u", addr, p->len);
}

/* Looks text up; fills *matched with the matched prefix; returns the next hop. */
static uint32_t lookup_text(fibforge_iptable *t, const char *text, fibforge_prefix *matched) {
    uint32_t hop = FIBFORGE_NO_ROUTE;
    memset(matched, 0, sizeof *matched);
    if (inet_pton(AF_INET, text, &matched->addr4) == 1) {
        matched->family = 4;
        matched->addr4 = ntohl(matched->addr4);
        hop = fibforge_iptable_lookup4(t, matched->addr4, &matched->len);
        /* the prefix: the address with the bits past the length cleared */
        matched->addr4 &= matched->len ? ~(uint32_t)0 << (32 - matched->len) : 0;
    } else if (inet_pton(AF_INET6, text, matched->addr6.bytes) == 1) {
        matched->family = 6;
        hop = fibforge_iptable_lookup6(t, matched->addr6, &matched->len);
        for (int bit = matched->len; bit < 128; bit++)
            matched->addr6.bytes[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
    } else {
        fprintf(stderr, "%s: not an IPv4 or IPv6 address\n", text);
    }
    return hop;
}

static const char *hop_name(const fibforge_iptable *names, uint32_t hop) {
    const char *name = fibforge_iptable_next_hop_name(names, hop);
    return name ? name : "?";
}

int main(int argc, char **argv) {
    fibforge_iptable *loaded = NULL, *t = NULL;
    if (argc < 4) {
        fprintf(stderr, "usage: %s TABLE SNAPSHOT ADDRESS...\n", argv[0]);
        return 2;
    }
    if (fibforge_iptable_load(argv[1], NULL, &loaded) != FIBFORGE_OK ||
        fibforge_iptable_save(loaded, argv[2]) != FIBFORGE_OK ||
        fibforge_iptable_open(argv[2], &t) != FIBFORGE_OK) {
        fprintf(stderr, "%s\n", fibforge_last_error());
        fibforge_iptable_free(loaded);
        return 1;
    }
    printf("%zu routes, %s, mapped: %d\n", fibforge_iptable_len(t), fibforge_iptable_structure(t),
           fibforge_iptable_is_mapped(t));

    fibforge_prefix first4 = {0};
    for (int i = 3; i < argc; i++) {
        fibforge_prefix matched;
        char text[64];
        uint32_t hop = lookup_text(t, argv[i], &matched);
        if (hop == FIBFORGE_NO_ROUTE) {
            printf("%s -> no route\n", argv[i]);
            continue;
        }
        format_prefix(&matched, text, sizeof text);
        /* next-hop names live in the loaded table; the snapshot holds the numbers */
        printf("%s -> %s via %s\n", argv[i], text, hop_name(loaded, hop));
        if (matched.family == 4 && first4.family == 0) first4 = matched;
    }

    if (first4.family == 4) {
        fibforge_ipcursor *c = NULL;
        fibforge_route r;
        int n = 0;
        if (fibforge_iptable_covered(t, &first4, &c) == FIBFORGE_OK) {
            while (fibforge_ipcursor_next(c, &r) == 1 && n++ < 5) {
                char text[64];
                format_prefix(&r.prefix, text, sizeof text);
                printf("  covered: %s via %s\n", text, hop_name(loaded, r.next_hop));
            }
            fibforge_ipcursor_free(c);
        }
    }
    fibforge_iptable_free(t);
    fibforge_iptable_free(loaded);
    return 0;
}
