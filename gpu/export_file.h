// Host-side reader of fibforge export and probe files (docs/reference/export-format.md): the container
// checks (magic, version, checksum, array table) and the views each lookup needs, with the
// lengths those views index checked. The index-by-index validation of a structure is the Rust
// importer's (`fibforge::export::import`); this reader takes files `fibforge export` wrote.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "lookup.h"

namespace ff {

struct ArrayRef {
    uint32_t elem;
    uint64_t count;
    const uint8_t* data;  // into ExportFile::bytes
    uint64_t bytes() const { return elem * count; }
};

struct ExportFile {
    std::vector<uint8_t> bytes;
    uint32_t algorithm = 0, family = 0;
    uint64_t params[16] = {};
    std::vector<ArrayRef> arrays;  // the algorithm's arrays (the next-hop text is dropped)
};

inline std::vector<uint8_t> read_all(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw std::runtime_error(path + ": cannot open");
    std::vector<uint8_t> out;
    uint8_t buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
    std::fclose(f);
    return out;
}

template <class T>
T le(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);  // the hosts and GPUs this runs on are little-endian
    return v;
}

inline uint64_t fnv1a64(const uint8_t* p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

inline ExportFile read_export(const std::string& path) {
    ExportFile e;
    e.bytes = read_all(path);
    const std::vector<uint8_t>& b = e.bytes;
    auto fail = [&](const std::string& why) { throw std::runtime_error(path + ": " + why); };
    if (b.size() < 160 || std::memcmp(b.data(), "FIBFEXP\0", 8) != 0) fail("not a fibforge export");
    if (le<uint32_t>(&b[8]) != 1) fail("format version is not 1");
    e.algorithm = le<uint32_t>(&b[12]);
    e.family = le<uint32_t>(&b[16]);
    uint32_t n = le<uint32_t>(&b[20]);
    if (n == 0 || n > 4096 || b.size() < 160 + 24ull * n) fail("bad array count");
    if (le<uint64_t>(&b[24]) != fnv1a64(&b[32], b.size() - 32)) fail("checksum mismatch");
    for (int i = 0; i < 16; i++) e.params[i] = le<uint64_t>(&b[32 + 8 * i]);
    uint64_t end = 160 + 24ull * n;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t* r = &b[160 + 24 * i];
        ArrayRef a{le<uint32_t>(r), le<uint64_t>(r + 8), nullptr};
        uint64_t off = le<uint64_t>(r + 16);
        if (a.elem == 0 || a.elem > 64 || a.count > b.size() / a.elem || off % 64 || off < end ||
            off > b.size() || b.size() - off < a.bytes())
            fail("array " + std::to_string(i) + " out of bounds");
        a.data = &b[off];
        end = off + a.bytes();
        e.arrays.push_back(a);
    }
    e.arrays.pop_back();  // next-hop values (text): not needed for lookups
    return e;
}

// A probe file: addresses with the RIB oracle's raw answers.
struct Probes {
    uint32_t family = 0;
    std::vector<uint32_t> v4;
    std::vector<u128> v6;
    std::vector<uint32_t> answers;
    size_t size() const { return answers.size(); }
};

inline Probes read_probes(const std::string& path) {
    std::vector<uint8_t> b = read_all(path);
    if (b.size() < 24 || std::memcmp(b.data(), "FIBFPRB\0", 8) != 0)
        throw std::runtime_error(path + ": not a fibforge probe file");
    Probes p;
    p.family = le<uint32_t>(&b[8]);
    uint64_t n = le<uint64_t>(&b[16]);
    size_t w = p.family == 4 ? 4 : 16;
    if ((p.family != 4 && p.family != 6) || (b.size() - 24) / (w + 4) != n || (b.size() - 24) % (w + 4))
        throw std::runtime_error(path + ": bad probe file length or family");
    const uint8_t* at = &b[24];
    for (uint64_t i = 0; i < n; i++, at += w) {
        if (w == 4) p.v4.push_back(le<uint32_t>(at));
        else p.v6.push_back(le<u128>(at));
    }
    for (uint64_t i = 0; i < n; i++, at += 4) p.answers.push_back(le<uint32_t>(at));
    return p;
}

}  // namespace ff
