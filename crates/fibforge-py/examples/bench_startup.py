"""Measures start-up from a routing table against start-up from its export file.

Usage: python bench_startup.py [TABLE] [ALGO] [REPEATS]
(defaults: data/ris2015-as3856.tsv.gz, poptrie, 3 repeats; prints medians). Writes the export
with fibforge.export into a temporary folder, then times, each REPEATS times: Table.load of
the table (read + compile) and of the export (read + checks, no compile), and `fibforge lookup
FILE 8.8.8.8` on each (Table.load and `fibforge lookup` of the table compile a Poptrie) (the whole process; the binary is $FIBFORGE, default
target/release/fibforge, skipped when absent). Every run checks that both answer alike.
"""

import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import fibforge

ROOT = pathlib.Path(__file__).resolve().parents[3]
ADDRESS = "8.8.8.8"


def timed(f):
    start = time.perf_counter()
    result = f()
    return time.perf_counter() - start, result


def median_of(repeats, f):
    runs = [timed(f) for _ in range(repeats)]
    return statistics.median(t for t, _ in runs), runs[-1][1]


def main():
    table = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "data" / "ris2015-as3856.tsv.gz"
    algo = sys.argv[2] if len(sys.argv) > 2 else "poptrie"
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    binary = pathlib.Path(os.environ.get("FIBFORGE", ROOT / "target" / "release" / "fibforge"))
    with tempfile.TemporaryDirectory() as tmp:
        export = pathlib.Path(tmp) / f"table.{algo}"
        seconds, _ = timed(lambda: fibforge.export(table, export, algo=algo, family="ipv4"))
        print(f"fibforge.export {algo}: {seconds:.3f} s, {export.stat().st_size:,} bytes")
        t_table, t = median_of(repeats, lambda: fibforge.Table.load(table, family="ipv4"))
        t_export, c = median_of(repeats, lambda: fibforge.Table.load(export))
        assert t.lookup(ADDRESS) == c.lookup(ADDRESS), "the export answers differently"
        print(f"Python Table.load(table):  {t_table:.3f} s (median of {repeats}, {len(t):,} routes)")
        print(f"Python Table.load(export): {t_export:.3f} s (median of {repeats}) -> {t_table / t_export:.0f}x")
        if not binary.exists():
            print(f"{binary} absent: CLI timings skipped")
            return
        outputs = {}
        for name, path in (("table", table), ("export", export)):
            command = [binary, "lookup", path, ADDRESS]
            seconds, out = median_of(repeats, lambda: subprocess.run(command, check=True, capture_output=True, text=True).stdout)
            outputs[name] = out.split("\t")[-1]
            print(f"fibforge lookup {name} {ADDRESS}: {seconds:.3f} s (median of {repeats}): {out.strip()}")
        assert outputs["table"] == outputs["export"], outputs


if __name__ == "__main__":
    main()
