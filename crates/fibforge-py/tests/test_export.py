"""Export files (issue 24): `fibforge.export` writes a compiled structure, `Table.load` reads
it back as a read-only `CompiledTable` without compiling, which answers exactly as the table
it came from; a damaged file raises ValueError naming it; operations that need the routes
raise TypeError."""

import ipaddress
import pathlib
import struct

import pytest

import fibforge

np = pytest.importorskip("numpy")

DATA = pathlib.Path(__file__).resolve().parents[3] / "data"
RIS = DATA / "ris2015-as3856.tsv.gz"
N = 100_000


@pytest.fixture(scope="module")
def ris():
    return fibforge.Table.load(RIS, family="ipv4")


@pytest.fixture(scope="module")
def tier1(tmp_path_factory):
    """tier1's IPv6 prefixes with 4,093 distinct values (the file has no next hops), so that
    a wrong answer shows as a wrong value, and the table loaded from them."""
    prefixes = [
        line.split()[0]
        for line in fibforge_lines(DATA / "tier1-2024-v6.txt.gz")
        if line and not line.startswith("#")
    ]
    path = tmp_path_factory.mktemp("tier1") / "tier1-values.txt"
    path.write_text("".join(f"{p} v{i % 4093}\n" for i, p in enumerate(prefixes)))
    return path, prefixes, fibforge.Table.load(path, family="ipv6")


def fibforge_lines(path):
    import gzip

    with gzip.open(path, "rt") as f:
        return f.read().splitlines()


def same_values(a, b):
    assert len(a) == len(b)
    bad = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    assert not bad, f"{len(bad)} answers differ, first at row {bad[0]}: {a[bad[0]]!r} != {b[bad[0]]!r}"


@pytest.mark.parametrize("algo", ["sail_l", "poptrie", "bloomfwd"])
def test_ipv4_export_answers_as_the_table(ris, tmp_path, algo):
    out = tmp_path / f"ris.{algo}"
    fibforge.export(RIS, out, algo=algo)
    c = fibforge.Table.load(out)
    assert isinstance(c, fibforge.CompiledTable)
    assert (c.family, c.algo, len(c)) == ("ipv4", algo, len(ris))
    assert repr(c) == f'fibforge.CompiledTable(family="ipv4", algo="{algo}", routes={len(ris)})'
    addrs = np.random.default_rng(24).integers(0, 2**32, N, dtype=np.uint32)
    expected = ris.values_of(ris.lookup_batch(addrs))
    same_values(c.values_of(c.lookup_batch(addrs, threads=3)), expected)
    same_values(c.lookup_values(addrs.astype(np.int64)), expected)
    texts = [str(ipaddress.IPv4Address(int(a))) for a in addrs[:2000]]
    same_values(c.lookup_values(texts), expected[:2000])
    same_values([c.lookup(t) for t in texts], list(expected[:2000]))
    same_values([c.lookup(int(a)) for a in addrs[:200]], list(expected[:200]))


def ipv6_addresses(prefixes, rng):
    """N addresses: half inside random routes (random host bits), half uniform."""
    picks = rng.integers(0, len(prefixes), N // 2)
    inside = []
    for i in picks:
        net = ipaddress.IPv6Network(prefixes[i])
        host = int(rng.integers(0, 2**63)) << 65 | int(rng.integers(0, 2**63))
        inside.append(int(net.network_address) | (host & int(net.hostmask)))
    uniform = [int(rng.integers(0, 2**63)) << 65 | int(rng.integers(0, 2**63)) << 2 for _ in range(N // 2)]
    rows = [(a >> 64, a & (2**64 - 1)) for a in inside + uniform]
    return np.array(rows, dtype=np.uint64), inside + uniform


@pytest.mark.parametrize("algo", ["poptrie", "bloomfwd"])
def test_ipv6_export_answers_as_the_table(tier1, tmp_path, algo):
    path, prefixes, table = tier1
    out = tmp_path / f"tier1.{algo}"
    fibforge.export(path, out, algo=algo)
    c = fibforge.Table.load(out, family="ipv6", algo=algo)
    assert (c.family, c.algo, len(c)) == ("ipv6", algo, len(table))
    words, ints = ipv6_addresses(prefixes, np.random.default_rng(6))
    expected = table.values_of(table.lookup_batch(words))
    assert sum(v is not None for v in expected) > N // 2 - 100  # the inside half matches
    same_values(c.values_of(c.lookup_batch(words, threads=2)), expected)
    texts = [str(ipaddress.IPv6Address(a)) for a in ints[::50]]
    same_values(c.lookup_values(texts), expected[::50])
    same_values([c.lookup(ipaddress.IPv6Address(a)) for a in ints[::500]], list(expected[::500]))


def test_origin_as_export(tmp_path):
    table = fibforge.Table.load(RIS, family="ipv4", value="origin_as")
    out = tmp_path / "ris.asn"
    fibforge.export(RIS, out, algo="poptrie", value="origin_as")
    c = fibforge.Table.load(out, value="origin_as")
    addrs = np.random.default_rng(7).integers(0, 2**32, N, dtype=np.uint32)
    expected = table.lookup_values(addrs)
    assert any(isinstance(v, int) for v in expected)
    same_values(c.lookup_values(addrs), expected)
    # The next-hop texts of an export are not AS numbers.
    fibforge.export(RIS, tmp_path / "ris.hops", algo="poptrie")
    with pytest.raises(ValueError, match=r"ris\.hops: origin AS .* is not a number"):
        fibforge.Table.load(tmp_path / "ris.hops", value="origin_as")


@pytest.fixture
def small_export(small_table, tmp_path):
    out = tmp_path / "small.poptrie"
    fibforge.export(small_table, out, family="ipv4")
    return out


def test_small_export_lookups(small_export):
    c = fibforge.Table.load(small_export)
    assert c.lookup("10.1.2.3") == "gw-b" and c["10.9.9.9"] == "gw-a"
    assert "11.0.0.1" not in c and "192.168.3.4" in c
    with pytest.raises(KeyError):
        c["11.0.0.1"]
    assert c.values == ["gw-a", "gw-b", "gw-c", "gw-d"]  # the file's values, both families
    ids = c.lookup_batch(["10.1.2.3", "11.0.0.1"])
    assert ids[1] == fibforge.NO_ROUTE and c.values[ids[0]] == "gw-b"
    assert list(c.values_of(ids, default="none")) == ["gw-b", "none"]
    with pytest.raises(ValueError, match="IPv6 given to an IPv4 table"):
        c.lookup("2001:db8::1")
    with pytest.raises(ValueError, match="without IPv6"):
        c.lookup_batch(["2001:db8::1"])


REFUSED = [
    ("insert", ("10.0.0.0/8", "x")),
    ("remove", ("10.0.0.0/8",)),
    ("lookup_prefix", ("10.1.2.3",)),
    ("get", ("10.0.0.0/8",)),
    ("covering", ("10.1.0.0/16",)),
    ("covered", ("10.0.0.0/8",)),
    ("search_best", ("10.1.2.3",)),
    ("search_exact", ("10.0.0.0/8",)),
    ("search_covering", ("10.1.0.0/16",)),
    ("search_covered", ("10.0.0.0/8",)),
    ("routes", ()),
    ("lookup", ("10.1.0.0/16",)),
]


@pytest.mark.parametrize("name,args", REFUSED)
def test_route_operations_raise(small_export, name, args):
    c = fibforge.Table.load(small_export)
    with pytest.raises(TypeError, match=r"compiled poptrie export .*read-only and holds no prefixes"):
        getattr(c, name)(*args)


def test_mutation_iteration_lengths_and_pickle_raise(small_export):
    import pickle

    c = fibforge.Table.load(small_export)
    for action in (
        lambda: c.__setitem__("10.0.0.0/8", "x"),
        lambda: c.__delitem__("10.0.0.0/8"),
        lambda: list(c),
        lambda: c.lookup_batch(["10.1.2.3"], lengths=True),
        lambda: pickle.dumps(c),
    ):
        with pytest.raises(TypeError, match="read-only"):
            action()
    assert c.lookup("10.1.2.3") == "gw-b"  # unchanged


def test_load_arguments_that_do_not_fit_an_export(small_export):
    with pytest.raises(ValueError, match="is a compiled poptrie export; leave algo out"):
        fibforge.Table.load(small_export, algo="bloomfwd")
    assert fibforge.Table.load(small_export, algo="poptrie").algo == "poptrie"
    with pytest.raises(ValueError, match="IPv4 export, loaded with family='ipv6'"):
        fibforge.Table.load(small_export, family="ipv6")
    with pytest.raises(ValueError, match="peer= and peer_as= apply to MRT dumps"):
        fibforge.Table.load(small_export, peer_as=3356)


def test_export_arguments(small_table, tmp_path):
    with pytest.raises(ValueError, match="no export for this algorithm"):
        fibforge.export(small_table, tmp_path / "x", algo="bplus")
    with pytest.raises(ValueError, match="IPv4 and IPv6 routes; choose one"):
        fibforge.export(small_table, tmp_path / "x")
    with pytest.raises(OSError, match="missing.txt"):
        fibforge.export(tmp_path / "missing.txt", tmp_path / "x")
    with pytest.raises(OSError, match="cannot write"):
        fibforge.export(small_table, tmp_path / "no-dir" / "x", family="ipv4")
    fibforge.export(small_table, tmp_path / "six", family="ipv6", algo="bloomfwd")
    assert fibforge.Table.load(tmp_path / "six").lookup("2001:db8:1::5") == "gw-d"


def test_export_replaces_a_file_whole_or_not_at_all(small_table, tmp_path):
    """Issue 56: written to a temporary file beside `out`, synced and renamed over it, so a
    failed export leaves the old file and no temporary file behind."""
    folder = tmp_path / "out"
    folder.mkdir()
    out = folder / "x.poptrie"
    out.write_bytes(b"old")
    out.chmod(0o444)
    with pytest.raises(OSError, match="cannot write .*x.poptrie: is read-only"):
        fibforge.export(small_table, out, family="ipv4")
    assert out.read_bytes() == b"old"
    out.chmod(0o644)
    fibforge.export(small_table, out, family="ipv4")
    assert fibforge.Table.load(out).lookup("10.1.2.3") == "gw-b"
    assert [p.name for p in folder.iterdir()] == ["x.poptrie"]


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def test_damaged_exports_raise_value_errors(small_export, tmp_path):
    good = small_export.read_bytes()
    bad = tmp_path / "bad.poptrie"
    cases = [
        (good[: len(good) // 2], r"bad\.poptrie: export file: .*checksum|bad\.poptrie: export file"),
        (good[:100], r"bad\.poptrie: export file: truncated: the header takes 160 bytes, the file has 100"),
        (good[:-1], rf"bad\.poptrie: export file: truncated: the header promises {len(good)} bytes"),
        (good + b"\0" * 64, r"bad\.poptrie: export file"),
        (good[:300] + bytes([good[300] ^ 1]) + good[301:], r"bad\.poptrie: export file: checksum mismatch"),
        (good[:8] + struct.pack("<I", 9) + good[12:], r"format version 9"),
    ]
    # An index out of range behind a correct checksum: the structure's own check.
    dir_offset = struct.unpack_from("<Q", good, 160 + 16)[0]
    hostile = bytearray(good)
    struct.pack_into("<I", hostile, dir_offset, 0x7FFF_FFFF)
    struct.pack_into("<Q", hostile, 24, fnv1a64(hostile[32:]))
    cases.append((bytes(hostile), r"bad\.poptrie: export file: poptrie array `dir`: entry 0: node 2147483647"))
    for data, message in cases:
        bad.write_bytes(data)
        with pytest.raises(ValueError, match=message):
            fibforge.Table.load(bad)
    # Not an export: read as a table, whose reader reports it.
    bad.write_bytes(b"FIBFEXP")
    with pytest.raises(ValueError):
        fibforge.Table.load(bad)
