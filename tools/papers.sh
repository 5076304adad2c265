#!/usr/bin/env bash
# Runs every paper preset of `fibforge bench` with short settings and writes each one's output
# to docs/papers/results/<preset>.md (Markdown studies; rate tables in a text block), plus the
# Fig. 7 heat map. The docs/papers/<paper>.md pages quote these files.
#
#   tools/papers.sh [PRESET...]        (default: every preset; FIBFORGE=path to a binary built
#                                       with --features bench;
#                                       REPEATS=N timed repeats per row, default 1)
#
# Short settings: 0.05 s per timed repeat, 1 repeat, no peers, 2^16 cycle samples (presets that
# fix their own sample count keep it). On the 2-core development machine the whole suite took
# the time printed at the end (see docs/papers/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${FIBFORGE:-target/release/fibforge}
REPEATS=${REPEATS:-1}
# `fibforge bench` is the `bench` feature's: build it (a no-op when up to date) unless a
# binary is given.
[ -n "${FIBFORGE:-}" ] || cargo build --release -p fibforge-cli --features bench
OUT=docs/papers/results
mkdir -p "$OUT"
ALL=(poptrie-table2 poptrie-table3 poptrie-table3-all poptrie-table4 poptrie-traffic poptrie-fig8
     poptrie-table5 poptrie-ipv6 poptrie-updates poptrie-fig7
     sail-memory sail-traces sail-12fibs
     cpe-table3 cpe-tables cpe-table11 cpe-lookup
     bloomfwd-fpr bloomfwd-threads bloomfwd-matching bloomfwd-traffic bloomfwd-tables
     bloomfwd-ipv6 bloomfwd-table3 bloomfwd-fig5
     loop-fig9 loop-fig12 loop-fig13 loop-fig14 loop-headline)
PRESETS=("${@:-${ALL[@]}}")
START=$SECONDS
for p in "${PRESETS[@]}"; do
    t0=$SECONDS
    tmp=$(mktemp -d)
    echo "== $p" >&2
    "$BIN" bench --preset "$p" --duration 0.05 --repeats "$REPEATS" --peers none --threads 2 \
        --cycle-samples 65536 --out "$tmp" >"$tmp/stdout" 2>"$tmp/stderr" || {
        echo "$p failed:" >&2; tail -5 "$tmp/stderr" >&2; }
    {
        echo "# \`fibforge bench --preset $p\`"
        echo
        cmd="tools/papers.sh $p"; [ "$REPEATS" = 1 ] || cmd="REPEATS=$REPEATS $cmd"
        echo "Command: \`$cmd\` (= \`fibforge bench --preset $p --duration 0.05"
        echo "--repeats $REPEATS --peers none --threads 2 --cycle-samples 65536\`); $(( SECONDS - t0 )) s;"
        echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'),"
        echo "$(nproc) logical CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end (shared machine)."
        echo
        if grep -q '^### ' "$tmp/stdout"; then
            sed -n '/^### /,$p' "$tmp/stdout" | grep -v '^CPU: '
        else
            echo '```text'
            grep -v '^CPU: ' "$tmp/stdout"
            echo '```'
        fi
    } >"$OUT/$p.md"
    cp "$tmp"/fig7-*.png "$OUT/" 2>/dev/null || true
    rm -rf "$tmp"
done
echo "suite: ${#PRESETS[@]} presets in $(( SECONDS - START )) s" >&2
