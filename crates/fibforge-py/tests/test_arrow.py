"""Arrow columns through the C data interface (issue 52 item 2): every accepted type,
chunked and sliced arrays, nulls in and out, ``lookup_arrow``'s typed answers equal to
``lookup_prefix`` row by row, and ``ipaddress`` objects in batches."""

import ipaddress

import numpy as np
import pytest

import fibforge

pa = pytest.importorskip("pyarrow")

V4 = ["10.1.2.3", "10.9.9.9", "200.1.1.1", None, "10.1.0.7", "0.0.0.1", "127.0.0.1"]
V6 = ["2001:db8:1:2::9", None, "2001:db8::1", "2001:db9::1", "2001:db8:1::5"]


def want(table, texts):
    """(prefix, value) per row from single lookups; None for a null or unmatched row."""
    return [None if t is None else table.lookup_prefix(t) for t in texts]


def routes(table, column):
    got = pa.array(table.lookup_arrow(column)).to_pylist()
    return [None if r["prefix"] is None else (r["prefix"], r["value"]) for r in got]


def ids_of(table, texts):
    return [fibforge.NO_ROUTE if t is None else int(table.lookup_batch([t])[0]) for t in texts]


def packed(texts):
    return [None if t is None else ipaddress.ip_address(t).packed for t in texts]


@pytest.mark.parametrize("kind", ["string", "large_string", "string_view"])
def test_text_types(table, kind):
    for texts in [V4, V6, V4 + V6]:
        column = pa.array(texts, type=getattr(pa, kind)())
        assert routes(table, column) == want(table, texts)
        assert table.lookup_batch(column).tolist() == ids_of(table, texts)


def test_string_view_long_rows(table):
    texts = ["2001:0db8:0001:0002:0000:0000:0000:0009", "10.1.2.3", None, " 10.1.0.7 \t"]
    column = pa.array(texts, type=pa.string_view())
    assert routes(table, column) == want(table, [t and t.strip() for t in texts])


def test_binary_types(table):
    for texts, width in [(V4, 4), (V6, 16)]:
        for kind in [pa.binary(), pa.large_binary(), pa.binary(width), pa.binary_view()]:
            column = pa.array(packed(texts), type=kind)
            assert routes(table, column) == want(table, texts), kind
    mixed = pa.array(packed(V4 + V6), type=pa.binary())
    assert routes(table, mixed) == want(table, V4 + V6)
    with pytest.raises(ValueError, match="row 1: 3 bytes are not"):
        table.lookup_batch(pa.array([b"\x0a\x00\x00\x01", b"abc"]))


def test_uint32(table):
    ints = [None if t is None else int(ipaddress.ip_address(t)) for t in V4]
    column = pa.array(ints, type=pa.uint32())
    assert routes(table, column) == want(table, V4)
    assert table.lookup_batch(column).tolist() == ids_of(table, V4)
    ids, lens = table.lookup_batch(column, lengths=True)
    assert lens[3] == fibforge.NO_LENGTH and ids[3] == fibforge.NO_ROUTE


def test_chunked_and_sliced(table):
    texts = (V4 + V6) * 3
    base = pa.array(texts)
    for column, rows in [
        (base.slice(5, 11), texts[5:16]),
        (pa.chunked_array([base.slice(0, 4), base.slice(4, 9), base.slice(13)]), texts),
        (pa.chunked_array([base.slice(3, 2), base.slice(7, 0), base.slice(20, 7)]), texts[3:5] + texts[20:27]),
        (pa.chunked_array([], type=pa.string()), []),
    ]:
        assert routes(table, column) == want(table, rows)
        assert table.lookup_batch(column).tolist() == ids_of(table, rows)
    ints = pa.array([None if t is None else int(ipaddress.ip_address(t)) for t in V4 * 3], pa.uint32())
    chunked = pa.chunked_array([ints.slice(2, 5), ints.slice(9), ints.slice(0, 1)])
    rows = (V4 * 3)[2:7] + (V4 * 3)[9:] + V4[:1]
    assert routes(table, chunked) == want(table, rows)
    fixed = pa.array(packed(V6 * 2), pa.binary(16)).slice(3, 5)
    assert routes(table, fixed) == want(table, (V6 * 2)[3:8])


def test_all_null_and_empty(table):
    for column in [pa.array([None, None]), pa.array([None, None], pa.string()), pa.array([], pa.uint32())]:
        n = len(column)
        assert table.lookup_batch(column).tolist() == [fibforge.NO_ROUTE] * n
        assert routes(table, column) == [None] * n


def test_fields_and_types(table):
    column = pa.array(["10.1.2.3", None, "100.1.1.1", "2001:db8::1"])
    got = pa.array(table.lookup_arrow(column, fields=("id", "length", "prefix", "value")))
    assert got.type == pa.struct(
        [("id", pa.uint32()), ("length", pa.uint8()), ("prefix", pa.string()), ("value", pa.int64())]
    )
    assert got.field("length").to_pylist() == [24, None, 1, 32]
    assert got.field("id").to_pylist()[1] is None
    value = pa.array(table.lookup_arrow(column, fields="value"))
    assert value.to_pylist() == [3, None, 4, 5]
    assert table.arrow_value_type == "int64"
    assert len(table.lookup_arrow(column)) == 4 and "Struct" in table.lookup_arrow(column).type
    with pytest.raises(ValueError, match='"colour" is not one of'):
        table.lookup_arrow(column, fields=["colour"])
    with pytest.raises(TypeError, match="Arrow column"):
        table.lookup_arrow(["10.0.0.1"])


def test_value_types():
    t = fibforge.Table()
    t["10.0.0.0/8"] = "gw-a"
    t["11.0.0.0/8"] = None
    column = pa.array(["10.0.0.1", "11.0.0.1", "12.0.0.1"])
    assert pa.array(t.lookup_arrow(column, fields="value")).to_pylist() == ["gw-a", None, None]
    assert t.arrow_value_type == "string"
    t["12.0.0.0/8"] = ("x", 1)
    assert pa.array(t.lookup_arrow(column, fields="value")).to_pylist() == ["gw-a", None, "('x', 1)"]
    f = fibforge.Table()
    f["10.0.0.0/8"] = 1.5
    assert pa.array(f.lookup_arrow(column, fields="value")).to_pylist() == [1.5, None, None]
    empty = fibforge.Table()
    assert pa.array(empty.lookup_arrow(column)).to_pylist() == [{"prefix": None, "value": None}] * 3


def test_unsupported_arrow_type(table):
    with pytest.raises(TypeError, match="numpy array"):
        table.lookup_batch(pa.array([1.5, 2.5]))
    with pytest.raises(TypeError, match="not Int64"):
        table.lookup_arrow(pa.array([1, 2]))
    with pytest.raises(ValueError, match="IPv4 addresses given to a table without IPv4"):
        fibforge.Table("ipv6").lookup_batch(pa.array([1], pa.uint32()))


def test_threads_agree(table):
    texts = (V4 + V6) * 2000
    one = pa.array(table.lookup_arrow(pa.array(texts)))
    assert pa.array(table.lookup_arrow(pa.array(texts), threads=3)).equals(one)


def test_ipaddress_objects_in_batches(table):
    rows = [ipaddress.ip_address("10.1.2.3"), "10.9.9.9", None, ipaddress.ip_address("2001:db8::1")]
    texts = [None if r is None else str(r) for r in rows]
    assert table.lookup_batch(rows).tolist() == ids_of(table, texts)
    assert table.lookup_batch(np.array(rows, dtype=object)).tolist() == ids_of(table, texts)


def test_exports_through_the_capsule_interface(table):
    answers = table.lookup_arrow(pa.array(["10.1.2.3"]), fields="prefix")
    assert pa.array(answers).to_pylist() == ["10.1.2.0/24"]
    assert pa.chunked_array(answers).to_pylist() == ["10.1.2.0/24"]
    assert "ArrowColumn" in repr(answers)
