#!/usr/bin/env bash
# All tests: the Rust workspace (including the C ABI test program, compiled and run by
# crates/fibforge-c/tests/c_api.rs), then the Python bindings' pytest suite.
#
# Python needs maturin, numpy and pytest for the interpreter in $PYTHON (default python3):
#   python3 -m pip install maturin numpy pytest
# The wheel (Cargo profile `checked`: optimised, without release's LTO) is built into
# target/wheels and installed into the virtual environment target/py-venv (nothing is
# installed into the interpreter's own site-packages). Extra arguments go to cargo test.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}

# The Python tools first: a missing one is reported now, not after half an hour of Rust tests.
if ! "$PYTHON" -c "import maturin, numpy, pytest" 2>/dev/null; then
  echo "error: the Python tests need maturin, numpy and pytest: $PYTHON -m pip install maturin numpy pytest" >&2
  exit 1
fi

# The library, binary and integration tests, then the doc tests; the examples are not built
# here (`cargo clippy --all-targets` in CI compiles them).
# fibforge-py has no Rust tests (pytest covers it), and both commands leave it out: `--doc`
# would build its doc tests despite `doctest = false`, and the same selection in both keeps
# one feature resolution (pyo3 adds features to syn and num-traits), so the doc tests reuse
# the first command's build instead of compiling every crate a second time. Both turn on
# `fibforge bench` (the `bench` feature of fibforge-cli) so that its tests run, with the same
# features for the same reason.
features=(--features fibforge-cli/bench,fibforge/serde)
cargo test --workspace --exclude fibforge-py "${features[@]}" --tests "$@"
cargo test --workspace --exclude fibforge-py "${features[@]}" --doc "$@"

# The wheel is built as users get it: with zig installed (`pip install ziglang`, as CI does), the
# portable manylinux2014 wheel (glibc 2.17) that tools/build-wheels publishes; without, one for
# this machine's glibc. It is installed with pip into a fresh virtual environment (numpy, pytest
# and the optional packages come from the interpreter's own site-packages), and pytest runs
# there with no Rust toolchain on PATH, against the installed package, not the source tree
# (test_installed.py checks where `fibforge` comes from).
rm -rf target/wheels target/py-venv
portable=()
if "$PYTHON" -m ziglang version >/dev/null 2>&1; then
  portable=(--zig --compatibility manylinux2014)
fi
(cd crates/fibforge-py && "$PYTHON" -m maturin build --profile checked --quiet "${portable[@]}" -i "$PYTHON" -o ../../target/wheels)
"$PYTHON" -m venv --system-site-packages target/py-venv
target/py-venv/bin/python -m pip install --quiet --no-deps --no-index --disable-pip-version-check \
  target/wheels/fibforge-*.whl
no_rust_path=$(tr ':' '\n' <<<"$PATH" | grep -v -e '\.cargo' -e rustup | paste -sd: -)
PATH="$no_rust_path" FIBFORGE_TEST_INSTALLED=1 target/py-venv/bin/python -m pytest -q crates/fibforge-py/tests
