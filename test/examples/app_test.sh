#!/usr/bin/env bash
# Installs onnxc from the build tree into a scratch prefix, builds
# examples/<APP> as an outside project against it (find_package(onnxc)), runs
# each PROGRAM on examples/models/tiny_cnn.input.npy, and compares what it
# prints (one probability a line) with ONNX Runtime's output
# (tiny_cnn.expected.npy).
# Usage: app_test.sh SOURCE_DIR BUILD_DIR WORK_DIR APP PROGRAM...
set -euo pipefail
src="$1" build="$2" work="$3" app="$4"
shift 4
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# Configured outside the source tree, as a user's project would be.
cp -r "$src/examples/$app" "$work/app"
mkdir -p "$work/models" && cp "$src/examples/models/tiny_cnn.onnx" "$work/models/"
cmake -G Ninja -S "$work/app" -B "$work/app-build" \
  -Donnxc_DIR="$work/prefix/lib/cmake/onnxc" >/dev/null
cmake --build "$work/app-build" >/dev/null
for program in "$@"; do
  "$work/app-build/$program" "$src/examples/models/tiny_cnn.input.npy" \
    > "$work/$program.txt"
  "$src/.venv/bin/python" - "$work/$program.txt" \
    "$src/examples/models/tiny_cnn.expected.npy" "$app/$program" <<'PY'
import sys
import numpy as np
got = np.loadtxt(sys.argv[1], dtype=np.float32)
want = np.load(sys.argv[2]).reshape(-1)
err = float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-6))
print(f"{sys.argv[3]}: {got.size} probabilities, max relative error vs ONNX Runtime {err:.3g}")
sys.exit(0 if got.shape == want.shape and err <= 1e-4 else 1)
PY
done
