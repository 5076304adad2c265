#!/usr/bin/env bash
# Prepares the inputs of gpu/device-check.sh on this machine (no GPU needed): exports of
# SAIL_L, Poptrie and Bloomfwd compiled from the shipped tables, probe files with the RIB
# oracle's answers, and (when an nvcc is found: $NVCC or on PATH) a prebuilt driver as a
# fallback for the device machine. Everything lands in gpu/inputs/ (git-ignored; carried).
#   gpu/prepare.sh            PROBES4=2^20 PROBES6=2^19 by default
# The device call carries gpu/inputs/carry (compressed inputs and the prebuilt driver).
set -euo pipefail
cd "$(dirname "$0")/.."
IN=gpu/inputs
mkdir -p $IN
cargo build --release -q -p fibforge-cli
ff=target/release/fibforge
v4=data/ris2015-as3856.tsv.gz
v6=data/tier1-2024-v6.txt.gz
P4=${PROBES4:-1048576}
P6=${PROBES6:-524288}
$ff export --algo sail_l $v4 $IN/sail_l-v4.fexp --probes "$P4" --probe-kind random --probe-file $IN/ris2015-v4.probes
$ff export --algo poptrie $v4 $IN/poptrie-v4.fexp
$ff export --algo bloomfwd $v4 $IN/bloomfwd-v4.fexp
$ff export --algo poptrie $v6 $IN/poptrie-v6.fexp --probes "$P6" --probe-kind in-prefix --probe-file $IN/tier1-v6.probes
$ff export --algo bloomfwd $v6 $IN/bloomfwd-v6.fexp
# The host build of every lookup against the oracle, then the whole driver with its CUDA calls
# stood in for on the host (gpu/fake_cuda.h) on small batches: the device time is spent only
# on inputs and logic that already ran here.
g++ -std=c++17 -O2 -o target/host_check gpu/host_check.cpp
g++ -std=c++17 -O2 -x c++ -DFF_FAKE_CUDA -o target/driver-host gpu/driver.cu -pthread
for pair in sail_l-v4:ris2015-v4 poptrie-v4:ris2015-v4 bloomfwd-v4:ris2015-v4 poptrie-v6:tier1-v6 bloomfwd-v6:tier1-v6; do
    target/host_check $IN/${pair%%:*}.fexp $IN/${pair##*:}.probes
    target/driver-host $IN/${pair%%:*}.fexp $IN/${pair##*:}.probes "$pair" --max-log 14 --json target/driver-host.json >/dev/null
    grep -o '"answer_mismatches": [0-9]*' target/driver-host.json
done
NVCC=${NVCC:-$(command -v nvcc || true)}
if [ -n "$NVCC" ]; then
    "$NVCC" -std=c++17 -O3 -arch=sm_90 -o $IN/driver.prebuilt gpu/driver.cu -L"$(dirname "$NVCC")/../lib"
fi
# What travels to the device machine: the inputs xz-compressed (the Bloomfwd tables are mostly
# empty slots), under the 64 MiB a device call carries.
mkdir -p $IN/carry
for f in $IN/*.fexp $IN/*.probes; do xz -9 -T2 -c "$f" > "$IN/carry/$(basename "$f").xz"; done
[ -f $IN/driver.prebuilt ] && cp $IN/driver.prebuilt $IN/carry/
du -ch $IN/carry/* | tail -1
