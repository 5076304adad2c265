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
 *   fibforge_iptable (at the end of this header) holds both families in one handle and adds
 *   lookups that answer the matched prefix's length, exact gets, cursors over the routes and
 *   snapshot files opened by mmap; the rules below hold for it too.
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
 *     synchronisation at all (the walk of the structure the reader took when it went online
 *     or last reported). An online reader therefore sees a structure the writer replaced
 *     (a rebuild; with bplus, an update that moves interval boundaries) at its next
 *     quiescent state; changes written in place show at once. In exchange
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
 *   fibforge_view4_lookup (inline, below) checks nothing: it is the bare walk.
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
    FIBFORGE_ERR_PANIC = 6,   /* internal error caught at the boundary (a bug: please report) */
    FIBFORGE_ERR_UNSUPPORTED = 7 /* not available for this table's structure (views of bplus) */
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
 * bzip2. A file of blank and comment lines only is an error (FIBFORGE_ERR_PARSE, "no routes
 * in FILE (N lines, all blank or comments)"; create an empty table with
 * fibforge_table4_new); so is a file whose routes are all IPv6, an empty (0-byte) file, a text line longer than
 * 64 KiB and decompressed data beyond the cap (16 GiB; the environment variable
 * FIBFORGE_MAX_DECOMPRESSED, e.g. "64G", sets it: FIBFORGE_ERR_IO).
 * Errors: NULL path or out; FIBFORGE_ERR_IO (cannot open/read); FIBFORGE_ERR_PARSE with
 * "file:line: problem" or "file: at byte offset N: problem" (a line that is not a prefix:
 * "file:line: expected an IPv4 prefix (such as 192.0.2.0/24) in the first column, found
 * 'text'"); FIBFORGE_ERR_LIMIT. */
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

/* Retired memory not yet freed: what updates unlinked (replaced arrays, old blocks) while a
 * reader was online, kept until every online reader has called fibforge_reader4_quiescent
 * or gone offline since; the next update then frees it. A reader that stays online without
 * reporting holds it back, and it grows with every update: poll this to notice.
 *
 * @param table           The table (call on the writer's thread, or while it is idle).
 * @param objects         Out, may be NULL: retired objects not yet freed.
 * @param bytes           Out, may be NULL: their bytes (an estimate: the arrays' sizes).
 * @param over_threshold  Out, may be NULL: 1 when bytes exceeds the larger of 4 x the
 *                        table's own lookup structure and 64 MiB (a reader is very likely
 *                        online but silent), else 0. The library prints nothing: warn once
 *                        yourself if you wish.
 * @return FIBFORGE_OK, with every non-NULL out-parameter written.
 * Errors: FIBFORGE_ERR_NULL (NULL table; nothing written). */
fibforge_status fibforge_table4_pending_reclaim(const fibforge_table4 *table, uint64_t *objects,
                                                uint64_t *bytes, int *over_threshold);

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

/* ---- IPv4 views: the lookup inlined into the caller ---------------------------------- */

/* A view is the published Poptrie arrays of an online reader's current snapshot, which the
 * static inline fibforge_view4_lookup below walks in the caller's own code: no call into the
 * library per lookup (the call was what kept fibforge_reader4_lookup below the bare walk).
 * Poptrie tables only (the default structure); IPv4 only.
 *
 * The contract (a pinned burst, as with QSBR above):
 *   - fibforge_reader4_view needs an ONLINE reader, on the reader's thread.
 *   - The view is valid while the reader stays online and until its next
 *     fibforge_reader4_quiescent, fibforge_reader4_offline or fibforge_reader4_free. After
 *     any of these it is STALE: its memory may be freed or reused, and using it is
 *     undefined behaviour (nothing detects it). Take a new view after each quiescent state.
 *   - Within its validity the view answers correctly for the table as it is or, if the writer
 *     has since moved to new arrays (growth, a wider leaf or dir, compaction), as it was
 *     then: updates show once the caller reports a quiescent state and takes a new view.
 *   - The view may be copied and used by the reader's thread only.
 *   A typical loop:
 *     fibforge_reader4_online(r);
 *     for (;;) {
 *         fibforge_view4 v;
 *         fibforge_reader4_view(r, &v);
 *         for (each packet of a burst) hop = fibforge_view4_lookup(&v, dst);
 *         fibforge_reader4_quiescent(r);   (v is stale from here)
 *     }
 *
 * Speed: build with a popcount instruction (gcc/clang: -mpopcnt, or -march=x86-64-v2 or
 * later, or -march=native); without it __builtin_popcountll is a library call. */

/* The layout of fibforge_view4 and of the arrays it points to, as this header walks them. */
#define FIBFORGE_VIEW4_VERSION 1u

/* A Poptrie internal node: 24 bytes (a 64-ary node: bit n of vector set = slot n has an
 * internal child, children at nodes[base1 + rank - 1]; leaves at leaves[base0 + rank - 1]
 * with rank counted in leafvec). */
typedef struct fibforge_view4_node {
    uint64_t vector;
    uint64_t leafvec;
    uint32_t base0;
    uint32_t base1;
} fibforge_view4_node;

typedef struct fibforge_view4 {
    uint32_t version;    /* FIBFORGE_VIEW4_VERSION (0 after a failed call) */
    uint32_t s;          /* direct-pointing bits: dir has 2^s entries (0..24) */
    uint32_t dir_bits;   /* 16: e < root_limit is node e, else next hop e - root_limit;
                          * 32: 0x80000000 | next hop, or node e */
    uint32_t root_limit; /* see dir_bits (0 with 32-bit entries) */
    uint32_t leaf_bits;  /* 8, 16 or 32 */
    uint32_t reserved;   /* 0 */
    const void *dir;
    const fibforge_view4_node *nodes;
    const void *leaves;  /* next hops as stored: the value + 1, 0 = no route */
} fibforge_view4;

/* Fills *view with the current snapshot of an online reader of a Poptrie table (on failure
 * *view is zeroed). A load and a copy: call it once per burst.
 * Errors: NULL reader or view; FIBFORGE_ERR_INVALID (the reader is offline);
 * FIBFORGE_ERR_UNSUPPORTED (the table is not a Poptrie: use fibforge_reader4_lookup). */
fibforge_status fibforge_reader4_view(const fibforge_reader4 *reader, fibforge_view4 *view);

static inline unsigned fibforge_popcount64_(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* dir entries are updated in place by the writer (atomic Release stores): load them with
 * Acquire, which on x86 is a plain load. */
static inline uint32_t fibforge_view4_dir_(const fibforge_view4 *v, size_t i) {
#if defined(__GNUC__) || defined(__clang__)
    if (v->dir_bits == 16) return __atomic_load_n((const uint16_t *)v->dir + i, __ATOMIC_ACQUIRE);
    return __atomic_load_n((const uint32_t *)v->dir + i, __ATOMIC_ACQUIRE);
#else
    if (v->dir_bits == 16) return *((const volatile uint16_t *)v->dir + i);
    return *((const volatile uint32_t *)v->dir + i);
#endif
}

/* The next hop of the longest prefix matching addr, or FIBFORGE_NO_ROUTE: the same answer
 * as fibforge_reader4_lookup, walked inline (Poptrie's lookup: dir, then one node per 6
 * bits, then a leaf). view must be valid (see the contract above); nothing is checked. */
static inline uint32_t fibforge_view4_lookup(const fibforge_view4 *view, uint32_t addr) {
    const fibforge_view4_node *n;
    uint64_t k = (uint64_t)addr << (32 + view->s), t;
    uint32_t e = fibforge_view4_dir_(view, (size_t)((uint64_t)addr >> (32 - view->s))), at;
    unsigned inv;
    if (view->dir_bits == 16) {
        if (e >= view->root_limit) return e - view->root_limit - 1u; /* raw 0 -> NO_ROUTE */
    } else if (e & 0x80000000u) {
        return (e & 0x7fffffffu) - 1u;
    }
    n = view->nodes + e;
    for (;;) {
        inv = (unsigned)(~k >> 58); /* 63 - the next 6 address bits */
        t = n->vector << inv;       /* this slot's bit on top, the lower slots below it */
        if (!(t >> 63)) break;
        n = view->nodes + (n->base1 + fibforge_popcount64_(t) - 1u);
        k <<= 6;
    }
    at = n->base0 + fibforge_popcount64_(n->leafvec << inv) - 1u;
    if (view->leaf_bits == 8) return (uint32_t)((const uint8_t *)view->leaves)[at] - 1u;
    if (view->leaf_bits == 16) return (uint32_t)((const uint16_t *)view->leaves)[at] - 1u;
    return ((const uint32_t *)view->leaves)[at] - 1u;
}

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
fibforge_status fibforge_table6_pending_reclaim(const fibforge_table6 *table, uint64_t *objects,
                                                uint64_t *bytes, int *over_threshold);
const char *fibforge_table6_next_hop_name(const fibforge_table6 *table, uint32_t id);
fibforge_status fibforge_table6_reader(const fibforge_table6 *table, fibforge_reader6 **out);
uint32_t fibforge_reader6_lookup(const fibforge_reader6 *reader, fibforge_ip6 addr);
fibforge_status fibforge_reader6_lookup_batch(const fibforge_reader6 *reader,
                                              const fibforge_ip6 *addrs, uint32_t *out, size_t n);
void fibforge_reader6_online(fibforge_reader6 *reader);
void fibforge_reader6_offline(fibforge_reader6 *reader);
void fibforge_reader6_quiescent(fibforge_reader6 *reader);
void fibforge_reader6_free(fibforge_reader6 *reader);

/* ---- Both families in one table: fibforge_iptable ------------------------------------ */

/* A fibforge_iptable holds IPv4 and IPv6 routes in one handle and answers what the
 * per-family tables above do not: the matched prefix's length with each lookup (stored
 * beside the next hop in the compiled structure: one walk answers both), exact gets,
 * cursors over the routes, and snapshots saved to a file and opened by mmap, shared between
 * the processes that open it. It is the C face of Rust's fibforge::IpTable<u32>.
 *
 * Choose the per-family tables for a data plane that needs the next hop only at the walk's
 * full speed (and the inline views); choose fibforge_iptable for the rest. Both follow the
 * same rules: next hops 0..FIBFORGE_MAX_NEXT_HOP (a table holds at most 2^24 - 1 distinct
 * ones), FIBFORGE_NO_ROUTE for no match, one writer thread per table, readers (QSBR, as in
 * "Readers" above) for the other threads, errors through fibforge_last_error(). */

typedef struct fibforge_iptable fibforge_iptable;
typedef struct fibforge_ipreader fibforge_ipreader;
typedef struct fibforge_ipcursor fibforge_ipcursor;

/* A prefix of either family (24 bytes). */
typedef struct fibforge_prefix {
    uint8_t family;      /* 4 or 6 */
    uint8_t len;         /* prefix length: 0..32 (family 4) or 0..128 (family 6) */
    uint8_t reserved[2]; /* 0 */
    uint32_t addr4;      /* family 4: the address, host byte order (10.1.2.3 is 0x0a010203) */
    fibforge_ip6 addr6;  /* family 6: the address, network byte order */
} fibforge_prefix;

/* A route: a prefix and its next hop (what a cursor yields). */
typedef struct fibforge_route {
    fibforge_prefix prefix;
    uint32_t next_hop;
} fibforge_route;

/**
 * Creates an empty table of both families.
 *
 * @param algo  The structure, as for fibforge_table4_new_with ("poptrie", "bplus", with
 *              options); NULL for the default (Poptrie).
 * @param out   Receives the table; NULL on failure.
 * @return FIBFORGE_OK; FIBFORGE_ERR_NULL (out); FIBFORGE_ERR_INVALID (unknown structure or
 *         option, message naming the valid ones).
 */
fibforge_status fibforge_iptable_new(const char *algo, fibforge_iptable **out);

/**
 * Creates a table from the IPv4 and IPv6 routes of a file (the formats of
 * fibforge_table4_load: text tables, MRT RIB dumps and update streams, plain, gzip or
 * bzip2). Next hops are numbered 0, 1, 2, ... in the order the file first names them;
 * fibforge_iptable_next_hop_name gives back the file's text.
 *
 * @param path  The file.
 * @param algo  The structure, or NULL for the default; checked before the file is read.
 * @param out   Receives the table; NULL on failure.
 * @return FIBFORGE_OK; FIBFORGE_ERR_NULL (path, out); FIBFORGE_ERR_INVALID (algo, empty
 *         path); FIBFORGE_ERR_IO; FIBFORGE_ERR_PARSE ("file:line: problem", or a file with no
 *         route); FIBFORGE_ERR_LIMIT.
 */
fibforge_status fibforge_iptable_load(const char *path, const char *algo,
                                      fibforge_iptable **out);

/**
 * Opens a snapshot file (written by fibforge_iptable_save, Rust's IpTable<u32>::save or
 * `fibforge snapshot --values index`) by mapping it into memory: the file is checked whole
 * (checksum, every index of the structures, every route and value), then lookups walk the
 * mapped pages, nothing compiled or copied, so processes that open one file share its
 * lookup arrays. The table is read-only in place: a family's first change compiles that
 * family into memory of its own (fibforge_iptable_is_mapped tells). Replace the file whole
 * (as fibforge_iptable_save does), never modify it in place, while a table has it open.
 *
 * @param path  The snapshot file.
 * @param out   Receives the table; NULL on failure.
 * @return FIBFORGE_OK; FIBFORGE_ERR_NULL (path, out); FIBFORGE_ERR_IO (cannot open or map);
 *         FIBFORGE_ERR_PARSE (not a snapshot, another version, cut short, damaged, values not
 *         u32: the message names the part).
 */
fibforge_status fibforge_iptable_open(const char *path, fibforge_iptable **out);

/**
 * Writes the table as a snapshot file: to a temporary file beside path, synced, then renamed
 * over path, so that path holds the old or the new snapshot whole, never a part.
 *
 * @param table  The table (writer thread, or while it is idle).
 * @param path   The file to write.
 * @return FIBFORGE_OK; FIBFORGE_ERR_NULL (table, path); FIBFORGE_ERR_INVALID (empty path);
 *         FIBFORGE_ERR_IO (the message names the file); FIBFORGE_ERR_UNSUPPORTED.
 */
fibforge_status fibforge_iptable_save(const fibforge_iptable *table, const char *path);

/* Frees a table; NULL is ignored. Readers made from it stay usable, cursors too. */
void fibforge_iptable_free(fibforge_iptable *table);

/* The table's structure: "poptrie" or "bplus" (a static string); NULL for a NULL table. */
const char *fibforge_iptable_structure(const fibforge_iptable *table);

/* Number of routes of both families (0 for NULL). */
size_t fibforge_iptable_len(const fibforge_iptable *table);

/* 1 while a family of the table looks up in an opened snapshot's pages, else 0 (and 0 for
 * NULL). */
int fibforge_iptable_is_mapped(const fibforge_iptable *table);

/* The text a loaded file used for next hop id, or NULL (no such id, table not loaded from a
 * file, NULL table). Valid until the table is freed. */
const char *fibforge_iptable_next_hop_name(const fibforge_iptable *table, uint32_t id);

/**
 * Inserts the route addr/len -> next_hop, or changes the next hop of an existing one
 * (insert4: IPv4, insert6: IPv6).
 *
 * @param table     The table (writer thread).
 * @param addr      The prefix's address; its host bits must be zero.
 * @param len       The prefix length, 0..32 or 0..128.
 * @param next_hop  0..FIBFORGE_MAX_NEXT_HOP.
 * @param previous  Out, may be NULL: the prefix's former next hop, or FIBFORGE_NO_ROUTE.
 * @return FIBFORGE_OK; FIBFORGE_ERR_NULL (table); FIBFORGE_ERR_INVALID (length, host bits,
 *         next_hop == FIBFORGE_NO_ROUTE); FIBFORGE_ERR_LIMIT (next_hop above
 *         FIBFORGE_MAX_NEXT_HOP, too many distinct next hops, a structural limit: the table is
 *         unchanged).
 */
fibforge_status fibforge_iptable_insert4(fibforge_iptable *table, uint32_t addr, uint8_t len,
                                         uint32_t next_hop, uint32_t *previous);
fibforge_status fibforge_iptable_insert6(fibforge_iptable *table, fibforge_ip6 addr, uint8_t len,
                                         uint32_t next_hop, uint32_t *previous);

/**
 * Withdraws the route addr/len (remove4: IPv4, remove6: IPv6).
 *
 * @param removed  Out, may be NULL: the route's next hop, or FIBFORGE_NO_ROUTE when there
 *                 was no such route (not an error).
 * @return FIBFORGE_OK; FIBFORGE_ERR_NULL (table); FIBFORGE_ERR_INVALID (length, host bits).
 */
fibforge_status fibforge_iptable_remove4(fibforge_iptable *table, uint32_t addr, uint8_t len,
                                         uint32_t *removed);
fibforge_status fibforge_iptable_remove6(fibforge_iptable *table, fibforge_ip6 addr, uint8_t len,
                                         uint32_t *removed);

/**
 * Exact match: the next hop of exactly the prefix addr/len (get4: IPv4, get6: IPv6), not of
 * a shorter one that covers it.
 *
 * @param next_hop  Out: the route's next hop, or FIBFORGE_NO_ROUTE when the table has no
 *                  route for this prefix.
 * @return FIBFORGE_OK; FIBFORGE_ERR_NULL (table, next_hop); FIBFORGE_ERR_INVALID (length,
 *         host bits).
 */
fibforge_status fibforge_iptable_get4(const fibforge_iptable *table, uint32_t addr, uint8_t len,
                                      uint32_t *next_hop);
fibforge_status fibforge_iptable_get6(const fibforge_iptable *table, fibforge_ip6 addr,
                                      uint8_t len, uint32_t *next_hop);

/**
 * Longest-prefix match with the matched prefix (lookup4: IPv4, lookup6: IPv6): the next hop
 * of the longest prefix containing addr, and that prefix's length. The prefix itself is
 * addr with the bits past len cleared.
 *
 * @param table  The table (writer thread; other threads use a reader).
 * @param addr   The address.
 * @param len    Out, may be NULL: the matched prefix's length (0 when none matched).
 * @return The next hop, or FIBFORGE_NO_ROUTE when no route matches (also for a NULL table,
 *         which sets the last error).
 */
uint32_t fibforge_iptable_lookup4(const fibforge_iptable *table, uint32_t addr, uint8_t *len);
uint32_t fibforge_iptable_lookup6(const fibforge_iptable *table, fibforge_ip6 addr, uint8_t *len);

/**
 * Looks up addrs[0..n) (lookup4_batch: IPv4, lookup6_batch: IPv6) through the structure's
 * batch walk: next_hops[i] and lens[i] as fibforge_iptable_lookup4 answers addrs[i].
 *
 * @param addrs      n addresses. IPv4: may be the same array as next_hops (in place).
 * @param next_hops  Out: n next hops (FIBFORGE_NO_ROUTE where none matches).
 * @param lens       Out, may be NULL: n prefix lengths (0 where none matches).
 * @param n          The count; 0 allows NULL arrays.
 * @return FIBFORGE_OK; FIBFORGE_ERR_NULL (table, addrs, next_hops).
 */
fibforge_status fibforge_iptable_lookup4_batch(const fibforge_iptable *table,
                                               const uint32_t *addrs, uint32_t *next_hops,
                                               uint8_t *lens, size_t n);
fibforge_status fibforge_iptable_lookup6_batch(const fibforge_iptable *table,
                                               const fibforge_ip6 *addrs, uint32_t *next_hops,
                                               uint8_t *lens, size_t n);

/**
 * Cursors over routes: every route (IPv4 first, each family in prefix order: by address,
 * shorter before longer), the routes covering a prefix (itself included, shortest first), or
 * the routes covered by it (itself included, in prefix order). A cursor copies the routes
 * it will yield when it is made (24 + 4 bytes each), so the table may change or be freed
 * while it is read; it sees the table as it was.
 *
 * @param table   The table (writer thread, or while it is idle).
 * @param prefix  covering/covered: the prefix (family 4 or 6, no host bits).
 * @param out     Receives the cursor; NULL on failure. Free it with fibforge_ipcursor_free.
 * @return FIBFORGE_OK; FIBFORGE_ERR_NULL (table, prefix, out); FIBFORGE_ERR_INVALID (family,
 *         length, host bits).
 */
fibforge_status fibforge_iptable_routes(const fibforge_iptable *table, fibforge_ipcursor **out);
fibforge_status fibforge_iptable_covering(const fibforge_iptable *table,
                                          const fibforge_prefix *prefix, fibforge_ipcursor **out);
fibforge_status fibforge_iptable_covered(const fibforge_iptable *table,
                                         const fibforge_prefix *prefix, fibforge_ipcursor **out);

/**
 * The cursor's next route.
 *
 * @param cursor  The cursor (one thread at a time).
 * @param route   Out: the route.
 * @return 1 with *route written; 0 at the end (nothing written; later calls return 0 too);
 *         -1 for a NULL cursor or route (the last error says which).
 */
int fibforge_ipcursor_next(fibforge_ipcursor *cursor, fibforge_route *route);

/* Frees a cursor; NULL is ignored. */
void fibforge_ipcursor_free(fibforge_ipcursor *cursor);

/**
 * Creates a reader of both families, offline (the contract of "Readers" above: one thread
 * at a time, online/quiescent/offline). Call it on the writer's thread, or while the writer
 * is idle, then hand it to a lookup thread. Readers of an opened snapshot work too (the
 * first reader compiles the table once into memory of its own).
 *
 * @param out  Receives the reader; NULL on failure. Free it with fibforge_ipreader_free.
 * @return FIBFORGE_OK; FIBFORGE_ERR_NULL (table, out).
 */
fibforge_status fibforge_iptable_reader(const fibforge_iptable *table, fibforge_ipreader **out);

/* Like fibforge_iptable_lookup4/6 and _lookup4/6_batch, through a reader on its thread: an
 * online reader only walks; an offline one is online for the call. A NULL reader:
 * FIBFORGE_NO_ROUTE (length 0) and the last error, or FIBFORGE_ERR_NULL for the batches. */
uint32_t fibforge_ipreader_lookup4(fibforge_ipreader *reader, uint32_t addr, uint8_t *len);
uint32_t fibforge_ipreader_lookup6(fibforge_ipreader *reader, fibforge_ip6 addr, uint8_t *len);
fibforge_status fibforge_ipreader_lookup4_batch(fibforge_ipreader *reader, const uint32_t *addrs,
                                                uint32_t *next_hops, uint8_t *lens, size_t n);
fibforge_status fibforge_ipreader_lookup6_batch(fibforge_ipreader *reader,
                                                const fibforge_ip6 *addrs, uint32_t *next_hops,
                                                uint8_t *lens, size_t n);

/* Online, offline, quiescent state and free, as fibforge_reader4_* (NULL is ignored). */
void fibforge_ipreader_online(fibforge_ipreader *reader);
void fibforge_ipreader_offline(fibforge_ipreader *reader);
void fibforge_ipreader_quiescent(fibforge_ipreader *reader);
void fibforge_ipreader_free(fibforge_ipreader *reader);

#ifdef __cplusplus
}
#endif

#endif /* FIBFORGE_H */
