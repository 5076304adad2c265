"""Table basics: construction, insert/remove, single lookups and their errors."""

import ipaddress

import numpy as np
import pytest

import fibforge


def test_module_constants():
    assert fibforge.NO_ROUTE == 0xFFFFFFFF
    assert fibforge.NO_LENGTH == 255
    assert fibforge.MAX_VALUES == 2**23
    assert fibforge.__version__


def test_insert_lookup_remove_ipv4():
    t = fibforge.Table("ipv4")
    assert t.family == "ipv4" and len(t) == 0
    assert t.insert("10.0.0.0/8", 1) is None
    assert t.insert(ipaddress.ip_network("10.1.0.0/16"), 2) is None
    assert t.insert("10.0.0.0/8", 3) == 1
    assert len(t) == 2
    assert t.lookup("10.1.2.3") == 2
    assert t.lookup(ipaddress.IPv4Address("10.2.0.1")) == 3
    assert t.lookup(int(ipaddress.IPv4Address("10.1.0.0"))) == 2
    assert t.lookup("11.0.0.0") is None
    assert t.remove("10.1.0.0/16") == 2
    assert t.remove("10.1.0.0/16") is None
    assert t.lookup("10.1.2.3") == 3
    assert t.routes() == [("10.0.0.0/8", 3)]
    assert repr(t) == 'fibforge.Table(family="ipv4", routes=1)'


def test_ipv6_and_auto_tables():
    t = fibforge.Table()
    assert t.family == "auto"
    t.insert("2001:db8::/32", 7)
    t.insert("0.0.0.0/0", 8)
    assert t.lookup("2001:db8::1") == 7
    assert t.lookup(ipaddress.IPv6Address("2001:db8:ffff::")) == 7
    assert t.lookup("2001:db9::") is None
    assert t.lookup("203.0.113.9") == 8
    assert len(t) == 2
    six = fibforge.Table("ipv6")
    six.insert("::/0", 1)
    assert six.lookup(1) == 1  # ::1 as an int
    assert six.lookup(2**128 - 1) == 1


def test_values_are_any_python_objects_stored_once():
    t = fibforge.Table()
    hops = {"name": "gw"}
    t.insert("192.0.2.0/24", hops)
    t.insert("198.51.100.0/24", 70000)
    t.insert("203.0.113.0/24", 1)
    t.insert("10.0.0.0/8", True)  # equal to 1 but of another type: its own value
    t.insert("11.0.0.0/8", 1)
    t.insert("12.0.0.0/8", [1])  # unhashable: stored as given
    assert t.lookup("192.0.2.1") is hops
    assert t.lookup("198.51.100.1") == 70000
    assert t.lookup("10.1.1.1") is True and t.lookup("11.1.1.1") == 1
    assert t.values == [hops, 70000, 1, True, [1]]
    assert t.lookup("12.0.0.1") == [1]


@pytest.mark.parametrize(
    "prefix, message",
    [
        ("10.0.0.1/8", "host bits"),
        ("10.0.0.0/33", "out of range"),
        ("nonsense", "nonsense"),
        ("10.0.0.0/ 8", "10.0.0.0/ 8"),
    ],
)
def test_insert_errors_are_value_errors_naming_the_input(prefix, message):
    t = fibforge.Table("ipv4")
    with pytest.raises(ValueError, match=message):
        t.insert(prefix, 1)
    with pytest.raises(ValueError, match=message):
        t[prefix] = 1
    assert len(t) == 0 and t.values == []


def test_radix_style_api():
    t = fibforge.Table()
    t["10.0.0.0/8"] = "a"
    t["10.1.0.0/16"] = "b"
    t["10.1.2.0/24"] = "c"
    t["2001:db8::/32"] = "six"
    assert len(t) == 4
    assert t["10.1.9.9"] == "b" and t["2001:db8::1"] == "six"
    assert t["10.1.2.0/25"] == "c"  # a prefix key: its longest covering route
    assert "10.200.0.1" in t and "11.0.0.1" not in t and "2001:db9::" not in t
    assert "10.0.0.0/7" not in t and "10.1.0.0/16" in t
    with pytest.raises(KeyError):
        t["11.0.0.1"]
    assert t.lookup_prefix("10.1.2.3") == ("10.1.2.0/24", "c")
    assert t.lookup_prefix(ipaddress.ip_address("10.9.0.0")) == ("10.0.0.0/8", "a")
    assert t.lookup_prefix("11.0.0.0") is None
    assert t.get("10.1.0.0/16") == "b" and t.get("10.1.0.0/17") is None
    assert t.get("10.1.0.0/17", "none") == "none"
    assert t.covering("10.1.2.128/25") == [("10.0.0.0/8", "a"), ("10.1.0.0/16", "b"), ("10.1.2.0/24", "c")]
    assert t.covered("10.1.0.0/16") == [("10.1.0.0/16", "b"), ("10.1.2.0/24", "c")]
    assert t.covered(ipaddress.ip_network("2001::/16")) == [("2001:db8::/32", "six")]
    assert t.search_best("10.1.3.3") == ("10.1.0.0/16", "b")
    assert t.search_exact("10.1.2.0/24") == ("10.1.2.0/24", "c")
    assert t.search_exact("10.1.3.0/24") is None
    assert t.search_covering("10.1.2.0/24") == [("10.1.2.0/24", "c"), ("10.1.0.0/16", "b"), ("10.0.0.0/8", "a")]
    assert t.search_covered("10.0.0.0/8") == t.covered("10.0.0.0/8")
    assert list(t) == [("10.0.0.0/8", "a"), ("10.1.0.0/16", "b"), ("10.1.2.0/24", "c"), ("2001:db8::/32", "six")]
    assert dict(t) == dict(t.routes())
    del t["10.1.0.0/16"]
    assert t["10.1.9.9"] == "a" and len(t) == 3
    with pytest.raises(KeyError):
        del t["10.1.0.0/16"]
    with pytest.raises(ValueError, match="10.0.0.300"):
        t["10.0.0.300"]


def test_matched_prefix_lengths_in_batches():
    t = fibforge.Table("ipv4")
    t["0.0.0.0/0"] = "default"
    t["10.0.0.0/8"] = "a"
    t["10.1.2.3/32"] = "host"
    addrs = [ipaddress.IPv4Address(a) for a in ["10.1.2.3", "10.1.2.4", "11.0.0.0"]]
    ids, lengths = t.lookup_batch(np.array([int(a) for a in addrs], np.uint32), lengths=True)
    assert lengths.dtype == np.uint8 and lengths.tolist() == [32, 8, 0]
    assert t.values_of(ids).tolist() == ["host", "a", "default"]
    empty = fibforge.Table("ipv4")
    ids, lengths = empty.lookup_batch(np.array([1], np.uint32), lengths=True)
    assert ids.tolist() == [fibforge.NO_ROUTE] and lengths.tolist() == [fibforge.NO_LENGTH]
    assert empty.values_of(ids, default=-1).tolist() == [-1]
    with pytest.raises(ValueError, match="not a value id"):
        empty.values_of(np.array([0], np.uint32))


def test_family_mismatch_and_bad_addresses():
    four, six, both = fibforge.Table("ipv4"), fibforge.Table("ipv6"), fibforge.Table()
    with pytest.raises(ValueError, match="IPv6 given to an IPv4 table"):
        four.insert("2001:db8::/32", 1)
    with pytest.raises(ValueError, match="IPv4 given to an IPv6 table"):
        six.lookup("10.0.0.1")
    with pytest.raises(ValueError, match="does not say its family"):
        both.lookup(167772161)
    with pytest.raises(ValueError, match="not a 32-bit address"):
        four.lookup(2**32)
    with pytest.raises(ValueError, match="not an IPv4 or IPv6 address"):
        four.lookup("10.0.0.300")
    with pytest.raises(TypeError, match="an address must be"):
        four.lookup(1.5)
    with pytest.raises(ValueError, match="family must be"):
        fibforge.Table("ipv5")
