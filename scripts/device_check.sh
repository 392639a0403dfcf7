#!/usr/bin/env bash
# The GPU check of the cuda target, run on a machine with an NVIDIA GPU and
# no compiler (the device tool's H200): the artifacts prepared here by
# scripts/device_check/prepare.py, against ONNX Runtime's CPU outputs, then
# timings. Writes results.json and the log to $OUT (default: the folder).
#
#   here:  .venv/bin/python scripts/device_check/prepare.py
#   there: scripts/device_check.sh [build/device_check]
set -uo pipefail
folder=${1:-build/device_check}
out=${OUT:-$folder}
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  2>&1 | tee "$out/gpu.txt"
export PYTHONUNBUFFERED=1
timeout 420 python3 scripts/device_check/run.py "$folder" --out "$out" 2>&1 |
  tee "$out/log.txt"
