#!/usr/bin/env bash
# Configures (once) and builds onnxc into build/. Extra arguments go to ninja.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/bootstrap.sh"
build="${ONNXC_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE="$root/.venv/bin/python"
fi
ninja -C "$build" "$@"
