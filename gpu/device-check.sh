#!/usr/bin/env bash
# The one prepared device check of issue 24, run on the GPU machine from the repository root:
#   gpu/device-check.sh            (inputs from gpu/prepare.sh in gpu/inputs/, report to $OUT)
# Builds the driver with nvcc (falls back to the prebuilt one carried in gpu/inputs/), checks
# the host build of every lookup against the RIB oracle, runs the driver on every export
# (0 mismatches required) and writes $OUT/gpu-report.json, $OUT/gpu-batches.png and the log.
set -uo pipefail
OUT=${OUT:-/tmp/gpu-out}
MAX_LOG=${MAX_LOG:-26}
IN=/tmp/ffgpu/inputs
mkdir -p "$OUT" $IN
exec > >(tee "$OUT/device-check.log") 2>&1
date -u
for f in gpu/inputs/carry/*; do
    case $f in
        *.xz) xz -dc "$f" > "$IN/$(basename "$f" .xz)" || python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" "$f" > "$IN/$(basename "$f" .xz)" ;;
        *) cp "$f" $IN/ ;;
    esac
done
ls -la $IN
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
nproc

build=/tmp/ffgpu
mkdir -p $build
if nvcc -std=c++17 -O3 -arch=sm_90 -o $build/driver gpu/driver.cu; then
    echo "driver: built here with $(nvcc --version | tail -1)"
else
    echo "driver: nvcc failed, using the prebuilt driver"; cp $IN/driver.prebuilt $build/driver
fi
g++ -std=c++17 -O2 -o $build/host_check gpu/host_check.cpp || exit 1

status=0
# label  export  probes
runs=(
  "sail_l-ris2015-v4 sail_l-v4.fexp ris2015-v4.probes"
  "poptrie-ris2015-v4 poptrie-v4.fexp ris2015-v4.probes"
  "bloomfwd-ris2015-v4 bloomfwd-v4.fexp ris2015-v4.probes"
  "poptrie-tier1-v6 poptrie-v6.fexp tier1-v6.probes"
  "bloomfwd-tier1-v6 bloomfwd-v6.fexp tier1-v6.probes"
)
first=--pcie
for r in "${runs[@]}"; do
    set -- $r
    $build/host_check $IN/$2 $IN/$3 || status=1
    timeout 150 $build/driver $IN/$2 $IN/$3 $1 --max-log $MAX_LOG --json "$OUT/$1.json" $first >/dev/null || status=1
    first=
done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out, "*-v[46].json")))]
json.dump({"runs": runs}, open(os.path.join(out, "gpu-report.json"), "w"), indent=1)
for p in glob.glob(os.path.join(out, "*-v[46].json")):
    os.remove(p)
for r in runs:
    b = max(r["batches"], key=lambda x: x["kernel_lookups_per_s"])
    c = r["cooperative"]
    print(f'{r["label"]:22} probes {r["probe_mismatches_gpu"]:.0f}/{r["probes"]:.0f} bad, answers '
          f'{r["answer_mismatches"]:.0f}/{r["answers_checked"]:.0f} bad, kernel {b["kernel_lookups_per_s"]/1e9:.2f} G/s, '
          f'coop {c["speedup_over_gpu_alone"]:.2f}x')
    if r["probe_mismatches_gpu"] or r["probe_mismatches_host"] or r["answer_mismatches"]:
        sys.exit(1)
PY
[ $? -eq 0 ] || status=1
python3 gpu/plot.py "$OUT/gpu-report.json" "$OUT/gpu-batches.png" || echo "plot failed"
echo "device check status $status"
exit $status
