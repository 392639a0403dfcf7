#!/usr/bin/env bash
# Quick start: installs what is missing, builds onnxc, compiles the bundled
# example model (examples/models/tiny_cnn.onnx) to a shared library, runs it,
# and checks its output against ONNX Runtime's. Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# onnxc and everything `cmake --install build` copies (not the tests).
"$root/scripts/build.sh" onnxc_package
build="${ONNXC_BUILD_DIR:-$root/build}"
onnxc="$build/tools/onnxc/onnxc"
out="$build/quickstart"
mkdir -p "$out"

model="$root/examples/models/tiny_cnn.onnx"
echo "== onnxc info $model"
"$onnxc" info "$model"
echo "== onnxc compile"
"$onnxc" compile "$model" -o "$out/tiny_cnn.so"
echo "== onnxc run"
"$onnxc" run "$out/tiny_cnn.so" \
  --input image="$root/examples/models/tiny_cnn.input.npy" --output-dir "$out"
"$root/.venv/bin/python" - "$out/probabilities.npy" \
  "$root/examples/models/tiny_cnn.expected.npy" <<'PY'
import sys
import numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
err = float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-6))
print(f"max relative error vs ONNX Runtime: {err:.3g}")
sys.exit(0 if err <= 1e-4 else 1)
PY
