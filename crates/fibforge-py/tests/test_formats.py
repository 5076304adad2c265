"""The data analysts have: CSV tables (GeoLite2 blocks, IP2Location ranges), MaxMind DB files
written here by the ``mmdb-writer`` package, and tables built in bulk from two columns."""

import ipaddress
import time

import numpy as np
import pytest

import fibforge


def test_geolite2_csv_by_default_and_by_column_name(tmp_path):
    path = tmp_path / "GeoLite2-ASN-Blocks.csv"
    path.write_text(
        "network,autonomous_system_number,autonomous_system_organization\n"
        "1.0.0.0/24,13335,CLOUDFLARENET\n"
        '2001:db8::/32,64500,"Example, Inc."\n'
    )
    t = fibforge.Table.load(path)
    assert t.lookup_prefix("1.0.0.9") == ("1.0.0.0/24", "13335")
    t = fibforge.Table.load(path, value_field="autonomous_system_organization")
    assert t["2001:db8::1"] == "Example, Inc."
    t = fibforge.Table.load(path, value="origin_as")
    assert t["1.0.0.1"] == 13335
    with pytest.raises(ValueError, match="no column named 'asn'"):
        fibforge.Table.load(path, value_field="asn")


def test_ip2location_ranges_split_into_prefixes(tmp_path):
    path = tmp_path / "IP2LOCATION-LITE-ASN.CSV"
    path.write_text(
        '"16777216","16777471","1.0.0.0/24","13335","CloudFlare Inc."\n'
        '"16777472","16778239","1.0.1.0/23","-","-"\n'
    )
    t = fibforge.Table.load(path)
    assert sorted(p for p, _ in t.routes()) == ["1.0.0.0/24", "1.0.1.0/24", "1.0.2.0/23"]
    assert t.lookup_prefix("1.0.3.4") == ("1.0.2.0/23", "-")


def _write_mmdb(path):
    mmdb_writer = pytest.importorskip("mmdb_writer")
    netaddr = pytest.importorskip("netaddr")
    writer = mmdb_writer.MMDBWriter(ip_version=6, database_type="test", ipv4_compatible=True)
    records = {
        "1.0.0.0/24": {"country": {"iso_code": "AU"}, "asn": mmdb_writer.MmdbU32(13335)},
        "81.0.0.0/10": {"country": {"iso_code": "NL"}, "tags": ["eu", "nl"]},
        "2001:db8::/32": {"country": {"iso_code": "NL"}},
    }
    for network, record in records.items():
        writer.insert_network(netaddr.IPSet([network]), record)
    writer.to_db_file(str(path))
    return records


def test_maxmind_db_records_become_python_values(tmp_path):
    path = tmp_path / "test.mmdb"
    records = _write_mmdb(path)
    t = fibforge.Table.load(path)
    assert len(t) == 3
    for network, record in records.items():
        first = str(ipaddress.ip_network(network)[1])
        prefix, value = t.lookup_prefix(first)
        assert prefix == network
        assert value == {k: getattr(v, "value", v) for k, v in record.items()}
    t = fibforge.Table.load(path, value_field="country.iso_code")
    assert t["81.2.3.4"] == "NL" and t["1.0.0.1"] == "AU"
    assert t.lookup_values(["1.0.0.1", "2001:db8::5", "9.9.9.9"]).tolist() == ["AU", "NL", None]
    t = fibforge.Table.load(path, value_field="tags.1")
    assert len(t) == 1 and t["81.0.0.1"] == "nl"


def test_a_damaged_maxmind_db_is_refused(tmp_path):
    path = tmp_path / "test.mmdb"
    _write_mmdb(path)
    data = path.read_bytes()
    path.write_bytes(data[-300:])
    with pytest.raises(ValueError, match="MaxMind DB"):
        fibforge.Table.load(path)


@pytest.mark.parametrize("kind", ["list", "numpy", "pyarrow", "pandas"])
def test_from_arrays_answers_as_inserts(kind):
    prefixes = ["10.0.0.0/8", "10.1.0.0/16", "2001:db8::/32", "10.0.0.0/8"]
    values = [{"a": 1}, "b", 3, "last wins"]
    if kind == "numpy":
        prefixes, values = np.array(prefixes), np.array(values, dtype=object)
    elif kind == "pyarrow":
        pa = pytest.importorskip("pyarrow")
        prefixes = pa.array(prefixes)
        values = ["x", "b", "3", "last wins"]
    elif kind == "pandas":
        pd = pytest.importorskip("pandas")
        df = pd.DataFrame({"network": prefixes, "value": values})
        prefixes, values = df["network"], df["value"]
    t = fibforge.Table.from_arrays(prefixes, values)
    assert len(t) == 3
    assert t.lookup_prefix("10.1.2.3")[0] == "10.1.0.0/16"
    assert t["10.200.0.1"] == "last wins"
    assert t.lookup_prefix("2001:db8::1")[0] == "2001:db8::/32"


def test_from_arrays_refuses_naming_the_row():
    with pytest.raises(ValueError, match="differ in length"):
        fibforge.Table.from_arrays(["10.0.0.0/8"], [])
    with pytest.raises(ValueError, match="row 1"):
        fibforge.Table.from_arrays(["10.0.0.0/8", "10.0.0.1/8"], [1, 2])
    with pytest.raises(ValueError, match="row 0.*family"):
        fibforge.Table.from_arrays(["2001:db8::/32"], [1], family="ipv4")
    t = fibforge.Table.from_arrays(
        [ipaddress.ip_network("192.0.2.0/24")], [7], family="ipv4", algo="bplus"
    )
    assert t["192.0.2.9"] == 7 and t.algo == "bplus"


def test_from_arrays_builds_a_full_table_as_load_does(data_dir):
    loaded = fibforge.Table.load(data_dir / "ris2015-as3856.tsv.gz")
    prefixes, values = zip(*loaded.routes())
    start = time.perf_counter()
    built = fibforge.Table.from_arrays(list(prefixes), list(values))
    seconds = time.perf_counter() - start
    print(f"from_arrays: {len(built)} routes in {seconds:.3f} s")
    assert len(built) == len(loaded)
    probes = [str(ipaddress.ip_network(p)[0]) for p in prefixes[::97]]
    assert built.lookup_values(probes).tolist() == loaded.lookup_values(probes).tolist()


def test_prefixes_of_a_value_as_pyasn_gives_them(data_dir):
    t = fibforge.Table.load(data_dir / "ris2015-as3856.tsv.gz", value="origin_as")
    by_value = {}
    for prefix, asn in t.routes():
        by_value.setdefault(asn, []).append(prefix)
    for asn in [15169, 13335, 3356]:
        assert t.prefixes_of(asn) == by_value.get(asn, [])
    assert t.prefixes_of(15169)
    assert t.prefixes_of("15169") == []  # a str is not the int
    u = fibforge.Table()
    u["10.0.0.0/8"], u["11.0.0.0/8"], u["12.0.0.0/8"] = [1], 1, True
    assert u.prefixes_of([1]) == ["10.0.0.0/8"]
    assert u.prefixes_of(1) == ["11.0.0.0/8"]
