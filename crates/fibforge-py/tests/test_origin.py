"""Origin AS tables: `Table.load(..., value="origin_as")` answers as the independent reference
answers of ../shared/data/expected (global2026-origin: prefix -> origin AS, v4 and v6)."""

import gzip
import os
import pathlib

import numpy as np
import pytest

import fibforge

SHARED = pathlib.Path(os.environ.get("FIBFORGE_SHARED_DATA", pathlib.Path(__file__).resolve().parents[3] / ".." / "shared" / "data"))
TABLE = SHARED / "tables" / "mixed" / "global2026-origin.tsv.gz"
EXPECTED = SHARED / "expected" / "global2026-origin.expected.tsv.gz"


def test_text_origin_as_column(tmp_path):
    path = tmp_path / "rib.txt"
    path.write_text("10.0.0.0/8 192.0.2.1 64500\n10.1.0.0/16 192.0.2.2 {64501,64502}\n2001:db8::/32 ::1 AS64503\n192.0.2.0/24 10.0.0.1 -\n")
    t = fibforge.Table.load(path, value="origin_as")
    assert t.lookup("10.2.0.0") == 64500 and t.lookup("10.1.0.0") == 64501
    assert t.lookup_prefix("2001:db8::1") == ("2001:db8::/32", 64503)
    assert "192.0.2.1" in t and t.lookup("192.0.2.1") is None  # no AS path: no origin
    assert fibforge.Table.load(path).lookup("10.2.0.0") == "192.0.2.1"
    with pytest.raises(ValueError, match="value must be 'next_hop' or 'origin_as'"):
        fibforge.Table.load(path, value="asn")
    with pytest.raises(ValueError, match="text table, which has no peers"):
        fibforge.Table.load(path, peer_as=64500)
    with pytest.raises(ValueError, match="peer must be an IP address"):
        fibforge.Table.load(path, peer="nope")


@pytest.mark.skipif(not EXPECTED.exists(), reason=f"shared data not here: {EXPECTED}")
def test_global_origin_table_answers_as_the_reference():
    t = fibforge.Table.load(TABLE, value="origin_as")
    addrs, prefixes, origins = [], [], []
    with gzip.open(EXPECTED, "rt") as f:
        for line in f:
            addr, prefix, origin = line.split()
            addrs.append(addr)
            prefixes.append(None if prefix == "-" else prefix)
            origins.append(None if origin == "-" else int(origin))
    assert len(addrs) > 290_000 and sum(o is not None for o in origins) > 100_000
    ids, lengths = t.lookup_batch(addrs, lengths=True, threads=2)
    assert t.values_of(ids).tolist() == origins
    want_len = [fibforge.NO_LENGTH if p is None else int(p.split("/")[1]) for p in prefixes]
    np.testing.assert_array_equal(lengths, want_len)
    for i in range(0, len(addrs), 997):
        got = t.lookup_prefix(addrs[i])
        assert got == (None if prefixes[i] is None else (prefixes[i], origins[i])), addrs[i]


REPO_DATA = pathlib.Path(__file__).resolve().parents[3] / "data"


def bgpdump_replay(text, peer_as):
    """The final prefix -> origin AS table of one peer AS, replayed from `bgpdump -m` text: the
    last AS of the ASPATH field, or the first AS of a final {set}; None for an empty path."""
    import ipaddress

    table = {}
    with gzip.open(text, "rt") as f:
        for line in f:
            fields = line.rstrip("\n").split("|")
            if fields[2] not in ("A", "W") or int(fields[4]) != peer_as:
                continue
            prefix = ipaddress.ip_network(fields[5])
            if fields[2] == "W":
                table.pop(prefix, None)
                continue
            path = fields[6].split()
            origin = path[-1].lstrip("{").split(",")[0].rstrip("}") if path else None
            table[prefix] = None if origin is None else int(origin)
    return table


@pytest.mark.parametrize("peer_as", [5385, 8514, 13237])
def test_mrt_origin_as_answers_as_bgpdump(peer_as):
    """An MRT update stream loaded with value="origin_as" (AS_PATH, AS4_PATH for the 2-byte
    sessions of peers 5385 and 8514) holds, per prefix, the origin AS bgpdump printed."""
    import ipaddress

    mrt = REPO_DATA / "mrt" / "updates.20100722.2015.gz"
    want = bgpdump_replay(REPO_DATA / "mrt-text" / "updates.20100722.2015.gz.bgp.gz", peer_as)
    assert want and any(o is not None and o > 65535 for o in want.values())
    t = fibforge.Table.load(mrt, value="origin_as", peer_as=peer_as)
    got = {ipaddress.ip_network(p): v for p, v in t.routes()}
    assert got == want
