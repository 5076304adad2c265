"""fibforge.polars (the ``fibforge`` expression namespace) and fibforge.duckdb (a vectorised
Arrow UDF), with the real packages (issue 52 item 3); skipped without them."""

import ipaddress
import time

import pytest

import fibforge

pa = pytest.importorskip("pyarrow")

ROWS = ["10.1.2.3", None, "11.0.0.1", "10.9.9.9", "2001:db8:1::5", "100.0.0.1"]


def want(table, rows):
    return [None if r is None else table.lookup_prefix(r) for r in rows]


def test_polars_expression_and_series(table):
    pl = pytest.importorskip("polars")
    import fibforge.polars  # noqa: F401  (registers the namespaces)

    df = pl.DataFrame({"ip": ROWS})
    got = df.select(pl.col("ip").fibforge.lookup(table).alias("r"))["r"].to_list()
    assert [None if r["prefix"] is None else (r["prefix"], r["value"]) for r in got] == want(table, ROWS)
    lazy = df.lazy().with_columns(asn=pl.col("ip").fibforge.lookup(table, fields="value")).collect()
    assert lazy["asn"].dtype == pl.Int64
    assert lazy["asn"].to_list() == [None if w is None else w[1] for w in want(table, ROWS)]
    ints = pl.Series("ip", [int(ipaddress.ip_address(r)) if r and "." in r else None for r in ROWS], pl.UInt32)
    v4 = [r if r and "." in r else None for r in ROWS]
    assert ints.fibforge.lookup(table, fields="prefix").to_list() == [w and w[0] for w in want(table, v4)]
    chunked = pl.concat([pl.Series("ip", ROWS[:3]), pl.Series("ip", ROWS[3:])], rechunk=False)
    assert chunked.n_chunks() == 2
    assert table.lookup_batch(chunked).tolist() == table.lookup_batch(ROWS).tolist()


def test_polars_series_is_not_slower_than_to_arrow(table):
    pl = pytest.importorskip("polars")
    s = pl.Series("ip", [f"10.{i % 256}.{i // 256 % 256}.1" for i in range(200_000)])

    def best(column):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            table.lookup_batch(column)
            times.append(time.perf_counter() - start)
        return min(times)

    direct, arrow = best(s), best(s.to_arrow())
    assert direct <= arrow * 1.5 + 0.002, (direct, arrow)


def test_duckdb_udf(table, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    import fibforge.duckdb

    con = duckdb.connect()
    fibforge.duckdb.register(con, "asn", table)
    fibforge.duckdb.register(con, "route", table, field="prefix")
    con.execute("CREATE TABLE flows (ip VARCHAR)")
    con.executemany("INSERT INTO flows VALUES (?)", [[r] for r in ROWS])
    got = con.sql("SELECT ip, asn(ip), route(ip) FROM flows").fetchall()
    assert [(ip, a, p) for ip, a, p in got] == [
        (r, w and w[1], w and w[0]) for r, w in zip(ROWS, want(table, ROWS))
    ]
    fibforge.duckdb.register(con, "asn4", table, input="UINTEGER")
    assert con.execute("SELECT asn4(167838211::UINTEGER)").fetchall() == [(3,)]
    path = tmp_path / "flows.parquet"
    con.sql(f"COPY (SELECT ip FROM flows, range(3000)) TO '{path}' (FORMAT parquet)")
    (n, hits), = con.execute(f"SELECT count(*), count(asn(ip)) FROM '{path}'").fetchall()
    assert (n, hits) == (18000, 3000 * sum(w is not None for w in want(table, ROWS)))
    with pytest.raises(ValueError, match="field must be"):
        fibforge.duckdb.register(con, "x", table, field="colour")
