//===- GemmBench.cpp - GFLOP/s of the packed GEMM per ISA and thread count ===//
//
// Measures onnxc_sgemm (runtime/cpu/kernels) on square, transformer and
// CNN-like shapes, for every micro-kernel variant the CPU runs, on one thread
// and on all cores, and compares with the single-core FMA peak measured here
// by a loop of independent FMAs of the same vector width
// (bench/common/FmaPeak.h). Counters:
//   GFLOPS      2*M*N*K per second / 1e9
//   peak_GFLOPS the measured peak of one core (times the threads used)
//   pct_peak    GFLOPS / peak_GFLOPS * 100
//
//===----------------------------------------------------------------------===//

#include "bench/common/FmaPeak.h"
#include "runtime/cpu/ThreadPool.h"
#include "runtime/cpu/kernels/Gemm.h"
#include "runtime/cpu/kernels/GemmKernels.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using namespace onnxc_bench;

/// `count` floats uniform in [-1, 1) from `seed`.
std::vector<float> randomMatrix(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float &v : values)
    v = dist(rng);
  return values;
}

void BM_FmaPeak(benchmark::State &state) {
  int isa = static_cast<int>(state.range(0));
  if (!onnxc_sgemm_isa_supported(isa)) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  for (auto _ : state)
    benchmark::DoNotOptimize(measuredPeak(isa));
  state.counters["peak_GFLOPS"] = measuredPeak(isa);
  state.SetLabel(onnxc_sgemm_isa_name(isa));
}

/// Args: isa, M, N, K, threads (0: all cores).
void BM_Sgemm(benchmark::State &state) {
  int isa = static_cast<int>(state.range(0));
  size_t m = state.range(1), n = state.range(2), k = state.range(3);
  int threads = static_cast<int>(state.range(4));
  if (!onnxc_sgemm_isa_supported(isa)) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  if (threads == 0)
    threads = onnxc_default_num_threads();
  onnxc_sgemm_force_isa(isa);
  onnxc_set_num_threads(threads);
  std::vector<float> a = randomMatrix(m * k, 1), b = randomMatrix(k * n, 2),
                     c(m * n);
  // The peak is measured again right before and after the timed loop and
  // the higher one kept: on a shared core (other processes, an SMT sibling)
  // the ratio then compares like with like, and errs low.
  double peakBefore = peakNow(isa, 3, 2'000'000);
  for (auto _ : state) {
    onnxc_sgemm(0, 0, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(),
                n, nullptr);
    benchmark::ClobberMemory();
  }
  double peakAfter = peakNow(isa, 3, 2'000'000);
  double flops = 2.0 * m * n * k;
  state.counters["GFLOPS"] = benchmark::Counter(
      flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  double peak = std::max(peakBefore, peakAfter) * threads;
  state.counters["peak_GFLOPS"] = peak;
  // pct_peak is filled in from the rate after the run (see ReportPct).
  state.counters["threads"] = threads;
  state.SetLabel(onnxc_sgemm_isa_name(isa));
  onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
  onnxc_set_num_threads(0);
}

/// Args: isa, M, N, K. One thread, the GEMM and the FMA peak interleaved:
/// each iteration times a short FMA loop (about 5 ms) and then one GEMM, both
/// in thread CPU time. BM_Sgemm measures its peak once before and once after
/// a loop of about a second, so on a shared core a slow spell that falls on
/// the GEMM but not on the two peak loops reads as a low percentage. Here
/// each GEMM is divided by the mean of the peak loops right before and after
/// it (a few milliseconds apart), and `pair_pct` is the median of those
/// ratios: what share of the FMA rate the core gave at that moment the GEMM
/// reached. GFLOPS and peak_GFLOPS are the whole run's, as in BM_Sgemm.
void BM_SgemmPairedPeak(benchmark::State &state) {
  int isa = static_cast<int>(state.range(0));
  size_t m = state.range(1), n = state.range(2), k = state.range(3);
  if (!onnxc_sgemm_isa_supported(isa)) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  onnxc_sgemm_force_isa(isa);
  onnxc_set_num_threads(1);
  std::vector<float> a = randomMatrix(m * k, 1), b = randomMatrix(k * n, 2),
                     c(m * n);
  double flops = 2.0 * m * n * k;
  std::vector<double> peaks{peakNow(isa, 1, 1'000'000)}, rates;
  for (auto _ : state) {
    double start = threadCpuSeconds();
    onnxc_sgemm(0, 0, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(),
                n, nullptr);
    benchmark::ClobberMemory();
    double seconds = threadCpuSeconds() - start;
    state.SetIterationTime(seconds);
    rates.push_back(flops / seconds / 1e9);
    peaks.push_back(peakNow(isa, 1, 1'000'000));
  }
  std::vector<double> ratios;
  for (size_t i = 0; i < rates.size(); ++i)
    ratios.push_back(rates[i] / ((peaks[i] + peaks[i + 1]) / 2));
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  state.counters["GFLOPS"] = benchmark::Counter(
      flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_GFLOPS"] = median(peaks);
  state.counters["pair_pct"] = 100 * median(ratios);
  state.counters["threads"] = 1;
  state.SetLabel(onnxc_sgemm_isa_name(isa));
  onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
  onnxc_set_num_threads(0);
}

/// Args: isa, M, N, K, transB. Few rows (the small-M kernels up to M = 8,
/// packed above), one thread, CPU time: a layer of the mlp bench model
/// (784 -> 1024 -> 1024, PyTorch's Linear is Gemm with transB = 1) at batch
/// 1 and 8, and M = 16 for the packed path next to them.
void BM_SgemmSmallM(benchmark::State &state) {
  int isa = static_cast<int>(state.range(0));
  size_t m = state.range(1), n = state.range(2), k = state.range(3);
  int transB = static_cast<int>(state.range(4));
  if (!onnxc_sgemm_isa_supported(isa)) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  onnxc_sgemm_force_isa(isa);
  onnxc_set_num_threads(1);
  std::vector<float> a = randomMatrix(m * k, 1), b = randomMatrix(k * n, 2),
                     c(m * n);
  for (auto _ : state) {
    onnxc_sgemm(0, transB, m, n, k, 1.0f, a.data(), k, b.data(), transB ? k : n,
                0.0f, c.data(), n, nullptr);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * m * n * k / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(onnxc_sgemm_isa_name(isa));
  onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
  onnxc_set_num_threads(0);
}

/// Args: M, threads, packed. The weights of BERT-base's 12 encoder layers
/// (Q, K, V, output: 768 x 768; FFN: 768 x 3072 and 3072 x 768, 340 MB, more
/// than the caches hold) through M rows each, with the best ISA: packed = 0
/// packs every B on every pass as a plain call does, packed = 1 passes a
/// cache slot per weight (onnxc_sgemm_strided_cached), as lowered code does
/// for constant weights; the copies are made in a pass before the clock.
void BM_SgemmWeightStream(benchmark::State &state) {
  size_t m = state.range(0);
  int threads = static_cast<int>(state.range(1));
  bool packed = state.range(2) != 0;
  onnxc_set_num_threads(threads);
  constexpr int kLayers = 12, kPerLayer = 6;
  const size_t ks[kPerLayer] = {768, 768, 768, 768, 768, 3072};
  const size_t ns[kPerLayer] = {768, 768, 768, 768, 3072, 768};
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<std::vector<float>> weights;
  for (int l = 0; l < kLayers; ++l)
    for (int g = 0; g < kPerLayer; ++g) {
      weights.emplace_back(ks[g] * ns[g]);
      for (float &v : weights.back())
        v = dist(rng);
    }
  std::vector<float> a(m * 3072), c(m * 3072);
  for (float &v : a)
    v = dist(rng);
  std::vector<onnxc_sgemm_packed_b *> slots(weights.size(), nullptr);
  auto pass = [&] {
    for (size_t w = 0; w < weights.size(); ++w) {
      size_t k = ks[w % kPerLayer], n = ns[w % kPerLayer];
      onnxc_sgemm_strided_cached(m, n, k, 1.0f, a.data(), (ptrdiff_t)k, 1,
                                 weights[w].data(), (ptrdiff_t)n, 1, 0.0f,
                                 c.data(), (ptrdiff_t)n, nullptr, 0,
                                 packed ? &slots[w] : nullptr);
    }
  };
  pass();
  for (auto _ : state) {
    pass();
    benchmark::ClobberMemory();
  }
  double flops = 0;
  for (int g = 0; g < kPerLayer; ++g)
    flops += 2.0 * m * ns[g] * ks[g] * kLayers;
  state.counters["GFLOPS"] = benchmark::Counter(
      flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(packed ? "packed once" : "packed per call");
  onnxc_set_num_threads(0);
}

/// Args: isa, kc, b_panels, a_tiles, ldc. The micro-kernel alone, on one
/// thread: every packed B panel (kc x NR) against every packed A tile (MR x
/// kc), panel after panel, each product added into its own C tile of a C
/// with leading dimension ldc. One panel and one tile: both in L1. 24
/// panels (kc = 384: 1.2 MB) against one tile: B streams from L2 past an A
/// tile that stays, as in the GEMM's row-tile-outer loop. One panel against
/// 11 tiles: A streams past a panel too big to stay in L1 beside them, as in
/// the panel-outer loop of weights packed once (M = 128). The gap between
/// these and BM_Sgemm is what blocking, packing and memory cost.
void BM_SgemmMicroKernel(benchmark::State &state) {
  int isa = static_cast<int>(state.range(0));
  size_t kc = state.range(1), panels = state.range(2), tiles = state.range(3);
  ptrdiff_t ldc = state.range(4);
  const onnxc_sgemm_variant *v = onnxc_sgemm_variant_for_isa(isa);
  if (!v) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  size_t mr = v->mr, nr = v->nr;
  std::vector<float> a = randomMatrix(tiles * mr * kc, 1),
                     b = randomMatrix(panels * nr * kc, 2);
  std::vector<float> c(tiles * mr * ldc + panels * nr, 0.0f);
  auto sweep = [&] {
    for (size_t q = 0; q < panels; ++q)
      for (size_t t = 0; t < tiles; ++t)
        v->kernel(kc, a.data() + t * mr * kc, b.data() + q * nr * kc,
                  c.data() + t * mr * ldc + q * nr, ldc, mr, nr, 1.0f, 1.0f);
  };
  double peakBefore = peakNow(isa, 3, 2'000'000);
  for (auto _ : state) {
    sweep();
    benchmark::ClobberMemory();
  }
  double peakAfter = peakNow(isa, 3, 2'000'000);
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * mr * nr * kc * panels * tiles / 1e9,
      benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_GFLOPS"] = std::max(peakBefore, peakAfter);
  state.counters["threads"] = 1;
  state.SetLabel(onnxc_sgemm_isa_name(isa));
}

/// Single-thread runs are timed in CPU time (comparable with the peak on a
/// shared machine); all-thread runs in real time.
void gemmArgs(benchmark::internal::Benchmark *b, bool allThreads) {
  const int64_t shapes[][3] = {
      {1024, 1024, 1024}, // the square reference
      {128, 768, 768},    // BERT-base projection, 128 tokens
      {128, 3072, 768},   // BERT-base FFN up
      {128, 768, 3072},   // BERT-base FFN down
      {1, 4096, 1024},    // one token through a wide layer (GEMV-like)
      {3136, 64, 576},    // ResNet 3x3 conv, 56x56, im2col
      {196, 256, 2304},   // ResNet 3x3 conv, 14x14, im2col
      {257, 255, 253},    // odd sizes: every edge path
  };
  for (int isa :
       {ONNXC_SGEMM_ISA_AVX512, ONNXC_SGEMM_ISA_AVX2, ONNXC_SGEMM_ISA_PORTABLE})
    for (const auto &s : shapes)
      b->Args({isa, s[0], s[1], s[2], allThreads ? 0 : 1});
  b->ArgNames({"isa", "M", "N", "K", "threads"});
  if (allThreads)
    b->UseRealTime();
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_FmaPeak)
    ->Arg(ONNXC_SGEMM_ISA_AVX512)
    ->Arg(ONNXC_SGEMM_ISA_AVX2)
    ->Arg(ONNXC_SGEMM_ISA_PORTABLE)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sgemm)->Apply([](benchmark::internal::Benchmark *b) {
  gemmArgs(b, false);
});
BENCHMARK(BM_SgemmPairedPeak)
    ->Args({ONNXC_SGEMM_ISA_AVX512, 1024, 1024, 1024})
    ->Args({ONNXC_SGEMM_ISA_AVX2, 1024, 1024, 1024})
    ->ArgNames({"isa", "M", "N", "K"})
    ->Iterations(40)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SgemmMicroKernel)->Apply([](benchmark::internal::Benchmark *b) {
  // kc, B panels, A tiles, ldc: both in L1; B streaming from L2; A
  // streaming from L2; a whole 1.2 MB block of B against 11 tiles; C rows
  // 4 KiB apart (one L1 set); half the kc (panel and tile fit L1 at once).
  const int64_t cases[][4] = {{384, 1, 1, 32},    {384, 24, 1, 768},
                              {384, 1, 11, 768},  {384, 24, 11, 768},
                              {384, 24, 1, 1024}, {192, 1, 11, 768}};
  for (int isa : {ONNXC_SGEMM_ISA_AVX512, ONNXC_SGEMM_ISA_AVX2})
    for (const auto &k : cases)
      b->Args({isa, k[0], k[1], k[2], k[3]});
  b->ArgNames({"isa", "kc", "b_panels", "a_tiles", "ldc"});
  b->Unit(benchmark::kMicrosecond);
});
BENCHMARK(BM_SgemmSmallM)->Apply([](benchmark::internal::Benchmark *b) {
  const int64_t shapes[][3] = {{1, 1024, 784},  {8, 1024, 784},
                               {16, 1024, 784}, {1, 1024, 1024},
                               {8, 1024, 1024}, {16, 1024, 1024}};
  for (int isa :
       {ONNXC_SGEMM_ISA_AVX512, ONNXC_SGEMM_ISA_AVX2, ONNXC_SGEMM_ISA_PORTABLE})
    for (int transB : {1, 0})
      for (const auto &s : shapes)
        b->Args({isa, s[0], s[1], s[2], transB});
  b->ArgNames({"isa", "M", "N", "K", "transB"});
  b->Unit(benchmark::kMicrosecond);
});
BENCHMARK(BM_SgemmWeightStream)
    ->ArgsProduct({{32, 64, 128, 197, 256, 1024}, {1, 2}, {0, 1}})
    ->ArgNames({"M", "threads", "packed"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Sgemm)
    ->Name("BM_SgemmAllThreads")
    ->Apply([](benchmark::internal::Benchmark *b) { gemmArgs(b, true); });

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  PercentOfPeakReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
