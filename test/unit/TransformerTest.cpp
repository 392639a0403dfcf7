//===- TransformerTest.cpp - Softmax, layer norm, attention vs references -===//
//
// Every row-kernel variant the CPU runs (forced with the GEMM's ISA through
// onnxc_sgemm_force_isa) against the double-precision references: odd
// lengths that hit every vector tail, biases, inf/NaN rows, fully masked
// rows. Attention against its reference over odd sizes, grouped heads,
// strided (transposed) layouts, every mask shape and 1-4 threads. Then the
// entry points of lowered code on memref descriptors.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/kernels/Transformer.h"
#include "KernelTestUtils.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/ThreadPool.h"
#include "runtime/cpu/kernels/Gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using onnxc::test::supportedIsas;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> randomVector(size_t size, unsigned seed, float scale = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(size);
  for (float &x : v)
    x = dist(rng);
  return v;
}

/// Forces an ISA for the test's scope and a thread count.
struct IsaScope {
  IsaScope(int isa, int threads = 1) {
    ok = onnxc_sgemm_force_isa(isa);
    onnxc_set_num_threads(threads);
  }
  ~IsaScope() {
    onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
    onnxc_set_num_threads(0);
  }
  int ok;
};

/// Equal within tolerance, NaN only where the reference has NaN, infinities
/// of the same sign.
void expectClose(const std::vector<float> &got, const std::vector<float> &want,
                 float tolerance, const std::string &what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << what << " [" << i << "] " << got[i];
      continue;
    }
    if (std::isinf(want[i])) {
      ASSERT_EQ(got[i], want[i]) << what << " [" << i << "]";
      continue;
    }
    ASSERT_NEAR(got[i], want[i], tolerance * (1.0f + std::fabs(want[i])))
        << what << " [" << i << "]";
  }
}

const size_t kLengths[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 100, 128, 769};

class TransformerIsaTest : public ::testing::TestWithParam<int> {};

void checkSoftmax(const std::vector<float> &x, const std::vector<float> *bias,
                  int zeroMasked, const std::string &what) {
  size_t n = x.size();
  std::vector<float> got(n, -1.0f), want(n, -2.0f);
  onnxc_softmax_row(n, x.data(), bias ? bias->data() : nullptr, got.data(),
                    zeroMasked);
  onnxc_softmax_row_reference(n, x.data(), bias ? bias->data() : nullptr,
                              want.data(), zeroMasked);
  expectClose(got, want, 2e-6f, what);
}

TEST_P(TransformerIsaTest, SoftmaxOddLengthsAndBias) {
  IsaScope scope(GetParam());
  ASSERT_TRUE(scope.ok);
  for (size_t n : kLengths) {
    std::vector<float> x = randomVector(n, (unsigned)n, 20.0f);
    std::vector<float> bias = randomVector(n, (unsigned)n + 1, 5.0f);
    checkSoftmax(x, nullptr, 0, "plain n=" + std::to_string(n));
    checkSoftmax(x, &bias, 0, "bias n=" + std::to_string(n));
    checkSoftmax(x, &bias, 1, "zero-masked n=" + std::to_string(n));
    // In place, as attention uses it.
    std::vector<float> inPlace = x, want(n);
    onnxc_softmax_row(n, inPlace.data(), nullptr, inPlace.data(), 0);
    onnxc_softmax_row_reference(n, x.data(), nullptr, want.data(), 0);
    expectClose(inPlace, want, 2e-6f, "in place n=" + std::to_string(n));
  }
}

TEST_P(TransformerIsaTest, SoftmaxExtremeValues) {
  IsaScope scope(GetParam());
  ASSERT_TRUE(scope.ok);
  for (size_t n : kLengths) {
    std::string tag = " n=" + std::to_string(n);
    std::vector<float> x = randomVector(n, 7, 1.0f);
    // Masked entries, huge spreads (exp underflows to exactly 0).
    std::vector<float> masked = x;
    for (size_t j = 0; j < n; j += 2)
      masked[j] = -kInf;
    checkSoftmax(masked, nullptr, 0, "masked" + tag);
    std::vector<float> spread = x;
    spread[n / 2] = 200.0f;
    checkSoftmax(spread, nullptr, 0, "spread" + tag);
    // Every entry -inf: NaN, or zeros for attention.
    std::vector<float> allMasked(n, -kInf);
    checkSoftmax(allMasked, nullptr, 0, "all -inf" + tag);
    checkSoftmax(allMasked, nullptr, 1, "all -inf zeroed" + tag);
    // A NaN or +inf anywhere makes the row NaN, also in zero-masked mode.
    std::vector<float> nan = allMasked;
    nan[n - 1] = kNaN;
    checkSoftmax(nan, nullptr, 1, "NaN among -inf" + tag);
    std::vector<float> nan2 = x;
    nan2[0] = kNaN;
    checkSoftmax(nan2, nullptr, 0, "NaN" + tag);
    std::vector<float> inf = x;
    inf[n / 3] = kInf;
    checkSoftmax(inf, nullptr, 0, "+inf" + tag);
  }
}

TEST_P(TransformerIsaTest, LayerNormEveryOptionalInput) {
  IsaScope scope(GetParam());
  ASSERT_TRUE(scope.ok);
  for (size_t n : kLengths) {
    std::vector<float> x = randomVector(n, 1, 3.0f);
    // An offset mean checks the two-pass variance.
    for (float &v : x)
      v += 100.0f;
    std::vector<float> skip = randomVector(n, 2), bias = randomVector(n, 3),
                       gamma = randomVector(n, 4), beta = randomVector(n, 5);
    for (int mask = 0; mask < 8; ++mask) {
      const float *s = mask & 1 ? skip.data() : nullptr;
      const float *b = mask & 2 ? bias.data() : nullptr;
      const float *be = mask & 4 ? beta.data() : nullptr;
      std::vector<float> got(n), want(n), gotSum(n), wantSum(n);
      onnxc_layer_norm_row(n, x.data(), s, b, gamma.data(), be, 1e-5f,
                           got.data(), gotSum.data());
      onnxc_layer_norm_row_reference(n, x.data(), s, b, gamma.data(), be, 1e-5f,
                                     want.data(), wantSum.data());
      std::string what =
          "n=" + std::to_string(n) + " inputs=" + std::to_string(mask);
      expectClose(got, want, 2e-4f, what);
      expectClose(gotSum, wantSum, 0.0f, what + " sum");
    }
  }
}

TEST_P(TransformerIsaTest, LayerNormPropagatesNaNAndInf) {
  IsaScope scope(GetParam());
  ASSERT_TRUE(scope.ok);
  for (float bad : {kNaN, kInf}) {
    size_t n = 37;
    std::vector<float> x = randomVector(n, 9), gamma(n, 1.0f);
    x[5] = bad;
    std::vector<float> got(n);
    onnxc_layer_norm_row(n, x.data(), nullptr, nullptr, gamma.data(), nullptr,
                         1e-5f, got.data(), nullptr);
    for (float v : got)
      EXPECT_TRUE(std::isnan(v));
  }
}

/// A [b, h, s, d] tensor stored in `perm` order (perm[i] = which logical
/// dim is the i-th stored one), with the element strides of each logical
/// dim.
struct Strided {
  std::vector<float> data;
  ptrdiff_t stride[4];
  Strided(const size_t (&size)[4], const int (&perm)[4], unsigned seed) {
    size_t total = size[0] * size[1] * size[2] * size[3];
    data = randomVector(total, seed);
    ptrdiff_t s = 1;
    for (int i = 3; i >= 0; --i) {
      stride[perm[i]] = s;
      s *= (ptrdiff_t)size[perm[i]];
    }
  }
};

struct AttentionCase {
  size_t batch, qHeads, kvHeads, qLen, kvLen, head, vHead;
  bool transposed; // Q, K, V stored as [b, s, h, d]
  int maskKind;    // 0 none, 1 [q, kv], 2 [b, 1, 1, kv], 3 short [b, h, q,
                   // kv - 3] (padded), 4 [q, kv] with fully masked rows
  float scale;
};

void checkAttention(const AttentionCase &c, int threads) {
  const int dense[4] = {0, 1, 2, 3}, bshd[4] = {0, 2, 1, 3};
  const int(&perm)[4] = c.transposed ? bshd : dense;
  Strided q({c.batch, c.qHeads, c.qLen, c.head}, perm, 1);
  Strided k({c.batch, c.kvHeads, c.kvLen, c.head}, perm, 2);
  Strided v({c.batch, c.kvHeads, c.kvLen, c.vHead}, perm, 3);
  onnxc_attention_args a{};
  a.batch = c.batch;
  a.q_heads = c.qHeads;
  a.kv_heads = c.kvHeads;
  a.q_len = c.qLen;
  a.kv_len = c.kvLen;
  a.head_size = c.head;
  a.v_head_size = c.vHead;
  a.q = q.data.data();
  a.k = k.data.data();
  a.v = v.data.data();
  for (int d = 0; d < 4; ++d) {
    a.q_stride[d] = q.stride[d];
    a.k_stride[d] = k.stride[d];
    a.v_stride[d] = v.stride[d];
  }
  std::vector<float> mask;
  a.mask_col_stride = 1;
  switch (c.maskKind) {
  case 1:
  case 4:
    mask = randomVector(c.qLen * c.kvLen, 4, 3.0f);
    if (c.maskKind == 4)
      for (size_t i = 0; i < c.qLen; i += 3)
        for (size_t j = 0; j < c.kvLen; ++j)
          mask[i * c.kvLen + j] = -kInf;
    a.mask_stride[2] = (ptrdiff_t)c.kvLen;
    a.mask_len = c.kvLen;
    break;
  case 2:
    mask.assign(c.batch * c.kvLen, 0.0f);
    for (size_t b = 0; b < c.batch; ++b)
      for (size_t j = c.kvLen / 2 + b; j < c.kvLen; ++j)
        mask[b * c.kvLen + j] = -1e9f;
    a.mask_stride[0] = (ptrdiff_t)c.kvLen;
    a.mask_len = c.kvLen;
    break;
  case 3:
    a.mask_len = c.kvLen > 3 ? c.kvLen - 3 : 1;
    mask = randomVector(c.batch * c.qHeads * c.qLen * a.mask_len, 5);
    a.mask_stride[2] = (ptrdiff_t)a.mask_len;
    a.mask_stride[1] = a.mask_stride[2] * (ptrdiff_t)c.qLen;
    a.mask_stride[0] = a.mask_stride[1] * (ptrdiff_t)c.qHeads;
    break;
  default:
    break;
  }
  a.mask = mask.empty() ? nullptr : mask.data();
  a.scale = c.scale;
  size_t total = c.batch * c.qHeads * c.qLen * c.vHead;
  std::vector<float> got(total, kNaN), want(total, kNaN);
  a.y_stride[2] = (ptrdiff_t)c.vHead;
  a.y_stride[1] = a.y_stride[2] * (ptrdiff_t)c.qLen;
  a.y_stride[0] = a.y_stride[1] * (ptrdiff_t)c.qHeads;
  a.y = want.data();
  onnxc_attention_f32_reference(&a);
  a.y = got.data();
  onnxc_set_num_threads(threads);
  ASSERT_EQ(onnxc_attention_f32(&a, 0), 0);
  expectClose(got, want, 2e-5f,
              "attention b=" + std::to_string(c.batch) + " q=" +
                  std::to_string(c.qLen) + " kv=" + std::to_string(c.kvLen) +
                  " mask=" + std::to_string(c.maskKind) +
                  " threads=" + std::to_string(threads));
}

const AttentionCase kAttentionCases[] = {
    {1, 1, 1, 1, 1, 1, 1, false, 0, 1.0f},
    {2, 4, 4, 5, 7, 8, 8, false, 0, 0.35f},
    {2, 4, 2, 17, 33, 16, 9, false, 1, 0.25f},
    {1, 3, 1, 70, 130, 64, 64, true, 2, 0.125f},
    {2, 2, 2, 9, 19, 5, 3, true, 3, 0.5f},
    {1, 2, 2, 13, 21, 24, 24, false, 4, 0.2f},
    {3, 2, 1, 40, 40, 33, 17, true, 1, 1.0f},
    {1, 1, 1, 300, 600, 32, 32, false, 2, 0.17f},
};

TEST_P(TransformerIsaTest, AttentionShapesMasksLayouts) {
  IsaScope scope(GetParam());
  ASSERT_TRUE(scope.ok);
  for (const AttentionCase &c : kAttentionCases)
    for (int threads = 1; threads <= 4; ++threads)
      checkAttention(c, threads);
}

INSTANTIATE_TEST_SUITE_P(SupportedIsas, TransformerIsaTest,
                         ::testing::ValuesIn(supportedIsas()),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::string(onnxc_sgemm_isa_name(info.param));
                         });

/// A dense row-major memref of `shape` and its unranked descriptor.
struct Memref {
  std::vector<float> data;
  std::vector<int64_t> descriptor;
  onnxc_unranked_memref ref;
  Memref(std::vector<int64_t> shape, std::vector<float> values) {
    data = std::move(values);
    size_t rank = shape.size();
    descriptor.assign(3 + 2 * rank, 0);
    float *ptr = data.data();
    std::memcpy(&descriptor[0], &ptr, sizeof ptr);
    std::memcpy(&descriptor[1], &ptr, sizeof ptr);
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      descriptor[3 + d] = shape[d];
      descriptor[3 + rank + d] = stride;
      stride *= shape[d];
    }
    ref = {(int64_t)rank, descriptor.data()};
  }
};

TEST(TransformerEntry, SoftmaxBroadcastBias) {
  // BiasSoftmax's [b, 1, 1, s] mask onto [b, h, q, s] scores, 1-3 threads;
  // and a per-row bias ([b, h, q, 1]).
  const int64_t b = 2, h = 3, q = 5, s = 19;
  std::vector<float> x = randomVector(b * h * q * s, 1, 4.0f);
  for (int kind = 0; kind < 2; ++kind) {
    std::vector<int64_t> biasShape = kind == 0
                                         ? std::vector<int64_t>{b, 1, 1, s}
                                         : std::vector<int64_t>{b, h, q, 1};
    size_t biasSize = kind == 0 ? b * s : b * h * q;
    std::vector<float> biasValues = randomVector(biasSize, 2, 3.0f);
    for (int threads = 1; threads <= 3; ++threads) {
      onnxc_set_num_threads(threads);
      Memref xm({b, h, q, s}, x), bias(biasShape, biasValues),
          y({b, h, q, s}, std::vector<float>(x.size(), kNaN));
      _mlir_ciface_onnxc_rt_softmax_f32(&xm.ref, &bias.ref, &y.ref,
                                        ONNXC_ROWS_BIAS);
      for (int64_t row = 0; row < b * h * q; ++row) {
        int64_t bi = row / (h * q);
        std::vector<float> in(x.begin() + row * s, x.begin() + (row + 1) * s);
        std::vector<float> bs(s);
        for (int64_t j = 0; j < s; ++j)
          bs[j] = kind == 0 ? biasValues[bi * s + j] : biasValues[row];
        std::vector<float> want(s),
            got(y.data.begin() + row * s, y.data.begin() + (row + 1) * s);
        onnxc_softmax_row_reference(s, in.data(), bs.data(), want.data(), 0);
        expectClose(got, want, 2e-6f, "row " + std::to_string(row));
      }
    }
  }
  onnxc_set_num_threads(0);
}

TEST(TransformerEntry, SkipLayerNormAndMismatch) {
  const int64_t b = 3, s = 7, n = 45;
  std::vector<float> x = randomVector(b * s * n, 1),
                     skip = randomVector(b * s * n, 2);
  std::vector<float> bias = randomVector(n, 3), gamma = randomVector(n, 4),
                     beta = randomVector(n, 5);
  onnxc_set_num_threads(2);
  Memref xm({b, s, n}, x), sm({b, s, n}, skip), bm({n}, bias), gm({n}, gamma),
      bem({n}, beta), y({b, s, n}, std::vector<float>(x.size(), kNaN));
  _mlir_ciface_onnxc_rt_layer_norm_f32(
      &xm.ref, &sm.ref, &bm.ref, &gm.ref, &bem.ref, &y.ref,
      ONNXC_ROWS_SKIP | ONNXC_ROWS_BIAS | ONNXC_ROWS_BETA, 1e-12f);
  for (int64_t row = 0; row < b * s; ++row) {
    std::vector<float> want(n),
        got(y.data.begin() + row * n, y.data.begin() + (row + 1) * n);
    onnxc_layer_norm_row_reference(n, x.data() + row * n, skip.data() + row * n,
                                   bias.data(), gamma.data(), beta.data(),
                                   1e-12f, want.data(), nullptr);
    expectClose(got, want, 2e-4f, "row " + std::to_string(row));
  }
  // A gamma of the wrong length at run time gives NaN, not a wild read.
  Memref shortGamma({n - 1}, randomVector(n - 1, 6));
  _mlir_ciface_onnxc_rt_layer_norm_f32(&xm.ref, &sm.ref, &bm.ref,
                                       &shortGamma.ref, &bem.ref, &y.ref,
                                       ONNXC_ROWS_SKIP, 1e-5f);
  for (float v : y.data)
    ASSERT_TRUE(std::isnan(v));
  onnxc_set_num_threads(0);
}

TEST(TransformerEntry, AttentionMaskMismatchGivesNaN) {
  const int64_t b = 1, h = 2, q = 3, kv = 4, d = 5;
  Memref qm({b, h, q, d}, randomVector(b * h * q * d, 1)),
      km({b, h, kv, d}, randomVector(b * h * kv * d, 2)),
      vm({b, h, kv, d}, randomVector(b * h * kv * d, 3)),
      longMask({q, kv + 1}, randomVector(q * (kv + 1), 4)),
      y({b, h, q, d}, std::vector<float>(b * h * q * d, 0.0f));
  _mlir_ciface_onnxc_rt_attention_f32(&qm.ref, &km.ref, &vm.ref, &longMask.ref,
                                      &y.ref, ONNXC_ATTENTION_MASK, 0.5f);
  for (float v : y.data)
    ASSERT_TRUE(std::isnan(v));
}

} // namespace
