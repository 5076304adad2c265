"""A batch answers each row exactly as the single lookup answers that row (issue 56): numpy
`str_` / `bytes_` columns cut rows at their first NUL (`"10.1.2.3\\0junk"` was 10.1.2.3)
and refused U+00A0 around an address, which every other column and `lookup` read otherwise.

The rule, for `lookup` and every column alike: whitespace around the text (Unicode
White_Space, as Rust's `str::trim`: space, tab, newlines, U+00A0, U+2003, U+3000, ...) is
ignored, and the rest must be exactly an address: a NUL anywhere, a zone id, a prefix length
or a leading zero is refused. A numpy fixed-width row is the element numpy gives for it
(`array[i]`: its trailing NUL padding dropped). A text with a `/` is a prefix, which
`lookup` answers with the route covering it and a batch of addresses refuses.

Differential: a corpus of odd texts, each put in a column of good addresses (alone, and at
row 4500 of 5000 so that two threads split the column) of every column type, on 1 and 2
threads: the batch's value for that row, or its ValueError naming that row, is the single
lookup's."""

import pytest

import fibforge

np = pytest.importorskip("numpy")
pa = pytest.importorskip("pyarrow")
pd = pytest.importorskip("pandas")

ROUTES = {
    "10.0.0.0/8": "ten",
    "10.1.2.3/32": "exact",
    "1.2.3.0/24": "one",
    "0.0.0.0/0": "v4-default",
    "2001:db8::/32": "doc",
    "2001:db8::1/128": "doc-1",
    "fe80::/10": "link-local",
    "::ffff:0:0/96": "mapped",
}

GOOD = ["10.1.2.3", "2001:db8::1", "::ffff:1.2.3.4", "::FFFF:1.2.3.4", "2001:DB8::A", "fe80::1"]
NUL = ["10.1.2.3\x00junk", "10.1.2.3\x00", "10.1.2.3\x00\x00", "\x0010.1.2.3", "10.1.2.3\x00 ", "2001:db8::1\x00x"]
ASCII_SPACE = [" 10.1.2.3", "10.1.2.3 ", "\t10.1.2.3", "10.1.2.3\t", "\n10.1.2.3", "10.1.2.3\r\n"]
ASCII_SPACE += ["\x0b10.1.2.3", "\x0c10.1.2.3", " 2001:db8::1 ", "10.1.2 .3", " ", "\t\n"]
UNICODE_SPACE = ["\u00a010.1.2.3", "10.1.2.3\u00a0", "\u200310.1.2.3", "\u300010.1.2.3", "\u202f2001:db8::1"]
# Not whitespace to Rust (zero-width space, BOM; U+001C is to Python's str.isspace only);
# U+0085 (next line) is.
UNICODE_SPACE += ["\u200b10.1.2.3", "\ufeff10.1.2.3", "\x1c10.1.2.3", "\u008510.1.2.3", "\u00a0"]
OTHER = ["fe80::1%eth0", "fe80::1%1", "", "1" * 600, "10.1.2.3" + " " * 600, "٣.١.٢.٣", "１０.１.２.３"]
OTHER += ["1.2.3.4/24", "10.1.2.3/32", "1.2.3.0/24", "010.1.2.3", "10.01.2.3", "::ffff:010.1.2.3"]
OTHER += ["[2001:db8::1]", "10.1.2.3.", "0x0a.1.2.3", "10.1.2", "1.2.3.4:80", "10.1.2.é", "é"]
CORPUS = GOOD + NUL + ASCII_SPACE + UNICODE_SPACE + OTHER

FILL = ["10.0.0.1", "2001:db8::5"]


def column_types(rows):
    """(name, column, the element the single lookup is given for row i)."""
    plain = lambda i: rows[i]  # noqa: E731
    unicode = np.array(rows)
    swapped = unicode.astype(unicode.dtype.newbyteorder(">"))
    object_ = np.array(rows, dtype=object)
    columns = [
        ("list", list(rows), plain),
        ("tuple", tuple(rows), plain),
        ("numpy str_", unicode, lambda i: str(unicode[i])),
        ("numpy str_ big-endian", swapped, lambda i: str(swapped[i])),
        ("numpy object", object_, plain),
        ("pyarrow string", pa.array(rows, pa.string()), plain),
        ("pyarrow large_string", pa.array(rows, pa.large_string()), plain),
        ("pyarrow chunked", pa.chunked_array([rows[: len(rows) // 2], rows[len(rows) // 2 :]], pa.string()), plain),
        ("pandas str", pd.Series(rows, dtype="str"), plain),
        ("pandas object", pd.Series(rows, dtype=object), plain),
    ]
    encoded = np.array([r.encode("utf-8") for r in rows], dtype="S")
    columns.append(("numpy bytes_", encoded, lambda i: encoded[i].decode("utf-8")))
    return columns


@pytest.fixture(scope="module")
def table():
    t = fibforge.Table()
    for prefix, value in ROUTES.items():
        t.insert(prefix, value)
    return t


def single(table, text):
    """("value", v) or ("error", None): the single lookup of `text` as an address."""
    if "/" in text:
        # A prefix: `lookup` answers the route covering it; a batch of addresses refuses it.
        return ("error", None)
    try:
        return ("value", table.lookup(text))
    except ValueError:
        return ("error", None)


def batch(table, column, row, threads):
    """("value", v) or ("error", None) for `row` of the batch; the error must name it."""
    try:
        ids = table.lookup_batch(column, threads=threads)
    except ValueError as e:
        assert str(e).startswith(f"row {row}: "), str(e)
        return ("error", None)
    return ("value", table.values_of(ids)[row])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("size, row", [(1, 0), (5000, 4500)])
def test_every_column_type_answers_as_the_single_lookup(table, size, row, threads):
    wrong = []
    for text in CORPUS:
        rows = [FILL[i % 2] for i in range(size)]
        rows[row] = text
        for name, column, element in column_types(rows):
            want = single(table, element(row))
            got = batch(table, column, row, threads)
            if got != want:
                wrong.append((text, name, got, want))
    assert wrong == []


def test_the_corpus_covers_both_answers(table):
    # The corpus must hold texts both refused and answered by the single lookup.
    answers = [single(table, text)[0] for text in CORPUS]
    assert answers.count("error") > 20 and answers.count("value") > 10


def test_embedded_nul_is_refused_in_fixed_width_arrays(table):
    for column in [np.array(["10.1.2.3", "10.1.2.3\x00junk"]), np.array([b"10.1.2.3", b"10.1.2.3\x00junk"])]:
        with pytest.raises(ValueError, match=r'^row 1: "10\.1\.2\.3\\0junk" is not an IPv4 or IPv6 address'):
            table.lookup_batch(column)
    # Trailing NULs are numpy's padding, not part of the element.
    padded = np.array([b"10.1.2.3\x00\x00"], dtype="S12")
    assert padded[0] == b"10.1.2.3"
    assert table.values_of(table.lookup_batch(padded)).tolist() == ["exact"]


def test_unicode_whitespace_is_read_alike_in_str_arrays(table):
    rows = ["\u00a010.1.2.3", "2001:db8::1\u3000"]
    assert [table.lookup(r) for r in rows] == ["exact", "doc-1"]
    for column in [np.array(rows), rows, pa.array(rows)]:
        assert table.values_of(table.lookup_batch(column)).tolist() == ["exact", "doc-1"]
