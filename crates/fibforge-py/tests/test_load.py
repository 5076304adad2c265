"""Loading text tables and MRT dumps, and the errors of malformed or missing files."""

import pytest

import fibforge


def test_load_text_table_with_names(small_table):
    t = fibforge.Table.load(small_table)
    assert len(t) == 5
    assert t.lookup("10.1.2.3") == "gw-b"
    assert t.lookup_prefix("2001:db8:1::5") == ("2001:db8:1::/48", "gw-d")
    assert t.values == ["gw-a", "gw-b", "gw-c", "gw-d"]
    assert fibforge.Table().values == []
    four = fibforge.Table.load(str(small_table), family="ipv4")
    assert len(four) == 3 and four.family == "ipv4"
    assert len(fibforge.Table.load(small_table, family="ipv6")) == 2


def test_load_real_gzip_table(data_dir):
    t = fibforge.Table.load(data_dir / "ris2015-as3856.tsv.gz", family="ipv4")
    assert len(t) == 577_703
    assert t.lookup("8.8.8.8") is not None


def test_load_mrt_dumps(data_dir):
    # These dumps hold several peers' views: the load says so and how to choose one.
    merged = r"routes of \d+ peers merged .*choose one with peer= or peer_as="
    with pytest.warns(UserWarning, match=merged):
        four = fibforge.Table.load(data_dir / "mrt" / "bview.ipv4_unicast_add_path.gz")
    with pytest.warns(UserWarning, match=merged):
        six = fibforge.Table.load(data_dir / "mrt" / "bview.ipv6_unicast_add_path.gz")
    assert len(four) > 0 and len(six) > 0


def test_malformed_file_is_a_value_error_naming_the_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("10.0.0.0/8 a\n\n10.0.0.1/8 b\n")
    with pytest.raises(ValueError, match=r"bad\.txt:3: .*host bits"):
        fibforge.Table.load(bad)


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(OSError, match="missing.txt"):
        fibforge.Table.load(tmp_path / "missing.txt")
