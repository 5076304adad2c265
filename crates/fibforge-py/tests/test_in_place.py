"""Lists and tuples of str read in place (the str objects' own texts, in chunks of 65,536
rows): answers equal the general path's (a numpy object array of the same items is joined
and copied as before), every irregularity raises exactly as that path does, str subclasses
are str, and a list mutated by another thread never yields a row it did not hold."""

import functools
import ipaddress
import sys
import threading

import numpy as np
import pytest

import fibforge


def rows_of(n, seed=11):
    """IPv4 texts, with IPv6 every 9th row and some rows in the table's nested prefixes
    (a new list each time; the texts are made once)."""
    return list(_rows(n, seed))


@functools.cache
def _rows(n, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for i, a in enumerate(rng.integers(0, 2**32, n, dtype=np.uint64)):
        if i % 9 == 4:
            rows.append(f"2001:db8:{i // 9 % 3}::{i % 65536:x}")
        elif i % 4 == 0:
            rows.append(f"10.1.{i // 4 % 4}.{i % 256}")
        else:
            rows.append(str(ipaddress.IPv4Address(int(a))))
    return tuple(rows)


def outcome(table, column, threads=1):
    """The answers (ids, lengths) or the exception (type, message) of one batch."""
    try:
        ids, lens = table.lookup_batch(column, lengths=True, threads=threads)
        return ids.tolist(), lens.tolist()
    except Exception as e:  # noqa: BLE001 - the exception itself is compared
        return type(e), str(e)


def assert_as_general_path(table, rows, threads=1):
    """A list and a tuple of `rows` answer or fail as an object array of them does."""
    want = outcome(table, np.array(rows + [None], dtype=object)[:-1], threads)
    assert outcome(table, rows, threads) == want
    assert outcome(table, tuple(rows), threads) == want
    return want


def test_long_columns_span_chunks_and_threads(table):
    rows = rows_of(150_000)
    for threads in (1, 3):
        ids, lens = assert_as_general_path(table, rows, threads)
    sample = range(0, len(rows), 997)
    values = table.values
    want = [fibforge.NO_ROUTE if (v := table.lookup(rows[i])) is None else values.index(v) for i in sample]
    assert [ids[i] for i in sample] == want
    assert {1, 2, 3, 4, 5, 6} <= set(table.values_of(np.array(ids, np.uint32)).tolist())


@pytest.mark.parametrize("bad", [5, 70_000, 131_071])
@pytest.mark.parametrize(
    "item, error",
    [
        (167772161, (TypeError, "an address must be a str, not int")),
        (b"10.0.0.1", (TypeError, "an address must be a str, not bytes")),
        (1.5, (TypeError, "an address must be a str, not float")),
        ("10.0.0.256", (ValueError, '"10.0.0.256" is not an IPv4 or IPv6 address')),
        ("１0.0.0.1", (ValueError, '"１0.0.0.1" is not an IPv4 or IPv6 address')),
    ],
)
def test_a_bad_item_in_any_chunk_raises_naming_its_row(table, bad, item, error):
    rows = rows_of(150_000)
    rows[bad] = item
    kind, message = assert_as_general_path(table, rows)
    assert (kind, message) == (error[0], f"row {bad}: {error[1]}")


def test_mixed_bad_items_keep_the_general_paths_precedence(table):
    rows = rows_of(100_000)
    rows[3] = "1.2.3"
    rows[90_000] = 7
    # The general path copies every row before it parses any: a non-str anywhere wins.
    assert assert_as_general_path(table, rows) == (TypeError, "row 90000: an address must be a str, not int")
    rows[90_000] = "x"
    rows[80_000] = None
    rows[10] = b"10.0.0.1"
    assert assert_as_general_path(table, rows) == (TypeError, "row 10: an address must be a str, not bytes")
    rows[10] = rows[80_000] = "10.0.0.1"
    assert assert_as_general_path(table, rows) == (ValueError, 'row 3: "1.2.3" is not an IPv4 or IPv6 address')


def test_non_ascii_texts_and_lone_surrogates_as_before(table):
    # std's trim takes Unicode whitespace: U+2003 and U+00A0 around an address are allowed.
    ok = ["10.1.2.3\u2003", "\u00a010.0.0.1", "2001:db8:1::5", "10.0.0.1"]
    ids, _ = assert_as_general_path(table, ok)
    assert ids == table.lookup_batch(["10.1.2.3", "10.0.0.1", "2001:db8:1::5", "10.0.0.1"]).tolist()
    for bad in ["10.0.0.é", "\ud800", "10.0.0.1\udcff", "ü" * 70]:
        kind, message = assert_as_general_path(table, ["10.0.0.1"] * 3 + [bad])
        # UnicodeEncodeError (a ValueError) for the surrogates, as before.
        assert issubclass(kind, ValueError) and (kind is not ValueError or message.startswith("row 3: "))


def test_str_subclasses_are_read_as_str(table):
    class Addr(str):
        def __str__(self):
            return "10.1.2.3"

        def encode(self, *args):
            raise AssertionError("not called")

    rows = rows_of(70_000)
    mixed = [Addr(r) if i % 3 else r for i, r in enumerate(rows)]
    want = table.lookup_batch(rows).tolist()
    assert assert_as_general_path(table, mixed)[0] == want
    assert table.lookup_batch([Addr("2001:db8:1::5")]).tolist() == table.lookup_batch(["2001:db8:1::5"]).tolist()


def test_empty_and_single_item_sequences(table):
    assert table.lookup_batch([]).tolist() == []
    assert table.lookup_batch(()).tolist() == []
    assert assert_as_general_path(table, ["10.1.2.3"])[0] == table.lookup_batch(np.array(["10.1.2.3"])).tolist()


def test_family_missing_from_the_table_as_before(small_table):
    four = fibforge.Table.load(small_table, family="ipv4")
    kind, message = assert_as_general_path(four, ["10.0.0.1"] * 70_000 + ["2001:db8::1"])
    assert kind is ValueError and message == "row 70000: IPv6 address in a table without IPv6"


def run_beside(mutate, batches):
    """Runs `batches()` while another thread calls `mutate(k)` for k = 0, 1, ... with a
    short switch interval, so that it runs between the chunks (the GIL is let go there)."""
    stop = threading.Event()

    def loop():
        k = 0
        while not stop.is_set():
            mutate(k)
            k += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    mutator = threading.Thread(target=loop)
    mutator.start()
    try:
        batches()
    finally:
        stop.set()
        mutator.join()
        sys.setswitchinterval(old)


def test_a_list_mutated_by_another_thread(table):
    # Another thread keeps replacing items (freeing the strs they held) while batches run:
    # every row answers as one of the two texts it ever held, and nothing crashes.
    n = 300_000
    first, second = rows_of(n, seed=1), rows_of(n, seed=2)
    answers = [table.lookup_batch(r) for r in (first, second)]
    column = list(first)

    def mutate(k):
        for i in range(k % 7, n, 7):
            # A fresh str each time, so that the old one is freed.
            column[i] = "".join(list((first if (i + k) % 2 else second)[i]))

    def batches():
        for threads in (1, 2, 1, 3):
            got = table.lookup_batch(column, threads=threads)
            assert ((got == answers[0]) | (got == answers[1])).all()

    run_beside(mutate, batches)


def test_a_list_shortened_by_another_thread(table):
    # Items removed and put back between chunks: the batch answers for the list as it
    # was or is (an item missing when read sends the batch to the general path).
    n = 300_000
    rows = rows_of(n, seed=3)
    want = table.lookup_batch(rows)
    column = list(rows)

    def mutate(k):
        tail = column[-1000:]
        del column[-1000:]
        column.extend(tail)

    def batches():
        lengths = set()
        for threads in (1, 2, 1, 3):
            got = table.lookup_batch(column, threads=threads)
            lengths.add(len(got))
            assert len(got) in (n - 1000, n)
            np.testing.assert_array_equal(got, want[: len(got)])

    run_beside(mutate, batches)
