"""Measures Table.lookup_batch on a numpy array of random IPv4 addresses.

Usage: python bench_batch.py [TABLE] [N] [REPEATS]
(defaults: data/ris2015-as3856.tsv.gz, 10,000,000 addresses, 5 repeats; prints the median).
Single-threaded runs also print the rate by the thread's CPU time, which a machine shared with
other work disturbs less than wall-clock time.
"""

import pathlib
import statistics
import sys
import time

import numpy as np

import fibforge

ROOT = pathlib.Path(__file__).resolve().parents[3]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else ROOT / "data" / "ris2015-as3856.tsv.gz"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    start = time.perf_counter()
    table = fibforge.Table.load(path, family="ipv4")
    print(f"loaded {len(table):,} routes in {time.perf_counter() - start:.2f} s")
    addrs = np.random.default_rng(42).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    out = np.empty(n, np.uint32)
    for threads, reuse in ((1, False), (1, True), (2, True)):
        wall, cpu = [], []
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.thread_time()
            result = table.lookup_batch(addrs, out=out if reuse else None, threads=threads)
            wall.append(time.perf_counter() - start)
            cpu.append(time.thread_time() - start_cpu)
        rate = n / statistics.median(wall) / 1e6
        hits = np.count_nonzero(result != fibforge.NO_ROUTE)
        mode = "out=reused" if reuse else "new array"
        by_cpu = f", {n / statistics.median(cpu) / 1e6:.1f} by CPU time" if threads == 1 else ""
        print(f"threads={threads}, {mode}: {rate:.1f} M lookups/s{by_cpu} (median of {repeats}), {hits:,} routed")


if __name__ == "__main__":
    main()
