// GPU lookups of a fibforge export, verified and measured (issue 24):
//   driver EXPORT PROBES LABEL [--max-log N] [--json FILE]
//
// 1. Every probe (the RIB oracle's answers, written by `fibforge export --probes`) is looked up
//    on the GPU and by the host build of the same function: 0 mismatches required.
// 2. A batch of 2^max-log addresses (IPv4: uniform random; IPv6: the probes with random low 64
//    bits) gets expected answers from the host function on every CPU thread; every answer the
//    GPU gives in the timed runs below is compared with them.
// 3. For batch sizes 2^10, 2^12, ... 2^max-log: kernel-only rate (addresses already on the GPU),
//    the latency of one batch end to end (copy in, kernel, copy out, pinned memory), and the
//    rate of a stream of such batches over 4 CUDA streams (copies overlapping kernels).
// 4. Cooperative execution (Bloomfwd §4.4): the big batch split between the GPU (pipelined,
//    transfers included) and CPU threads running the host build of the lookup, the split ratio
//    tuned around the ratio of the two rates measured alone.
// The report is one JSON object (stdout, or --json FILE).
#if defined(FF_FAKE_CUDA)
#include "fake_cuda.h"
#else
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "views.h"

using ff::u128;

#define CUDA(call)                                                                                  \
    do {                                                                                            \
        cudaError_t err_ = (call);                                                                  \
        if (err_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            std::exit(3);                                                                           \
        }                                                                                           \
    } while (0)

namespace {

constexpr int STREAMS = 4;
constexpr int BLOCK = 256;

int g_sms = 0;

#if defined(FF_FAKE_CUDA)
template <class View, class Addr>
void launch(const View& v, const Addr* in, uint32_t* out, size_t n, cudaStream_t) {
    for (size_t i = 0; i < n; i++) out[i] = ff::lookup(v, in[i]);
}
#else
template <class View, class Addr>
__global__ void lookup_kernel(View v, const Addr* __restrict__ in, uint32_t* __restrict__ out, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = ff::lookup(v, in[i]);
}

// A grid of at most 64 blocks per multiprocessor, each thread striding over the batch.
template <class View, class Addr>
void launch(const View& v, const Addr* in, uint32_t* out, size_t n, cudaStream_t s) {
    size_t blocks = std::min<size_t>((n + BLOCK - 1) / BLOCK, (size_t)g_sms * 64);
    lookup_kernel<<<(unsigned)blocks, BLOCK, 0, s>>>(v, in, out, n);
}
#endif

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

uint64_t splitmix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Runs f(begin, end) over [0, n) on `threads` threads.
template <class F>
void parallel(size_t n, unsigned threads, F f) {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; t++)
        pool.emplace_back([=] { f(n * t / threads, n * (t + 1) / threads); });
    for (auto& th : pool) th.join();
}

unsigned cpu_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

void fill(uint32_t* a, size_t n, const ff::Probes&) {
    parallel(n, cpu_threads(), [=](size_t b, size_t e) {
        for (size_t i = b; i < e; i++) a[i] = (uint32_t)splitmix(i);
    });
}
void fill(u128* a, size_t n, const ff::Probes& p) {
    parallel(n, cpu_threads(), [=, &p](size_t b, size_t e) {
        for (size_t i = b; i < e; i++) {
            uint64_t r = splitmix(i);
            a[i] = (p.v6[r % p.v6.size()] & ~(u128)0 << 64) | splitmix(r);
        }
    });
}

const std::vector<uint32_t>& probe_addrs(const ff::Probes& p, uint32_t) { return p.v4; }
const std::vector<u128>& probe_addrs(const ff::Probes& p, u128) { return p.v6; }

struct Report {
    std::string json;
    void field(const char* k, const std::string& v, bool str = false) {
        if (json.size() > 1) json += ", ";
        json += "\"" + std::string(k) + "\": " + (str ? "\"" + v + "\"" : v);
    }
    void num(const char* k, double v) {
        char b[64];
        std::snprintf(b, sizeof b, v == (double)(long long)v ? "%.0f" : "%.6g", v);
        field(k, b);
    }
};

// Host <-> device copy bandwidth with pinned memory, GB/s.
void pcie(Report& r) {
    size_t n = 512ull << 20;
    void *h, *d;
    CUDA(cudaHostAlloc(&h, n, cudaHostAllocDefault));
    CUDA(cudaMalloc(&d, n));
    std::memset(h, 1, n);
    std::vector<double> up, down;
    for (int i = 0; i < 5; i++) {
        double t = now_s();
        CUDA(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
        up.push_back(n / (now_s() - t) / 1e9);
        t = now_s();
        CUDA(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost));
        down.push_back(n / (now_s() - t) / 1e9);
    }
    r.num("h2d_GBps", median(up));
    r.num("d2h_GBps", median(down));
    CUDA(cudaFreeHost(h));
    CUDA(cudaFree(d));
}

struct Run {
    const char* label;
    int max_log;
};

template <class View, class Addr>
struct Bench {
    const View& dev;   // arrays on the GPU
    const View& host;  // the same arrays in host memory
    const ff::Probes& probes;
    Report& out;
    int max_log;
    size_t n = 0;
    Addr *h_in = nullptr, *d_in = nullptr;
    uint32_t *h_out = nullptr, *d_out = nullptr;
    std::vector<uint32_t> expected;
    size_t checked = 0, mismatched = 0;
    cudaStream_t streams[STREAMS];

    void check_probes() {
        const std::vector<Addr>& a = probe_addrs(probes, Addr{});
        size_t m = a.size(), host_bad = 0, gpu_bad = 0;
        Addr* d;
        uint32_t* o;
        CUDA(cudaMalloc(&d, m * sizeof(Addr)));
        CUDA(cudaMalloc(&o, m * 4));
        CUDA(cudaMemcpy(d, a.data(), m * sizeof(Addr), cudaMemcpyHostToDevice));
        launch(dev, d, o, m, 0);
        CUDA(cudaGetLastError());
        std::vector<uint32_t> got(m);
        CUDA(cudaMemcpy(got.data(), o, m * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < m; i++) {
            gpu_bad += got[i] != probes.answers[i];
            host_bad += ff::lookup(host, a[i]) != probes.answers[i];
        }
        CUDA(cudaFree(d));
        CUDA(cudaFree(o));
        out.num("probes", (double)m);
        out.num("probe_mismatches_gpu", (double)gpu_bad);
        out.num("probe_mismatches_host", (double)host_bad);
    }

    void setup() {
        n = 1ull << max_log;
        CUDA(cudaHostAlloc(&h_in, n * sizeof(Addr), cudaHostAllocDefault));
        CUDA(cudaHostAlloc(&h_out, n * 4, cudaHostAllocDefault));
        CUDA(cudaMalloc(&d_in, n * sizeof(Addr)));
        CUDA(cudaMalloc(&d_out, n * 4));
        fill(h_in, n, probes);
        expected.resize(n);
        Addr* in = h_in;
        uint32_t* exp = expected.data();
        const View& hv = host;
        double t = now_s();
        parallel(n, cpu_threads(), [=, &hv](size_t b, size_t e) {
            for (size_t i = b; i < e; i++) exp[i] = ff::lookup(hv, in[i]);
        });
        out.num("cpu_alone_lookups_per_s", n / (now_s() - t));
        out.num("cpu_threads", cpu_threads());
        CUDA(cudaMemcpy(d_in, h_in, n * sizeof(Addr), cudaMemcpyHostToDevice));
        for (auto& s : streams) CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    }

    // Compares h_out[lo, hi) with the expected answers.
    void verify(size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; i++) mismatched += h_out[i] != expected[i];
        checked += hi - lo;
    }

    double kernel_only(size_t b, int reps) {
        cudaEvent_t e0, e1;
        CUDA(cudaEventCreate(&e0));
        CUDA(cudaEventCreate(&e1));
        launch(dev, d_in, d_out, b, 0);
        std::vector<double> ms;
        for (int r = 0; r < reps; r++) {
            CUDA(cudaEventRecord(e0));
            launch(dev, d_in, d_out, b, 0);
            CUDA(cudaEventRecord(e1));
            CUDA(cudaEventSynchronize(e1));
            float t;
            CUDA(cudaEventElapsedTime(&t, e0, e1));
            ms.push_back(t);
        }
        CUDA(cudaGetLastError());
        CUDA(cudaMemcpy(h_out, d_out, b * 4, cudaMemcpyDeviceToHost));
        verify(0, b);
        return median(ms) / 1e3;
    }

    // One batch [lo, lo + b) through stream s: copy in, look up, copy out.
    void enqueue(size_t lo, size_t b, cudaStream_t s) {
        CUDA(cudaMemcpyAsync(d_in + lo, h_in + lo, b * sizeof(Addr), cudaMemcpyHostToDevice, s));
        launch(dev, d_in + lo, d_out + lo, b, s);
        CUDA(cudaMemcpyAsync(h_out + lo, d_out + lo, b * 4, cudaMemcpyDeviceToHost, s));
    }

    double latency(size_t b, int reps) {
        std::vector<double> t;
        for (int r = 0; r < reps + 1; r++) {
            double t0 = now_s();
            enqueue(0, b, streams[0]);
            CUDA(cudaStreamSynchronize(streams[0]));
            if (r) t.push_back(now_s() - t0);
        }
        verify(0, b);
        return median(t);
    }

    // Seconds for [0, total) in batches of b over the streams, copies included.
    double pipelined(size_t total, size_t b) {
        double t0 = now_s();
        for (size_t lo = 0, k = 0; lo < total; lo += b, k++) enqueue(lo, std::min(b, total - lo), streams[k % STREAMS]);
        CUDA(cudaDeviceSynchronize());
        double t = now_s() - t0;
        CUDA(cudaGetLastError());
        verify(0, total);
        return t;
    }

    void batches() {
        std::string rows = "[";
        for (int lg = 10; lg <= max_log; lg += 2) {
            size_t b = 1ull << lg;
            int reps = lg <= 18 ? 50 : lg <= 22 ? 10 : 5;
            double k = kernel_only(b, reps);
            double lat = latency(b, reps);
            size_t total = std::max(b, std::min(n, (size_t)1 << 24));
            std::vector<double> p;
            for (int r = 0; r < 3; r++) p.push_back(pipelined(total, b));
            double pt = median(p);
            char row[512];
            std::snprintf(row, sizeof row,
                          "%s{\"log2\": %d, \"batch\": %zu, \"kernel_s\": %.6g, \"kernel_lookups_per_s\": %.6g, "
                          "\"latency_s\": %.6g, \"pipelined_lookups_per_s\": %.6g}",
                          rows.size() > 1 ? ", " : "", lg, b, k, b / k, lat, total / pt);
            rows += row;
            std::fprintf(stderr, "  2^%d: kernel %.3g/s, latency %.3g ms, with transfers %.3g/s\n", lg, b / k,
                         lat * 1e3, total / pt);
        }
        out.field("batches", rows + "]");
    }

    // The CPU's share [lo, n) on `threads` threads.
    void cpu_share(size_t lo, unsigned threads) {
        Addr* in = h_in;
        uint32_t* o = h_out;
        const View& hv = host;
        parallel(n - lo, threads, [=, &hv](size_t b, size_t e) {
            for (size_t i = lo + b; i < lo + e; i++) o[i] = ff::lookup(hv, in[i]);
        });
    }

    struct Split {
        double total_s, gpu_s, cpu_s;  // wall time; when each side finished, from the start
    };

    // The whole batch with the first `ratio` on the GPU (chunks of 2^22 over the streams,
    // transfers included) and the rest on `threads` CPU threads at the same time. A host
    // callback at the end of each stream records when the GPU's part was done.
    Split cooperative(double ratio, unsigned threads) {
        size_t split = std::min(n, (size_t)(n * ratio) & ~(size_t)255), chunk = std::min(n, (size_t)1 << 22);
        std::fill(h_out, h_out + n, 0xffffffffu);
        static double gpu_done[STREAMS];
        double t0 = now_s();
        for (size_t lo = 0, k = 0; lo < split; lo += chunk, k++)
            enqueue(lo, std::min(chunk, split - lo), streams[k % STREAMS]);
        for (int k = 0; k < STREAMS; k++) {
            gpu_done[k] = t0;
            CUDA(cudaLaunchHostFunc(streams[k], [](void* at) { *(double*)at = now_s(); }, &gpu_done[k]));
        }
        if (split < n) cpu_share(split, threads);
        double cpu_end = now_s();
        CUDA(cudaDeviceSynchronize());
        Split r{now_s() - t0, *std::max_element(gpu_done, gpu_done + STREAMS) - t0, cpu_end - t0};
        CUDA(cudaGetLastError());
        verify(0, n);
        return r;
    }

    Split median_of(double ratio, unsigned threads, int reps) {
        std::vector<Split> runs;
        for (int i = 0; i < reps; i++) runs.push_back(cooperative(ratio, threads));
        std::sort(runs.begin(), runs.end(), [](const Split& a, const Split& b) { return a.total_s < b.total_s; });
        return runs[runs.size() / 2];
    }

    // Bloomfwd §4.4 on this machine: the GPU alone (transfers included), the CPU threads alone,
    // then splits around the ratio of their rates, for several CPU thread counts. Each split
    // reports when each side finished, which shows whether they slow each other down.
    void coop() {
        double gpu = n / median_of(1.0, 1, 5).total_s;
        Report c;
        c.json = "{";
        c.num("batch", (double)n);
        c.num("gpu_alone_lookups_per_s", gpu);
        std::string tried = "[";
        double best = 0, best_r = 1, best_bound = 1;
        unsigned all = cpu_threads();
        for (unsigned threads : {all - 1, all / 2, 4u}) {
            double cpu = n / median_of(0.0, threads, 3).total_s, r0 = gpu / (gpu + cpu);
            for (double d : {-0.03, -0.015, 0.0, 0.015}) {
                double r = std::min(0.999, std::max(0.0, r0 + d));
                Split s = median_of(r, threads, 3);
                size_t split = std::min(n, (size_t)(n * r) & ~(size_t)255);
                char b[400];
                std::snprintf(b, sizeof b,
                              "%s{\"cpu_threads\": %u, \"cpu_alone_lookups_per_s\": %.6g, \"gpu_share\": %.4f, "
                              "\"lookups_per_s\": %.6g, \"gpu_part_s\": %.6g, \"cpu_part_s\": %.6g, "
                              "\"gpu_part_lookups_per_s\": %.6g, \"cpu_part_lookups_per_s\": %.6g}",
                              tried.size() > 1 ? ", " : "", threads, cpu, r, n / s.total_s, s.gpu_s, s.cpu_s,
                              split / s.gpu_s, (n - split) / s.cpu_s);
                tried += b;
                if (n / s.total_s > best) best = n / s.total_s, best_r = r, best_bound = 1 + cpu / gpu;
            }
        }
        c.field("splits", tried + "]");
        c.num("best_gpu_share", best_r);
        c.num("best_lookups_per_s", best);
        c.num("speedup_over_gpu_alone", best / gpu);
        c.num("ideal_speedup_at_best", best_bound);
        out.field("cooperative", c.json + "}");
        std::fprintf(stderr, "  cooperative: gpu %.3g/s, best split %.3g/s at gpu share %.3f (%.2fx; ideal %.2fx)\n", gpu,
                     best, best_r, best / gpu, best_bound);
    }

    void run() {
        check_probes();
        setup();
        batches();
        coop();
        out.num("answers_checked", (double)checked);
        out.num("answer_mismatches", (double)mismatched);
        out.num("bytes_per_lookup_transferred", sizeof(Addr) + 4.0);
        for (auto& s : streams) CUDA(cudaStreamDestroy(s));
        CUDA(cudaFreeHost(h_in));
        CUDA(cudaFreeHost(h_out));
        CUDA(cudaFree(d_in));
        CUDA(cudaFree(d_out));
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: driver EXPORT PROBES LABEL [--max-log N] [--json FILE] [--pcie]\n");
        return 2;
    }
    int max_log = 26;
    const char* json_path = nullptr;
    bool with_pcie = false;
    for (int i = 4; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--max-log" && i + 1 < argc) max_log = std::atoi(argv[++i]);
        else if (a == "--json" && i + 1 < argc) json_path = argv[++i];
        else if (a == "--pcie") with_pcie = true;
    }
    try {
        ff::ExportFile e = ff::read_export(argv[1]);
        ff::Probes p = ff::read_probes(argv[2]);
        if (p.family != e.family) throw std::runtime_error("probe and export families differ");
        cudaDeviceProp prop;
        CUDA(cudaGetDeviceProperties(&prop, 0));
        g_sms = prop.multiProcessorCount;
        Report r;
        r.json = "{";
        r.field("label", argv[3], true);
        r.field("gpu", prop.name, true);
        r.num("sms", g_sms);
        r.num("l2_bytes", prop.l2CacheSize);
        r.field("algorithm", ff::algorithm_name(e.algorithm), true);
        r.num("family", e.family);
        r.num("routes", (double)e.params[15]);
        r.num("export_bytes", (double)e.bytes.size());
        if (with_pcie) pcie(r);
        std::vector<void*> dev(e.arrays.size());
        for (size_t i = 0; i < e.arrays.size(); i++) {
            CUDA(cudaMalloc(&dev[i], std::max<uint64_t>(e.arrays[i].bytes(), 1)));
            CUDA(cudaMemcpy(dev[i], e.arrays[i].data, e.arrays[i].bytes(), cudaMemcpyHostToDevice));
        }
        ff::Where on_gpu = [&](size_t i) -> const void* { return dev[i]; };
        ff::Where on_host = [&](size_t i) -> const void* { return e.arrays[i].data; };
        std::fprintf(stderr, "%s (%s IPv%u) on %s\n", argv[3], ff::algorithm_name(e.algorithm), e.family, prop.name);
        ff::with_view(e, on_gpu, [&](const auto& dv, auto tag) {
            ff::with_view(e, on_host, [&](const auto& hv, auto tag2) {
                using DV = std::decay_t<decltype(dv)>;
                if constexpr (std::is_same_v<DV, std::decay_t<decltype(hv)>> &&
                              std::is_same_v<decltype(tag), decltype(tag2)>) {
                    Bench<DV, decltype(tag)>{dv, hv, p, r, max_log}.run();
                }
            });
        });
        for (void* d : dev) CUDA(cudaFree(d));
        std::string json = r.json + "}\n";
        if (json_path) {
            FILE* f = std::fopen(json_path, "w");
            if (!f) throw std::runtime_error(std::string(json_path) + ": cannot write");
            std::fputs(json.c_str(), f);
            std::fclose(f);
        }
        std::fputs(json.c_str(), stdout);
        return 0;
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "driver: %s\n", ex.what());
        return 2;
    }
}
