"""Shared fixtures: paths to the repository's data and small tables written per test."""

import pathlib

import pytest

DATA = pathlib.Path(__file__).resolve().parents[3] / "data"


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
