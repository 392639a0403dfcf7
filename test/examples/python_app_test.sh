#!/usr/bin/env bash
# pip-installs the Python package (python/) into a scratch directory, runs
# examples/python_app/run.py with it (onnxc vs ONNX Runtime on tiny_cnn, the
# same ORT-style code), and compares what it prints with the stored ONNX
# Runtime output (tiny_cnn.expected.npy).
# Usage: python_app_test.sh SOURCE_DIR ONNXC WORK_DIR
set -euo pipefail
src="$1" onnxc="$2" work="$3"
python="$src/.venv/bin/python"
rm -rf "$work" && mkdir -p "$work"
# Installed from a copy, so the build leaves nothing in the source tree.
cp -r "$src/python" "$work/package"
"$python" -m pip install --quiet --no-deps \
  --target "$work/site" "$work/package" >/dev/null
cd "$work"
PYTHONPATH="$work/site" ONNXC="$onnxc" ONNXC_CACHE_DIR="$work/cache" \
  "$python" "$src/examples/python_app/run.py" > "$work/out.txt"
# The package really came from the installed copy.
PYTHONPATH="$work/site" "$python" -c \
  "import onnxc, sys; sys.exit(not onnxc.__file__.startswith('$work/site'))"
"$python" - "$work/out.txt" "$src/examples/models/tiny_cnn.expected.npy" <<'PY'
import sys
import numpy as np
got = np.loadtxt(sys.argv[1], dtype=np.float32)
want = np.load(sys.argv[2]).reshape(-1)
err = float(np.max(np.abs(got - want)) / max(float(np.max(np.abs(want))), 1e-6))
print(f"python_app: {got.size} probabilities, max relative error vs ONNX Runtime {err:.3g}")
sys.exit(0 if got.shape == want.shape and err <= 1e-4 else 1)
PY
