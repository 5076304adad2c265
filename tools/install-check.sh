#!/usr/bin/env bash
# Installs fibforge into a temporary prefix and uses each face once, as a new user would.
#
#   tools/install-check.sh [WORKDIR]                  from a clean clone, release builds
#   tools/install-check.sh --reuse-builds [WORKDIR]   this checkout's own builds (what CI runs)
#
# Full mode:
#   1. `git clone` of the committed tree (HEAD of this checkout; uncommitted changes are not
#      part of a clone and are not tested);
#   2. `cargo install --path crates/fibforge-cli --root TMP/root`, then `fibforge --version`,
#      `fibforge lookup` on the shipped table data/ris2015-as3856.tsv.gz and `fibforge bench`
#      (built without the `bench` feature: it must say how to get it);
#   3. `pip install crates/fibforge-py` into a fresh `python3 -m venv` (pip fetches maturin and
#      numpy from the configured index), then `import fibforge` and a lookup on the same table.
#   Two release builds from scratch (fibforge-cli, then the Python extension): 27 minutes
#   (9 CPU minutes) on 2 cores shared with other builds (load 13-16, 2026-11-27), so not
#   part of .ci/run.
#
# --reuse-builds (run by .ci/run after ./test.sh, on CI's clean checkout): step 2 as
# `cargo install --debug --target-dir target`, which reuses the tests' debug build, and
# step 3 installs the wheel ./test.sh built (target/wheels) into a fresh venv; the same
# checks run on both. In both modes the C library (tools/install-c.sh PREFIX and a program
# linked through pkg-config) is checked by crates/fibforge-c/tests, so it is not repeated here.
#
# Environment: PYTHON (default python3). WORKDIR defaults to a fresh mktemp -d, removed on
# success.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
reuse=false
if [ "${1:-}" = "--reuse-builds" ]; then reuse=true; shift; fi
keep=$#
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/fibforge-install-check.XXXXXX")}
mkdir -p "$work"
work=$(cd "$work" && pwd)
step() { printf '\n== %s (%ds)\n' "$*" "$SECONDS"; }
fail() { echo "install-check: $*" >&2; exit 1; }
table=data/ris2015-as3856.tsv.gz
want=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -1)

# `fibforge --version` and a lookup, run from outside the source tree.
check_cli() {
    local bin=$1 version answer
    version=$(cd "$work" && "$bin" --version)
    echo "$version"
    [ "$version" = "fibforge $want" ] || fail "fibforge --version says '$version', Cargo.toml '$want'"
    answer=$(cd "$work" && "$bin" lookup "$src/$table" 8.8.8.8 --json)
    echo "$answer"
    case $answer in *'"prefix":"8.8.8.0/24"'*) ;; *) fail "fibforge lookup 8.8.8.8: '$answer'" ;; esac
    # Installed without the `bench` feature: `bench` says how to get it.
    answer=$(cd "$work" && "$bin" bench 2>&1) && fail "fibforge bench without the bench feature succeeded"
    case $answer in *"--features bench"*) ;; *) fail "fibforge bench: '$answer'" ;; esac
}

# `import fibforge` in the venv and a lookup, run from outside the source tree.
check_python() {
    (cd "$work" && "$work/venv/bin/python" - "$src/$table" "$want") <<'PY'
import sys
import fibforge
assert fibforge.__version__ == sys.argv[2], (fibforge.__version__, sys.argv[2])
t = fibforge.Table.load(sys.argv[1])
prefix, hop = t.lookup_prefix("8.8.8.8")
print("python:", fibforge.__file__, prefix, hop)
assert prefix == "8.8.8.0/24", prefix
PY
}

if $reuse; then
    src=$root
    cd "$src"
    step "cargo install --debug --path crates/fibforge-cli --root $work/root (this checkout's target/)"
    cargo install --quiet --locked --debug --path crates/fibforge-cli --root "$work/root" --target-dir target
else
    unset CARGO_TARGET_DIR # the clone builds in its own target/: nothing of this checkout is reused
    src=$work/src
    step "clone $root into $src"
    rm -rf "$src"
    git clone --quiet --no-hardlinks "$root" "$src"
    cd "$src"
    # The shipped tables are ordinary files in the repository (not LFS pointers): check one.
    gzip -t "$table" || fail "$table in the clone is not a gzip file"
    step "cargo install --path crates/fibforge-cli --root $work/root"
    cargo install --quiet --locked --path crates/fibforge-cli --root "$work/root"
fi
check_cli "$work/root/bin/fibforge"

step "a fresh venv $work/venv"
rm -rf "$work/venv"
"$PYTHON" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check)
if $reuse; then
    wheels=(target/wheels/fibforge-*.whl)
    [ -f "${wheels[0]}" ] || fail "no wheel in target/wheels: run ./test.sh first"
    step "pip install ${wheels[0]}"
    "${pip[@]}" "${wheels[0]}"
else
    step "pip install ./crates/fibforge-py"
    "${pip[@]}" ./crates/fibforge-py
fi
check_python

step "all faces installed and used"
if [ "$keep" -eq 0 ]; then rm -rf "$work"; fi
