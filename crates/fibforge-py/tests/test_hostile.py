"""The hostile corpus through Python (issue 19): every bad file raises ValueError or OSError
naming the file and the problem, without killing the interpreter, and a table loaded before
stays intact. The list mirrors fibforge_io::hostile::corpus (the Rust API, CLI and C tests
use that one)."""

import bz2
import gzip

import pytest

import fibforge

np = pytest.importorskip("numpy")

TABLE = b"".join(b"10.%d.%d.0/24 gw%d\n" % (i // 256, i % 256, i % 7) for i in range(4000))
STATE_CHANGE = bytes([0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 20]) + bytes(20)
DAMAGED = STATE_CHANGE[:5] + b"\xef" + STATE_CHANGE[6:]
GZ, BZ = gzip.compress(TABLE), bz2.compress(TABLE)

CORPUS = [
    ("empty.txt", b"", "empty"),
    ("garbage.txt", b"hello, world\n", "not a valid"),
    ("binary.bin", bytes(range(0x80, 0x100)) * 32, "is not a prefix"),
    ("truncated.txt.gz", GZ[: len(GZ) // 2], "truncated.txt.gz"),
    ("truncated.txt.bz2", BZ[: len(BZ) // 2], "truncated.txt.bz2"),
    ("bomb.txt.gz", gzip.compress(b"10.0.0.0/8 a\n" * (2 << 16) + b"x\n"), "exceeds the limit"),
    ("zeros.gz", gzip.compress(bytes(4 << 20)), "MRT record header"),
    ("long-line.txt", b"1" * (1 << 20), "byte limit"),
    ("nul.txt", b"10.0.0.0/8 a\n10.0.\x000.0/8 b\n", "0x00"),
    ("cr-only.txt", b"10.0.0.0/8 a\r11.0.0.0/8 b\r", "CR-only"),
    ("bom.txt", b"\xef\xbb\xbf10.0.0.0/8 a\n", "byte-order mark"),
    ("bad-prefix.txt", b"10.0.0/8 a\n", "not a valid"),
    ("bad-length.txt", b"10.0.0.0/33 a\n", "out of range"),
    ("plus-length.txt", b"10.0.0.0/+8 a\n", "decimal"),
    ("zero-padded-length.txt", b"10.0.0.0/08 a\n", "decimal"),
    ("host-bits.txt", b"10.0.0.1/8 a\n", "host bits"),
    ("host-bits6.txt", b"2001:db8::1/32 a\n", "host bits"),
    ("merged-lines.txt", b"10.0.0.0/8 a 11.0.0.0/8 b\n", "prefix too"),
    ("mrt-damaged-header.mrt", DAMAGED, "MRT record header"),
    ("mrt-no-route.mrt", STATE_CHANGE * 3, "no unicast route"),
    ("a-directory", None, "directory"),
]


@pytest.mark.parametrize("name,content,says", CORPUS, ids=[c[0] for c in CORPUS])
def test_the_hostile_corpus_is_refused(tmp_path, monkeypatch, small_table, name, content, says):
    monkeypatch.setenv("FIBFORGE_MAX_DECOMPRESSED", "1M")
    before = fibforge.Table.load(small_table)
    path = tmp_path / name
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    for family in ["auto", "ipv4", "ipv6"]:
        with pytest.raises((ValueError, OSError)) as err:
            fibforge.Table.load(path, family=family)
        msg = str(err.value)
        # A text that is no address names the family asked for ("expected an IPv6 prefix").
        named = says == "not a valid" and f"expected an IP{family[2:]} prefix" in msg
        assert name in msg and (says in msg or named), msg
        assert "lenient" not in msg and len(msg) < 600, msg
    assert len(before) == 5 and before.lookup("10.1.2.3") == "gw-b"


def test_dev_zero_is_refused_at_once():
    with pytest.raises(ValueError, match="/dev/zero: at byte offset 0"):
        fibforge.Table.load("/dev/zero")


def test_a_file_of_the_other_family_is_refused(tmp_path):
    six = tmp_path / "six.txt"
    six.write_text("2001:db8::/32 a\n")
    with pytest.raises(ValueError, match=r"six\.txt: holds 1 routes, all ipv6"):
        fibforge.Table.load(six, family="ipv4")
    assert len(fibforge.Table.load(six, family="ipv6")) == 1


def test_prefixes_with_inner_spaces_or_padded_lengths_are_refused():
    t = fibforge.Table()
    for bad in ["10.0.0.0 /8", "10.0.0.0/ 8", "10.0.0.0/+8", "10.0.0.0/08", "010.0.0.0/8"]:
        with pytest.raises(ValueError):
            t.insert(bad, 1)
    with pytest.raises(ValueError) as err:
        t.insert("10.0.0.1/8", 1)
    assert "host bits" in str(err.value) and "lenient" not in str(err.value)
    assert len(t) == 0


def test_a_wrong_out_array_names_what_it_got(small_table):
    t = fibforge.Table.load(small_table, family="ipv4")
    addrs = np.array([0x0A010203], dtype=np.uint32)
    with pytest.raises(TypeError, match=r"out must be a 1-D numpy uint32 array .*int64"):
        t.lookup_batch(addrs, out=np.zeros(1, np.int64))
    with pytest.raises(TypeError, match=r"out must be a 1-D numpy uint32 array .*list"):
        t.lookup_batch(addrs, out=[0])
