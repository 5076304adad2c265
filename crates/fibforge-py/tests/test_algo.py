"""The `algo` argument: both structures answer alike through every path; bad names raise."""

import pickle
import threading

import numpy as np
import pytest

import fibforge

STRUCTURES = ["poptrie", "bplus", "bplus:dir=off,delta=2"]

ROUTES = [
    ("0.0.0.0/1", 4),
    ("10.0.0.0/8", 1),
    ("10.1.0.0/16", 2),
    ("10.1.2.0/24", 3),
    ("255.255.255.255/32", 9),
    ("2001:db8::/32", 5),
    ("2001:db8:1::/48", 6),
    ("2001:db8:1:2::/64", 7),
    ("2001:db8:1:2::8000/113", 8),
]


def filled(algo, family="auto"):
    t = fibforge.Table(family, algo=algo)
    for prefix, hop in ROUTES:
        if family == "auto" or (":" in prefix) == (family == "ipv6"):
            assert t.insert(prefix, hop) is None
    return t


def addresses():
    rng = np.random.default_rng(7)
    v4 = rng.integers(0, 2**32, 4000, dtype=np.uint64).astype(np.uint32)
    v4[:256] = np.uint32(0x0A010200) + np.arange(256, dtype=np.uint32)
    v4[256:512] = np.uint32(0x0A013000) + np.arange(256, dtype=np.uint32)
    v4[-1] = 0xFFFFFFFF
    v6 = np.empty((3000, 2), np.uint64)
    v6[:, 0] = np.uint64(0x20010DB800010002)
    v6[:1000, 0] = np.uint64(0x20010DB800010000) + rng.integers(0, 8, 1000, dtype=np.uint64)
    v6[1000:1200, 0] = np.uint64(0x20010DB800070000)  # in the /32 only
    v6[:, 1] = rng.integers(0, 2**64, 3000, dtype=np.uint64)
    v6[1200:1400, 1] = np.uint64(0x7FA0) + np.arange(200, dtype=np.uint64)  # /113 and around
    return v4, v6


@pytest.mark.parametrize("algo", STRUCTURES)
def test_both_families_answer_as_poptrie(algo):
    ref, t = filled("poptrie"), filled(algo)
    assert t.algo == algo
    v4, v6 = addresses()
    want4, want6 = ref.lookup_values(v4).tolist(), ref.lookup_values(v6).tolist()
    assert {1, 2, 3, 4, 9, None} <= set(want4)
    assert {5, 6, 7, 8} <= set(want6)
    assert t.values_of(t.lookup_batch(v4)).tolist() == want4
    assert t.lookup_values(v6, threads=3).tolist() == want6
    for a in ["10.1.2.3", "10.9.9.9", "11.0.0.0", "255.255.255.255", "2001:db8:1:2::9000",
              "2001:db8:1:2::1", "2001:db8:1:9::", "2001:db9::"]:
        assert t.lookup(a) == ref.lookup(a), a


@pytest.mark.parametrize("algo", STRUCTURES)
@pytest.mark.parametrize("family", ["ipv4", "ipv6"])
def test_insert_remove_lookup(algo, family):
    t = filled(algo, family)
    probe, prefix = ("10.1.2.3", "10.1.2.0/24") if family == "ipv4" else (
        "2001:db8:1:2::9000", "2001:db8:1:2::8000/113")
    inner = 3 if family == "ipv4" else 8
    outer = 2 if family == "ipv4" else 7
    assert t.lookup(probe) == inner
    assert t.insert(prefix, 70000) == inner
    assert t.lookup(probe) == 70000
    assert t.remove(prefix) == 70000
    assert t.remove(prefix) is None
    assert t.lookup(probe) == outer
    assert len(t) == sum((":" in p) == (family == "ipv6") for p, _ in ROUTES) - 1


@pytest.mark.parametrize("algo", STRUCTURES)
def test_batches_during_updates_see_old_or_new(algo):
    t = filled(algo, "ipv4")
    addrs = np.full(20000, 0x0A010203, np.uint32)
    bad = []

    def look():
        for _ in range(20):
            out = t.lookup_batch(addrs, threads=2)
            bad.extend(set(t.values_of(out).tolist()) - {3, 30})

    th = threading.Thread(target=look)
    th.start()
    for i in range(300):
        t.insert("10.1.2.0/24", 30 if i % 2 else 3)
        t.insert(f"172.{16 + i % 16}.{i % 256}.0/24", i)
    th.join()
    assert bad == []
    assert t._readers() == 1


@pytest.mark.parametrize("algo", STRUCTURES)
def test_load_and_pickle_keep_the_structure(algo, small_table):
    t = fibforge.Table.load(small_table, algo=algo)
    assert t.algo == algo
    assert t.lookup("10.1.2.3") == "gw-b"
    assert t.lookup("2001:db8:1::1") == "gw-d"
    u = pickle.loads(pickle.dumps(t))
    assert u.algo == algo and u.routes() == t.routes()
    assert ("algo=" in repr(t)) == (algo != "poptrie")
    six = fibforge.Table.load(small_table, family="ipv6", algo=algo)
    assert six.lookup("2001:db8:1::1") == t.lookup("2001:db8:1::1")


def test_rebuild_without_algo_is_poptrie():
    # 10.0.0.0/8 with value id 0 and length 8 (id << 8 | length, little-endian)
    t = fibforge._rebuild("ipv4", bytes([10, 0, 0, 0, 8, 8, 0, 0, 0]), b"", ["x"])
    assert t.algo == "poptrie" and t.lookup("10.1.1.1") == "x"


@pytest.mark.parametrize(
    "algo, message",
    [
        ("dxr", "unknown structure 'dxr'"),
        ("", "empty name"),
        ("bplus:dir=maybe", "dir=maybe"),
        ("bplus:nope=1", "nope"),
        ("bplus:delta=0", "delta=0"),
        ("poptrie:s=25", "s=25"),
        ("bplus:isa", "key=value"),
    ],
)
def test_bad_algo_is_a_value_error_naming_the_choices(algo, message, small_table, tmp_path):
    for make in [
        lambda: fibforge.Table(algo=algo),
        lambda: fibforge.Table("ipv6", algo=algo),
        lambda: fibforge.Table.load(small_table, algo=algo),
        # checked before the file is read: no OSError for a missing file
        lambda: fibforge.Table.load(tmp_path / "missing.txt", algo=algo),
    ]:
        with pytest.raises(ValueError, match=message) as err:
            make()
        assert "poptrie" in str(err.value) and "bplus" in str(err.value)


def test_family_specific_options_are_checked_per_family():
    fibforge.Table("ipv6", algo="poptrie:fanout=on")
    with pytest.raises(ValueError, match="IPv6 tables only"):
        fibforge.Table("ipv4", algo="poptrie:fanout=on")
    with pytest.raises(TypeError):
        fibforge.Table(algo=3)
