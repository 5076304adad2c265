// The host build of the GPU lookups (gpu/lookup.h), checked against the RIB oracle's answers:
//   host_check EXPORT PROBES
// loads a file `fibforge export` wrote and the probe file written beside it, looks every probe
// up with the same function the kernels run, and exits 1 on any mismatch (CI runs it).
#include <cstdio>

#include "views.h"

namespace {

template <class View, class Addr>
size_t mismatches(const View& v, const std::vector<Addr>& addrs, const std::vector<uint32_t>& want) {
    size_t bad = 0;
    for (size_t i = 0; i < addrs.size(); i++) {
        uint32_t got = ff::lookup(v, addrs[i]);
        if (got != want[i] && bad++ < 5)
            std::fprintf(stderr, "probe %zu: got %u, oracle %u\n", i, got, want[i]);
    }
    return bad;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: host_check EXPORT PROBES\n");
        return 2;
    }
    try {
        ff::ExportFile e = ff::read_export(argv[1]);
        ff::Probes p = ff::read_probes(argv[2]);
        if (p.family != e.family) throw std::runtime_error("probe and export families differ");
        size_t bad = 0;
        ff::Where host = [&](size_t i) -> const void* { return e.arrays[i].data; };
        ff::with_view(e, host, [&](const auto& v, auto tag) {
            if constexpr (sizeof(tag) == 4) bad = mismatches(v, p.v4, p.answers);
            else bad = mismatches(v, p.v6, p.answers);
        });
        std::printf("host_check: %s IPv%u: %zu probes, %zu mismatches\n", ff::algorithm_name(e.algorithm),
                    e.family, p.size(), bad);
        return bad ? 1 : 0;
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "host_check: %s\n", ex.what());
        return 2;
    }
}
