/*
 * fibforge.h - C interface of fibforge, a longest-prefix-match (IP routing lookup) library.
 *
 * Link with -lfibforge_c (libfibforge_c.so or libfibforge_c.a; the static library also needs
 * -lpthread -ldl -lm on Linux), or through pkg-config after tools/install-c.sh PREFIX:
 *   cc app.c $(pkg-config --cflags --libs fibforge)
 *
 * Tables and readers
 *   A table (fibforge_table4 for IPv4, fibforge_table6 for IPv6) holds the routes and a
 *   Poptrie built from them. It is updated in place: insert and remove patch the structure
 *   incrementally and publish each change atomically.
 *   A table is used by ONE thread at a time (the writer): its functions are not thread-safe
 *   with respect to each other.
 *   A reader (fibforge_reader4 / fibforge_reader6) is a lookup handle for other threads.
 *   Lookups through readers never block and never see a half-made change, while the writer
 *   keeps updating the table. A reader keeps the structure it reads alive by itself, so
 *   tables and readers may be freed in any order.
 *
 * Readers: the threading contract (QSBR, as DPDK's rte_rcu_qsbr and liburcu's QSBR flavour)
 *   - A reader is used by ONE thread at a time: make one per lookup thread. It may move to
 *     another thread between calls (with the usual synchronisation of a hand-over).
 *   - A new reader is OFFLINE. An offline reader's lookups are correct and safe, but each
 *     call synchronises with the writer (a store and a memory fence, like an epoch pin).
 *   - fibforge_reader*_online() registers the thread's interest: from then on lookups do no
 *     synchronisation at all (a load of the published structure and the walk). In exchange
 *     the writer cannot reuse memory it retires until the reader reports a quiescent state
 *     with fibforge_reader*_quiescent() (typically once per burst or poll loop, between
 *     lookups: no result pointer is kept across it, lookups return values only) or goes
 *     offline. Updates are never blocked by a reader; a reader that stays online without
 *     reporting only makes retired memory pile up (and is never unsafe).
 *   - fibforge_reader*_offline() before a thread goes idle (blocks, sleeps), so that it does
 *     not hold memory back; fibforge_reader*_online() when it resumes.
 *   - Freeing a reader deregisters it (online or not).
 *
 * Addresses
 *   IPv4: uint32_t in host byte order (10.1.2.3 is 0x0a010203), as in DPDK's rte_lpm.
 *   IPv6: fibforge_ip6, 16 bytes in network byte order (the layout of struct in6_addr).
 *   A prefix is an address plus a length (0..32 or 0..128) whose host bits must be zero.
 *
 * Next hops
 *   A next hop is a uint32_t from 0 to FIBFORGE_MAX_NEXT_HOP (0x7FFFFFFE: Poptrie's
 *   direct-pointing entries keep one bit for a flag; larger values fail with
 *   FIBFORGE_ERR_LIMIT). FIBFORGE_NO_ROUTE (0xFFFFFFFF) is what lookups return when no
 *   route matches. Small dense values keep the structure smallest: leaves are 8 bits wide
 *   while every next hop is below 255, 16 bits below 65535, else 32 bits (widened as larger
 *   values arrive). Tables loaded from a file number their next hops 0, 1, 2, ... in the
 *   order the file first names them (both families share one numbering), and
 *   fibforge_table*_next_hop_name gives back the file's text.
 *
 * Errors
 *   Functions that can fail return a fibforge_status. On failure, fibforge_last_error()
 *   returns a message naming the file, line or value and what was wrong; the message is
 *   per thread and stays until the next failed call on that thread. Every pointer argument
 *   is checked for NULL (FIBFORGE_ERR_NULL). No call aborts the process: an internal error
 *   is caught and reported as FIBFORGE_ERR_PANIC (free the table it happened on).
 *
 * What the hot-path calls check
 *   fibforge_table*_lookup, fibforge_reader*_lookup and fibforge_reader*_{online,offline,
 *   quiescent} check only that the handle is not NULL (one predictable branch; the error
 *   path is out of line). They do not validate the handle further (a freed or foreign
 *   pointer is undefined behaviour) and run without the panic guard, which they do not need:
 *   they have no panicking path. Batch and table calls check every argument and are guarded.
 */
#ifndef FIBFORGE_H
#define FIBFORGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header; fibforge_version() gives the library's, which must match. */
#define FIBFORGE_VERSION_MAJOR 0
#define FIBFORGE_VERSION_MINOR 1
#define FIBFORGE_VERSION_PATCH 0
#define FIBFORGE_VERSION_STRING "0.1.0"

/* Returned by lookups when no route matches; never a valid next hop. */
#define FIBFORGE_NO_ROUTE 0xFFFFFFFFu
/* The largest next-hop value the table accepts. */
#define FIBFORGE_MAX_NEXT_HOP 0x7FFFFFFEu

typedef enum fibforge_status {
    FIBFORGE_OK = 0,
    FIBFORGE_ERR_NULL = 1,    /* a required pointer argument was NULL */
    FIBFORGE_ERR_INVALID = 2, /* bad argument: prefix length, host bits set, next hop, path */
    FIBFORGE_ERR_IO = 3,      /* a file could not be opened or read */
    FIBFORGE_ERR_PARSE = 4,   /* a file's content is malformed (message: file:line or offset) */
    FIBFORGE_ERR_LIMIT = 5,   /* the table exceeds a structural limit; the table is unchanged */
    FIBFORGE_ERR_PANIC = 6    /* internal error caught at the boundary (a bug: please report) */
} fibforge_status;

/* An IPv6 address: 16 bytes, most significant first (network byte order). */
typedef struct fibforge_ip6 {
    uint8_t bytes[16];
} fibforge_ip6;

typedef struct fibforge_table4 fibforge_table4;
typedef struct fibforge_table6 fibforge_table6;
typedef struct fibforge_reader4 fibforge_reader4;
typedef struct fibforge_reader6 fibforge_reader6;

/* This thread's message for its last failed call, "" if none. The pointer is valid until
 * the next failed call on this thread; copy it to keep it. */
const char *fibforge_last_error(void);

/* The library version, e.g. "0.1.0" (a static string). */
const char *fibforge_version(void);

/* The name of a status code, e.g. "FIBFORGE_ERR_PARSE" (a static string); "unknown status"
 * for a value that is not a fibforge_status. */
const char *fibforge_status_str(fibforge_status status);

/* ---- IPv4 tables -------------------------------------------------------------------- */

/* Creates an empty table in *out. Errors: NULL out. */
fibforge_status fibforge_table4_new(fibforge_table4 **out);

/* Creates a table from the IPv4 routes of a file in *out (*out is NULL on failure).
 * Formats, recognised by content: text tables ("prefix next-hop" per line, or prefixes
 * only), MRT RIB dumps (TABLE_DUMP, TABLE_DUMP_V2), BGP4MP update streams; plain, gzip or
 * bzip2. A file of comments only gives an empty table; a file whose routes are all IPv6
 * is an error (FIBFORGE_ERR_PARSE), as are an empty (0-byte) file, a text line longer than
 * 64 KiB and decompressed data beyond the cap (16 GiB; the environment variable
 * FIBFORGE_MAX_DECOMPRESSED, e.g. "64G", sets it: FIBFORGE_ERR_IO).
 * Errors: NULL path or out; FIBFORGE_ERR_IO (cannot open/read); FIBFORGE_ERR_PARSE with
 * "file:line: problem" or "file: at byte offset N: problem"; FIBFORGE_ERR_LIMIT. */
fibforge_status fibforge_table4_load(const char *path, fibforge_table4 **out);

/* Choosing the structure. fibforge_table*_new and _load build a Poptrie; the _with variants
 * take the structure's name, optionally followed by ":" and comma-separated key=value
 * options (the names and options of `fibforge bench --algo`):
 *   "poptrie"   Poptrie (the default; options s=0..24, aggregate=on|off, dir16=on|off,
 *               and for IPv6 fanout=on|off; "poptrie16" and "poptrie18" set s),
 *   "bplus"     the interval B+-tree (options isa=auto|portable|avx2|avx512,
 *               delta=1..1048576 side slots for updates between rebuilds, dir=on|off
 *               for the front directory), e.g. "bplus:dir=off".
 * Every other function works on either structure, with the same answers, next-hop range
 * and threading contract; only speed and memory differ. An unknown name or a bad option
 * (including an isa this CPU lacks) fails with FIBFORGE_ERR_INVALID and a message naming
 * the valid choices; a NULL algo with FIBFORGE_ERR_NULL. */

/* fibforge_table4_new with the structure algo names (see above). *out is NULL on failure.
 * Errors: NULL algo or out; FIBFORGE_ERR_INVALID (unknown structure or option). */
fibforge_status fibforge_table4_new_with(const char *algo, fibforge_table4 **out);

/* fibforge_table4_load with the structure algo names (see above); algo is checked before the
 * file is read. Errors: those of fibforge_table4_load and fibforge_table4_new_with. */
fibforge_status fibforge_table4_load_with(const char *path, const char *algo,
                                          fibforge_table4 **out);

/* The table's structure: "poptrie" or "bplus" (a static string), or NULL for a NULL table. */
const char *fibforge_table4_structure(const fibforge_table4 *table);

/* Frees a table. NULL is ignored. Readers made from it stay usable. */
void fibforge_table4_free(fibforge_table4 *table);

/* Inserts the route addr/len -> next_hop, or changes the next hop of an existing one.
 * If previous is not NULL it receives the prefix's former next hop, or FIBFORGE_NO_ROUTE.
 * Errors: NULL table; FIBFORGE_ERR_INVALID (len > 32, host bits set, next_hop ==
 * FIBFORGE_NO_ROUTE); FIBFORGE_ERR_LIMIT (next_hop > FIBFORGE_MAX_NEXT_HOP; the table is
 * unchanged). */
fibforge_status fibforge_table4_insert(fibforge_table4 *table, uint32_t addr, uint8_t len,
                                       uint32_t next_hop, uint32_t *previous);

/* Withdraws the route addr/len. If removed is not NULL it receives the route's next hop, or
 * FIBFORGE_NO_ROUTE when there was no such route (which is not an error).
 * Errors: NULL table; FIBFORGE_ERR_INVALID (len > 32, host bits set). */
fibforge_status fibforge_table4_remove(fibforge_table4 *table, uint32_t addr, uint8_t len,
                                       uint32_t *removed);

/* The next hop of the longest prefix matching addr, or FIBFORGE_NO_ROUTE (also for a NULL
 * table, which sets the last error). Writer thread only: other threads use a reader. */
uint32_t fibforge_table4_lookup(const fibforge_table4 *table, uint32_t addr);

/* Looks up addrs[0..n) into out[0..n) (FIBFORGE_NO_ROUTE where no route matches). addrs
 * and out may be the same array (in place); otherwise they must not overlap. n == 0 allows
 * NULL arrays. Errors: NULL table, addrs or out. Writer thread only. */
fibforge_status fibforge_table4_lookup_batch(const fibforge_table4 *table, const uint32_t *addrs,
                                             uint32_t *out, size_t n);

/* Number of routes (0 for NULL). */
size_t fibforge_table4_len(const fibforge_table4 *table);

/* The text a loaded file used for next hop id, or NULL (no such id, table not loaded from a
 * file, or NULL table). Valid until the table is freed. */
const char *fibforge_table4_next_hop_name(const fibforge_table4 *table, uint32_t id);

/* Creates a reader of table in *out (*out is NULL on failure). Call it on the writer's
 * thread (or while the writer is idle), then hand the reader to any thread.
 * Errors: NULL table or out. */
fibforge_status fibforge_table4_reader(const fibforge_table4 *table, fibforge_reader4 **out);

/* Like fibforge_table4_lookup, through a reader, on the reader's thread. Online: only the
 * walk. Offline: online for this call only. NULL reader: FIBFORGE_NO_ROUTE and the last error. */
uint32_t fibforge_reader4_lookup(const fibforge_reader4 *reader, uint32_t addr);

/* Like fibforge_table4_lookup_batch, through a reader, on the reader's thread (an offline
 * reader is online for the call). */
fibforge_status fibforge_reader4_lookup_batch(const fibforge_reader4 *reader,
                                              const uint32_t *addrs, uint32_t *out, size_t n);

/* Puts the reader online: its lookups do no synchronisation until it goes offline; report
 * quiescent states between bursts (see "Readers" above). No-op if online; NULL is ignored. */
void fibforge_reader4_online(fibforge_reader4 *reader);

/* Puts the reader offline (call it before the thread idles). No-op if offline; NULL is
 * ignored. */
void fibforge_reader4_offline(fibforge_reader4 *reader);

/* Reports a quiescent state: this thread holds nothing from lookups made before the call, so
 * memory the writer retired before it may be reused. A load, plus a store to the reader's
 * own cache line when the table changed since the last report. No-op if offline; NULL is
 * ignored. */
void fibforge_reader4_quiescent(fibforge_reader4 *reader);

/* Frees (and deregisters) a reader. NULL is ignored. */
void fibforge_reader4_free(fibforge_reader4 *reader);

/* ---- IPv6 tables: the same functions with fibforge_ip6 addresses and len <= 128 ----- */

fibforge_status fibforge_table6_new(fibforge_table6 **out);
fibforge_status fibforge_table6_load(const char *path, fibforge_table6 **out);
fibforge_status fibforge_table6_new_with(const char *algo, fibforge_table6 **out);
fibforge_status fibforge_table6_load_with(const char *path, const char *algo,
                                          fibforge_table6 **out);
const char *fibforge_table6_structure(const fibforge_table6 *table);
void fibforge_table6_free(fibforge_table6 *table);
fibforge_status fibforge_table6_insert(fibforge_table6 *table, fibforge_ip6 addr, uint8_t len,
                                       uint32_t next_hop, uint32_t *previous);
fibforge_status fibforge_table6_remove(fibforge_table6 *table, fibforge_ip6 addr, uint8_t len,
                                       uint32_t *removed);
uint32_t fibforge_table6_lookup(const fibforge_table6 *table, fibforge_ip6 addr);
fibforge_status fibforge_table6_lookup_batch(const fibforge_table6 *table,
                                             const fibforge_ip6 *addrs, uint32_t *out, size_t n);
size_t fibforge_table6_len(const fibforge_table6 *table);
const char *fibforge_table6_next_hop_name(const fibforge_table6 *table, uint32_t id);
fibforge_status fibforge_table6_reader(const fibforge_table6 *table, fibforge_reader6 **out);
uint32_t fibforge_reader6_lookup(const fibforge_reader6 *reader, fibforge_ip6 addr);
fibforge_status fibforge_reader6_lookup_batch(const fibforge_reader6 *reader,
                                              const fibforge_ip6 *addrs, uint32_t *out, size_t n);
void fibforge_reader6_online(fibforge_reader6 *reader);
void fibforge_reader6_offline(fibforge_reader6 *reader);
void fibforge_reader6_quiescent(fibforge_reader6 *reader);
void fibforge_reader6_free(fibforge_reader6 *reader);

#ifdef __cplusplus
}
#endif

#endif /* FIBFORGE_H */
