// Longest-prefix-match lookups on fibforge's exported structures (docs/reference/export-format.md),
// written once for two compilers: g++ builds them for the host (CI checks them against the RIB
// oracle there), nvcc builds the same functions into kernels.
//
// Each structure is a view: plain pointers into arrays the caller owns (host memory for the
// host build, device memory for kernels) plus the header's parameters. The functions trust the
// view: the Rust importer is the validator of hostile files; `export_file.h` checks the
// container (magic, version, checksum, array bounds) and `views.h` the lengths each view needs.
//
// Answers are raw next hops: 0 = no route, id + 1 otherwise.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FF_HD __host__ __device__ __forceinline__
#else
#define FF_HD inline
#endif

namespace ff {

typedef unsigned __int128 u128;

// Loads through the read-only data cache on the GPU (the structures never change during a
// launch); plain loads on the host. Structures are read as whole 8- or 16-byte words.
template <class T>
FF_HD T ld(const T* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}

// The 6-bit chunk of an address at bit offset `off` from the top, zero past the last bit.
FF_HD uint32_t chunk6(uint32_t a, uint32_t off) {
    uint64_t x = (uint64_t)a << 32;
    return off < 64 ? (uint32_t)((x << off) >> 58) : 0;
}
FF_HD uint32_t chunk6(u128 a, uint32_t off) {
    return off < 128 ? (uint32_t)((a << off) >> 122) : 0;
}

// The top `n` bits of an address (n in 1..=W), or 0 when n is 0.
FF_HD uint32_t top_bits(uint32_t a, uint32_t n) { return n == 0 ? 0 : a >> (32 - n); }
FF_HD uint32_t top_bits(u128 a, uint32_t n) { return n == 0 ? 0 : (uint32_t)(a >> (128 - n)); }

// The `n` bits at offset `off` from the top (n <= 32, off + n <= W).
FF_HD uint32_t bits_at(uint32_t a, uint32_t off, uint32_t n) {
    return (uint32_t)(((uint64_t)a << 32 << off) >> (64 - n));
}
FF_HD uint32_t bits_at(u128 a, uint32_t off, uint32_t n) { return (uint32_t)((a << off) >> (128 - n)); }

// ---------------------------------------------------------------------------------------------
// SAIL_L (algorithm 1): `top` by the first 16 bits, then one level of 256-word chunks per 8 bits
// while the word names a chunk (its top bit). Word = uint16_t or uint32_t.
template <class Word, int LEVELS>
struct SailView {
    const Word* top;
    const Word* level[LEVELS];
};

template <class Word, int LEVELS, class Addr>
FF_HD uint32_t sail_lookup(const SailView<Word, LEVELS>& t, Addr a) {
    const Word flag = (Word)1 << (sizeof(Word) * 8 - 1);
    Word w = ld(&t.top[top_bits(a, 16)]);
    for (int k = 0; k < LEVELS; k++) {
        if (!(w & flag)) break;
        w = ld(&t.level[k][((uint32_t)(w & (Word)~flag) << 8) | bits_at(a, 16 + 8 * k, 8)]);
    }
    return (uint32_t)w;  // the last level holds next hops only
}

// ---------------------------------------------------------------------------------------------
// Poptrie (algorithm 2): direct pointing on the first `s` bits, then 64-ary nodes whose children
// and leaves are found by population counts.
struct PoptrieNode {
    uint64_t vector;
    uint64_t leafvec;
    uint32_t base0;
    uint32_t base1;
};

FF_HD PoptrieNode ld_node(const PoptrieNode* p) {
    const uint64_t* w = (const uint64_t*)p;
    uint64_t last = ld(w + 2);
    return PoptrieNode{ld(w), ld(w + 1), (uint32_t)last, (uint32_t)(last >> 32)};
}

template <class Leaf>
struct PoptrieView {
    const uint32_t* dir;
    const PoptrieNode* nodes;
    const Leaf* leaves;
    uint32_t s;
};

FF_HD int popcount64(uint64_t x) {
#if defined(__CUDA_ARCH__)
    return __popcll(x);
#else
    return __builtin_popcountll(x);
#endif
}

template <class Leaf, class Addr>
FF_HD uint32_t poptrie_lookup(const PoptrieView<Leaf>& t, Addr a) {
    uint32_t d = ld(&t.dir[top_bits(a, t.s)]);
    if (d & 0x80000000u) return d & 0x7fffffffu;
    PoptrieNode n = ld_node(&t.nodes[d]);
    uint32_t off = t.s;
    for (;;) {
        uint32_t c = chunk6(a, off);
        uint64_t upto = (2ull << c) - 1;  // bits 0..=c (all ones for c = 63)
        if (!((n.vector >> c) & 1)) return ld(&t.leaves[n.base0 + popcount64(n.leafvec & upto) - 1]);
        n = ld_node(&t.nodes[n.base1 + popcount64(n.vector & upto) - 1]);
        off += 6;
    }
}

// ---------------------------------------------------------------------------------------------
// Bloomfwd (algorithm 3): per level (longest first) a Bloom filter probed with double hashing
// g_i = x + i*y, then on a pass a linear-probing table addressed by x; else the direct array.
enum BloomHash : uint32_t { HASH_H2 = 0, HASH_MURMUR = 1, HASH_KNUTH = 2 };

FF_HD uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
FF_HD uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

FF_HD uint32_t hash_h2(uint32_t x) {
    x = ((x >> 16) ^ x) * 0x045d9f3bu;
    x = ((x >> 16) ^ x) * 0x045d9f3bu;
    return (x >> 16) ^ x;
}
FF_HD uint32_t fmix32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}
FF_HD uint64_t fmix64(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    return k ^ (k >> 33);
}
FF_HD uint32_t murmur3_32(uint32_t x) {
    uint32_t k = rotl32(x * 0xcc9e2d51u, 15) * 0x1b873593u;
    uint32_t h = rotl32(k, 13) * 5u + 0xe6546b64u;  // seed 0
    return fmix32(h ^ 4u);
}
FF_HD uint32_t hash32(uint32_t f, uint32_t x) {
    return f == HASH_H2 ? hash_h2(x) : f == HASH_MURMUR ? murmur3_32(x) : x * 2654435761u;
}

struct Pair {
    uint32_t x, y;
};
FF_HD Pair pair32(uint32_t f, uint32_t key) {
    uint32_t x = hash32(f, key);
    return Pair{x, hash32(f, x ^ 0x9e3779b9u)};
}
FF_HD Pair bloom_pair(uint32_t f, uint32_t key) { return pair32(f, key); }
FF_HD Pair bloom_pair(uint32_t f, u128 key) {
    uint64_t fold = (uint64_t)(key >> 64) ^ rotl64((uint64_t)key, 29);
    if (f != HASH_MURMUR) return pair32(f, (uint32_t)(fold ^ (fold >> 32)));
    // MurmurHash3 x64_128 of one 8-byte key, seed 0: only the k1 tail step, then finalise.
    uint64_t k1 = rotl64(fold * 0x87c37b91114253d5ull, 31) * 0x4cf5ad432745937full;
    uint64_t h1 = k1 ^ 8, h2 = 8;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    return Pair{(uint32_t)(h1 >> 32), (uint32_t)(h2 >> 32)};
}

struct BloomLevelInfo {
    uint32_t len, m, k, slot;
};
struct Slot4 {
    uint32_t key, hop;
};
struct Slot6High {
    uint64_t key;
    uint32_t hop, pad;
};
struct Slot6Full {
    uint64_t key_lo, key_hi;
    uint32_t hop, pad[3];
};

// One level as the lookup reads it: its filter, its table (`slots` of the level's layout),
// log2 of the table size, and the key mask.
template <class Addr>
struct BloomLevel {
    const uint64_t* filter;
    const void* slots;
    Addr mask;
    uint32_t len, m, k, slot, shift;
};

template <class Addr, int MAX_LEVELS>
struct BloomView {
    const uint32_t* direct;
    BloomLevel<Addr> level[MAX_LEVELS];
    uint32_t levels, hash, direct_bits, default_hop;
};

FF_HD bool filter_pass(const uint64_t* filter, uint32_t m, uint32_t k, Pair p) {
    bool all = true;
    uint32_t h = p.x;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t bit = (uint32_t)(((uint64_t)h * m) >> 32);
        all &= (ld(&filter[bit >> 6]) >> (bit & 63)) & 1;
        h += p.y;
    }
    return all;
}

FF_HD Slot4 ld_slot(const Slot4* p) {
    uint64_t w = ld((const uint64_t*)p);
    return Slot4{(uint32_t)w, (uint32_t)(w >> 32)};
}
FF_HD Slot6High ld_slot(const Slot6High* p) {
    const uint64_t* w = (const uint64_t*)p;
    return Slot6High{ld(w), (uint32_t)ld(w + 1), 0};
}
FF_HD Slot6Full ld_slot(const Slot6Full* p) {
    const uint64_t* w = (const uint64_t*)p;
    return Slot6Full{ld(w), ld(w + 1), (uint32_t)ld(w + 2), {0, 0, 0}};
}

FF_HD bool slot_matches(const Slot4& s, uint32_t key) { return s.key == key; }
FF_HD bool slot_matches(const Slot6High& s, u128 key) { return s.key == (uint64_t)(key >> 64); }
FF_HD bool slot_matches(const Slot6Full& s, u128 key) {
    return s.key_lo == (uint64_t)key && s.key_hi == (uint64_t)(key >> 64);
}

// The hop stored for `key` in a table of 2^(32 - shift) slots, or 0.
template <class Slot, class Addr>
FF_HD uint32_t table_get(const Slot* slots, uint32_t shift, Addr key, uint32_t x) {
    uint32_t mask = (uint32_t)(0xffffffffu >> shift);
    for (uint32_t i = (x * 0x2c1b3c6du) >> shift;; i = (i + 1) & mask) {
        Slot s = ld_slot(&slots[i]);
        if (s.hop == 0) return 0;
        if (slot_matches(s, key)) return s.hop;
    }
}

template <class Addr>
FF_HD uint32_t level_get(const BloomLevel<Addr>& l, Addr key, uint32_t x);

template <>
FF_HD uint32_t level_get<uint32_t>(const BloomLevel<uint32_t>& l, uint32_t key, uint32_t x) {
    return table_get((const Slot4*)l.slots, l.shift, key, x);
}
template <>
FF_HD uint32_t level_get<u128>(const BloomLevel<u128>& l, u128 key, uint32_t x) {
    if (l.slot == 1) return table_get((const Slot6High*)l.slots, l.shift, key, x);
    return table_get((const Slot6Full*)l.slots, l.shift, key, x);
}

template <class Addr, int MAX_LEVELS>
FF_HD uint32_t bloom_lookup(const BloomView<Addr, MAX_LEVELS>& t, Addr a) {
    for (uint32_t i = 0; i < t.levels; i++) {
        const BloomLevel<Addr>& l = t.level[i];
        Addr key = a & l.mask;
        Pair p = bloom_pair(t.hash, key);
        if (filter_pass(l.filter, l.m, l.k, p)) {
            uint32_t hop = level_get(l, key, p.x);
            if (hop) return hop;
        }
    }
    return t.direct_bits ? ld(&t.direct[top_bits(a, t.direct_bits)]) : t.default_hop;
}

}  // namespace ff
