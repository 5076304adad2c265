"""Clear errors for arguments that used to give type jargon, empty errors, silent answers or
no limit (issue 56, item 6): each says what was wrong and what is expected."""

import ipaddress
import struct

import pytest

import fibforge

np = pytest.importorskip("numpy")


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


@pytest.fixture
def six():
    t = fibforge.Table()
    t.insert("10.0.0.0/8", "ten")
    t.insert("fe80::/10", "link-local")
    return t


def test_len_of_an_export_claiming_2_to_the_63_routes(small_table, tmp_path):
    out = tmp_path / "t.poptrie"
    fibforge.export(small_table, out, family="ipv4")
    data = bytearray(out.read_bytes())
    # p[15] (bytes 152..160) is the route count; the checksum covers bytes 32 to the end.
    struct.pack_into("<Q", data, 152, 2**63)
    struct.pack_into("<Q", data, 24, fnv1a64(data[32:]))
    out.write_bytes(bytes(data))
    c = fibforge.Table.load(out)
    assert "routes=9223372036854775808" in repr(c)
    with pytest.raises(OverflowError, match=r"claims 9223372036854775808 routes, more than len\(\) can return"):
        len(c)
    struct.pack_into("<Q", data, 152, 2**63 - 1)
    struct.pack_into("<Q", data, 24, fnv1a64(data[32:]))
    out.write_bytes(bytes(data))
    assert len(fibforge.Table.load(out)) == 2**63 - 1


def test_bytes_paths_say_what_a_path_must_be(small_table, tmp_path):
    expected = r"must be a str or an os.PathLike such as pathlib.Path, not bytes \(decode it with os.fsdecode\)"
    with pytest.raises(TypeError, match="path " + expected):
        fibforge.Table.load(str(small_table).encode())
    with pytest.raises(TypeError, match="path " + expected):
        fibforge.export(str(small_table).encode(), tmp_path / "x.poptrie", family="ipv4")
    with pytest.raises(TypeError, match="out " + expected):
        fibforge.export(small_table, str(tmp_path / "x.poptrie").encode(), family="ipv4")
    with pytest.raises(TypeError, match="path must be a str or an os.PathLike .*, not int"):
        fibforge.Table.load(3)
    assert len(fibforge.Table.load(small_table)) == len(fibforge.Table.load(str(small_table)))


def test_values_of_takes_any_integer_ids(six):
    assert six.values_of([0]).tolist() == ["ten"]
    assert six.values_of((1, 0)).tolist() == ["link-local", "ten"]
    assert six.values_of(np.array([1, fibforge.NO_ROUTE], np.int64), default="-").tolist() == ["link-local", "-"]
    assert six.values_of(np.array([0], ">u8")).tolist() == ["ten"]
    assert six.values_of([]).tolist() == []


def test_values_of_says_what_ids_must_be(six):
    expected = "ids must be a 1-D column of value ids as lookup_batch answers"
    with pytest.raises(ValueError, match=r"ids\[1\]: -1 is not a value id"):
        six.values_of([0, -1])
    with pytest.raises(ValueError, match=r"ids\[0\]: 4294967296 is not a value id"):
        six.values_of(np.array([2**32], np.int64))
    with pytest.raises(ValueError, match=r"ids\[1\]: 2 is not a value id of this table"):
        six.values_of([0, 2])
    with pytest.raises(TypeError, match=expected + r".*not a ndarray of dtype float64 and shape \[2\]"):
        six.values_of(np.array([0.0, 1.0]))
    with pytest.raises(TypeError, match=expected + ".*not a list of dtype <U2"):
        six.values_of(["10"])
    with pytest.raises(TypeError, match=expected + r".*shape \[1, 1\]"):
        six.values_of(np.zeros((1, 1), np.uint32))
    with pytest.raises(TypeError, match=expected + ".*not a NoneType"):
        six.values_of(None)


def test_compiled_values_of_takes_any_integer_ids(small_table, tmp_path):
    out = tmp_path / "t.poptrie"
    fibforge.export(small_table, out, family="ipv4")
    c = fibforge.Table.load(out)
    assert c.values_of([0]).tolist() == c.values[:1]
    with pytest.raises(ValueError, match=r"ids\[0\]: 99 is not a value id of this table"):
        c.values_of(np.array([99], np.int64))


def test_a_list_mixing_ints_and_texts_names_the_int(six):
    with pytest.raises(TypeError, match="^row 0: an address must be a str, not int$"):
        six.lookup_batch([1, "10.0.0.1"])
    with pytest.raises(TypeError, match="^row 1: an address must be a str, not int$"):
        six.lookup_batch(("10.0.0.1", 1))
    with pytest.raises(TypeError, match="^row 0: an address must be a str, not int$"):
        six.lookup_batch([1, True])  # a bool is no int address: a column of texts, then
    # All ints: IPv4 addresses, each checked.
    assert six.values_of(six.lookup_batch([0x0A000001, 1])).tolist() == ["ten", None]
    with pytest.raises(ValueError, match=r"^row 1: 18446744073709551616 is not an IPv4 address"):
        six.lookup_batch([1, 2**64])


def test_threads_are_capped_as_in_the_cli(six, small_table, tmp_path):
    addrs = np.array([0x0A000001], np.uint32)
    assert six.lookup_batch(addrs, threads=1024).tolist() == [0]
    for bad in [0, -1, 1025, 10**6]:
        with pytest.raises(ValueError, match=f"threads must be at least 1 and at most 1024.*not {bad}$"):
            six.lookup_batch(addrs, threads=bad)
        with pytest.raises(ValueError, match="at most 1024"):
            six.lookup_values(["10.0.0.1"], threads=bad)
    out = tmp_path / "t.poptrie"
    fibforge.export(small_table, out, family="ipv4")
    c = fibforge.Table.load(out)
    with pytest.raises(ValueError, match="at most 1024"):
        c.lookup_batch(addrs, threads=10**6)
    with pytest.raises(ValueError, match="at most 1024"):
        c.lookup_values(addrs, threads=2000)


def test_an_ipv6address_with_a_zone_id_is_refused_as_its_text_is(six):
    zoned = ipaddress.IPv6Address("fe80::1%eth0")
    with pytest.raises(ValueError, match=r'"fe80::1%eth0" is not an IPv4 or IPv6 address'):
        six.lookup("fe80::1%eth0")
    for ask in [six.lookup, six.lookup_prefix, six.__getitem__, six.__contains__]:
        with pytest.raises(ValueError, match=r'"fe80::1%eth0" is not an IPv4 or IPv6 address: it has a zone id \(%eth0\)'):
            ask(zoned)
    assert six.lookup(ipaddress.IPv6Address("fe80::1")) == "link-local"
    six6 = fibforge.Table("ipv6")
    with pytest.raises(ValueError, match="zone id"):
        six6.lookup(ipaddress.IPv6Address("fe80::1%1"))
