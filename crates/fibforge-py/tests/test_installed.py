"""The suite runs against the installed wheel (./test.sh installs it into a fresh virtual
environment and sets FIBFORGE_TEST_INSTALLED), not against the source tree."""

import os
import pathlib
import shutil
import sys

import pytest

import fibforge

SOURCE = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.skipif(not os.environ.get("FIBFORGE_TEST_INSTALLED"), reason="not run by ./test.sh")
def test_the_package_is_the_installed_wheel_without_rust():
    where = pathlib.Path(fibforge.__file__).resolve()
    assert SOURCE not in where.parents, where
    assert pathlib.Path(sys.prefix) in where.parents, (sys.prefix, where)
    assert shutil.which("cargo") is None and shutil.which("rustc") is None
