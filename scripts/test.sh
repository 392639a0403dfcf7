#!/usr/bin/env bash
# Runs every test: installs what is missing, builds onnxc, then ctest (lit
# tests, runtime unit tests, end-to-end model tests against ONNX Runtime, the
# examples, the hostile corpus, the conformance suite), then the sanitizer
# and fuzzing jobs of scripts/sanitize.sh (ThreadSanitizer, AddressSanitizer +
# UndefinedBehaviorSanitizer, a bounded libFuzzer run). Safe to run again.
#
# Arguments go to ctest and select a part (e.g. -L lit, -R e2e); then only
# that part runs, without the sanitizer jobs. ONNXC_SKIP_SANITIZERS=1 skips
# the sanitizer jobs of a full run (for a quick local check; CI runs them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
build="${ONNXC_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --output-on-failure -j2 "$@"
if [ $# -eq 0 ] && [ "${ONNXC_SKIP_SANITIZERS:-0}" != 1 ]; then
  "$root/scripts/sanitize.sh" all
fi
