"""Annotates a column of addresses with origin AS and matched prefix length, as log
pipelines do, and prints rows/s: fibforge on text columns (numpy str_ and bytes_, a list
of str, a pyarrow string array) and on a uint32 column, then pyasn, py-radix and pytricia (where installed) on the same rows.

Usage: python bench_annotate.py [TABLE] [ROWS] [SAMPLE]
(defaults: data/ris2015-as3856.tsv.gz, 10,000,000 rows, 200,000 rows for the per-row
libraries, whose rate is per row and does not depend on the column's length).
Install the others for the comparison only: pip install pyasn py-radix pytricia
"""

import ipaddress
import pathlib
import sys
import tempfile
import time

import numpy as np

import fibforge

ROOT = pathlib.Path(__file__).resolve().parents[3]


def rate(label, rows, seconds):
    cpu = f", {rows / LAST_CPU[0] / 1e6:.2f} M rows per CPU second" if LAST_CPU[0] else ""
    print(f"{label:<52} {rows / seconds / 1e6:8.2f} M rows/s  ({rows:,} rows, {seconds:.2f} s{cpu})")


# The CPU time (all threads of this process) of the last `timed` call: on a loaded machine
# it says what one core would do better than the wall clock.
LAST_CPU = [0.0]


def timed(f):
    start, cpu = time.perf_counter(), time.process_time()
    result = f()
    LAST_CPU[0] = time.process_time() - cpu
    return result, time.perf_counter() - start


def other_text_columns(texts):
    """The same texts as a list of str, numpy bytes_ and (where installed) pyarrow string."""
    columns = {"list of str": texts.tolist(), "numpy bytes_": texts.astype("S")}
    try:
        import pyarrow

        columns["pyarrow string"] = pyarrow.array(columns["list of str"])
    except ImportError:
        print("pyarrow: not installed")
    return columns


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else ROOT / "data" / "ris2015-as3856.tsv.gz"
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
    sample = int(sys.argv[3]) if len(sys.argv) > 3 else 200_000
    table, seconds = timed(lambda: fibforge.Table.load(path, family="ipv4", value="origin_as"))
    print(f"loaded {len(table):,} routes in {seconds:.2f} s")
    ints = np.random.default_rng(42).integers(0, 2**32, rows, dtype=np.uint64).astype(np.uint32)
    unique = min(rows, 1_000_000)
    texts = np.array([str(ipaddress.IPv4Address(int(a))) for a in ints[:unique]])
    texts = np.resize(texts, rows)  # repeats the first million: parsing cost is per row
    ints = np.resize(ints[:unique], rows)

    for threads in (1, 2):
        (ids, lens), s = timed(lambda: table.lookup_batch(texts, lengths=True, threads=threads))
        rate(f"fibforge str_ column, value id + length, {threads} thr", rows, s)
    for name, column in other_text_columns(texts).items():
        try:
            (got_ids, got_lens), s = timed(lambda: table.lookup_batch(column, lengths=True))
        except TypeError as e:
            print(f"fibforge {name}: not accepted ({e})")
            continue
        rate(f"fibforge {name} column, value id + length, 1 thr", rows, s)
        assert (got_ids == ids).all() and (got_lens == lens).all()
    (ids_u, lens_u), s = timed(lambda: table.lookup_batch(ints, lengths=True))
    rate("fibforge uint32 column, value id + length, 1 thr", rows, s)
    assert (ids == ids_u).all() and (lens == lens_u).all()
    _, s = timed(lambda: table.values_of(ids_u))
    rate("fibforge values_of (ids to AS objects)", rows, s)

    part = [str(a) for a in texts[:sample]]
    # Routes without AS path (origin None here) get AS 0 in the others' tables.
    routes = [(p, 0 if asn is None else asn) for p, asn in table.routes()]
    want = table.values_of(ids[:sample], default="no route").tolist()
    want = [None if v == "no route" else (0 if v is None else v) for v in want]
    try:
        import pyasn

        with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
            f.write("".join(f"{p}\t{asn}\n" for p, asn in routes))
        db = pyasn.pyasn(f.name)
        got, s = timed(lambda: [db.lookup(a)[0] for a in part])
        rate("pyasn lookup() per row (AS + prefix)", sample, s)
        assert got == want, "pyasn disagrees"
    except ImportError:
        print("pyasn: not installed")
    except RuntimeError as e:  # pyasn 1.6.2 refuses this file's first record (0.0.0.0/0)
        print(f"pyasn: could not load the table: {e}")
    try:
        import radix

        rt = radix.Radix()
        for p, asn in routes:
            rt.add(p).data["asn"] = asn
        got, s = timed(lambda: [(n.data["asn"] if (n := rt.search_best(a)) else None) for a in part])
        rate("py-radix search_best per row", sample, s)
        assert got == want, "py-radix disagrees"
    except ImportError:
        print("py-radix: not installed")
    try:
        import pytricia

        pt = pytricia.PyTricia()
        for p, asn in routes:
            pt[p] = asn
        got, s = timed(lambda: [pt.get(a) for a in part])
        rate("pytricia get per row", sample, s)
        assert got == want, "pytricia disagrees"
    except ImportError:
        print("pytricia: not installed")


if __name__ == "__main__":
    main()
