#!/usr/bin/env bash
# Installs onnxc from the build tree into a scratch prefix, cross-compiles
# examples/aarch64_app against it as an outside project (find_package(onnxc)
# with the package's toolchain file for TRIPLE), checks that the programs are
# TRIPLE's, and runs the app's own ctest, which runs them under qemu-user and
# compares their output with ONNX Runtime's.
# A missing cross compiler or qemu fails; ONNXC_SKIP_CROSS=1 skips (exit 77).
# Usage: cross_app_test.sh SOURCE_DIR BUILD_DIR WORK_DIR TRIPLE
set -euo pipefail
src="$1" build="$2" work="$3" triple="$4"
if [ -n "${ONNXC_SKIP_CROSS:-}" ]; then
  echo "cross_app_test: SKIPPED $triple: ONNXC_SKIP_CROSS is set" >&2
  exit 77
fi
for tool in "$triple-gcc" "qemu-${triple%%-*}"; do
  if ! command -v "$tool" >/dev/null; then
    echo "cross_app_test: $tool missing: run scripts/bootstrap.sh, or set" \
         "ONNXC_SKIP_CROSS=1 to skip" >&2
    exit 1
  fi
done
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cp -r "$src/examples/aarch64_app" "$work/app"
mkdir -p "$work/models"
cp "$src"/examples/models/tiny_cnn.{onnx,input.npy,expected.npy} "$work/models/"
package="$work/prefix/lib/cmake/onnxc"
cmake -G Ninja -S "$work/app" -B "$work/app-build" -Donnxc_DIR="$package" \
  -DCMAKE_TOOLCHAIN_FILE="$package/toolchains/$triple.cmake" >/dev/null
cmake --build "$work/app-build" >/dev/null
declare -A machine=([aarch64]=AArch64 [riscv64]=RISC-V)
for program in classify classify_shared libtiny_cnn_so.so; do
  readelf -h "$work/app-build/$program" |
    grep -q "Machine: *${machine[${triple%%-*}]}" ||
    { echo "cross_app_test: $program is not a $triple binary" >&2; exit 1; }
done
ctest --test-dir "$work/app-build" --output-on-failure
