//===- FmaPeak.h - Single-core FMA peak and a % of peak reporter -*- C++
//-*-===//
//
// What the kernel micro-benchmarks (bench/gemm, bench/conv) compare with:
// the GFLOP/s of a loop of independent FMAs at the vector width of a
// micro-kernel variant, on one core, in CPU time; and a console reporter
// that adds pct_peak = GFLOPS / peak_GFLOPS * 100 to each run that has both
// counters.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_BENCH_COMMON_FMAPEAK_H
#define ONNXC_BENCH_COMMON_FMAPEAK_H

#include "runtime/cpu/kernels/Gemm.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace onnxc_bench {

#if defined(__x86_64__)
// 24 independent FMA chains: more than latency (4) x ports (2) needs.
#define ONNXC_FMA_CHAINS(type, fma, set1)                                      \
  type acc[24];                                                                \
  for (int j = 0; j < 24; ++j)                                                 \
    acc[j] = set1(1.0f + j * 1e-3f);                                           \
  type x = set1(0.999999f), y = set1(1e-7f);                                   \
  for (long i = 0; i < iterations; ++i) {                                      \
    _Pragma("GCC unroll 24") for (int j = 0; j < 24; ++j) acc[j] =             \
        fma(acc[j], x, y);                                                     \
  }                                                                            \
  type sum = acc[0];                                                           \
  for (int j = 1; j < 24; ++j)                                                 \
    sum = fma(sum, x, acc[j]);

__attribute__((target("avx512f"))) inline float fmaLoopAvx512(long iterations) {
  ONNXC_FMA_CHAINS(__m512, _mm512_fmadd_ps, _mm512_set1_ps)
  return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx2,fma"))) inline float fmaLoopAvx2(long iterations) {
  ONNXC_FMA_CHAINS(__m256, _mm256_fmadd_ps, _mm256_set1_ps)
  float out[8];
  _mm256_storeu_ps(out, sum);
  return out[0];
}
#undef ONNXC_FMA_CHAINS
#endif

// Scalar-width chains for the portable kernel: what the compiler makes of
// plain C (it vectorizes to the baseline SSE/NEON width).
inline float fmaLoopPortable(long iterations) {
  float acc[24][4];
  for (int j = 0; j < 24; ++j)
    for (int l = 0; l < 4; ++l)
      acc[j][l] = 1.0f + j * 1e-3f;
  for (long i = 0; i < iterations; ++i)
    for (int j = 0; j < 24; ++j)
      for (int l = 0; l < 4; ++l)
        acc[j][l] = acc[j][l] * 0.999999f + 1e-7f;
  float sum = 0;
  for (int j = 0; j < 24; ++j)
    sum += acc[j][0];
  return sum;
}

/// CPU seconds of this thread: on a shared machine, wall time would count
/// the time other processes hold the core.
inline double threadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/// Single-core peak GFLOP/s at the width of `isa` per CPU second, the best
/// of `runs` loops of `iterations`.
inline double peakNow(int isa, int runs, long iterations) {
  double best = 0;
  for (int run = 0; run < runs; ++run) {
    double start = threadCpuSeconds();
    float sink = 0;
    double flopsPerIteration = 0;
    switch (isa) {
#if defined(__x86_64__)
    case ONNXC_SGEMM_ISA_AVX512:
      sink = fmaLoopAvx512(iterations);
      flopsPerIteration = 24 * 16 * 2;
      break;
    case ONNXC_SGEMM_ISA_AVX2:
      sink = fmaLoopAvx2(iterations);
      flopsPerIteration = 24 * 8 * 2;
      break;
#endif
    default:
      sink = fmaLoopPortable(iterations);
      flopsPerIteration = 24 * 4 * 2;
      break;
    }
    benchmark::DoNotOptimize(sink);
    double seconds = threadCpuSeconds() - start;
    best = std::max(best, flopsPerIteration * iterations / seconds / 1e9);
  }
  return best;
}

/// The peak once per process, best of 5 runs of ~70 ms.
inline double measuredPeak(int isa) {
  static std::map<int, double> cache;
  auto it = cache.find(isa);
  if (it == cache.end())
    it = cache.emplace(isa, peakNow(isa, 5, 20'000'000)).first;
  return it->second;
}

/// Prints GFLOP/s as % of the measured peak next to the normal table.
class PercentOfPeakReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &runs) override {
    std::vector<Run> copy = runs;
    for (Run &run : copy) {
      auto gflops = run.counters.find("GFLOPS");
      auto peak = run.counters.find("peak_GFLOPS");
      if (gflops == run.counters.end() || peak == run.counters.end() ||
          peak->second.value <= 0)
        continue;
      // The rate counter is per second of measured time here: value is
      // already divided by the time when it reaches the reporter.
      run.counters["pct_peak"] =
          benchmark::Counter(100.0 * gflops->second.value / peak->second);
    }
    ConsoleReporter::ReportRuns(copy);
  }
};

} // namespace onnxc_bench

#endif // ONNXC_BENCH_COMMON_FMAPEAK_H
