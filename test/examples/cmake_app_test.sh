#!/usr/bin/env bash
# Installs onnxc from the build tree into a scratch prefix, builds
# examples/cmake_app as an outside project with find_package(onnxc) and
# onnxc_add_model, runs it, and compares its output with ONNX Runtime's
# (examples/models/tiny_cnn.expected.npy).
# Usage: cmake_app_test.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src="$1" build="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# The app is a fresh project outside the repository (a scratch folder under
# TMPDIR), as a user's would be: it sees only the installed package.
outside="$(mktemp -d "${TMPDIR:-/tmp}/onnxc-cmake-app.XXXXXX")"
trap 'rm -rf "$outside"' EXIT
cp -r "$src/examples/cmake_app" "$outside/app"
mkdir -p "$outside/models" && cp "$src/examples/models/tiny_cnn.onnx" "$outside/models/"
cmake -G Ninja -S "$outside/app" -B "$outside/app-build" \
  -Donnxc_DIR="$work/prefix/lib/cmake/onnxc" >/dev/null
cmake --build "$outside/app-build" >/dev/null
"$outside/app-build/classify" "$src/examples/models/tiny_cnn.input.npy" > "$work/out.txt"
"$src/.venv/bin/python" - "$work/out.txt" "$src/examples/models/tiny_cnn.expected.npy" <<'PY'
import sys
import numpy as np
got = np.loadtxt(sys.argv[1], dtype=np.float32)
want = np.load(sys.argv[2]).reshape(-1)
err = float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-6))
print(f"cmake_app: {got.size} probabilities, max relative error vs ONNX Runtime {err:.3g}")
sys.exit(0 if got.shape == want.shape and err <= 1e-4 else 1)
PY
