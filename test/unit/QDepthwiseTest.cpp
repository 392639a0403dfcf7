//===- QDepthwiseTest.cpp - The NHWC depthwise rows against the portable
//---===//
//
// runtime/cpu/kernels/QDepthwise.h: the AVX-512 row (64 channels in
// registers, masked last vector) must give the portable row's bytes for
// every channel count around its vector and block widths, both signs of X
// and Y, strides, pads and dilations, and sums that land between, below and
// above the output's range. The portable row itself is checked against a
// plain loop of ONNX's QLinearConv in QLinearConvTest.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/kernels/QDepthwise.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace {

struct RowCase {
  int64_t c, h, w, k, stride, pad, dilation;
  bool xSigned, ySigned;
};

struct RowData {
  std::vector<uint8_t> x;
  std::vector<int32_t> taps;
  std::vector<int32_t> bias;
  std::vector<float> multiplier;
  onnxc_qdepthwise_params p{};
};

RowData makeRow(const RowCase &t, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255), weight(-127, 127),
      bias(-3000, 3000);
  std::uniform_real_distribution<float> scale(0.0005f, 0.02f);
  RowData d;
  d.x.resize(static_cast<size_t>(t.h * t.w * t.c));
  for (uint8_t &v : d.x)
    v = static_cast<uint8_t>(byte(rng));
  d.taps.resize(static_cast<size_t>(t.k * t.k * t.c));
  for (int32_t &v : d.taps)
    v = weight(rng);
  for (int64_t ch = 0; ch < t.c; ++ch) {
    d.bias.push_back(bias(rng));
    d.multiplier.push_back(scale(rng));
  }
  onnxc_qdepthwise_params &p = d.p;
  p.x = d.x.data();
  p.h = t.h, p.w = t.w, p.c = t.c, p.kh = t.k, p.kw = t.k;
  p.stride_h = p.stride_w = t.stride;
  p.pad_top = p.pad_left = t.pad;
  p.dilation_h = p.dilation_w = t.dilation;
  p.ow = (t.w + 2 * t.pad - t.dilation * (t.k - 1) - 1) / t.stride + 1;
  p.tap_weights = d.taps.data();
  p.x_zero = t.xSigned ? -3 : 121;
  p.x_signed = t.xSigned;
  p.bias = d.bias.data();
  p.multiplier = d.multiplier.data();
  p.y_zero = t.ySigned ? 5 : 128;
  p.y_signed = t.ySigned;
  return d;
}

class QDepthwiseRows : public ::testing::TestWithParam<RowCase> {};

TEST_P(QDepthwiseRows, Avx512GivesThePortableBytes) {
  if (!onnxc_qdepthwise_avx512_supported())
    GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
  const RowCase &t = GetParam();
  RowData d = makeRow(t, static_cast<unsigned>(t.c * 7 + t.k));
  int64_t oh = (t.h + 2 * t.pad - t.dilation * (t.k - 1) - 1) / t.stride + 1;
  size_t row = static_cast<size_t>(d.p.ow * t.c);
  std::vector<int32_t> scratch(static_cast<size_t>(t.c));
  size_t saturated = 0, total = 0;
  for (int64_t oy = 0; oy < oh; ++oy) {
    // A guard byte past the row: the masked stores must not reach it.
    std::vector<uint8_t> want(row), got(row + 1, 0xA5);
    onnxc_qdepthwise_nhwc_row_portable(&d.p, oy, want.data(), scratch.data());
    onnxc_qdepthwise_nhwc_row_avx512(&d.p, oy, got.data());
    ASSERT_EQ(got[row], 0xA5) << "wrote past the row " << oy;
    for (size_t i = 0; i < row; ++i) {
      ASSERT_EQ(got[i], want[i])
          << "row " << oy << ", pixel " << i / t.c << ", channel " << i % t.c;
      uint8_t lo = t.ySigned ? 0x80 : 0, hi = t.ySigned ? 0x7F : 0xFF;
      saturated += want[i] == lo || want[i] == hi;
      ++total;
    }
  }
  // The data must exercise the rounding, not only the clamps.
  EXPECT_LT(saturated, total / 2);
}

INSTANTIATE_TEST_SUITE_P(
    Channels, QDepthwiseRows,
    ::testing::Values(
        // c, h, w, k, stride, pad, dilation, x signed, y signed
        RowCase{1, 5, 6, 3, 1, 1, 1, false, false},
        RowCase{15, 6, 7, 3, 1, 1, 1, true, false},
        RowCase{16, 6, 6, 3, 2, 1, 1, false, true},
        RowCase{17, 7, 5, 3, 1, 0, 1, true, true},
        RowCase{24, 8, 8, 3, 2, 1, 1, false, false},
        RowCase{63, 5, 5, 5, 1, 2, 1, false, true},
        RowCase{64, 6, 6, 3, 1, 2, 2, true, false},
        RowCase{65, 6, 5, 3, 1, 1, 1, false, false},
        RowCase{100, 5, 7, 3, 2, 1, 1, true, true},
        RowCase{144, 6, 6, 3, 1, 1, 1, false, false},
        RowCase{200, 4, 4, 3, 1, 1, 1, true, false}));

} // namespace
