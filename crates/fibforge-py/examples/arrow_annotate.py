"""Issue 52 item 3 measurements: annotating Arrow columns on one thread.

    python3 crates/fibforge-py/examples/arrow_annotate.py [data/ris2015-as3856.tsv.gz] [rows]

1. a Polars column of IPv4 strings with 1 % nulls, ``pl.col("ip").fibforge.lookup(t)``
   (struct of prefix and value) and ``lookup_batch`` on the Series (value ids);
2. a ``uint32`` column (pyarrow), ``lookup_batch`` and ``lookup_arrow(fields="value")``;
3. DuckDB over a Parquet file of the strings, ``SELECT count(asn(ip))`` end to end.
Each figure is the best of 3 runs, in million rows per second.
"""

import os
import sys
import tempfile
import time

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa

import fibforge
import fibforge.duckdb
import fibforge.polars  # noqa: F401


def best(f, runs=3):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "data/ris2015-as3856.tsv.gz"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
    t = fibforge.Table.load(path, value="origin_as", family="ipv4")
    rng = np.random.default_rng(52)
    ints = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    # Dotted quads from the integers, through pyarrow compute.
    import pyarrow.compute as pc
    octets = [pc.cast(pc.bit_wise_and(pc.shift_right(pa.array(ints), s), 255), pa.string()) for s in (24, 16, 8, 0)]
    dotted = pc.binary_join_element_wise(*octets, ".")
    nulls = pa.array(rng.random(n) < 0.01)
    dotted = pc.if_else(nulls, pa.scalar(None, pa.string()), dotted)
    s = pl.Series("ip", dotted)
    df = pl.DataFrame({"ip": s})
    print(f"rows: {n:,}, nulls: {s.null_count():,}, Series dtype {s.dtype}, table {len(t):,} routes")

    def rate(label, seconds):
        print(f"{label:60s} {n / seconds / 1e6:7.1f} M rows/s ({seconds:.3f} s)")

    rate("polars: lookup_batch(Series) (value ids)", best(lambda: t.lookup_batch(s)))
    rate("polars: lookup_batch(Series.to_arrow()) (value ids)", best(lambda: t.lookup_batch(s.to_arrow())))
    rate("polars: pl.col('ip').fibforge.lookup(t) (prefix, value)",
         best(lambda: df.select(pl.col("ip").fibforge.lookup(t))))
    rate("polars: pl.col('ip').fibforge.lookup(t, fields='value')",
         best(lambda: df.select(pl.col("ip").fibforge.lookup(t, fields="value"))))
    u32 = pa.array(ints, pa.uint32())
    rate("uint32 (pyarrow): lookup_batch (value ids)", best(lambda: t.lookup_batch(u32)))
    rate("uint32 (numpy): lookup_batch (value ids)", best(lambda: t.lookup_batch(ints)))
    rate("uint32 (pyarrow): lookup_arrow(fields='value')", best(lambda: t.lookup_arrow(u32, fields="value")))
    with tempfile.TemporaryDirectory() as tmp:
        parquet = os.path.join(tmp, "flows.parquet")
        df.write_parquet(parquet)
        con = duckdb.connect()
        con.execute("SET threads = 1")
        fibforge.duckdb.register(con, "asn", t)
        query = f"SELECT count(asn(ip)) FROM '{parquet}'"
        rate("duckdb: SELECT count(asn(ip)) FROM parquet (1 thread)", best(lambda: con.execute(query).fetchall()))
        query0 = f"SELECT count(ip) FROM '{parquet}'"
        rate("duckdb: SELECT count(ip) FROM parquet (no lookup)", best(lambda: con.execute(query0).fetchall()))


if __name__ == "__main__":
    main()
