//===- QGemmTest.cpp - The int8 GEMM against the plain loop ---------------===//
//
// Every micro-kernel variant the CPU runs (forced through
// onnxc_qgemm_force_isa) against onnxc_qgemm_reference, bit for bit: u8
// and s8 on both sides, zero points none / scalar / per column, int32 and
// scaled f32 outputs, sizes that hit every edge tile and K not a multiple
// of the kernels' groups, 1 and several threads. Extreme values (255 x
// -128 everywhere) catch a kernel that saturates. Then the MatMulInteger
// entry point of lowered code through memref descriptors, with its cache
// slot shared by concurrent callers.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/kernels/QGemm.h"
#include "KernelTestUtils.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/ThreadPool.h"
#include "runtime/cpu/kernels/Quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

namespace {

std::vector<uint8_t> randomBytes(size_t size, unsigned seed, bool extreme) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(0, 255);
  std::vector<uint8_t> v(size);
  for (uint8_t &x : v)
    x = static_cast<uint8_t>(dist(rng));
  if (extreme) // u8 255 / s8 -1 on A's side, 128 (u8) / -128 (s8) on B's
    for (size_t i = 0; i < size; ++i)
      v[i] = (seed & 1) ? 0x80 : 0xFF;
  return v;
}

struct QCase {
  size_t m, n, k;
  bool aSigned, bSigned;
  int zeroKind; // 0 none, 1 scalar, 2 per column of B
  bool f32, bias, extreme;
  bool q8 = false; // requantized bytes instead (f32 ignored)
};

struct IsaGuard {
  explicit IsaGuard(int isa, int threads) {
    ok = onnxc_qgemm_force_isa(isa);
    onnxc_set_num_threads(threads);
  }
  ~IsaGuard() {
    onnxc_qgemm_force_isa(ONNXC_QGEMM_ISA_AUTO);
    onnxc_set_num_threads(0);
  }
  int ok;
};

void runCase(const QCase &c, int threads) {
  std::vector<uint8_t> a = randomBytes(c.m * c.k, 11 + c.m, c.extreme);
  std::vector<uint8_t> b = randomBytes(c.k * c.n, 12 + c.n, c.extreme);
  std::vector<int32_t> bZero(c.n);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> zp(-128, 127);
  for (int32_t &z : bZero)
    z = c.bSigned ? zp(rng) : zp(rng) + 128;
  std::vector<float> bScale(c.n), bias(c.n);
  for (size_t j = 0; j < c.n; ++j) {
    bScale[j] = 0.001f * static_cast<float>(j % 17 + 1);
    bias[j] = 0.25f * static_cast<float>(static_cast<int>(j % 9) - 4);
  }
  onnxc_qgemm_params p;
  std::memset(&p, 0, sizeof p);
  p.a = a.data();
  p.lda = static_cast<ptrdiff_t>(c.k);
  p.a_signed = c.aSigned;
  p.a_zero_point = c.zeroKind ? (c.aSigned ? -3 : 131) : 0;
  if (c.zeroKind) {
    p.b_zero_point = bZero.data();
    p.b_zero_point_stride = c.zeroKind == 2 ? 1 : 0;
  }
  p.output = c.f32 ? ONNXC_QGEMM_OUTPUT_F32 : ONNXC_QGEMM_OUTPUT_S32;
  p.ldc = static_cast<ptrdiff_t>(c.n);
  p.a_scale = 0.02f;
  p.b_scale = bScale.data();
  p.b_scale_stride = 1;
  p.bias = c.bias ? bias.data() : nullptr;
  std::vector<float> qScale(c.n);
  std::vector<int32_t> qBias(c.n);
  for (size_t j = 0; j < c.n; ++j) {
    qScale[j] = 1.0f / static_cast<float>(900 + 37 * (j % 11));
    qBias[j] = c.bias ? static_cast<int32_t>(j * 97 % 4001) - 2000 : 0;
  }
  if (c.q8) {
    p.output = ONNXC_QGEMM_OUTPUT_Q8;
    p.q_scale = qScale.data();
    p.q_bias = qBias.data();
    p.y_zero_point = c.aSigned ? -7 : 121;
    p.y_signed = c.aSigned;
  }

  std::vector<int32_t> expected(c.m * c.n), actual(c.m * c.n, 12345);
  p.c = expected.data();
  onnxc_qgemm_reference(c.m, c.n, c.k, b.data(), c.n, 1, c.bSigned, &p);
  onnxc_qgemm_packed_b *packed =
      onnxc_qgemm_pack_b(c.k, c.n, b.data(), c.n, 1, c.bSigned);
  ASSERT_NE(packed, nullptr);
  p.c = actual.data();
  ASSERT_EQ(onnxc_qgemm(c.m, packed, &p, threads), 0);
  onnxc_qgemm_free_packed_b(packed);
  // Same bits, whether int32, float or bytes (the first M * N of them).
  size_t compared = c.q8 ? (c.m * c.n + 3) / 4 : expected.size();
  if (c.q8 && (c.m * c.n) % 4) { // the last word's unused bytes
    uint32_t mask = (1u << (8 * ((c.m * c.n) % 4))) - 1;
    expected[compared - 1] = static_cast<int32_t>(
        static_cast<uint32_t>(expected[compared - 1]) & mask);
    actual[compared - 1] = static_cast<int32_t>(
        static_cast<uint32_t>(actual[compared - 1]) & mask);
  }
  for (size_t i = 0; i < compared; ++i)
    ASSERT_EQ(actual[i], expected[i])
        << "at " << i / c.n << "," << i % c.n << " (m " << c.m << " n " << c.n
        << " k " << c.k << ")";
}

class QGemmIsaTest : public ::testing::TestWithParam<int> {};

TEST_P(QGemmIsaTest, MatchesReferenceBitForBit) {
  int isa = GetParam();
  if (!onnxc_qgemm_isa_supported(isa))
    GTEST_SKIP() << onnxc_qgemm_isa_name(isa) << " not on this CPU";
  const size_t sizes[][3] = {{1, 1, 1},     {1, 33, 5},   {5, 17, 3},
                             {13, 31, 7},   {12, 32, 8},  {25, 65, 130},
                             {97, 50, 301}, {3, 200, 64}, {130, 40, 768}};
  for (int threads : {1, 3})
    for (const auto &s : sizes)
      for (int signs = 0; signs < 4; ++signs)
        for (int zeroKind = 0; zeroKind < 3; ++zeroKind)
          // s32; f32; f32 + bias; q8; q8 + bias.
          for (int out = 0; out < 5; ++out) {
            IsaGuard guard(isa, threads);
            ASSERT_TRUE(guard.ok);
            QCase c{s[0],
                    s[1],
                    s[2],
                    (signs & 1) != 0,
                    (signs & 2) != 0,
                    zeroKind,
                    out == 1 || out == 2,
                    out == 2 || out == 4,
                    false,
                    out >= 3};
            runCase(c, threads);
            if (HasFatalFailure())
              return;
          }
}

TEST_P(QGemmIsaTest, ExtremeValuesDoNotSaturate) {
  int isa = GetParam();
  if (!onnxc_qgemm_isa_supported(isa))
    GTEST_SKIP() << onnxc_qgemm_isa_name(isa) << " not on this CPU";
  IsaGuard guard(isa, 2);
  for (int signs = 0; signs < 4; ++signs) {
    QCase c{19,    37,    515, (signs & 1) != 0, (signs & 2) != 0, 0,
            false, false, true};
    runCase(c, 2);
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, QGemmIsaTest,
                         ::testing::Values(ONNXC_QGEMM_ISA_PORTABLE,
                                           ONNXC_QGEMM_ISA_AVX2,
                                           ONNXC_QGEMM_ISA_AVX512_VNNI),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::string(onnxc_qgemm_isa_name(info.param));
                         });

/// A dense row-major tensor of `T` with its memref descriptor.
template <typename T> struct Tensor {
  std::vector<T> data;
  std::vector<int64_t> descriptor;
  onnxc_unranked_memref ref;
  explicit Tensor(std::vector<int64_t> shape, std::vector<T> values = {}) {
    size_t count = 1;
    for (int64_t d : shape)
      count *= static_cast<size_t>(d);
    data = values.empty() ? std::vector<T>(count) : values;
    onnxc::test::describeDense(data.data(), shape, descriptor, ref);
  }
  Tensor(const Tensor &other) = delete;
};

TEST(MatMulIntegerEntry, BatchedAPerColumnZeroAndSharedSlot) {
  const int64_t batch = 2, m = 7, k = 45, n = 23;
  Tensor<uint8_t> a({batch, m, k}, randomBytes(batch * m * k, 3, false));
  Tensor<uint8_t> b({k, n}, randomBytes(k * n, 4, false)); // s8 weights
  Tensor<uint8_t> aZero({}, {129});
  std::vector<uint8_t> zeros(n);
  for (int64_t j = 0; j < n; ++j)
    zeros[j] = static_cast<uint8_t>(static_cast<int8_t>(j - 11));
  Tensor<uint8_t> bZero({n}, zeros);

  // The ONNX definition, in int64.
  std::vector<int32_t> expected(batch * m * n);
  for (int64_t i = 0; i < batch * m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t sum = 0;
      for (int64_t q = 0; q < k; ++q)
        sum += (int64_t{a.data[i * k + q]} - 129) *
               (int64_t{static_cast<int8_t>(b.data[q * n + j])} -
                static_cast<int8_t>(zeros[j]));
      expected[i * n + j] = static_cast<int32_t>(sum);
    }

  int64_t slotValue = 0;
  int32_t flags = ONNXC_MATMUL_INTEGER_B_SIGNED | ONNXC_MATMUL_INTEGER_A_ZERO |
                  ONNXC_MATMUL_INTEGER_B_ZERO;
  std::vector<std::thread> callers;
  std::vector<int32_t> statuses(4, -1);
  std::vector<std::unique_ptr<Tensor<int32_t>>> results;
  for (int t = 0; t < 4; ++t)
    results.push_back(
        std::make_unique<Tensor<int32_t>>(std::vector<int64_t>{batch, m, n}));
  for (size_t t = 0; t < results.size(); ++t)
    callers.emplace_back([&, t] {
      onnxc_memref1 slot = {&slotValue, &slotValue, 0, 1, 1};
      statuses[t] = _mlir_ciface_onnxc_rt_matmul_integer_packed(
          &a.ref, &b.ref, &aZero.ref, &bZero.ref, &results[t]->ref, &slot,
          flags);
    });
  for (std::thread &t : callers)
    t.join();
  EXPECT_NE(slotValue, 0) << "the packed B was not kept";
  EXPECT_EQ(statuses, std::vector<int32_t>(4, ONNXC_KERNEL_OK));
  for (auto &r : results)
    EXPECT_EQ(r->data, expected);

  // Without a slot, and with an unsigned B and no zero points.
  Tensor<int32_t> y({batch, m, n});
  ASSERT_EQ(_mlir_ciface_onnxc_rt_matmul_integer(&a.ref, &b.ref, &a.ref, &a.ref,
                                                 &y.ref, 0),
            ONNXC_KERNEL_OK);
  for (int64_t i = 0; i < batch * m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t sum = 0;
      for (int64_t q = 0; q < k; ++q)
        sum += int64_t{a.data[i * k + q]} * int64_t{b.data[q * n + j]};
      ASSERT_EQ(y.data[i * n + j], static_cast<int32_t>(sum));
    }
}

/// Operands whose shapes do not fit are refused with a status (compiled
/// code turns it into the run's error), not multiplied out of bounds.
TEST(MatMulIntegerEntry, ShapesThatDoNotFitReturnAStatus) {
  Tensor<uint8_t> a({3, 8}), b({7, 5}), zero({2});
  Tensor<int32_t> y({3, 5});
  EXPECT_EQ(_mlir_ciface_onnxc_rt_matmul_integer(&a.ref, &b.ref, &a.ref, &a.ref,
                                                 &y.ref, 0),
            ONNXC_KERNEL_BAD_OPERANDS);
  Tensor<uint8_t> bFits({8, 5});
  EXPECT_EQ(_mlir_ciface_onnxc_rt_matmul_integer(&a.ref, &bFits.ref, &zero.ref,
                                                 &a.ref, &y.ref,
                                                 ONNXC_MATMUL_INTEGER_A_ZERO),
            ONNXC_KERNEL_BAD_OPERANDS); // a per-row A zero point
}

TEST(QLinearConvEntry, GeometryThatDoesNotFitReturnsAStatus) {
  Tensor<uint8_t> x({1, 2, 3, 3}), xZero({}, {3}),
      w({3, 2, 1, 1}, {1, 2, 3, 4, 5, 6}), wZero({}, {0}), yZero({}, {0});
  Tensor<float> xScale({}, {0.5f}), wScale({}, {0.25f}), yScale({}, {1.0f});
  int64_t slotValue = 0;
  onnxc_memref1 slot = {&slotValue, &slotValue, 0, 1, 1};
  auto call = [&](Tensor<uint8_t> &y) {
    return _mlir_ciface_onnxc_rt_qlinear_conv2d(
        &x.ref, &xScale.ref, &xZero.ref, &w.ref, &wScale.ref, &wZero.ref,
        &yScale.ref, &yZero.ref, &x.ref, &y.ref, &slot,
        ONNXC_QCONV_W_SIGNED | ONNXC_QCONV_Y_ZERO, 0, 0, 1, 1, 1, 1, 1);
  };
  Tensor<uint8_t> fits({1, 3, 3, 3}), wrongChannels({1, 4, 3, 3});
  EXPECT_EQ(call(fits), ONNXC_KERNEL_OK);
  EXPECT_EQ(call(wrongChannels), ONNXC_KERNEL_BAD_OPERANDS);
}

} // namespace

namespace {

/// Every ISA's rows are the one the GEMM runs; the threads split the input
/// in chunks: both against the one-element-at-a-time reference, on inputs
/// with exact halves (ties round to even), one-sided ranges, all zeros,
/// and NaNs.
TEST(DynamicQuantize, MatchesReference) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (size_t count : {1, 15, 16, 17, 1000, 70001}) {
    for (int kind = 0; kind < 5; ++kind) {
      std::vector<float> x(count);
      for (size_t i = 0; i < count; ++i) {
        float v = normal(rng);
        if (kind == 1)
          v = std::fabs(v); // min is 0
        else if (kind == 2)
          v = -std::fabs(v); // max is 0
        else if (kind == 3)
          v = 0.0f;
        else if (kind == 4)
          v = (i % 7 == 3) ? NAN : v;
        x[i] = v;
      }
      if (kind == 0 && count > 2) {
        // Range [-2.55, 2.55]: scale 0.02, so multiples of 0.01 are ties.
        x[0] = -2.55f;
        x[1] = 2.55f;
        for (size_t i = 2; i < count; ++i)
          x[i] = 0.01f * static_cast<float>(static_cast<int>(i % 511) - 255);
      }
      std::vector<uint8_t> y(count), expected(count);
      float scale = 0, expectedScale = 0;
      uint8_t zero = 0, expectedZero = 0;
      onnxc_set_num_threads(2);
      onnxc_dynamic_quantize_u8(x.data(), count, y.data(), &scale, &zero);
      onnxc_set_num_threads(0);
      onnxc_dynamic_quantize_u8_reference(x.data(), count, expected.data(),
                                          &expectedScale, &expectedZero);
      ASSERT_EQ(scale, expectedScale) << count << " kind " << kind;
      ASSERT_EQ(zero, expectedZero) << count << " kind " << kind;
      ASSERT_EQ(y, expected) << count << " kind " << kind;
    }
  }
}

} // namespace
