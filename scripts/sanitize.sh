#!/usr/bin/env bash
# Sanitizer and fuzzing jobs (docs/security.md).
# Usage: scripts/sanitize.sh [asan|fuzz|tsan|all]
#   asan: AddressSanitizer + UndefinedBehaviorSanitizer build (Clang 19) of the
#         compiler, the runtime and the test drivers (build-asan/); runs the
#         runtime unit tests, the hostile-model corpus and a slice of the
#         conformance suite (test/conformance/sanitize_subset.txt, compiled by
#         the instrumented onnxc) through it.
#   fuzz: the libFuzzer targets of test/fuzz, from the same build, each for a
#         bounded number of runs (ONNXC_FUZZ_RUNS, default 3000) from its
#         seed corpus; a crash fails the job and leaves crash-* files in
#         build-asan/fuzz/ to add to the corpus once fixed.
#   tsan: ThreadSanitizer build of the runtime and its unit tests only
#         (build-tsan/); their models are compiled by the regular build's onnxc
#         and linked against the instrumented runtime archive.
# Any sanitizer report fails the job (-fno-sanitize-recover, halt_on_error).
# Safe to run again; incremental after the first run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
job="${1:-all}"
"$root/scripts/bootstrap.sh"
py="$root/.venv/bin/python"

configure() { # build-dir sanitizers [extra cmake args]
  local dir="$1" sanitizers="$2"
  shift 2
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -G Ninja -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
      -DPython3_EXECUTABLE="$py" -DONNXC_SANITIZE="$sanitizers" "$@"
  fi
}

asan_dir="$root/build-asan"

configure_asan() {
  # -O1, as the sanitizers' docs advise: it compiles faster than -O3 and
  # keeps stack traces exact.
  CC=clang-19 CXX=clang++-19 configure "$asan_dir" "address;undefined" \
    -DONNXC_FUZZ=ON -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG"
}

run_fuzz() {
  configure_asan
  ninja -C "$asan_dir" onnxc-fuzz-import onnxc-fuzz-compile
  local runs="${ONNXC_FUZZ_RUNS:-3000}" work="$asan_dir/fuzz"
  mkdir -p "$work"
  for target in import compile; do
    echo "== fuzz: $target ($runs runs)"
    # New inputs go to a scratch copy of the corpus, never into the repo.
    rm -rf "$work/$target" && mkdir -p "$work/$target"
    cp "$root/test/fuzz/corpus/$target/"* "$work/$target/"
    (cd "$work" && ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0" \
      "$asan_dir/test/fuzz/onnxc-fuzz-$target" -runs="$runs" -seed=1 \
      -max_len=65536 -timeout=30 -rss_limit_mb=4096 -close_fd_mask=2 \
      -print_final_stats=1 "$work/$target" 2>&1 |
      grep -E "^(stat::number_of_executed_units|#[0-9]+ +DONE)|ERROR|SUMMARY|crash-" || true)
    if ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
      echo "fuzz: $target found a failing input (see $work)" >&2
      exit 1
    fi
  done
}

run_asan() {
  local dir="$asan_dir"
  configure_asan
  # The oneDNN glue's tests exist where oneDNN was found.
  local dnnl_tests=""
  if ninja -C "$dir" -t targets all | grep -q '^onnxc-dnnl-tests:'; then
    dnnl_tests=onnxc-dnnl-tests
  fi
  ninja -C "$dir" onnxc onnxc-unit-tests $dnnl_tests
  # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs from
  # header code compiled into our (instrumented) binaries, while the Debian
  # libLLVM.so that also allocates from them is not instrumented, which
  # reads as use-after-poison inside lld. Real heap errors are still caught.
  export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=0:allow_user_poisoning=0"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  echo "== asan: runtime unit tests"
  "$dir/test/unit/onnxc-unit-tests"
  if [ -n "$dnnl_tests" ]; then
    echo "== asan: oneDNN glue unit tests"
    "$dir/test/unit/onnxc-dnnl-tests"
  fi
  echo "== asan: hostile-model corpus"
  ONNXC="$dir/tools/onnxc/onnxc" "$py" -m pytest -q -p no:cacheprovider \
    "$root/test/hostile/test_hostile.py"
  echo "== asan: conformance slice"
  # The instrumented compiler compiles every model of the slice; the
  # artifacts link the regular build's runtime archive so that the Python
  # runner (not instrumented) can load them. The runtime's own C code runs
  # under ASan in the unit tests above.
  "$root/scripts/build.sh" onnxc_rt_cpu
  ONNXC_RUNTIME_DIR="${ONNXC_BUILD_DIR:-$root/build}/runtime/cpu" \
    ONNXC_NO_ADDRESS_SPACE_LIMIT=1 \
    "$py" "$root/test/conformance/run.py" --onnxc "$dir/tools/onnxc/onnxc" \
    --cache "$dir/conformance-cache" \
    --subset "$root/test/conformance/sanitize_subset.txt" -j 2
}

run_tsan() {
  local dir="$root/build-tsan"
  "$root/scripts/build.sh" onnxc
  configure "$dir" "thread" \
    -DONNXC_TEST_COMPILER="${ONNXC_BUILD_DIR:-$root/build}/tools/onnxc/onnxc"
  ninja -C "$dir" onnxc-unit-tests
  # The ISA-parametrized kernel tests run once, on the portable kernels:
  # their threading (the pool, the work split) is the same for every ISA,
  # and each ISA's kernels run in the regular unit tests. Under TSan the
  # other ISAs' copies took half the job's time.
  echo "== tsan: runtime unit tests (threads included)"
  ONNXC_RUNTIME_DIR="$dir/runtime/cpu" \
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
    "$dir/test/unit/onnxc-unit-tests" \
    --gtest_filter='-*/avx2:*/avx512:*/avx512_vnni:*/neon'
}

case "$job" in
  asan) run_asan ;;
  fuzz) run_fuzz ;;
  tsan) run_tsan ;;
  all) run_tsan; run_asan; run_fuzz ;;
  *) echo "usage: $0 [asan|fuzz|tsan|all]" >&2; exit 2 ;;
esac
