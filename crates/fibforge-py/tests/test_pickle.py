"""Pickling: tables travel to other processes (as Dask/Spark/Ray workers receive them)."""

import multiprocessing
import pickle

import numpy as np
import pytest

import fibforge


def sample_table():
    t = fibforge.Table()
    t.insert("10.0.0.0/8", 1)
    t.insert("10.1.0.0/16", 70000)
    t.insert("2001:db8::/32", 3)
    return t


def test_round_trip_keeps_routes_names_and_family(small_table):
    t = fibforge.Table.load(small_table, family="ipv4")
    t.insert("172.16.0.0/12", 9)
    u = pickle.loads(pickle.dumps(t))
    assert u.family == "ipv4"
    assert u.routes() == t.routes()
    assert u.values == t.values
    addrs = np.arange(0x0A000000, 0x0A000000 + 2**20, 97, dtype=np.uint32)
    np.testing.assert_array_equal(u.lookup_batch(addrs), t.lookup_batch(addrs))
    both = sample_table()
    assert pickle.loads(pickle.dumps(both)).routes() == both.routes()


def test_corrupt_state_is_a_value_error():
    with pytest.raises(ValueError, match="corrupt pickled table"):
        fibforge._rebuild("ipv4", b"\x00" * 8, b"", [])
    with pytest.raises(ValueError, match="host bits"):
        fibforge._rebuild("ipv4", bytes([10, 0, 0, 1, 8, 0, 0, 0, 0]), b"", [])
    # the length inside the next hop (7) differs from the prefix's (8)
    with pytest.raises(ValueError, match="bad value id or length"):
        fibforge._rebuild("ipv4", bytes([10, 0, 0, 0, 8, 7, 0, 0, 0]), b"", ["x"])
    # value id 1 of a single value
    with pytest.raises(ValueError, match="bad value id or length"):
        fibforge._rebuild("ipv4", bytes([10, 0, 0, 0, 8, 8, 1, 0, 0]), b"", ["x"])


def test_any_values_survive_pickling():
    t = fibforge.Table()
    t["10.0.0.0/8"] = {"asn": 64500, "tags": ["a"]}
    t["2001:db8::/32"] = ("x", 1.5)
    t["192.0.2.0/24"] = None
    u = pickle.loads(pickle.dumps(t))
    assert list(u) == list(t)
    assert u["10.1.1.1"] == {"asn": 64500, "tags": ["a"]}
    assert u.get("192.0.2.0/24", "missing") is None


def lookup_in_worker(table, addrs):
    return table.lookup_batch(addrs)


def test_table_used_in_worker_processes():
    t = sample_table()
    addrs = np.array([0x0A010203, 0x0A020304, 0x0B000000], dtype=np.uint32)
    ctx = multiprocessing.get_context("spawn")  # fresh interpreters, like remote workers
    with ctx.Pool(2) as pool:
        results = pool.starmap(lookup_in_worker, [(t, addrs), (t, addrs[::-1])])
    assert t.values_of(results[0]).tolist() == [70000, 1, None]
    assert t.values_of(results[1]).tolist() == [None, 1, 70000]
