"""A value's own Python code may use the table that stores it (issue 56): `Table` held its
values' lock while a value's `__hash__` / `__eq__` ran (and while allocating, when the
garbage collector may run any `__del__`), so a value that looked up, inserted or read
`t.values` waited forever for a lock its own thread held, and SIGINT could not stop it.

Each case runs in a child interpreter with a timeout, so a regression fails here instead of
hanging the suite; each prints what the table answered inside and after."""

import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import fibforge
t = fibforge.Table()
t.insert("10.0.0.0/8", "ten")
"""


def run(code):
    """The child's printed words; fails if it hangs or exits non-zero."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the child hung: a table lock was held while the value's Python code ran")
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_hash_that_looks_up_the_same_table():
    out = run("""
        seen = []

        class Value:
            def __hash__(self):
                seen.append(t.lookup("10.1.2.3"))
                return 7

        t.insert("192.0.2.0/24", Value())
        print(set(seen), type(t.lookup("192.0.2.1")).__name__, len(t))
    """)
    assert out == ["{'ten'}", "Value", "2"]


def test_eq_that_inserts_into_the_same_table():
    out = run("""
        class Value:
            def __init__(self, n):
                self.n = n

            def __hash__(self):
                return 1

            def __eq__(self, other):
                t.insert("192.0.2.%d/32" % self.n, "from-eq")
                return isinstance(other, Value) and self.n == other.n

        t.insert("198.51.100.0/24", Value(1))
        t.insert("203.0.113.0/24", Value(1))  # the index compares it with the first: __eq__
        print(t.lookup("203.0.113.1").n, t.lookup("192.0.2.1"), len(t.values))
    """)
    # The two equal values share one id; "from-eq" is the third value.
    assert out == ["1", "from-eq", "3"]


def test_hash_that_reads_len_of_the_values():
    out = run("""
        sizes = []

        class Value:
            def __hash__(self):
                sizes.append(len(t.values))
                return 7

        t.insert("192.0.2.0/24", Value())
        print(min(sizes), len(t.values))
    """)
    assert out == ["1", "2"]


def test_del_that_uses_the_table_while_values_are_replaced():
    # Garbage in reference cycles is freed by the collector, which (before Python 3.12) runs
    # inside whichever allocation passes its threshold: with threshold 1, inside the
    # table's own allocations while a route's value is replaced and `t.values` is read.
    out = run("""
        import gc

        seen = []

        class Noisy:
            def __del__(self):
                seen.append(t.lookup("10.1.2.3"))
                seen.append(len(t.values))
                t.insert("192.0.2.0/24", "from-del")

        def garbage():
            n = Noisy()
            n.cycle = n

        gc.collect()
        gc.set_threshold(1)
        for i in range(50):
            garbage()
            t.insert("10.0.0.0/8", "value-%d" % i)
            t.values
        gc.set_threshold(700)
        gc.collect()
        print(len(seen) // 2, t.lookup("10.1.2.3"), t.lookup("192.0.2.1"))
    """)
    assert out == ["50", "value-49", "from-del"]


def test_values_of_and_routes_while_a_hash_reads_them():
    out = run("""
        import numpy as np

        got = []

        class Value:
            def __hash__(self):
                got.append(t.values_of(np.array([0], np.uint32)).tolist())
                got.append(len(t.routes()))
                return 7

        t.insert("192.0.2.0/24", Value())
        t.insert("198.51.100.0/24", Value())
        print(got[0], got[1], len(t.values))
    """)
    assert out == ["['ten']", "1", "3"]
