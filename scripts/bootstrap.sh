#!/usr/bin/env bash
# Installs everything onnxc needs to build and test: Debian packages (when
# missing) and a Python virtual environment in .venv. Safe to run again: it
# only installs what is not there yet.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

debian_packages=(
  cmake ninja-build ccache g++ python3-venv
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools lld-19 liblld-19-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libfmt-dev libcli11-dev
  libgtest-dev zlib1g-dev libzstd-dev
  # The dnnl target's runtime (runtime/dnnl) links oneDNN 2.6.
  libdnnl-dev
  clang-19 libclang-rt-19-dev
  # Cross-compiled artifacts (runtime/cross, ctest label cross): the AArch64
  # and RISC-V 64 runtimes' compilers and libcs, and qemu-user to run them.
  qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
)

missing=()
for p in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  echo "bootstrap: creating $venv"
  /usr/bin/python3 -m venv "$venv"
fi
stamp="$venv/.requirements.stamp"
if [ ! -f "$stamp" ] || ! cmp -s "$root/scripts/requirements.txt" "$stamp"; then
  echo "bootstrap: installing Python packages"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    -r "$root/scripts/requirements.txt"
  cp "$root/scripts/requirements.txt" "$stamp"
fi
