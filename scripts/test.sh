#!/usr/bin/env bash
# Runs every test: installs what is missing, builds onnxc, then ctest (lit
# tests, runtime unit tests, end-to-end model tests against ONNX Runtime).
# Safe to run again. Extra arguments go to ctest (e.g. -L lit, -R e2e).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
build="${ONNXC_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --output-on-failure -j2 "$@"
