"""Text columns read where they lie (pyarrow and pandas string columns, numpy str_ and
bytes_ buffers, joined lists): each answers as the list of the same texts does, bad rows
and missing values raise naming the row, and the IPv4 parser agrees with ipaddress."""

import ipaddress
import itertools

import numpy as np
import pytest

import fibforge

pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")


def mixed_rows(n=3000):
    """IPv4 and IPv6 texts, mostly IPv4 (the in-place path) with IPv6 every 7th row."""
    rng = np.random.default_rng(7)
    rows = []
    for i, a in enumerate(rng.integers(0, 2**32, n, dtype=np.uint64)):
        if i % 7 == 3:
            rows.append(f"2001:db8:{i % 3}::{i:x}")
        elif i % 5 == 0:
            rows.append(f"10.1.{i % 4}.{i % 256}")
        else:
            rows.append(str(ipaddress.IPv4Address(int(a))))
    return rows


def assert_same(table, column, rows, threads=2):
    want_ids, want_lens = table.lookup_batch(rows, lengths=True)
    got_ids, got_lens = table.lookup_batch(column, lengths=True, threads=threads)
    np.testing.assert_array_equal(got_ids, want_ids)
    np.testing.assert_array_equal(got_lens, want_lens)


def test_list_answers_equal_single_lookups(table):
    rows = mixed_rows()
    ids = table.lookup_batch(rows, threads=3)
    values = table.values
    want = [fibforge.NO_ROUTE if (v := table.lookup(r)) is None else values.index(v) for r in rows]
    np.testing.assert_array_equal(ids, np.array(want, np.uint32))
    assert {1, 2, 3, 4, 5, 6, None} <= set(table.values_of(ids).tolist())


@pytest.mark.parametrize("kind", ["string", "large_string"])
def test_pyarrow_arrays_chunks_and_slices(table, kind):
    rows = mixed_rows()
    array = pa.array(rows, type=getattr(pa, kind)())
    assert_same(table, array, rows)
    assert_same(table, array.slice(1001, 1500), rows[1001:2501])
    chunked = pa.chunked_array([array.slice(0, 10), array.slice(10, 2000), array.slice(2010)])
    assert_same(table, chunked, rows, threads=3)
    assert_same(table, pa.chunked_array([], type=array.type), [])


def test_only_ipv6_and_mostly_ipv6_columns(table):
    six = [f"2001:db8:{i % 3}::{i:x}" for i in range(2000)]
    assert_same(table, pa.array(six), six)
    few_four = [r if i % 10 else "10.1.2.3" for i, r in enumerate(six)]
    assert_same(table, pa.array(few_four), few_four)


def test_pandas_string_columns(table):
    rows = mixed_rows()
    for dtype in ["str", "string[pyarrow]", pd.ArrowDtype(pa.string()), "string[python]", object]:
        series = pd.Series(rows, dtype=dtype)
        assert_same(table, series, rows)
        assert_same(table, pd.Index(rows, dtype=dtype), rows)
    assert_same(table, pd.Series(rows, dtype="string[pyarrow]").array, rows)


def test_numpy_str_bytes_byteswapped_and_strided(table):
    rows = mixed_rows()
    assert_same(table, np.array(rows), rows)
    assert_same(table, np.array(rows).astype(">U39"), rows)
    assert_same(table, np.array(rows)[::3], rows[::3])
    assert_same(table, np.array(rows, dtype="S"), rows)
    assert_same(table, np.array([r.encode() for r in rows], dtype="S45")[1::2], rows[1::2])
    with pytest.raises(ValueError, match='row 0: "" is not an IPv4 or IPv6 address'):
        table.lookup_batch(np.array(["", ""], dtype="U1"))


@pytest.mark.parametrize(
    "make",
    [
        list,
        tuple,
        np.array,
        lambda r: np.array(r, dtype=object),
        lambda r: np.array([t.encode() for t in r], dtype="S"),
        pa.array,
        lambda r: pa.array(r, type=pa.large_string()),
        lambda r: pa.chunked_array([r[:2], r[2:]]),
        lambda r: pd.Series(r, dtype="str"),
        lambda r: pd.Series(r, dtype=object),
    ],
)
def test_bad_rows_are_named_in_every_layout(table, make):
    rows = ["10.0.0.1", "2001:db8::1", "10.1.2.3", "::ffff:1.2.3.4", "1.2.3.04", "x"]
    with pytest.raises(ValueError, match=r'row 4: "1\.2\.3\.04" is not an IPv4 or IPv6 address'):
        table.lookup_batch(make(rows))
    rows[4] = "10.0.0.300"
    with pytest.raises(ValueError, match=r'row 4: "10\.0\.0\.300" is not'):
        table.lookup_batch(make(rows), threads=2)


def test_missing_values_answer_no_route(table):
    """None, NaN, pandas NA and Arrow nulls are rows without a route (they raised TypeError
    before issue 52)."""
    NR = fibforge.NO_ROUTE
    want = [table.lookup_batch(["10.0.0.1"])[0], NR, table.lookup_batch(["10.0.0.2"])[0]]
    for column in [
        pa.array(["10.0.0.1", None, "10.0.0.2"]),
        pa.chunked_array([["10.0.0.1"], [None, "10.0.0.2"]]),
        ["10.0.0.1", None, "10.0.0.2"],
        ["10.0.0.1", float("nan"), "10.0.0.2"],
        pd.Series(["10.0.0.1", None, "10.0.0.2"], dtype="str"),
        pd.Series(["10.0.0.1", np.nan, "10.0.0.2"], dtype=object),
        pd.Series(["10.0.0.1", pd.NA, "10.0.0.2"], dtype="string"),
    ]:
        assert table.lookup_batch(column).tolist() == want, column
    ids, lens = table.lookup_batch(["0.0.0.1", None], lengths=True)
    assert ids.tolist() == [table.lookup_batch(["0.0.0.1"])[0], NR]
    assert lens[1] == fibforge.NO_LENGTH


def test_texts_with_newlines_whitespace_or_no_utf8(table):
    rows = [" 10.1.2.3\n", "10.1.0.1", "\t2001:db8:1::5 ", "10.0.0.1\n\n"]
    want = table.lookup_batch(["10.1.2.3", "10.1.0.1", "2001:db8:1::5", "10.0.0.1"])
    for column in [rows, tuple(rows), np.array(rows), np.array(rows, dtype=object), pa.array(rows)]:
        np.testing.assert_array_equal(table.lookup_batch(column), want)
    with pytest.raises(ValueError, match=r'row 1: "10\.0\.0\.1\\n10\.0\.0\.2"'):
        table.lookup_batch(["10.0.0.1", "10.0.0.1\n10.0.0.2"])
    with pytest.raises(ValueError):  # a lone surrogate has no UTF-8 form
        table.lookup_batch(["10.0.0.1", "\ud800"])


def test_non_string_arrow_columns_are_refused(table):
    with pytest.raises(TypeError, match="numpy array"):
        table.lookup_batch(pa.array([1.5, 2.5]))
    # Arrow binary rows are packed addresses (4 or 16 bytes), not texts.
    with pytest.raises(ValueError, match=r"row 0: 8 bytes are not an IPv4 \(4 bytes\)"):
        table.lookup_batch(pa.array([b"10.0.0.1"]))


def test_dotted_quad_parser_agrees_with_ipaddress():
    # Every text of up to 7 characters over "025. ": those ipaddress reads (spaces
    # stripped) must answer their /32's value, all others must raise.
    t = fibforge.Table("ipv4")
    good, bad = [], []
    for size in range(8):
        for chars in itertools.product("025. ", repeat=size):
            text = "".join(chars)
            try:
                good.append((text, ipaddress.IPv4Address(text.strip(" "))))
            except ValueError:
                bad.append(text)
    extra = ["255.255.255.255", "255.255.255.256", "1.2.3.004", "001.2.3.4", "1.2.3.4.", "1.2..4"]
    extra += ["0.0.0.0", "199.99.9.100", " 1.22.123.0 ", "1.2.3.4 5", "1.2.3.-4", "+1.2.3.4"]
    for text in extra:
        try:
            good.append((text, ipaddress.IPv4Address(text.strip(" "))))
        except ValueError:
            bad.append(text)
    for addr in {addr for _, addr in good}:
        t.insert(f"{addr}/32", str(addr))
    ids = t.lookup_batch([text for text, _ in good])
    assert t.values_of(ids).tolist() == [str(addr) for _, addr in good]
    assert len(good) > 80 and len(bad) > 10000
    accepted = []
    for text in bad:
        try:
            t.lookup_batch([text])
            accepted.append(text)
        except ValueError as e:
            assert str(e).startswith("row 0: ")
    assert accepted == []


def test_long_columns_split_across_threads(table):
    # 20,000 rows on 3 threads: tasks start inside the joined lines' marks and span chunks.
    rows = mixed_rows(20_000)
    array = pa.array(rows)
    layouts = [rows, np.array(rows), np.array(rows, dtype="S"), array]
    layouts.append(pa.chunked_array([array.slice(0, 5000), array.slice(5000, 3), array.slice(5003)]))
    for column in layouts:
        assert_same(table, column, rows, threads=3)
    bad = list(rows)
    bad[19_000] = "10.0.0.256"
    bad[7_001] = "1.2.3"
    for column in [bad, np.array(bad), pa.array(bad), pa.chunked_array([bad[:7000], bad[7000:]])]:
        with pytest.raises(ValueError, match=r'^row 7001: "1\.2\.3" is not'):
            table.lookup_batch(column, threads=3)
