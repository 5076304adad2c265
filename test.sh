#!/usr/bin/env bash
# All tests: the Rust workspace (including the C ABI test program, compiled and run by
# crates/fibforge-c/tests/c_api.rs), then the Python bindings' pytest suite.
#
# Python needs maturin, numpy and pytest for the interpreter in $PYTHON (default python3):
#   python3 -m pip install maturin numpy pytest
# The wheel (Cargo profile `checked`: optimised, without release's LTO) is built into
# target/wheels and unpacked into target/py-test-site (nothing is installed into the
# interpreter's own site-packages). Extra arguments go to cargo test.
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

rm -rf target/wheels target/py-test-site
(cd crates/fibforge-py && "$PYTHON" -m maturin build --profile checked --quiet -i "$PYTHON" -o ../../target/wheels)
"$PYTHON" -m pip install --quiet --no-deps --no-index --disable-pip-version-check --root-user-action=ignore \
  --target target/py-test-site target/wheels/fibforge-*.whl
PYTHONPATH="$PWD/target/py-test-site" "$PYTHON" -m pytest -q crates/fibforge-py/tests
