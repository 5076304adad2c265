#!/usr/bin/env bash
# Installs fibforge from a clean clone into a temporary prefix, as a new user would, and uses
# each face once:
#   1. `git clone` of the committed tree (HEAD of this checkout; uncommitted changes are not
#      part of a clone and are not tested);
#   2. `cargo install --path crates/fibforge-cli --root TMP/root`, then `fibforge --version`
#      and `fibforge lookup` on the shipped table data/ris2015-as3856.tsv.gz;
#   3. `pip install crates/fibforge-py` into a fresh `python3 -m venv` (pip fetches maturin and
#      numpy from the configured index), then `import fibforge` and a lookup on the same table;
#   4. (the C library: tools/install-c.sh PREFIX and a program linked through pkg-config are
#      checked by crates/fibforge-c/tests, so not repeated here.)
#
# Usage: tools/install-check.sh [WORKDIR]   (default: a fresh mktemp -d, removed on success)
# Environment: PYTHON (default python3); CARGO_TARGET_DIR is ignored: the clone builds in its
# own target/ so nothing of this checkout's builds is reused.
# Time: two release builds from scratch (fibforge-cli, then the Python extension); over 27
# minutes on 2 cores shared with ~7 other builds (load 13-18, 2026-11-27) without finishing
# the first, so it is not part of .ci/run.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/fibforge-install-check.XXXXXX")}
mkdir -p "$work"
unset CARGO_TARGET_DIR
step() { printf '\n== %s (%ds)\n' "$*" "$SECONDS"; }
fail() { echo "install-check: $*" >&2; exit 1; }

step "clone $root into $work/src"
rm -rf "$work/src"
git clone --quiet --no-hardlinks "$root" "$work/src"
cd "$work/src"
# The shipped tables are ordinary files in the repository (not LFS pointers): check one.
table=data/ris2015-as3856.tsv.gz
gzip -t "$table" || fail "$table in the clone is not a gzip file"

step "cargo install --path crates/fibforge-cli --root $work/root"
cargo install --quiet --locked --path crates/fibforge-cli --root "$work/root"
bin=$work/root/bin/fibforge
version=$("$bin" --version)
echo "$version"
want=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
[ "$version" = "fibforge $want" ] || fail "fibforge --version says '$version', Cargo.toml '$want'"
answer=$("$bin" lookup "$table" 8.8.8.8 --json)
echo "$answer"
case $answer in *'"prefix":"8.8.8.0/24"'*) ;; *) fail "fibforge lookup 8.8.8.8: '$answer'" ;; esac

step "pip install crates/fibforge-py into a fresh venv $work/venv"
"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check ./crates/fibforge-py
(cd "$work" && "$work/venv/bin/python" - "$work/src/$table" "$want") <<'EOF'
import sys
import fibforge
assert fibforge.__version__ == sys.argv[2], (fibforge.__version__, sys.argv[2])
t = fibforge.Table.load(sys.argv[1])
prefix, hop = t.lookup_prefix("8.8.8.8")
print("python:", fibforge.__file__, prefix, hop)
assert prefix == "8.8.8.0/24", prefix
EOF

step "all faces installed and used"
if [ $# -eq 0 ]; then rm -rf "$work"; fi
