/*
 * fibforge DPDK shim: a thin, stable C surface over DPDK 22.11's rte_lpm, rte_fib, rte_lpm6
 * and rte_fib6 for the Rust peer in src/peers/dpdk.rs.
 *
 * Why a shim: the lookup functions of rte_lpm and rte_lpm6 (rte_lpm_lookup,
 * rte_lpm_lookup_bulk_func, rte_lpm_lookupx4) are `static inline` in DPDK's headers, so Rust
 * cannot call them directly; the shim also hides DPDK's structure layouts and its option
 * unions, and converts every answer to fibforge's raw next-hop encoding.
 *
 * Next-hop encoding: every structure stores fibforge's raw id (dense index + 1), and every
 * lookup writes a uint32_t with that raw id or 0 for "no route" (rte_fib/rte_fib6 are created
 * with default_nh = the default route's raw id, or 0).
 *
 * EAL: started once per process with no PCI, no shared configuration and no files under
 * /var/run, no telemetry, on the first CPU the calling thread may run on; the calling
 * thread's CPU affinity is restored afterwards so that DPDK does not pin the benchmark.
 * Memory: reserved huge pages when the caller asks (`--in-memory`, pages taken as needed), as
 * DPDK is deployed; else ordinary 4 KiB pages (`--no-huge`, 2 GiB; `--in-memory` is refused
 * together with `--no-huge`, hence `--no-shconf`).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_cpuflags.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_lcore.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>
#include <rte_vect.h>

/* Addresses per call to DPDK's bulk lookups inside the shim (stack buffers). */
#define FF_CHUNK 64

/* Starts the EAL, on huge pages when huge is non-zero; 0 on success, else -1 with a message
 * in err. */
int ff_eal_init(int huge, char *err, size_t errlen)
{
	cpu_set_t saved;
	int have_saved = pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved) == 0;
	int cpu = 0;
	if (have_saved) {
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &saved))
				break;
		if (cpu == CPU_SETSIZE)
			cpu = 0;
	}
	char lcore[16];
	snprintf(lcore, sizeof(lcore), "%d", cpu);
	char *small_pages[] = {
		"fibforge-dpdk", "--no-huge", "--no-pci", "--no-shconf", "--no-telemetry",
		"-m", "2048", "-l", lcore, "--log-level=error",
		"--force-max-simd-bitwidth=512", NULL,
	};
	char *huge_pages[] = {
		"fibforge-dpdk", "--in-memory", "--no-pci", "--no-telemetry",
		"-l", lcore, "--log-level=error",
		"--force-max-simd-bitwidth=512", NULL,
	};
	char **argv = huge ? huge_pages : small_pages;
	int argc = 0;
	while (argv[argc] != NULL)
		argc++;
	int ret = rte_eal_init(argc, argv);
	if (have_saved)
		pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
	if (ret < 0) {
		snprintf(err, errlen, "rte_eal_init failed: %s", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* 1 when the CPU has AVX-512F and DPDK allows 512-bit vectors. */
int ff_avx512_usable(void)
{
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX512F) > 0 &&
	       rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_512;
}

/* Bytes allocated on DPDK's heaps, all sockets. */
uint64_t ff_heap_bytes(void)
{
	uint64_t total = 0;
	for (unsigned i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats s;
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &s) == 0)
			total += s.heap_allocsz_bytes;
	}
	return total;
}

int ff_errno(void)
{
	return rte_errno;
}

const char *ff_strerror(int e)
{
	return rte_strerror(e < 0 ? -e : e);
}

static void unique_name(char *buf, size_t len, const char *kind)
{
	static uint32_t counter;
	snprintf(buf, len, "ff_%s_%u", kind, __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
}

/* ---- rte_lpm ---------------------------------------------------------------------------- */

void *ff_lpm_create(uint32_t max_rules, uint32_t number_tbl8s)
{
	char name[32];
	unique_name(name, sizeof(name), "lpm");
	struct rte_lpm_config c = { .max_rules = max_rules, .number_tbl8s = number_tbl8s };
	return rte_lpm_create(name, SOCKET_ID_ANY, &c);
}

int ff_lpm_add(void *lpm, uint32_t ip, uint8_t depth, uint32_t nh)
{
	return rte_lpm_add(lpm, ip, depth, nh);
}

void ff_lpm_free(void *lpm)
{
	rte_lpm_free(lpm);
}

uint32_t ff_lpm_lookup(const void *lpm, uint32_t ip)
{
	uint32_t nh;
	return rte_lpm_lookup(lpm, ip, &nh) == 0 ? nh : 0;
}

void ff_lpm_lookup_bulk(const void *lpm, const uint32_t *ips, uint32_t *out, unsigned n)
{
	rte_lpm_lookup_bulk_func(lpm, ips, out, n);
	for (unsigned i = 0; i < n; i++) {
		uint32_t v = out[i];
		out[i] = (v & RTE_LPM_LOOKUP_SUCCESS) ? (v & 0x00ffffff) : 0;
	}
}

void ff_lpm_lookup_x4(const void *lpm, const uint32_t *ips, uint32_t *out, unsigned n)
{
	unsigned i = 0;
	for (; i + 4 <= n; i += 4) {
		xmm_t ip = _mm_loadu_si128((const __m128i *)(ips + i));
		rte_lpm_lookupx4(lpm, ip, out + i, 0);
	}
	for (; i < n; i++)
		out[i] = ff_lpm_lookup(lpm, ips[i]);
}

/*
 * Writes a complete DIR-24-8 image into an empty rte_lpm created with at least `groups` tbl8
 * groups, instead of one rte_lpm_add per route (which scans every rule of the same depth:
 * quadratic, minutes for a full table). Image entries: bits 0-23 the raw next hop (0: no
 * route) or, with bit 31 set in tbl24, the tbl8 group; bits 24-29 the route's depth. The
 * result is what rte_lpm_add would have produced for the lookups; the rule table stays empty
 * (so rte_lpm_delete cannot be used on it).
 */
void ff_lpm_fill(void *lpm, const uint32_t *tbl24, const uint32_t *tbl8, uint32_t groups)
{
	struct rte_lpm *l = lpm;
	for (uint32_t i = 0; i < RTE_LPM_TBL24_NUM_ENTRIES; i++) {
		uint32_t v = tbl24[i];
		struct rte_lpm_tbl_entry e = { 0 };
		e.next_hop = v & 0x00ffffff;
		e.depth = (v >> 24) & 0x3f;
		e.valid = (v & 0x80000000) || (v & 0x00ffffff);
		e.valid_group = (v & 0x80000000) != 0;
		l->tbl24[i] = e;
	}
	for (uint32_t i = 0; i < groups * RTE_LPM_TBL8_GROUP_NUM_ENTRIES; i++) {
		uint32_t v = tbl8[i];
		struct rte_lpm_tbl_entry e = { 0 };
		e.next_hop = v & 0x00ffffff;
		e.depth = (v >> 24) & 0x3f;
		e.valid = (v & 0x00ffffff) != 0;
		e.valid_group = 1;
		l->tbl8[i] = e;
	}
}

/* ---- rte_fib (DIR24_8) ---------------------------------------------------------------- */

void *ff_fib_create(uint32_t max_routes, uint64_t default_nh, int nh_sz, uint32_t num_tbl8)
{
	char name[32];
	unique_name(name, sizeof(name), "fib");
	struct rte_fib_conf c;
	memset(&c, 0, sizeof(c));
	c.type = RTE_FIB_DIR24_8;
	c.default_nh = default_nh;
	c.max_routes = (int)max_routes;
	c.dir24_8.nh_sz = (enum rte_fib_dir24_8_nh_sz)nh_sz;
	c.dir24_8.num_tbl8 = num_tbl8;
	return rte_fib_create(name, SOCKET_ID_ANY, &c);
}

int ff_fib_add(void *fib, uint32_t ip, uint8_t depth, uint64_t nh)
{
	return rte_fib_add(fib, ip, depth, nh);
}

/* Scalar (the default scalar, macro-based) or AVX-512 bulk lookup; 0 on success. */
int ff_fib_select(void *fib, int avx512)
{
	return rte_fib_select_lookup(fib, avx512 ? RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512
						 : RTE_FIB_LOOKUP_DIR24_8_SCALAR_MACRO);
}

void ff_fib_lookup(const void *fib, const uint32_t *ips, uint32_t *out, unsigned n)
{
	uint64_t nh[FF_CHUNK];
	for (unsigned i = 0; i < n; i += FF_CHUNK) {
		unsigned k = n - i < FF_CHUNK ? n - i : FF_CHUNK;
		/* Neither the structure nor ips are written; the prototype is not const. */
		rte_fib_lookup_bulk((struct rte_fib *)fib, (uint32_t *)(ips + i), nh, k);
		for (unsigned j = 0; j < k; j++)
			out[i + j] = (uint32_t)nh[j];
	}
}

uint32_t ff_fib_lookup_one(const void *fib, uint32_t ip)
{
	uint32_t out;
	ff_fib_lookup(fib, &ip, &out, 1);
	return out;
}

void ff_fib_free(void *fib)
{
	rte_fib_free(fib);
}

/* ---- rte_lpm6 --------------------------------------------------------------------------- */

void *ff_lpm6_create(uint32_t max_rules, uint32_t number_tbl8s)
{
	char name[32];
	unique_name(name, sizeof(name), "lpm6");
	struct rte_lpm6_config c = { .max_rules = max_rules, .number_tbl8s = number_tbl8s };
	return rte_lpm6_create(name, SOCKET_ID_ANY, &c);
}

int ff_lpm6_add(void *lpm, const uint8_t *ip, uint8_t depth, uint32_t nh)
{
	return rte_lpm6_add(lpm, ip, depth, nh);
}

uint32_t ff_lpm6_lookup(const void *lpm, const uint8_t *ip)
{
	uint32_t nh;
	return rte_lpm6_lookup(lpm, ip, &nh) == 0 ? nh : 0;
}

void ff_lpm6_lookup_bulk(const void *lpm, const uint8_t (*ips)[16], uint32_t *out, unsigned n)
{
	int32_t nh[FF_CHUNK];
	for (unsigned i = 0; i < n; i += FF_CHUNK) {
		unsigned k = n - i < FF_CHUNK ? n - i : FF_CHUNK;
		/* rte_lpm6_lookup_bulk_func does not write to ips; its prototype is not const. */
		rte_lpm6_lookup_bulk_func(lpm, (uint8_t(*)[16])(ips + i), nh, k);
		for (unsigned j = 0; j < k; j++)
			out[i + j] = nh[j] < 0 ? 0 : (uint32_t)nh[j];
	}
}

void ff_lpm6_free(void *lpm)
{
	rte_lpm6_free(lpm);
}

/* ---- rte_fib6 (TRIE) ------------------------------------------------------------------- */

void *ff_fib6_create(uint32_t max_routes, uint64_t default_nh, int nh_sz, uint32_t num_tbl8)
{
	char name[32];
	unique_name(name, sizeof(name), "fib6");
	struct rte_fib6_conf c;
	memset(&c, 0, sizeof(c));
	c.type = RTE_FIB6_TRIE;
	c.default_nh = default_nh;
	c.max_routes = (int)max_routes;
	c.trie.nh_sz = (enum rte_fib_trie_nh_sz)nh_sz;
	c.trie.num_tbl8 = num_tbl8;
	return rte_fib6_create(name, SOCKET_ID_ANY, &c);
}

int ff_fib6_add(void *fib, const uint8_t *ip, uint8_t depth, uint64_t nh)
{
	return rte_fib6_add(fib, ip, depth, nh);
}

int ff_fib6_select(void *fib, int avx512)
{
	return rte_fib6_select_lookup(fib, avx512 ? RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512
						  : RTE_FIB6_LOOKUP_TRIE_SCALAR);
}

void ff_fib6_lookup(const void *fib, const uint8_t (*ips)[16], uint32_t *out, unsigned n)
{
	uint64_t nh[FF_CHUNK];
	for (unsigned i = 0; i < n; i += FF_CHUNK) {
		unsigned k = n - i < FF_CHUNK ? n - i : FF_CHUNK;
		/* Neither the structure nor ips are written; the prototype is not const. */
		rte_fib6_lookup_bulk((struct rte_fib6 *)fib, (uint8_t(*)[16])(ips + i), nh, k);
		for (unsigned j = 0; j < k; j++)
			out[i + j] = (uint32_t)nh[j];
	}
}

uint32_t ff_fib6_lookup_one(const void *fib, const uint8_t *ip)
{
	uint32_t out;
	ff_fib6_lookup(fib, (const uint8_t(*)[16])ip, &out, 1);
	return out;
}

void ff_fib6_free(void *fib)
{
	rte_fib6_free(fib);
}
