"""Markdown tables of a device check report (gpu/device-check.sh), for docs/lab/gpu.md:

    python3 gpu/summary.py docs/lab/gpu/2026-11-27-h200-run2.json
"""
import json
import sys


def g(x):
    return f"{x / 1e9:.2f}"


def main(path):
    runs = sorted(json.load(open(path))["runs"], key=lambda r: (r["family"], r["label"]))
    link = next((r for r in runs if "h2d_GBps" in r), None)
    gpu = runs[0]["gpu"]
    print(f"GPU: {gpu}, {runs[0]['sms']:.0f} SMs, L2 {runs[0]['l2_bytes'] / 2**20:.0f} MiB; "
          f"host CPU threads: {runs[0]['cpu_threads']:.0f}.")
    if link:
        print(f"Pinned copies: host→device {link['h2d_GBps']:.1f} GB/s, device→host {link['d2h_GBps']:.1f} GB/s.")
    print()
    print("| structure | export MB | kernel only, 2^26 (G/s) | best with transfers (G/s) | PCIe bound (G/s) "
          "| latency 2^10 / 2^16 / 2^20 (µs) | probes, answers checked | mismatches |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        b = {x["log2"]: x for x in r["batches"]}
        top = b[max(b)]
        best_t = max(x["pipelined_lookups_per_s"] for x in r["batches"])
        addr = r["bytes_per_lookup_transferred"] - 4
        bound = min(link["h2d_GBps"] / addr, link["d2h_GBps"] / 4) * 1e9 if link else float("nan")
        lat = " / ".join(f"{b[k]['latency_s'] * 1e6:.0f}" for k in (10, 16, 20) if k in b)
        bad = r["probe_mismatches_gpu"] + r["probe_mismatches_host"] + r["answer_mismatches"]
        print(f"| {r['label']} | {r['export_bytes'] / 1e6:.1f} | {g(top['kernel_lookups_per_s'])} | {g(best_t)} "
              f"| {g(bound)} | {lat} | {r['probes']:.0f}, {r['answers_checked']:.3g} | {bad:.0f} |")
    print()
    print("| structure | GPU alone with transfers (G/s) | CPU alone, 15 threads (G/s) | ideal 1 + CPU/GPU "
          "| best split (G/s) | GPU share | speedup | CPU part rate during the split (G/s) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        c = r["cooperative"]
        best = max(c["splits"], key=lambda s: s["lookups_per_s"])
        cpu15 = max(s["cpu_alone_lookups_per_s"] for s in c["splits"])
        gpu_alone = c["gpu_alone_lookups_per_s"]
        print(f"| {r['label']} | {g(gpu_alone)} | {g(cpu15)} | {1 + cpu15 / gpu_alone:.2f}× "
              f"| {g(best['lookups_per_s'])} | {best['gpu_share']:.3f} ({best['cpu_threads']} threads) "
              f"| {best['lookups_per_s'] / gpu_alone:.2f}× | {g(best['cpu_part_lookups_per_s'])} |")


if __name__ == "__main__":
    main(sys.argv[1])
