#!/usr/bin/env bash
# Prints the sizes docs/deployment.md gives: the runtime archive and a small
# CNN artifact (examples/models/tiny_cnn.onnx, and the exported ResNet of
# test/models/torch), stripped, for the host and each cross target built.
# Usage: scripts/measure_sizes.sh [BUILD_DIR]   (after scripts/build.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${ONNXC_BUILD_DIR:-$root/build}}"
onnxc="$build/tools/onnxc/onnxc"
strip=/usr/lib/llvm-19/bin/llvm-strip
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

host="$(uname -m)-linux-gnu"
declare -A archives=([$host]="$build/runtime/cpu/libonnxc_rt_cpu.a")
for dir in "$build"/lib/onnxc/*/; do
  [ -f "$dir/libonnxc_rt_cpu.a" ] && archives[$(basename "$dir")]="$dir/libonnxc_rt_cpu.a"
done
printf '%-20s %-28s %10s\n' target file bytes
for triple in $(printf '%s\n' "${!archives[@]}" | sort); do
  printf '%-20s %-28s %10s\n' "$triple" libonnxc_rt_cpu.a \
    "$(stat -c %s "${archives[$triple]}")"
  mtriple=()
  [ "$triple" != "$host" ] && mtriple=(--mtriple "$triple")
  for model in "$root/examples/models/tiny_cnn.onnx" \
               "$root/test/models/torch/resnet_small.onnx"; do
    name="lib$(basename "$model" .onnx).so"
    "$onnxc" compile "$model" "${mtriple[@]}" -o "$work/$triple-$name"
    "$strip" "$work/$triple-$name"
    printf '%-20s %-28s %10s\n' "$triple" "$name (stripped)" \
      "$(stat -c %s "$work/$triple-$name")"
  done
done
