#!/usr/bin/env python3
"""Prints, or writes into Markdown files, the results table of a `fibforge bench` report.

Usage:
  tools/readme-results.py [bench-report/bench.json]             print the full table
  tools/readme-results.py BENCH.json --write README.md docs/results/bench.md

With --write, each file's block between `<!-- results:begin -->` (or `<!-- results:begin all
-->`) and `<!-- results:end -->` is replaced by the run's one-line description (command, date,
commit, machine, tables) and its table: the README's short selection of rows (SHORT below), or
with `all` every single-thread row. Text outside the markers is left alone, so a page states
its command, machine and date once, inside the block, and a new run rewrites all of it.

One row per (algorithm, implementation, mode) of the single-thread rows, IPv4 and IPv6 side by
side: memory, uniform random rate, the IPv6 in-prefix rate, and "x DPDK": the random rate over
DPDK's in the same call mode on the same table (single rows: rte_lpm / rte_lpm6 single; batch
rows: the fastest DPDK batch row; "-" when DPDK was not measured), as the bench's `xdpdk`
column.
"""
import json
import re
import sys
from collections import OrderedDict

# The README's rows: the default structure, its option, the fastest of the other families, the
# plain trie for scale, and the peers (DPDK's reference rows, Go's bart, two Rust crates);
# rows a run lacks (rte_fib6_avx512 without AVX-512) are left out.
SHORT = [
    ("poptrie", "fibforge"), ("bplus", "fibforge"), ("dxr18", "fibforge"),
    ("sail_l", "fibforge"), ("dir24_8", "fibforge"), ("radix", "fibforge"), ("rte_lpm", "dpdk"), ("rte_fib", "dpdk"),
    ("rte_lpm6", "dpdk"), ("rte_fib6", "dpdk"), ("rte_fib6_avx512", "dpdk"), ("bart", "bart"),
    ("prefix_trie", "prefix-trie"), ("poptrie_crate", "poptrie"),
]
BEGIN = re.compile(r"^<!-- results:begin( all)? -->$")
END = "<!-- results:end -->"


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


def table(report, short=False):
    """The results table as Markdown lines."""
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
    lines = ["| algorithm | impl | mode | IPv4 MiB | IPv4 random Mlps | IPv4 × rte_lpm "
             "| IPv6 MiB | IPv6 random Mlps | IPv6 in-prefix Mlps | IPv6 × rte_lpm6 |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    keys = list(groups)
    if short:
        keys = [k for k in keys if (k[0], k[1]) in SHORT]
        keys.sort(key=lambda k: SHORT.index((k[0], k[1])))
    for algo, impl, mode in keys:
        rows = groups[(algo, impl, mode)]
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
        lines.append(f"| {algo} | {impl} | {mode} | " + " | ".join(cells) + " |")
    return lines


def machine_line(report):
    """Command, date, commit, machine and tables of the run, in one paragraph."""
    run, m = report.get("run", {}), report.get("machine", {})
    argv = run.get("argv") or ["fibforge", "bench"]
    command = "fibforge " + " ".join(argv[1:]) if len(argv) > 1 else "fibforge"
    when = (run.get("started_utc") or "?").replace("T", " ")[:16] + " UTC"
    commit = (run.get("git_commit") or "unknown")[:7]
    flags = m.get("flags", [])
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else m.get("arch", "")
    caches = ", ".join(f"{c['size']} L{c['level']}{'d' if c.get('kind') == 'Data' else ''}"
                       for c in m.get("caches", []) if c.get("kind") != "Instruction")
    tables = ", ".join(
        f"`{t['name']}` ({t['ipv4_prefixes'] + t['ipv6_prefixes']:,} routes)"
        for t in report.get("tables", []))
    settings = report.get("settings")
    repeats = settings.get("repeats") if isinstance(settings, dict) else None
    rows = [r for r in report["results"] if r.get("mismatches") is not None]
    bad = sum(r["mismatches"] for r in rows)
    load = run.get("load_before")
    return (f"Command `{command}`, run {when} (commit {commit}) on {m.get('cpu_model', '?')}"
            + (f" ({caches})" if caches else "") + ", "
            + f"{m.get('logical_cpus', '?')} logical CPUs, {isa}"
            + (f" (load average {load[0]:.2f} at the start)" if load else "")
            + f"; tables {tables}; medians of {repeats or '?'} repeats, "
            f"every row verified against the RIB before timing ({bad} mismatches).")


def block(report, full):
    return [machine_line(report), ""] + table(report, short=not full)


def write(path, report):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, i, found = [], 0, 0
    while i < len(lines):
        m = BEGIN.match(lines[i].strip())
        if not m:
            out.append(lines[i])
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == END), None)
        if end is None:
            sys.exit(f"{path}:{i + 1}: {lines[i].strip()} without {END}")
        out += [lines[i], ""] + block(report, full=bool(m.group(1))) + ["", END]
        i, found = end + 1, found + 1
    if not found:
        sys.exit(f"{path}: no <!-- results:begin --> block")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    print(f"{path}: {found} results block(s) rewritten")


def main():
    args = sys.argv[1:]
    targets = []
    if "--write" in args:
        k = args.index("--write")
        args, targets = args[:k], args[k + 1:]
        if not targets:
            sys.exit("--write needs at least one Markdown file")
    path = args[0] if args else "bench-report/bench.json"
    with open(path) as f:
        report = json.load(f)
    if not targets:
        print("\n".join(block(report, full=True)))
    for t in targets:
        write(t, report)


if __name__ == "__main__":
    main()
