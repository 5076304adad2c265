"""numpy batch lookups: every accepted layout equals single lookups; bad inputs raise."""

import ipaddress

import numpy as np
import pytest

import fibforge



def expected(table, addrs):
    """The value ids single lookups answer (values are distinct ints: id = position)."""
    values = table.values
    return np.array(
        [fibforge.NO_ROUTE if (v := table.lookup(a)) is None else values.index(v) for a in addrs],
        np.uint32,
    )


def test_ipv4_batch_equals_single_lookups(table):
    rng = np.random.default_rng(1)
    addrs = rng.integers(0, 2**32, 5000, dtype=np.uint64).astype(np.uint32)
    addrs[:300] = np.uint32(0x0A010200) + np.arange(300, dtype=np.uint32)
    out = table.lookup_batch(addrs)
    assert out.dtype == np.uint32 and out.shape == (5000,)
    want = expected(table, [str(ipaddress.IPv4Address(int(a))) for a in addrs])
    np.testing.assert_array_equal(out, want)
    assert {1, 2, 3, 4, None} <= set(table.values_of(out).tolist())
    np.testing.assert_array_equal(table.lookup_batch(addrs, threads=3), want)
    np.testing.assert_array_equal(table.lookup_batch(addrs[::2]), want[::2])


def ipv6_sample():
    """Addresses in the /64, the /48, the /32 and outside, with random low bits."""
    bases = [int(ipaddress.IPv6Address(a)) for a in ("2001:db8:1:2::", "2001:db8:1:5::", "2001:db8:7::", "2001:db9::")]
    rng = np.random.default_rng(2)
    low = rng.integers(0, 2**63, 2000, dtype=np.uint64)
    return [bases[i % 4] + int(x) for i, x in enumerate(low)] + [1, 2**128 - 1]


def test_ipv6_batch_as_uint64_pairs_and_bytes(table):
    addrs = ipv6_sample()
    want = expected(table, [str(ipaddress.IPv6Address(a)) for a in addrs])
    assert {5, 6, 7, None} <= set(table.values_of(want).tolist())
    pairs = np.array([[a >> 64, a & (2**64 - 1)] for a in addrs], dtype=np.uint64)
    np.testing.assert_array_equal(table.lookup_batch(pairs), want)
    np.testing.assert_array_equal(table.lookup_batch(np.asfortranarray(pairs)), want)
    packed = np.frombuffer(
        b"".join(ipaddress.IPv6Address(a).packed for a in addrs), dtype=np.uint8
    ).reshape(-1, 16)
    np.testing.assert_array_equal(table.lookup_batch(packed), want)
    np.testing.assert_array_equal(table.lookup_batch(packed, threads=2), want)


def test_empty_batches(table):
    assert table.lookup_batch(np.zeros(0, np.uint32)).shape == (0,)
    assert table.lookup_batch(np.zeros((0, 2), np.uint64)).shape == (0,)


def test_bad_batches_raise(table):
    with pytest.raises(TypeError, match="numpy array"):
        table.lookup_batch(np.zeros(3, np.float64))
    with pytest.raises(TypeError, match="numpy array"):
        table.lookup_batch({1: 2})
    with pytest.raises(ValueError, match=r"row 1: -1 is not an IPv4 address"):
        table.lookup_batch(np.array([1, -1], np.int64))
    with pytest.raises(ValueError, match=r"row 2: 'x' is not an IPv4 or IPv6 address|row 2: \"x\""):
        table.lookup_batch(["10.0.0.1", "2001:db8::1", "x"])
    assert table.lookup_batch(np.array(["10.0.0.1", None], dtype=object))[1] == fibforge.NO_ROUTE
    with pytest.raises(ValueError, match="row 0: IPv6 address in a table without IPv6"):
        fibforge.Table("ipv4").lookup_batch(["2001:db8::1"])
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        table.lookup_batch(np.zeros((3, 3), np.uint64))
    with pytest.raises(ValueError, match="at least 1"):
        table.lookup_batch(np.zeros(3, np.uint32), threads=0)
    with pytest.raises(ValueError, match="table without IPv6"):
        fibforge.Table("ipv4").lookup_batch(np.zeros((1, 16), np.uint8))


def test_out_array_is_filled_and_returned(table):
    addrs = np.array([0x0A010203, 0x0B000000, 0x90000000], dtype=np.uint32)
    out = np.zeros(3, np.uint32)
    assert table.lookup_batch(addrs, out=out) is out
    assert table.values_of(out).tolist() == [3, 4, None]
    with pytest.raises(ValueError, match="2 elements for 3"):
        table.lookup_batch(addrs, out=np.zeros(2, np.uint32))
    with pytest.raises(ValueError, match="contiguous"):
        table.lookup_batch(addrs, out=np.zeros(6, np.uint32)[::2])
    with pytest.raises(ValueError, match="out"):
        table.lookup_batch(addrs, out=addrs)  # in place would alias the input


def test_integer_dtypes_lists_and_text_columns_equal_uint32(table):
    rng = np.random.default_rng(3)
    addrs = rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
    addrs[:200] = np.uint32(0x0A010200) + np.arange(200, dtype=np.uint32)
    ids, lens = table.lookup_batch(addrs, lengths=True)
    for other in [addrs.astype(np.int64), addrs.astype(np.uint64), addrs.astype(">u4"), addrs.tolist()]:
        np.testing.assert_array_equal(table.lookup_batch(other), ids)
    texts = [str(ipaddress.IPv4Address(int(a))) for a in addrs]
    for column in [texts, tuple(texts), np.array(texts), np.array(texts, dtype=object)]:
        got_ids, got_lens = table.lookup_batch(column, lengths=True, threads=3)
        np.testing.assert_array_equal(got_ids, ids)
        np.testing.assert_array_equal(got_lens, lens)
    assert set(lens.tolist()) >= {24, 1, fibforge.NO_LENGTH}


def test_text_columns_mix_families_row_by_row(table):
    six = ipv6_sample()[:500]
    rows = []
    for i, a in enumerate(six):
        rows.append(str(ipaddress.IPv6Address(a)))
        rows.append(f"10.1.{i % 4}.{i % 256}")
    want = expected(table, rows)
    np.testing.assert_array_equal(table.lookup_batch(rows), want)
    np.testing.assert_array_equal(table.lookup_batch(np.array(rows), threads=2), want)
    got = table.lookup_values(rows)
    assert got.tolist() == [table.lookup(r) for r in rows]
