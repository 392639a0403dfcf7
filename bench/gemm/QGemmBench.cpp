//===- QGemmBench.cpp - The int8 GEMM against the int8 dot-product peak ---===//
//
// onnxc_qgemm (kernels/QGemm.h) on the square reference and transformer
// shapes, per micro-kernel variant, 1 thread and all cores, against the
// single-core peak of the instruction its kernel is built on, measured
// here by a loop of independent chains of it: vpdpbusd (AVX-512 VNNI: 64
// multiply-adds per zmm instruction) or vpmaddwd + vpaddd (AVX2: 16). B
// is packed once outside the timed loop, as a weight is. Counters:
//   GFLOPS       2*M*N*K integer operations per second / 1e9 (GOPS)
//   peak_GFLOPS  the measured peak of one core (times the threads used)
//   pct_peak     GFLOPS / peak_GFLOPS * 100
//
//===----------------------------------------------------------------------===//

#include "bench/common/FmaPeak.h"
#include "runtime/cpu/ThreadPool.h"
#include "runtime/cpu/kernels/QGemm.h"
#include "runtime/cpu/kernels/QGemmKernels.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

using onnxc_bench::threadCpuSeconds;

#if defined(__x86_64__)
// The VNNI step is inline assembly: from the intrinsic, GCC stored every
// accumulator to the stack after each instruction, which cut the measured
// peak by a third.
#define ONNXC_CHAINS_12(X)                                                     \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define ONNXC_CHAINS_24(X)                                                     \
  ONNXC_CHAINS_12(X)                                                           \
  X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)

__attribute__((target("avx512f,avx512bw,avx512vnni"))) int
vnniLoop(long iterations) {
#define DECLARE(j) __m512i acc##j = _mm512_set1_epi32(j);
#define STEP(j)                                                                \
  __asm__("vpdpbusd %[b], %[a], %[acc]"                                        \
          : [acc] "+v"(acc##j)                                                 \
          : [a] "v"(x), [b] "v"(y));
#define SUM(j) sum = _mm512_add_epi32(sum, acc##j);
  ONNXC_CHAINS_24(DECLARE)
  __m512i x = _mm512_set1_epi32(0x01020304), y = _mm512_set1_epi32(0x05060708);
  for (long i = 0; i < iterations; ++i) {
    ONNXC_CHAINS_24(STEP)
  }
  __m512i sum = _mm512_setzero_si512();
  ONNXC_CHAINS_24(SUM)
  return _mm512_reduce_add_epi32(sum);
#undef DECLARE
#undef STEP
#undef SUM
}

__attribute__((target("avx2"))) int maddLoop(long iterations) {
#define DECLARE(j) __m256i acc##j = _mm256_set1_epi32(j);
#define STEP(j) acc##j = _mm256_add_epi32(acc##j, _mm256_madd_epi16(x, y));
#define SUM(j) sum = _mm256_add_epi32(sum, acc##j);
  ONNXC_CHAINS_12(DECLARE)
  __m256i x = _mm256_set1_epi32(0x00010002), y = _mm256_set1_epi32(0x00030004);
  for (long i = 0; i < iterations; ++i) {
    // An opaque x: the product would otherwise be hoisted out of the loop.
    __asm__ volatile("" : "+x"(x));
    ONNXC_CHAINS_12(STEP)
  }
  __m256i sum = _mm256_setzero_si256();
  ONNXC_CHAINS_12(SUM)
  int out[8];
  _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), sum);
  return out[0];
#undef DECLARE
#undef STEP
#undef SUM
}
#undef ONNXC_CHAINS_24
#undef ONNXC_CHAINS_12
#endif

/// Single-core peak in GOPS (2 per multiply-add) of `isa`'s instruction,
/// best of `runs`; 0 for the portable kernel (no single instruction).
double int8PeakNow(int isa, int runs, long iterations) {
  double best = 0;
  for (int run = 0; run < runs; ++run) {
    double start = threadCpuSeconds();
    int sink = 0;
    double opsPerIteration = 0;
#if defined(__x86_64__)
    if (isa == ONNXC_QGEMM_ISA_AVX512_VNNI) {
      sink = vnniLoop(iterations);
      opsPerIteration = 24 * 64 * 2;
    } else if (isa == ONNXC_QGEMM_ISA_AVX2) {
      sink = maddLoop(iterations);
      opsPerIteration = 12 * 16 * 2;
    }
#endif
    benchmark::DoNotOptimize(sink);
    double seconds = threadCpuSeconds() - start;
    if (opsPerIteration > 0)
      best = std::max(best, opsPerIteration * iterations / seconds / 1e9);
  }
  return best;
}

std::vector<uint8_t> randomBytes(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<uint8_t> values(count);
  for (uint8_t &v : values)
    v = static_cast<uint8_t>(dist(rng));
  return values;
}

void BM_Int8Peak(benchmark::State &state) {
  int isa = static_cast<int>(state.range(0));
  if (!onnxc_qgemm_isa_supported(isa)) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  double peak = 0;
  for (auto _ : state)
    peak = int8PeakNow(isa, 5, 10'000'000);
  state.counters["peak_GFLOPS"] = peak;
  state.SetLabel(onnxc_qgemm_isa_name(isa));
}

/// Args: isa, M, N, K, threads (0: all cores), output (0 s32, 1 f32).
void BM_Qgemm(benchmark::State &state) {
  int isa = static_cast<int>(state.range(0));
  size_t m = state.range(1), n = state.range(2), k = state.range(3);
  int threads = static_cast<int>(state.range(4));
  if (!onnxc_qgemm_isa_supported(isa)) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  if (threads == 0)
    threads = onnxc_default_num_threads();
  onnxc_qgemm_force_isa(isa);
  onnxc_set_num_threads(threads);
  std::vector<uint8_t> a = randomBytes(m * k, 1), b = randomBytes(k * n, 2);
  std::vector<float> c(m * n), scale(n, 0.01f), bias(n, 0.5f);
  int32_t zero = 3;
  onnxc_qgemm_packed_b *packed =
      onnxc_qgemm_pack_b(k, n, b.data(), n, 1, /*b_signed=*/1);
  onnxc_qgemm_params p{};
  p.a = a.data();
  p.lda = k;
  p.a_zero_point = 128;
  p.b_zero_point = &zero;
  p.output = static_cast<int32_t>(state.range(5));
  p.c = c.data();
  p.ldc = n;
  p.a_scale = 0.02f;
  p.b_scale = scale.data();
  p.b_scale_stride = 1;
  p.bias = bias.data();
  double peakBefore = int8PeakNow(isa, 3, 1'000'000);
  for (auto _ : state) {
    onnxc_qgemm(m, packed, &p, threads);
    benchmark::ClobberMemory();
  }
  double peakAfter = int8PeakNow(isa, 3, 1'000'000);
  onnxc_qgemm_free_packed_b(packed);
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * m * n * k / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_GFLOPS"] = std::max(peakBefore, peakAfter) * threads;
  state.counters["threads"] = threads;
  state.SetLabel(onnxc_qgemm_isa_name(isa));
  onnxc_qgemm_force_isa(ONNXC_QGEMM_ISA_AUTO);
  onnxc_set_num_threads(0);
}

/// Args: groups (K / 4). The VNNI micro-kernel alone on one A panel and
/// `panels` B panels that stay in L1/L2: what the kernel reaches without
/// packing, epilogue or threads, against the same peak.
void BM_QgemmMicroKernel(benchmark::State &state) {
#if ONNXC_HAVE_X86_KERNELS
  const onnxc_qgemm_variant *v = &onnxc_qgemm_avx512_vnni_variant;
  if (!onnxc_qgemm_isa_supported(v->isa)) {
    state.SkipWithError("ISA not supported by this CPU");
    return;
  }
  size_t groups = state.range(0), panels = state.range(1);
  std::vector<uint8_t> a = randomBytes(groups * v->mr * 4, 1);
  std::vector<uint8_t> b = randomBytes(panels * groups * v->nr * 4, 2);
  std::vector<int32_t> tile(v->mr * v->nr);
  for (auto _ : state) {
    for (size_t p = 0; p < panels; ++p)
      v->kernel(groups, a.data(), b.data() + p * groups * v->nr * 4,
                tile.data(), v->mr);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * v->mr * v->nr * groups * 4 * panels / 1e9,
                         benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_GFLOPS"] = int8PeakNow(v->isa, 3, 1'000'000);
#else
  state.SkipWithError("x86-64 only");
#endif
}

void qgemmArgs(benchmark::internal::Benchmark *b, bool allThreads) {
  const int64_t shapes[][3] = {
      {1024, 1024, 1024}, // the square reference
      {128, 768, 768},    // BERT-base projection, 128 tokens
      {128, 3072, 768},   // BERT-base FFN up
      {128, 768, 3072},   // BERT-base FFN down
      {1, 4096, 1024},    // one token through a wide layer
      {257, 255, 253},    // odd sizes: every edge path
  };
  for (int isa : {ONNXC_QGEMM_ISA_AVX512_VNNI, ONNXC_QGEMM_ISA_AVX2,
                  ONNXC_QGEMM_ISA_PORTABLE})
    for (const auto &s : shapes)
      b->Args({isa, s[0], s[1], s[2], allThreads ? 0 : 1, 0});
  b->Args({ONNXC_QGEMM_ISA_AVX512_VNNI, 128, 768, 768, allThreads ? 0 : 1, 1});
  b->ArgNames({"isa", "M", "N", "K", "threads", "f32"});
  if (allThreads)
    b->UseRealTime();
  b->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_Int8Peak)
    ->Arg(ONNXC_QGEMM_ISA_AVX512_VNNI)
    ->Arg(ONNXC_QGEMM_ISA_AVX2)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_QgemmMicroKernel)
    ->Args({192, 1})
    ->Args({192, 24})
    ->Args({768, 1})
    ->Args({768, 24})
    ->ArgNames({"groups", "b_panels"})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Qgemm)->Apply([](benchmark::internal::Benchmark *b) {
  qgemmArgs(b, false);
});
BENCHMARK(BM_Qgemm)
    ->Name("BM_QgemmAllThreads")
    ->Apply([](benchmark::internal::Benchmark *b) { qgemmArgs(b, true); });

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  onnxc_bench::PercentOfPeakReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  return 0;
}
