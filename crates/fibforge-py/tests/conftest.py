"""Shared fixtures: paths to the repository's data and small tables written per test."""

import pathlib

import pytest

import fibforge

DATA = pathlib.Path(__file__).resolve().parents[3] / "data"


@pytest.fixture
def table():
    """A small table of both families, nested prefixes, int values 1-7."""
    t = fibforge.Table()
    for prefix, hop in [
        ("10.0.0.0/8", 1),
        ("10.1.0.0/16", 2),
        ("10.1.2.0/24", 3),
        ("0.0.0.0/1", 4),
        ("2001:db8::/32", 5),
        ("2001:db8:1::/48", 6),
        ("2001:db8:1:2::/64", 7),
    ]:
        t.insert(prefix, hop)
    return t


@pytest.fixture
def data_dir():
    return DATA


@pytest.fixture
def small_table(tmp_path):
    """A text table with both families and named next hops."""
    path = tmp_path / "small.txt"
    path.write_text(
        "# prefix next-hop\n"
        "10.0.0.0/8 gw-a\n"
        "10.1.0.0/16 gw-b\n"
        "192.168.0.0/16 gw-a\n"
        "2001:db8::/32 gw-c\n"
        "2001:db8:1::/48 gw-d\n"
    )
    return path
