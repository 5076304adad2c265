"""Table basics: construction, insert/remove, single lookups and their errors."""

import ipaddress

import pytest

import fibforge


def test_module_constants():
    assert fibforge.NO_ROUTE == 0xFFFFFFFF
    assert fibforge.MAX_NEXT_HOP == 0x7FFFFFFE
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


def test_large_next_hops_widen_the_table():
    t = fibforge.Table("ipv4")
    t.insert("192.0.2.0/24", 70000)
    t.insert("198.51.100.0/24", fibforge.MAX_NEXT_HOP)
    assert t.lookup("192.0.2.1") == 70000
    assert t.lookup("198.51.100.1") == fibforge.MAX_NEXT_HOP


@pytest.mark.parametrize(
    "prefix, hop, message",
    [
        ("10.0.0.1/8", 1, "host bits"),
        ("10.0.0.0/33", 1, "out of range"),
        ("nonsense", 1, "nonsense"),
        ("10.0.0.0/8", -1, "next hop"),
        ("10.0.0.0/8", fibforge.MAX_NEXT_HOP + 1, "next hop"),
        ("10.0.0.0/8", True, "next hop"),
        ("10.0.0.0/8", "gw", "next hop"),
    ],
)
def test_insert_errors_are_value_errors(prefix, hop, message):
    t = fibforge.Table("ipv4")
    with pytest.raises(ValueError, match=message):
        t.insert(prefix, hop)
    assert len(t) == 0


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
