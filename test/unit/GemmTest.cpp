//===- GemmTest.cpp - The packed GEMM and the thread pool vs plain loops --===//
//
// Every micro-kernel variant the CPU runs (forced through
// onnxc_sgemm_force_isa) against onnxc_sgemm_reference: odd sizes that hit
// every edge tile, transposes, leading dimensions wider than the matrices,
// alpha/beta, every epilogue, K and N larger than one cache block, 1 and
// several threads. Then the MatMul entry point of lowered code (batch
// broadcasting through memref descriptors) and the thread pool under many
// concurrent callers.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/kernels/Gemm.h"
#include "KernelTestUtils.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/ThreadPool.h"
#include "runtime/cpu/kernels/GemmPackedLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

std::vector<float> randomVector(size_t size, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(size);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Restores the automatic ISA and the default thread count.
struct GemmSettings {
  GemmSettings(int isa, int threads) {
    ok = onnxc_sgemm_force_isa(isa);
    onnxc_set_num_threads(threads);
  }
  ~GemmSettings() {
    onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
    onnxc_set_num_threads(0);
  }
  int ok;
};

struct Case {
  int transA, transB;
  size_t m, n, k;
  size_t pad; // extra columns in every leading dimension
  float alpha, beta;
  onnxc_sgemm_epilogue epilogue;
  int biasKind; // 0 none, 1 per column, 2 per row, 3 scalar, 4 full matrix
  bool residual;
};

std::string describe(const Case &c, int isa, int threads) {
  return std::string(onnxc_sgemm_isa_name(isa)) +
         " threads=" + std::to_string(threads) +
         " tA=" + std::to_string(c.transA) + " tB=" + std::to_string(c.transB) +
         " M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) +
         " K=" + std::to_string(c.k) + " pad=" + std::to_string(c.pad) +
         " alpha=" + std::to_string(c.alpha) +
         " beta=" + std::to_string(c.beta) +
         " act=" + std::to_string(c.epilogue.activation) +
         " bias=" + std::to_string(c.biasKind) +
         " residual=" + std::to_string(c.residual);
}

/// Runs `c` through onnxc_sgemm and the reference; returns the largest error
/// over the tolerance (0 when all match) and checks the padding is intact.
/// With `slot`, through onnxc_sgemm_strided_cached with that cache slot and
/// B from `constantB` (so that the same B keeps its address across calls).
/// With `packedB` (op(constantB) packed in ISA `packedIsa`'s layout),
/// through onnxc_sgemm_prepacked with `slot` (may be null).
void checkCase(Case c, int isa, int threads,
               onnxc_sgemm_packed_b **slot = nullptr,
               const std::vector<float> *constantB = nullptr,
               const std::vector<float> *packedB = nullptr, int packedIsa = 0) {
  SCOPED_TRACE(describe(c, isa, threads));
  size_t aRows = c.transA ? c.k : c.m, aCols = c.transA ? c.m : c.k;
  size_t bRows = c.transB ? c.n : c.k, bCols = c.transB ? c.k : c.n;
  size_t lda = aCols + c.pad, ldb = bCols + c.pad, ldc = c.n + c.pad;
  std::vector<float> a = randomVector(aRows * lda, 1);
  std::vector<float> b = constantB ? *constantB : randomVector(bRows * ldb, 2);
  const float *bData = constantB ? constantB->data() : b.data();
  if (constantB)
    ASSERT_GE(constantB->size(), bRows * ldb);
  std::vector<float> c0 = randomVector(c.m * ldc, 3);
  std::vector<float> bias = randomVector(c.m * ldc, 4);
  std::vector<float> residual = randomVector(c.m * ldc, 5);
  onnxc_sgemm_epilogue e = c.epilogue;
  e.bias_scale = 0.75f;
  switch (c.biasKind) {
  case 1:
    e.bias = bias.data();
    e.bias_col_stride = 1;
    break;
  case 2:
    e.bias = bias.data();
    e.bias_row_stride = 1;
    break;
  case 3:
    e.bias = bias.data() + 7;
    break;
  case 4:
    e.bias = bias.data();
    e.bias_row_stride = (ptrdiff_t)ldc;
    e.bias_col_stride = 1;
    break;
  default:
    break;
  }
  if (c.residual) {
    e.residual = residual.data();
    e.residual_ld = (ptrdiff_t)ldc;
  }
  std::vector<float> expected = c0, got = c0;
  onnxc_sgemm_reference(c.transA, c.transB, c.m, c.n, c.k, c.alpha, a.data(),
                        lda, b.data(), ldb, c.beta, expected.data(), ldc, &e);
  {
    GemmSettings settings(isa, threads);
    ASSERT_TRUE(settings.ok);
    ASSERT_EQ(onnxc_sgemm_current_isa(), isa);
    if (packedB)
      onnxc_sgemm_prepacked(
          c.m, c.n, c.k, c.alpha, a.data(), c.transA ? 1 : (ptrdiff_t)lda,
          c.transA ? (ptrdiff_t)lda : 1, packedB->data(), packedIsa, c.beta,
          got.data(), (ptrdiff_t)ldc, &e, 0, slot);
    else if (slot)
      onnxc_sgemm_strided_cached(
          c.m, c.n, c.k, c.alpha, a.data(), c.transA ? 1 : (ptrdiff_t)lda,
          c.transA ? (ptrdiff_t)lda : 1, bData, c.transB ? 1 : (ptrdiff_t)ldb,
          c.transB ? (ptrdiff_t)ldb : 1, c.beta, got.data(), (ptrdiff_t)ldc, &e,
          0, slot);
    else
      onnxc_sgemm(c.transA, c.transB, c.m, c.n, c.k, c.alpha, a.data(), lda,
                  b.data(), ldb, c.beta, got.data(), ldc, &e);
  }
  float tolerance = 2e-6f * (float)c.k + 1e-5f;
  size_t bad = 0;
  for (size_t i = 0; i < c.m; ++i)
    for (size_t j = 0; j < ldc; ++j) {
      float want = expected[i * ldc + j], have = got[i * ldc + j];
      if (j >= c.n) {
        // Padding columns must be untouched.
        if (have != c0[i * ldc + j] && bad++ < 5)
          ADD_FAILURE() << "padding written at (" << i << ", " << j << ")";
        continue;
      }
      if (!(std::fabs(want - have) <= tolerance * (1.0f + std::fabs(want))) &&
          bad++ < 5)
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << have
                      << ", expected " << want;
    }
  EXPECT_EQ(bad, 0u);
}

std::vector<int> supportedIsas() {
  std::vector<int> isas;
  for (int isa : {ONNXC_SGEMM_ISA_PORTABLE, ONNXC_SGEMM_ISA_AVX2,
                  ONNXC_SGEMM_ISA_AVX512, ONNXC_SGEMM_ISA_NEON})
    if (onnxc_sgemm_isa_supported(isa))
      isas.push_back(isa);
  return isas;
}

class GemmIsaTest : public ::testing::TestWithParam<int> {};

TEST_P(GemmIsaTest, OddSizesTransposesAndPadding) {
  int isa = GetParam();
  const size_t sizes[] = {1, 3, 17, 31, 100, 257};
  for (size_t m : sizes)
    for (size_t n : sizes)
      for (size_t k : {(size_t)1, (size_t)17, (size_t)100}) {
        Case c{};
        c.m = m;
        c.n = n;
        c.k = k;
        c.alpha = 1.0f;
        c.transA = (m + n) % 2;
        c.transB = (n + k) % 2;
        c.pad = (m + k) % 3 == 0 ? 5 : 0;
        checkCase(c, isa, 1);
      }
}

TEST_P(GemmIsaTest, EveryTransposeAlphaBeta) {
  int isa = GetParam();
  for (int ta : {0, 1})
    for (int tb : {0, 1})
      for (float alpha : {1.0f, -0.5f})
        for (float beta : {0.0f, 1.0f, 0.25f}) {
          Case c{};
          c.transA = ta;
          c.transB = tb;
          c.m = 31;
          c.n = 45;
          c.k = 23;
          c.pad = 3;
          c.alpha = alpha;
          c.beta = beta;
          checkCase(c, isa, 1);
        }
}

TEST_P(GemmIsaTest, BetaZeroIgnoresNaNInC) {
  GemmSettings settings(GetParam(), 1);
  size_t m = 13, n = 35, k = 9;
  std::vector<float> a = randomVector(m * k, 1), b = randomVector(k * n, 2);
  std::vector<float> c(m * n, NAN), expected(m * n);
  onnxc_sgemm(0, 0, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n,
              nullptr);
  onnxc_sgemm_reference(0, 0, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                        expected.data(), n, nullptr);
  for (size_t i = 0; i < m * n; ++i)
    ASSERT_NEAR(c[i], expected[i], 1e-4f) << i;
}

TEST_P(GemmIsaTest, EveryEpilogue) {
  int isa = GetParam();
  struct Activation {
    int kind;
    float alpha, beta;
  };
  const Activation activations[] = {{ONNXC_ACTIVATION_NONE, 0, 0},
                                    {ONNXC_ACTIVATION_RELU, 0, 0},
                                    {ONNXC_ACTIVATION_LEAKY_RELU, 0.1f, 0},
                                    {ONNXC_ACTIVATION_CLIP, -0.5f, 0.75f},
                                    {ONNXC_ACTIVATION_SIGMOID, 0, 0},
                                    {ONNXC_ACTIVATION_TANH, 0, 0},
                                    {ONNXC_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f},
                                    {ONNXC_ACTIVATION_GELU, 0, 0},
                                    {ONNXC_ACTIVATION_FAST_GELU, 0, 0}};
  for (const Activation &act : activations)
    for (int biasKind = 0; biasKind <= 4; ++biasKind)
      for (bool residual : {false, true}) {
        Case c{};
        c.m = 37;
        c.n = 70;
        c.k = 19;
        c.pad = 2;
        c.alpha = 1.5f;
        c.beta = biasKind == 4 ? 0.5f : 0.0f;
        c.epilogue.activation = act.kind;
        c.epilogue.activation_alpha = act.alpha;
        c.epilogue.activation_beta = act.beta;
        c.biasKind = biasKind;
        c.residual = residual;
        checkCase(c, isa, 1);
      }
}

TEST_P(GemmIsaTest, LargerThanOneCacheBlock) {
  // K over KC (accumulation across K blocks, beta on the first only), N over
  // NC (several column blocks), M over MC; with the epilogue on the last.
  int isa = GetParam();
  Case c{};
  c.m = 5;
  c.n = 2100;
  c.k = 1000;
  c.alpha = 0.5f;
  c.beta = 0.5f;
  c.biasKind = 1;
  c.epilogue.activation = ONNXC_ACTIVATION_RELU;
  checkCase(c, isa, 1);
  c.m = 530;
  c.n = 40;
  c.k = 800;
  c.transA = 1;
  c.biasKind = 2;
  checkCase(c, isa, 1);
}

TEST_P(GemmIsaTest, APackedOnceForEveryColumnBlock) {
  // N over NC: all of A is packed once and every column block's tasks read
  // their rows from that copy (Gemm.c, pack_whole_a_task), as do the
  // threads of a column split. 98 rows end in split tiles (4 + 4 rows at 2
  // threads; 4 + 3 after 15 full tiles of 6 where the copy is packed in
  // chunks of 16 tiles); 515 rows take two groups of the column split.
  int isa = GetParam();
  for (int threads : {1, 2, 3})
    for (int transA : {0, 1}) {
      Case c{};
      c.m = 98;
      c.n = 1100;
      c.k = 300;
      c.transA = transA;
      c.pad = 1;
      c.alpha = 1.0f;
      c.beta = 0.5f;
      c.biasKind = 1;
      c.epilogue.activation = ONNXC_ACTIVATION_RELU;
      checkCase(c, isa, threads);
      std::vector<float> b = randomVector(c.k * (c.n + c.pad), 2);
      onnxc_sgemm_packed_b *slot = nullptr;
      for (int call = 0; call < 2; ++call)
        checkCase(c, isa, threads, &slot, &b);
    }
  Case c{};
  c.m = 515;
  c.n = 1100;
  c.k = 200;
  c.alpha = 1.0f;
  std::vector<float> b = randomVector(c.k * c.n, 2);
  onnxc_sgemm_packed_b *slot = nullptr;
  checkCase(c, isa, 8, &slot, &b);
}

TEST_P(GemmIsaTest, SeveralThreads) {
  int isa = GetParam();
  for (int threads : {2, 3, 8}) {
    Case c{};
    c.m = 300;
    c.n = 257;
    c.k = 130;
    c.pad = 1;
    c.alpha = 1.0f;
    c.beta = 1.0f;
    c.biasKind = 1;
    c.residual = true;
    c.epilogue.activation = ONNXC_ACTIVATION_TANH;
    checkCase(c, isa, threads);
    // One row: the unpacked path, its columns split across threads.
    c.m = 1;
    c.n = 1000;
    c.k = 300;
    checkCase(c, isa, threads);
    // Few rows: the columns are split across threads instead.
    c.m = 3;
    c.n = 1000;
    c.k = 300;
    c.transB = 1;
    checkCase(c, isa, threads);
  }
}

TEST_P(GemmIsaTest, ResultDoesNotDependOnThreadCount) {
  // The reduction order of every element is fixed by the blocking, not by
  // the thread split: outputs are bitwise equal.
  int isa = GetParam();
  size_t m = 200, n = 190, k = 700;
  std::vector<float> a = randomVector(m * k, 1), b = randomVector(k * n, 2);
  std::vector<float> one(m * n), many(m * n);
  {
    GemmSettings settings(isa, 1);
    onnxc_sgemm(0, 0, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, one.data(),
                n, nullptr);
  }
  {
    GemmSettings settings(isa, 4);
    onnxc_sgemm(0, 0, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                many.data(), n, nullptr);
  }
  EXPECT_EQ(one, many);
}

TEST_P(GemmIsaTest, StridedBroadcastOperand) {
  // A row broadcast over M (row stride 0): every output row is the same.
  GemmSettings settings(GetParam(), 2);
  size_t m = 20, n = 33, k = 40;
  std::vector<float> a = randomVector(k, 1), b = randomVector(k * n, 2);
  std::vector<float> c(m * n), row(n);
  onnxc_sgemm_strided(m, n, k, 1.0f, a.data(), 0, 1, b.data(), n, 1, 0.0f,
                      c.data(), n, nullptr, 0);
  onnxc_sgemm_reference(0, 0, 1, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                        row.data(), n, nullptr);
  for (size_t i = 0; i < m; ++i)
    for (size_t j = 0; j < n; ++j)
      ASSERT_NEAR(c[i * n + j], row[j], 1e-4f) << i << ", " << j;
}

TEST_P(GemmIsaTest, SmallRowsWithoutPacking) {
  // Few rows take the unpacked small-M kernels: plain B (rows of B scaled
  // and summed, M <= 4) and transposed B (dot products along K, PyTorch's
  // Linear, M <= 16); larger M is the packed path again. Every
  // row-group remainder, column tail and K tail of the kernels, with the
  // epilogue.
  int isa = GetParam();
  for (size_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17})
    for (int tb : {0, 1})
      for (size_t n : {(size_t)1, (size_t)7, (size_t)33, (size_t)130})
        for (size_t k : {(size_t)1, (size_t)5, (size_t)17, (size_t)300}) {
          Case c{};
          c.m = m;
          c.n = n;
          c.k = k;
          c.transB = tb;
          c.transA = (m + n + k) % 5 == 0;
          c.pad = (n + k) % 2 ? 3 : 0;
          c.alpha = m % 2 ? 1.0f : -0.5f;
          c.beta = k % 3 == 2 ? 0.25f : 0.0f;
          c.biasKind = (int)(n % 5);
          c.residual = m == 3;
          c.epilogue.activation =
              n == 33 ? ONNXC_ACTIVATION_RELU : ONNXC_ACTIVATION_NONE;
          checkCase(c, isa, 1);
        }
  for (int threads : {2, 3}) {
    // Enough work to split the columns over threads (chunks of 64).
    Case c{};
    c.m = 8;
    c.n = 1000;
    c.k = 784;
    c.transB = 1;
    c.alpha = 1.0f;
    c.biasKind = 1;
    c.epilogue.activation = ONNXC_ACTIVATION_RELU;
    checkCase(c, isa, threads);
    c.m = 3;
    c.transB = 0;
    c.beta = 1.0f;
    checkCase(c, isa, threads);
  }
}

TEST_P(GemmIsaTest, SmallRowsPropagateNaNAndInf) {
  // A NaN in A poisons its row of C, an infinity in B its column, in the
  // small-M kernels as in any product.
  GemmSettings settings(GetParam(), 1);
  size_t m = 3, n = 20, k = 37;
  for (int tb : {0, 1}) {
    std::vector<float> a = randomVector(m * k, 1), b = randomVector(k * n, 2);
    std::vector<float> c(m * n, 0.0f);
    for (float &x : a)
      x = std::fabs(x) + 0.1f;
    for (float &x : b)
      x = std::fabs(x) + 0.1f;
    a[1 * k + 30] = NAN;                        // row 1
    b[tb ? 5 * k + 33 : 33 * n + 5] = INFINITY; // column 5
    onnxc_sgemm(0, tb, m, n, k, 1.0f, a.data(), k, b.data(), tb ? k : n, 0.0f,
                c.data(), n, nullptr);
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j) {
        float v = c[i * n + j];
        if (i == 1)
          EXPECT_TRUE(std::isnan(v)) << tb << " " << i << ", " << j;
        else if (j == 5)
          EXPECT_TRUE(std::isinf(v) && v > 0) << tb << " " << i << ", " << j;
        else
          EXPECT_TRUE(std::isfinite(v)) << tb << " " << i << ", " << j;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(SupportedIsas, GemmIsaTest,
                         ::testing::ValuesIn(supportedIsas()),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::string(onnxc_sgemm_isa_name(info.param));
                         });

/// Shapes for the packed-once B: edge tiles, transB, K over KC and N over NC
/// (several blocks in the packed copy), a leading dimension wider than B.
std::vector<Case> packedBCases() {
  std::vector<Case> cases;
  auto add = [&](size_t m, size_t n, size_t k, int transB, size_t pad) {
    Case c{};
    c.m = m;
    c.n = n;
    c.k = k;
    c.transB = transB;
    c.pad = pad;
    c.alpha = 1.0f;
    c.biasKind = 1;
    c.epilogue.activation = ONNXC_ACTIVATION_RELU;
    cases.push_back(c);
  };
  add(64, 100, 37, 0, 0);
  add(33, 257, 300, 1, 3);
  add(100, 17, 31, 1, 0);
  add(40, 2100, 1000, 0, 5);
  add(130, 45, 700, 1, 0);
  // Split by columns with more rows than one packed group of A (AVX-512,
  // 3 threads: 11 row blocks; groups of 336 rows at KC = 384).
  add(500, 70, 400, 0, 1);
  // All rows in one group of A (M = 197, ViT-B/16 at batch 1): split by
  // columns on one thread too.
  add(197, 70, 400, 1, 0);
  // Many row blocks, more rows than one group: tasks per (row block,
  // column chunk) of each B block, not per column share.
  add(400, 70, 50, 1, 0);
  add(600, 90, 400, 0, 2);
  add(3, 50, 20, 0, 0); // small M: unpacked, the slot stays unused
  // 7 and 8 rows: two short row tiles rather than a full one and a rest of
  // 1 or 2 (Gemm.c, tile_rows); 8 x 1000 x 784 is mlp's first layer.
  add(7, 33, 50, 0, 1);
  add(8, 1000, 784, 1, 0);
  return cases;
}

TEST_P(GemmIsaTest, ConstantBPackedOnce) {
  int isa = GetParam();
  for (const Case &c : packedBCases())
    for (int threads : {1, 3}) {
      size_t bRows = c.transB ? c.n : c.k, bCols = c.transB ? c.k : c.n;
      std::vector<float> b = randomVector(bRows * (bCols + c.pad), 2);
      onnxc_sgemm_packed_b *slot = nullptr;
      // The first call packs B into the slot, the later ones read it.
      for (int call = 0; call < 3; ++call)
        checkCase(c, isa, threads, &slot, &b);
      // A few rows read B unpacked; from 5 on, B is packed once.
      EXPECT_EQ(slot != nullptr, c.m > 4) << describe(c, isa, threads);
    }
}

TEST(Gemm, ConstantBPackedForAnotherIsa) {
  // A copy packed for one variant is not used by another (other tiles and
  // blocks): forcing an ISA after the first run falls back to packing per
  // call, with the right result.
  std::vector<int> isas = supportedIsas();
  for (const Case &c : packedBCases()) {
    size_t bRows = c.transB ? c.n : c.k, bCols = c.transB ? c.k : c.n;
    std::vector<float> b = randomVector(bRows * (bCols + c.pad), 2);
    for (size_t first = 0; first < isas.size(); ++first) {
      onnxc_sgemm_packed_b *slot = nullptr;
      checkCase(c, isas[first], 1, &slot, &b);
      for (int isa : isas)
        checkCase(c, isa, 2, &slot, &b);
      checkCase(c, isas[first], 1, &slot, &b);
    }
  }
}

/// op(B) of `c` (B as checkCase makes it, in `b`) packed in `isa`'s layout
/// by the layout's definition (GemmPackedLayout.h), as the compiler packs
/// weights.
std::vector<float> packForIsa(const Case &c, const std::vector<float> &b,
                              int isa) {
  onnxc_sgemm_b_layout layout;
  EXPECT_TRUE(onnxc_sgemm_b_layout_for_isa(isa, &layout));
  std::vector<float> packed(onnxc_sgemm_packed_b_floats(&layout, c.n, c.k),
                            NAN);
  size_t ldb = (c.transB ? c.k : c.n) + c.pad;
  onnxc_sgemm_pack_b_layout(&layout, b.data(), c.n, c.k,
                            c.transB ? 1 : (ptrdiff_t)ldb,
                            c.transB ? (ptrdiff_t)ldb : 1, packed.data());
  return packed;
}

TEST(Gemm, PrepackedB) {
  // B packed ahead of time in each ISA's layout, run by every variant this
  // CPU has: the variant with that layout reads it as it is (the slot stays
  // empty), the others repack it once into the slot; without a slot they
  // read it element by element. Every result against the reference.
  for (const Case &c : packedBCases()) {
    size_t bRows = c.transB ? c.n : c.k, bCols = c.transB ? c.k : c.n;
    std::vector<float> b = randomVector(bRows * (bCols + c.pad), 2);
    for (int packedIsa :
         {ONNXC_SGEMM_ISA_AVX2, ONNXC_SGEMM_ISA_AVX512, ONNXC_SGEMM_ISA_NEON}) {
      std::vector<float> packed = packForIsa(c, b, packedIsa);
      for (int isa : supportedIsas()) {
        onnxc_sgemm_packed_b *slot = nullptr;
        for (int threads : {1, 3})
          checkCase(c, isa, threads, &slot, &b, &packed, packedIsa);
        // (The portable kernel's layout depends on the build: not checked.)
        if (isa == packedIsa)
          EXPECT_EQ(slot, nullptr) << onnxc_sgemm_isa_name(isa);
        else if (isa != ONNXC_SGEMM_ISA_PORTABLE)
          EXPECT_NE(slot, nullptr) << onnxc_sgemm_isa_name(packedIsa)
                                   << " run by " << onnxc_sgemm_isa_name(isa);
        if (c.m * c.n * c.k <= 3000000) // the element-by-element loop
          checkCase(c, isa, 2, nullptr, &b, &packed, packedIsa);
      }
    }
  }
}

TEST(Gemm, PrepackedLayoutIsTheRuntimePacking) {
  // The runtime's own packing of a constant B (the packed-once copy, read
  // by the variant it was packed for) and the layout's definition agree:
  // a B packed by the definition gives bit-identical results to the same
  // B packed by the runtime, on the variant of that layout.
  for (int isa :
       {ONNXC_SGEMM_ISA_AVX2, ONNXC_SGEMM_ISA_AVX512, ONNXC_SGEMM_ISA_NEON}) {
    if (!onnxc_sgemm_isa_supported(isa))
      continue;
    for (const Case &c : packedBCases()) {
      if (c.m <= 4)
        continue; // a few rows are not packed (GemmKernels.h, small M)
      SCOPED_TRACE(describe(c, isa, 1));
      size_t bRows = c.transB ? c.n : c.k, bCols = c.transB ? c.k : c.n;
      size_t ldb = bCols + c.pad;
      std::vector<float> b = randomVector(bRows * ldb, 2);
      std::vector<float> a = randomVector(c.m * c.k, 1);
      std::vector<float> packed = packForIsa(c, b, isa);
      std::vector<float> viaSlot(c.m * c.n, NAN), viaLayout(c.m * c.n, NAN);
      GemmSettings settings(isa, 1);
      onnxc_sgemm_packed_b *slot = nullptr;
      for (int call = 0; call < 2; ++call)
        onnxc_sgemm_strided_cached(
            c.m, c.n, c.k, 1.0f, a.data(), (ptrdiff_t)c.k, 1, b.data(),
            c.transB ? 1 : (ptrdiff_t)ldb, c.transB ? (ptrdiff_t)ldb : 1, 0.0f,
            viaSlot.data(), (ptrdiff_t)c.n, nullptr, 1, &slot);
      onnxc_sgemm_prepacked(c.m, c.n, c.k, 1.0f, a.data(), (ptrdiff_t)c.k, 1,
                            packed.data(), isa, 0.0f, viaLayout.data(),
                            (ptrdiff_t)c.n, nullptr, 1, nullptr);
      EXPECT_EQ(std::memcmp(viaSlot.data(), viaLayout.data(),
                            viaSlot.size() * sizeof(float)),
                0);
    }
  }
}

/// Runs `call(t)` on `callers` threads released at once (so that they race
/// on a first call), then checks each caller's result against `expected`.
template <typename Call>
void checkRacingCallers(int callers, size_t size,
                        const std::vector<float> &expected, Call call) {
  std::vector<std::vector<float>> results(callers,
                                          std::vector<float>(size, NAN));
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < callers; ++t)
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < callers)
        std::this_thread::yield();
      call(results[t].data());
    });
  for (std::thread &t : threads)
    t.join();
  for (int t = 0; t < callers; ++t)
    for (size_t i = 0; i < expected.size(); ++i)
      ASSERT_NEAR(results[t][i], expected[i],
                  1e-4f * (1.0f + std::fabs(expected[i])))
          << "caller " << t << " element " << i;
}

TEST(Gemm, ConstantBConcurrentFirstCalls) {
  // Several threads race on the first call of one call site: each may pack,
  // one copy is published, every result is right (TSan checks the rest).
  Case c{};
  c.m = 70;
  c.n = 300;
  c.k = 200;
  c.transB = 1;
  c.alpha = 1.0f;
  size_t lda = c.k, ldb = c.k, ldc = c.n;
  std::vector<float> a = randomVector(c.m * lda, 1);
  std::vector<float> b = randomVector(c.n * ldb, 2);
  std::vector<float> expected(c.m * ldc, 0.0f);
  onnxc_sgemm_reference(0, 1, c.m, c.n, c.k, 1.0f, a.data(), lda, b.data(), ldb,
                        0.0f, expected.data(), ldc, nullptr);
  onnxc_set_num_threads(2);
  for (int round = 0; round < 5; ++round) {
    onnxc_sgemm_packed_b *slot = nullptr;
    checkRacingCallers(6, c.m * ldc, expected, [&](float *y) {
      for (int call = 0; call < 3; ++call)
        onnxc_sgemm_strided_cached(
            c.m, c.n, c.k, 1.0f, a.data(), (ptrdiff_t)lda, 1, b.data(), 1,
            (ptrdiff_t)ldb, 0.0f, y, (ptrdiff_t)ldc, nullptr, 0, &slot);
    });
    EXPECT_NE(slot, nullptr);
  }
  onnxc_set_num_threads(0);
}

TEST(Gemm, PrepackedForAnotherIsaConcurrentFirstCalls) {
  // A B packed in another ISA's layout than the running variant's: callers
  // racing on the first call each may repack it; one copy is published and
  // every result is right (TSan checks the publication).
  int running = onnxc_sgemm_current_isa();
  int other = running == ONNXC_SGEMM_ISA_AVX2 ? ONNXC_SGEMM_ISA_AVX512
                                              : ONNXC_SGEMM_ISA_AVX2;
  Case c{};
  c.m = 40;
  c.n = 70;
  c.k = 300;
  c.alpha = 1.0f;
  std::vector<float> a = randomVector(c.m * c.k, 1);
  std::vector<float> b = randomVector(c.k * c.n, 2);
  std::vector<float> packed = packForIsa(c, b, other);
  std::vector<float> expected(c.m * c.n, 0.0f);
  onnxc_sgemm_reference(0, 0, c.m, c.n, c.k, 1.0f, a.data(), c.k, b.data(), c.n,
                        0.0f, expected.data(), c.n, nullptr);
  onnxc_set_num_threads(2);
  for (int round = 0; round < 3; ++round) {
    onnxc_sgemm_packed_b *slot = nullptr;
    checkRacingCallers(4, c.m * c.n, expected, [&](float *y) {
      for (int call = 0; call < 2; ++call)
        onnxc_sgemm_prepacked(c.m, c.n, c.k, 1.0f, a.data(), (ptrdiff_t)c.k, 1,
                              packed.data(), other, 0.0f, y, (ptrdiff_t)c.n,
                              nullptr, 0, &slot);
    });
    EXPECT_NE(slot, nullptr);
  }
  onnxc_set_num_threads(0);
}

TEST(Gemm, DegenerateSizes) {
  std::vector<float> c = {1, 2, 3, 4};
  onnxc_sgemm_epilogue e{};
  e.activation = ONNXC_ACTIVATION_RELU;
  // K = 0: C = beta * C, then the epilogue.
  onnxc_sgemm(0, 0, 2, 2, 0, 1.0f, nullptr, 1, nullptr, 2, -1.0f, c.data(), 2,
              &e);
  EXPECT_EQ(c, (std::vector<float>{0, 0, 0, 0}));
  // M = 0 or N = 0: nothing is touched.
  onnxc_sgemm(0, 0, 0, 2, 3, 1.0f, nullptr, 3, nullptr, 2, 0.0f, nullptr, 2,
              nullptr);
  onnxc_sgemm(0, 0, 2, 0, 3, 1.0f, nullptr, 3, nullptr, 1, 0.0f, nullptr, 1,
              nullptr);
}

TEST(Gemm, BestIsaIsChosenByDefault) {
  int best = ONNXC_SGEMM_ISA_PORTABLE;
  for (int isa : supportedIsas())
    best = isa;
  EXPECT_EQ(onnxc_sgemm_current_isa(), best);
  EXPECT_FALSE(onnxc_sgemm_force_isa(99));
  EXPECT_EQ(onnxc_sgemm_current_isa(), best);
}

//===----------------------------------------------------------------------===//
// The MatMul entry point of lowered code
//===----------------------------------------------------------------------===//

/// A dense row-major tensor with its memref descriptor.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
  std::vector<int64_t> descriptor; // allocated, aligned, offset, sizes, strides
  onnxc_unranked_memref ref;

  Tensor(std::vector<int64_t> s, unsigned seed) : shape(std::move(s)) {
    size_t total = 1;
    for (int64_t d : shape)
      total *= (size_t)d;
    data = seed ? randomVector(total, seed) : std::vector<float>(total, NAN);
    onnxc::test::describeDense(data.data(), shape, descriptor, ref);
  }
  float at(const std::vector<int64_t> &index) const {
    // Right-aligned broadcast read: index has the rank of the full shape.
    size_t offset = 0, stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      int64_t i = index[index.size() - shape.size() + d];
      offset += (shape[d] == 1 ? 0 : (size_t)i) * stride;
      stride *= (size_t)shape[d];
    }
    return data[offset];
  }
};

/// numpy matmul of a and b plus a broadcast bias, the slow way, into y.
void checkMatMul(std::vector<int64_t> aShape, std::vector<int64_t> bShape,
                 std::vector<int64_t> biasShape, std::vector<int64_t> yShape,
                 int threads) {
  Tensor a(aShape, 1), b(bShape, 2), y(yShape, 0);
  Tensor bias(biasShape, 3);
  bool hasBias = !biasShape.empty();
  onnxc_set_num_threads(threads);
  _mlir_ciface_onnxc_rt_matmul_f32(&a.ref, &b.ref, &bias.ref, &y.ref,
                                   hasBias ? ONNXC_MATMUL_BIAS : 0, 1.0f, 1.0f,
                                   ONNXC_ACTIVATION_NONE, 0, 0);
  onnxc_set_num_threads(0);
  // Promote vectors as numpy does, then loop over the output.
  std::vector<int64_t> aFull = aShape, bFull = bShape;
  bool aVec = aShape.size() == 1, bVec = bShape.size() == 1;
  if (aVec)
    aFull.insert(aFull.begin(), 1);
  if (bVec)
    bFull.push_back(1);
  int64_t k = aFull.back();
  std::vector<int64_t> yFull = yShape;
  if (aVec)
    yFull.insert(yFull.end() - (bVec ? 0 : 1), 1);
  if (bVec)
    yFull.push_back(1);
  size_t total = y.data.size();
  Tensor aT(aFull, 1), bT(bFull, 2);
  for (size_t flat = 0; flat < total; ++flat) {
    std::vector<int64_t> index(yFull.size());
    size_t rest = flat;
    for (size_t d = yFull.size(); d-- > 0;) {
      index[d] = (int64_t)(rest % (size_t)yFull[d]);
      rest /= (size_t)yFull[d];
    }
    double sum = 0;
    for (int64_t p = 0; p < k; ++p) {
      std::vector<int64_t> ai = index, bi = index;
      ai[ai.size() - 1] = p;
      bi[bi.size() - 2] = p;
      sum += (double)aT.at(ai) * bT.at(bi);
    }
    if (hasBias) {
      std::vector<int64_t> yi(index);
      if (bVec)
        yi.pop_back();
      if (aVec)
        yi.erase(yi.end() - (bVec ? 1 : 2));
      sum += bias.at(yi);
    }
    ASSERT_NEAR(y.data[flat], sum, 1e-4) << "element " << flat;
  }
}

TEST(MatMulEntry, NumpyShapes) {
  for (int threads : {1, 2}) {
    checkMatMul({5, 7}, {7, 9}, {9}, {5, 9}, threads);
    checkMatMul({3, 5, 7}, {7, 9}, {9}, {3, 5, 9}, threads);   // folds rows
    checkMatMul({3, 5, 7}, {3, 7, 9}, {}, {3, 5, 9}, threads); // same batch
    checkMatMul({2, 1, 5, 7}, {4, 7, 9}, {4, 5, 9}, {2, 4, 5, 9}, threads);
    checkMatMul({1, 5, 7}, {3, 7, 9}, {5, 1}, {3, 5, 9}, threads);
    checkMatMul({7}, {3, 7, 9}, {}, {3, 9}, threads);  // vector @ batch
    checkMatMul({3, 5, 7}, {7}, {5}, {3, 5}, threads); // batch @ vector
    checkMatMul({7}, {7}, {}, {}, threads);            // dot product
    checkMatMul({2, 3, 40, 33}, {2, 3, 33, 20}, {1}, {2, 3, 40, 20}, threads);
  }
}

TEST(MatMulEntry, PackedConstantB) {
  // The entry point with a cache slot (a memref<1xi64> descriptor): right
  // results on first and later calls; a B shared by every batch is packed
  // into the slot, a batched B is not (one slot cannot hold several).
  for (bool sharedB : {true, false}) {
    Tensor a({3, 40, 33}, 1), y({3, 40, 20}, 0);
    Tensor b(sharedB ? std::vector<int64_t>{33, 20}
                     : std::vector<int64_t>{3, 33, 20},
             2);
    int64_t slotValue = 0;
    onnxc_memref1 slot = {&slotValue, &slotValue, 0, 1, 1};
    for (int call = 0; call < 2; ++call) {
      std::fill(y.data.begin(), y.data.end(), NAN);
      _mlir_ciface_onnxc_rt_matmul_packed_f32(&a.ref, &b.ref, &a.ref, &y.ref,
                                              &slot, 0, 1.0f, 1.0f,
                                              ONNXC_ACTIVATION_NONE, 0, 0);
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t r = 0; r < 40; ++r)
          for (int64_t j = 0; j < 20; ++j) {
            double sum = 0;
            for (int64_t p = 0; p < 33; ++p)
              sum += (double)a.at({i, r, p}) *
                     b.at(sharedB ? std::vector<int64_t>{p, j}
                                  : std::vector<int64_t>{i, p, j});
            ASSERT_NEAR(y.data[(i * 40 + r) * 20 + j], sum, 1e-4);
          }
    }
    EXPECT_EQ(slotValue != 0, sharedB);
  }
}

TEST(MatMulEntry, GemmTransposesAndScaledBias) {
  Tensor a({7, 5}, 1), b({9, 7}, 2), c({5, 1}, 3), y({5, 9}, 0);
  _mlir_ciface_onnxc_rt_matmul_f32(&a.ref, &b.ref, &c.ref, &y.ref,
                                   ONNXC_MATMUL_TRANS_A | ONNXC_MATMUL_TRANS_B |
                                       ONNXC_MATMUL_BIAS,
                                   2.0f, 0.5f, ONNXC_ACTIVATION_RELU, 0, 0);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 9; ++j) {
      double sum = 0;
      for (int p = 0; p < 7; ++p)
        sum += (double)a.data[p * 5 + i] * b.data[j * 7 + p];
      double want = std::max(0.0, 2.0 * sum + 0.5 * c.data[i]);
      ASSERT_NEAR(y.data[i * 9 + j], want, 1e-4) << i << ", " << j;
    }
}

TEST(MatMulEntry, MismatchedRunTimeShapesGiveNaN) {
  Tensor a({4, 6}, 1), b({5, 3}, 2), y({4, 3}, 0);
  for (float &v : y.data)
    v = 0;
  _mlir_ciface_onnxc_rt_matmul_f32(&a.ref, &b.ref, &a.ref, &y.ref, 0, 1.0f,
                                   0.0f, 0, 0, 0);
  for (float v : y.data)
    EXPECT_TRUE(std::isnan(v));
}

//===----------------------------------------------------------------------===//
// The thread pool
//===----------------------------------------------------------------------===//

struct CountingRegion {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> badWorker{0};
  int maxWorker;
  explicit CountingRegion(size_t tasks, int workers)
      : hits(tasks), maxWorker(workers) {}
  static void task(void *context, size_t t, int worker) {
    auto *self = static_cast<CountingRegion *>(context);
    self->hits[t].fetch_add(1);
    if (worker < 0 || worker >= self->maxWorker)
      self->badWorker.fetch_add(1);
  }
};

TEST(ThreadPool, EveryTaskRunsOnce) {
  onnxc_set_num_threads(4);
  for (size_t tasks : {(size_t)1, (size_t)3, (size_t)100, (size_t)1000}) {
    CountingRegion region(tasks, 4);
    onnxc_parallel_for(tasks, 0, CountingRegion::task, &region);
    for (size_t t = 0; t < tasks; ++t)
      ASSERT_EQ(region.hits[t].load(), 1) << t;
    EXPECT_EQ(region.badWorker.load(), 0);
  }
  // A cap below the pool's count bounds the worker indices.
  CountingRegion capped(200, 2);
  onnxc_parallel_for(200, 2, CountingRegion::task, &capped);
  EXPECT_EQ(capped.badWorker.load(), 0);
  onnxc_set_num_threads(0);
}

TEST(ThreadPool, ThreadCountSetting) {
  EXPECT_GE(onnxc_default_num_threads(), 1);
  EXPECT_EQ(onnxc_set_num_threads(3), 0);
  EXPECT_EQ(onnxc_num_threads(), 3);
  EXPECT_EQ(onnxc_cpu_set_num_threads(-1), ONNXC_INVALID_ARGUMENT);
  EXPECT_EQ(onnxc_num_threads(), 3);
  EXPECT_EQ(onnxc_cpu_set_num_threads(0), ONNXC_OK);
  EXPECT_EQ(onnxc_num_threads(), onnxc_default_num_threads());
}

struct NestedRegion {
  std::atomic<int> inner{0};
  static void innerTask(void *context, size_t, int worker) {
    auto *self = static_cast<NestedRegion *>(context);
    if (worker == 0)
      self->inner.fetch_add(1);
  }
  static void outerTask(void *context, size_t, int) {
    // A region inside a task runs inline on this thread (worker 0).
    onnxc_parallel_for(10, 0, innerTask, context);
  }
};

TEST(ThreadPool, NestedRegionRunsInline) {
  onnxc_set_num_threads(4);
  NestedRegion region;
  onnxc_parallel_for(8, 0, NestedRegion::outerTask, &region);
  EXPECT_EQ(region.inner.load(), 80);
  onnxc_set_num_threads(0);
}

TEST(ThreadPool, ManyConcurrentCallers) {
  // Callers race for the workers; whoever loses runs inline. Every region
  // must still run each of its tasks exactly once, and GEMMs running at the
  // same time must all be right.
  onnxc_set_num_threads(4);
  constexpr int kCallers = 8, kRounds = 50;
  std::vector<int> failures(kCallers, 0);
  std::vector<std::thread> callers;
  size_t m = 64, n = 48, k = 80;
  std::vector<float> a = randomVector(m * k, 1), b = randomVector(k * n, 2);
  std::vector<float> expected(m * n);
  onnxc_sgemm_reference(0, 0, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                        expected.data(), n, nullptr);
  for (int t = 0; t < kCallers; ++t)
    callers.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        size_t tasks = 1 + (size_t)((t * 7 + r) % 37);
        CountingRegion region(tasks, 4);
        onnxc_parallel_for(tasks, 0, CountingRegion::task, &region);
        for (size_t i = 0; i < tasks; ++i)
          failures[t] += region.hits[i].load() != 1;
        failures[t] += region.badWorker.load();
        std::vector<float> c(m * n);
        onnxc_sgemm(0, 0, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                    c.data(), n, nullptr);
        for (size_t i = 0; i < m * n; ++i)
          failures[t] += std::fabs(c[i] - expected[i]) > 1e-4f;
      }
    });
  for (std::thread &caller : callers)
    caller.join();
  for (int t = 0; t < kCallers; ++t)
    EXPECT_EQ(failures[t], 0) << "caller " << t;
  onnxc_set_num_threads(0);
}

} // namespace
