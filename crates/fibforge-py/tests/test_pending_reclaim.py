"""Retired-but-unreclaimed memory is visible (issue 56): ``Table.pending_reclaim_bytes``."""
import warnings

import fibforge


def test_pending_reclaim_bytes_stays_small_with_the_tables_own_readers():
    # The table's readers are offline at rest, so updates free what they retire: at most
    # the last update's own retirements wait.
    for algo in ("poptrie", "bplus"):
        t = fibforge.Table("ipv4", algo=algo)
        assert t.pending_reclaim_bytes == 0
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for round in range(4):
                for i in range(256):
                    t.insert(f"10.{i}.0.0/16", round * 256 + i)
                pending = t.pending_reclaim_bytes
                assert isinstance(pending, int) and 0 <= pending < 1 << 20, (algo, pending)


def test_both_families_are_counted():
    t = fibforge.Table()
    t.insert("10.0.0.0/8", "a")
    t.insert("2001:db8::/32", "b")
    assert t.pending_reclaim_bytes >= 0
