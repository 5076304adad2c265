#!/usr/bin/env python3
"""Prints the README's results table from a `fibforge bench` report.

Usage: tools/readme-results.py [bench-report/bench.json]

One row per (algorithm, implementation, mode) of the single-thread rows, IPv4 and IPv6 side by
side: memory, uniform random rate, the IPv6 in-prefix rate, and "x DPDK": the random rate over
DPDK's in the same call mode on the same table (single rows: rte_lpm / rte_lpm6 single; batch
rows: the fastest DPDK batch row; "-" when DPDK was not measured), as the bench's `xdpdk`
column. The README pastes its output below the run's date and machine.
"""
import json
import sys
from collections import OrderedDict


def rate(rows, family, traffic):
    """Single-thread Mlps of the row of `family` and `traffic` (the C harness's rows count as
    their traffic), or None."""
    for r in rows:
        same = r["traffic"] in (traffic, f"{traffic} (C)")
        if r["family"] == family and same and r.get("mlps") is not None:
            return r["mlps"], r.get("memory_bytes")
    return None, None


def fmt(x, digits=1):
    return "-" if x is None else f"{x:.{digits}f}"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench-report/bench.json"
    with open(path) as f:
        report = json.load(f)
    groups = OrderedDict()
    for r in report["results"]:
        if r.get("threads", 1) != 1:
            continue
        key = (r["algo"], r["impl"], r["mode"])
        groups.setdefault(key, []).append(r)
    base = {}
    for fam, peer in (("ipv4", "rte_lpm"), ("ipv6", "rte_lpm6")):
        single = rate(groups.get((peer, "dpdk", "single"), []), fam, "random")[0]
        batches = [rate(rows, fam, "random")[0] for (a, i, m), rows in groups.items()
                   if i == "dpdk" and m == "batch"]
        batches = [b for b in batches if b is not None]
        base[(fam, "single")] = single
        base[(fam, "batch")] = max(batches) if batches else None
    print("| algorithm | impl | mode | IPv4 MiB | IPv4 random Mlps | IPv4 × rte_lpm "
          "| IPv6 MiB | IPv6 random Mlps | IPv6 in-prefix Mlps | IPv6 × rte_lpm6 |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for (algo, impl, mode), rows in groups.items():
        cells = []
        for fam in ("ipv4", "ipv6"):
            rnd, mem = rate(rows, fam, "random")
            mib = None if mem is None else mem / 2**20
            ref = base[(fam, mode)]
            ratio = None if rnd is None or not ref else rnd / ref
            cells.append(fmt(mib, 2))
            cells.append(fmt(rnd))
            if fam == "ipv6":
                cells.append(fmt(rate(rows, fam, "in-prefix")[0]))
            cells.append(fmt(ratio, 2))
        if all(c == "-" for c in cells):
            continue
        print(f"| {algo} | {impl} | {mode} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
