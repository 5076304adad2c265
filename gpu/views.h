// From an export file to the view its lookup reads, with every array length the view indexes
// checked. `where(i)` says where array `i` lives: in the file's bytes (host lookups) or in a
// device copy (kernels), so one function builds both.
//
// `with_view(file, where, f)` calls `f(view, addr_tag)` with the view of the file's structure
// and an address of its family (uint32_t or u128) as a type tag.
#pragma once

#include <functional>
#include <string>

#include "export_file.h"

namespace ff {

// A view is a kernel parameter: at most 32 levels (the default DPCPE has 5; `levels=0` on a
// table with more lengths is refused).
constexpr int MAX_BLOOM_LEVELS = 32;

using Where = std::function<const void*(size_t)>;

inline void need(bool ok, const std::string& what) {
    if (!ok) throw std::runtime_error("export: " + what);
}

template <class Word, int LEVELS, class F>
void with_sail(const ExportFile& e, const Where& at, F&& f) {
    need(e.params[1] == LEVELS && e.arrays.size() == LEVELS + 1, "sail_l level count");
    need(e.arrays[0].count == 65536 && e.arrays[0].elem == sizeof(Word), "sail_l top");
    SailView<Word, LEVELS> v;
    v.top = (const Word*)at(0);
    for (int k = 0; k < LEVELS; k++) {
        need(e.arrays[k + 1].elem == sizeof(Word) && e.arrays[k + 1].count % 256 == 0, "sail_l level");
        v.level[k] = (const Word*)at(k + 1);
    }
    if constexpr (LEVELS == 2) f(v, uint32_t{});
    else f(v, u128{});
}

template <class Leaf, class Addr, class F>
void with_poptrie(const ExportFile& e, const Where& at, F&& f) {
    uint32_t s = (uint32_t)e.params[0];
    need(s <= 24 && e.arrays.size() == 3, "poptrie shape");
    need(e.arrays[0].count == (1ull << s) && e.arrays[0].elem == 4, "poptrie dir");
    need(e.arrays[1].elem == sizeof(PoptrieNode) && e.arrays[2].elem == sizeof(Leaf), "poptrie sizes");
    PoptrieView<Leaf> v{(const uint32_t*)at(0), (const PoptrieNode*)at(1), (const Leaf*)at(2), s};
    f(v, Addr{});
}

template <class Addr, class F>
void with_bloom(const ExportFile& e, const Where& at, F&& f) {
    BloomView<Addr, MAX_BLOOM_LEVELS> v{};
    v.levels = (uint32_t)e.params[1];
    v.hash = (uint32_t)e.params[0];
    v.direct_bits = (uint32_t)e.params[2];
    v.default_hop = (uint32_t)e.params[3];
    need(v.levels <= MAX_BLOOM_LEVELS && e.arrays.size() == 2 + 2 * v.levels, "bloomfwd level count");
    need(v.direct_bits <= 24 && e.arrays[0].count == (v.direct_bits ? 1ull << v.direct_bits : 0),
         "bloomfwd direct array");
    need(e.arrays[1].elem == 16 && e.arrays[1].count == v.levels, "bloomfwd level records");
    v.direct = (const uint32_t*)at(0);
    const uint32_t width = sizeof(Addr) * 8;
    for (uint32_t i = 0; i < v.levels; i++) {
        BloomLevelInfo info = le<BloomLevelInfo>(e.arrays[1].data + 16 * i);
        const ArrayRef &filter = e.arrays[2 + 2 * i], &table = e.arrays[3 + 2 * i];
        const uint32_t slot_bytes[] = {8, 16, 32};
        need(info.len >= 1 && info.len <= width && info.slot <= 2, "bloomfwd level record");
        need(filter.elem == 8 && filter.count == (info.m + 63ull) / 64, "bloomfwd filter");
        need(table.elem == slot_bytes[info.slot] && table.count >= 4 && !(table.count & (table.count - 1)),
             "bloomfwd table");
        BloomLevel<Addr>& l = v.level[i];
        l.filter = (const uint64_t*)at(2 + 2 * i);
        l.slots = at(3 + 2 * i);
        l.len = info.len;
        l.m = info.m;
        l.k = info.k;
        l.slot = info.slot;
        l.shift = 32 - (uint32_t)__builtin_ctzll(table.count);
        l.mask = info.len == width ? ~Addr(0) : ~(~Addr(0) >> info.len);
    }
    f(v, Addr{});
}

// Calls `f(view, addr_tag)` for the structure in `e`.
template <class F>
void with_view(const ExportFile& e, const Where& at, F&& f) {
    bool v4 = e.family == 4;
    switch (e.algorithm) {
        case 1:
            if (e.params[0] == 2) v4 ? with_sail<uint16_t, 2>(e, at, f) : with_sail<uint16_t, 6>(e, at, f);
            else if (e.params[0] == 4) v4 ? with_sail<uint32_t, 2>(e, at, f) : with_sail<uint32_t, 6>(e, at, f);
            else need(false, "sail_l word size");
            return;
        case 2:
            switch (e.params[1]) {
                case 1: return v4 ? with_poptrie<uint8_t, uint32_t>(e, at, f) : with_poptrie<uint8_t, u128>(e, at, f);
                case 2: return v4 ? with_poptrie<uint16_t, uint32_t>(e, at, f) : with_poptrie<uint16_t, u128>(e, at, f);
                case 4: return v4 ? with_poptrie<uint32_t, uint32_t>(e, at, f) : with_poptrie<uint32_t, u128>(e, at, f);
            }
            need(false, "poptrie leaf size");
            return;
        case 3:
            return v4 ? with_bloom<uint32_t>(e, at, f) : with_bloom<u128>(e, at, f);
    }
    need(false, "unknown algorithm " + std::to_string(e.algorithm));
}

// The lookup of each view type, under one name.
template <class W, int L, class Addr>
FF_HD uint32_t lookup(const SailView<W, L>& v, Addr a) { return sail_lookup(v, a); }
template <class Leaf, class Addr>
FF_HD uint32_t lookup(const PoptrieView<Leaf>& v, Addr a) { return poptrie_lookup(v, a); }
template <class Addr, int N>
FF_HD uint32_t lookup(const BloomView<Addr, N>& v, Addr a) { return bloom_lookup(v, a); }

inline const char* algorithm_name(uint32_t a) {
    return a == 1 ? "sail_l" : a == 2 ? "poptrie" : a == 3 ? "bloomfwd" : "?";
}

}  // namespace ff
