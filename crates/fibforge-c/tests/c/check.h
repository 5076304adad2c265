/*
 * What the C test programs share: the CHECK counter macro (each program prints
 * "N passed, N failed" last), IPv4 and IPv6 literals and a test for the last error's text.
 */
#ifndef FIBFORGE_TEST_CHECK_H
#define FIBFORGE_TEST_CHECK_H

#include "fibforge.h"

#include <stdio.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (cond) {                                                            \
            passed++;                                                          \
        } else {                                                               \
            failed++;                                                          \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n",      \
                    __FILE__, __LINE__, #cond, fibforge_last_error());         \
        }                                                                      \
    } while (0)

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

/* True when this thread's last error message contains needle. */
static inline int error_mentions(const char *needle) {
    return strstr(fibforge_last_error(), needle) != NULL;
}

/* 2001:db8:<g2>::<last> */
static inline fibforge_ip6 ip6(uint16_t g2, uint8_t last) {
    fibforge_ip6 a;
    memset(&a, 0, sizeof a);
    a.bytes[0] = 0x20;
    a.bytes[1] = 0x01;
    a.bytes[2] = 0x0d;
    a.bytes[3] = 0xb8;
    a.bytes[4] = (uint8_t)(g2 >> 8);
    a.bytes[5] = (uint8_t)g2;
    a.bytes[15] = last;
    return a;
}

#endif
