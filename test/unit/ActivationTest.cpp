//===- ActivationTest.cpp - Vectorized activations vs libm ----------------===//
//
// Every activation row variant the CPU runs (forced with the GEMM's ISA
// through onnxc_sgemm_force_isa) against the libm reference, value by value,
// over a sweep of [-12, 12], magnitudes from denormals to FLT_MAX, +-inf and
// NaN, at lengths that hit every vector tail and with strided rows.
//
// The bound: |got - want| <= 4 ulp(want) + 4 * 2^-24 * s(x) + FLT_MIN, with
// s(x) = |x| for the activations that multiply or shift by x (Gelu,
// FastGelu, Silu, HardSigmoid, HardSwish: their error is relative to x, not
// to a result that cancels towards 0) and 0 for the rest (relative error
// only; Relu, LeakyRelu and Clip come out exact); FLT_MIN because a result
// below the normal range may come out as 0. NaN exactly where the reference
// has NaN, infinities equal.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/kernels/Activation.h"
#include "KernelTestUtils.h"
#include "runtime/cpu/kernels/Gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

using onnxc::test::supportedIsas;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct ActivationCase {
  int32_t kind;
  float alpha, beta;
  bool scaledByX; // s(x) = |x| in the bound
  const char *name;
};

const ActivationCase kCases[] = {
    {ONNXC_ACTIVATION_RELU, 0, 0, false, "Relu"},
    {ONNXC_ACTIVATION_LEAKY_RELU, 0.01f, 0, false, "LeakyRelu"},
    {ONNXC_ACTIVATION_CLIP, -1.5f, 6.0f, false, "Clip"},
    {ONNXC_ACTIVATION_SIGMOID, 0, 0, false, "Sigmoid"},
    {ONNXC_ACTIVATION_TANH, 0, 0, false, "Tanh"},
    {ONNXC_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f, true, "HardSigmoid"},
    {ONNXC_ACTIVATION_GELU, 0, 0, true, "Gelu"},
    {ONNXC_ACTIVATION_FAST_GELU, 0, 0, true, "FastGelu"},
    {ONNXC_ACTIVATION_SILU, 0, 0, true, "Silu"},
    {ONNXC_ACTIVATION_HARD_SWISH, 1.0f / 6.0f, 0.5f, true, "HardSwish"},
};

/// [-12, 12] densely (both sides of every branch point: 0.625, 1, 3.92 /
/// sqrt(1/2), ...), then special magnitudes of both signs.
std::vector<float> sweep() {
  std::vector<float> v;
  for (int i = -24000; i <= 24000; ++i)
    v.push_back(float(i) * 0.0005f);
  const float special[] = {
      1e-45f,  1e-40f,   1.17549435e-38f, 1e-30f,   1e-10f, 1e-5f,
      0.3f,    0.62499f, 0.625f,          0.62501f, 0.999f, 1.0f,
      1.0001f, 2.77f,    3.919f,          3.92f,    5.5f,   9.0f,
      15.0f,   20.0f,    44.0f,           87.0f,    88.5f,  89.0f,
      90.0f,   103.0f,   104.0f,          105.0f,   150.0f, 1e4f,
      1e13f,   1e20f,    3.4e38f,         kInf};
  for (float s : special) {
    v.push_back(s);
    v.push_back(-s);
  }
  v.push_back(0.0f);
  v.push_back(-0.0f);
  v.push_back(kNaN);
  v.push_back(-kNaN);
  return v;
}

float ulp(float x) {
  x = std::fabs(x);
  if (std::isinf(x))
    return 0.0f;
  return std::nextafter(x, kInf) - x;
}

void expectMatches(const ActivationCase &c, float x, float got, float want,
                   const std::string &where) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got))
        << where << c.name << "(" << x << ") = " << got;
    return;
  }
  if (std::isinf(want)) {
    EXPECT_EQ(got, want) << where << c.name << "(" << x << ")";
    return;
  }
  double bound = 4.0 * ulp(want) + std::numeric_limits<float>::min();
  if (c.scaledByX && std::isfinite(x))
    bound += 4.0 * std::ldexp(1.0, -24) * std::fabs(x);
  EXPECT_LE(std::fabs(double(got) - double(want)), bound)
      << where << c.name << "(" << x << ") = " << got << ", want " << want;
}

class ActivationIsaTest : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override { ASSERT_TRUE(onnxc_sgemm_force_isa(GetParam())); }
  void TearDown() override { onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO); }
};

TEST_P(ActivationIsaTest, SweepMatchesReference) {
  std::vector<float> input = sweep();
  for (const ActivationCase &c : kCases) {
    std::vector<float> got = input, want = input;
    onnxc_activation_apply(c.kind, c.alpha, c.beta, got.data(), 1, got.size(),
                           ptrdiff_t(got.size()));
    onnxc_activation_apply_reference(c.kind, c.alpha, c.beta, want.data(), 1,
                                     want.size(), ptrdiff_t(want.size()));
    for (size_t i = 0; i < input.size(); ++i)
      expectMatches(c, input[i], got[i], want[i], "");
    if (HasFailure())
      return;
  }
}

// Strided rows of every tail length: the values between rows are untouched.
TEST_P(ActivationIsaTest, StridedRowsAndTails) {
  const size_t kCols[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100};
  const float kSentinel = 12345.0f;
  for (const ActivationCase &c : kCases)
    for (size_t cols : kCols) {
      size_t rows = 3, ld = cols + 5;
      std::vector<float> got(rows * ld, kSentinel);
      for (size_t i = 0; i < rows; ++i)
        for (size_t j = 0; j < cols; ++j)
          got[i * ld + j] = float(int(i * cols + j) % 23 - 11) * 0.37f;
      got[0] = kNaN;
      got[ld + cols - 1] = -kInf;
      std::vector<float> want = got, input = got;
      onnxc_activation_apply(c.kind, c.alpha, c.beta, got.data(), rows, cols,
                             ptrdiff_t(ld));
      onnxc_activation_apply_reference(c.kind, c.alpha, c.beta, want.data(),
                                       rows, cols, ptrdiff_t(ld));
      std::string where = "cols " + std::to_string(cols) + ": ";
      for (size_t k = 0; k < got.size(); ++k) {
        if (k % ld >= cols)
          EXPECT_EQ(got[k], kSentinel) << where << "wrote past the row";
        else
          expectMatches(c, input[k], got[k], want[k], where);
      }
      if (HasFailure())
        return;
    }
}

// The limits: Sigmoid, Tanh at +-inf; large |x| where exp overflows.
TEST_P(ActivationIsaTest, Limits) {
  struct Expect {
    int32_t kind;
    float x, y;
  };
  const Expect expects[] = {
      {ONNXC_ACTIVATION_SIGMOID, kInf, 1.0f},
      {ONNXC_ACTIVATION_SIGMOID, -kInf, 0.0f},
      {ONNXC_ACTIVATION_SIGMOID, -200.0f, 0.0f},
      {ONNXC_ACTIVATION_TANH, kInf, 1.0f},
      {ONNXC_ACTIVATION_TANH, -kInf, -1.0f},
      {ONNXC_ACTIVATION_TANH, 50.0f, 1.0f},
      {ONNXC_ACTIVATION_GELU, kInf, kInf},
      {ONNXC_ACTIVATION_GELU, -20.0f, -0.0f},
      {ONNXC_ACTIVATION_FAST_GELU, kInf, kInf},
      {ONNXC_ACTIVATION_SILU, kInf, kInf},
      {ONNXC_ACTIVATION_SILU, -200.0f, -0.0f},
  };
  for (const Expect &e : expects) {
    float v = e.x;
    onnxc_activation_apply(e.kind, 0, 0, &v, 1, 1, 1);
    EXPECT_EQ(v, e.y) << "kind " << e.kind << " at " << e.x;
  }
}

INSTANTIATE_TEST_SUITE_P(SupportedIsas, ActivationIsaTest,
                         ::testing::ValuesIn(supportedIsas()),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::string(onnxc_sgemm_isa_name(info.param));
                         });

// The GEMM epilogue applies the same activations (Silu among them).
TEST(ActivationGemm, EpilogueMatchesReference) {
  const size_t m = 7, n = 37, k = 19;
  std::vector<float> a(m * k), b(k * n);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = float(int(i * 7) % 13 - 6) * 0.31f;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = float(int(i * 5) % 11 - 5) * 0.27f;
  for (const ActivationCase &c : kCases) {
    onnxc_sgemm_epilogue e = {};
    e.activation = c.kind;
    e.activation_alpha = c.alpha;
    e.activation_beta = c.beta;
    std::vector<float> got(m * n), want(m * n);
    onnxc_sgemm(0, 0, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, got.data(),
                n, &e);
    onnxc_sgemm_reference(0, 0, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f,
                          want.data(), n, &e);
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-4f * (1.0f + std::fabs(want[i])))
          << c.name << " [" << i << "]";
  }
}

} // namespace
