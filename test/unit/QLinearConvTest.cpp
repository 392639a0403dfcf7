//===- QLinearConvTest.cpp - QLinearConv's runtime call against a loop ----===//
//
// runtime/cpu/QLinearConv.c in both layouts it takes (NCHW, and NHWC with
// ONNXC_QCONV_CHANNELS_LAST) against a plain loop of ONNX's QLinearConv, bit
// for bit: group 1 (1x1 direct and gathered windows), grouped and
// depthwise convolutions, strides, pads and dilations, u8 and s8 on each
// side, per-channel W scales and zero points, a bias, 1 and 2 threads.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/ThreadPool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

using onnxc::test::describeDense;

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw, group;
  int64_t stride, pad, dilation;
  bool xSigned, wSigned, ySigned, bias;
  // W's zero points all 0 (ONNX Runtime's quantizer's s8 weights): with u8
  // X and NHWC, the indirect kernel's case (kernels/QConvIndirect.h).
  bool symmetricW = false;
};

struct Operands {
  std::vector<uint8_t> x, w, wZero;
  std::vector<float> wScale;
  std::vector<int32_t> bias;
  float xScale = 0.02f, yScale = 0.5f;
  uint8_t xZero, yZero;
  int64_t oh, ow;
};

int32_t byteValue(uint8_t b, bool isSigned) {
  return isSigned ? static_cast<int32_t>(static_cast<int8_t>(b)) : b;
}

Operands makeOperands(const ConvCase &t, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  Operands o;
  o.x.resize(t.n * t.c * t.h * t.w);
  for (uint8_t &v : o.x)
    v = static_cast<uint8_t>(byte(rng));
  o.w.resize(t.m * (t.c / t.group) * t.kh * t.kw);
  for (uint8_t &v : o.w)
    v = static_cast<uint8_t>(byte(rng));
  std::uniform_real_distribution<float> scale(0.001f, 0.01f);
  for (int64_t j = 0; j < t.m; ++j) {
    o.wScale.push_back(scale(rng));
    o.wZero.push_back(static_cast<uint8_t>(t.symmetricW ? 0
                                           : t.wSigned  ? byte(rng) % 9 - 4
                                                        : 90 + byte(rng) % 80));
    o.bias.push_back(byte(rng) * 40 - 5000);
  }
  o.xZero = static_cast<uint8_t>(t.xSigned ? -3 : 131);
  o.yZero = static_cast<uint8_t>(t.ySigned ? 5 : 128);
  o.oh = (t.h + 2 * t.pad - t.dilation * (t.kh - 1) - 1) / t.stride + 1;
  o.ow = (t.w + 2 * t.pad - t.dilation * (t.kw - 1) - 1) / t.stride + 1;
  return o;
}

/// ONNX QLinearConv, NCHW, one output at a time: the int32 sum of
/// (x - x_zero) * (w - w_zero) over the window, then (sum + bias) times
/// x_scale * w_scale / y_scale (rounded to f32 at each step), plus the
/// zero point, rounded half to even and saturated.
std::vector<uint8_t> reference(const ConvCase &t, const Operands &o) {
  int64_t cg = t.c / t.group, mg = t.m / t.group;
  std::vector<uint8_t> y(t.n * t.m * o.oh * o.ow);
  float lo = t.ySigned ? -128 : 0, hi = t.ySigned ? 127 : 255;
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t m = 0; m < t.m; ++m)
      for (int64_t oy = 0; oy < o.oh; ++oy)
        for (int64_t ox = 0; ox < o.ow; ++ox) {
          int64_t g = m / mg, sum = 0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < t.kh; ++i)
              for (int64_t j = 0; j < t.kw; ++j) {
                int64_t iy = oy * t.stride - t.pad + i * t.dilation;
                int64_t ix = ox * t.stride - t.pad + j * t.dilation;
                if (iy < 0 || iy >= t.h || ix < 0 || ix >= t.w)
                  continue;
                int64_t xc = g * cg + c;
                int32_t xv =
                    byteValue(o.x[((n * t.c + xc) * t.h + iy) * t.w + ix],
                              t.xSigned) -
                    byteValue(o.xZero, t.xSigned);
                int32_t wv =
                    byteValue(o.w[((m * cg + c) * t.kh + i) * t.kw + j],
                              t.wSigned) -
                    byteValue(o.wZero[m], t.wSigned);
                sum += xv * wv;
              }
          // ONNX Runtime's requantization: f32 multiplier and product,
          // rounded half to even, then the zero point.
          float product = o.xScale * o.wScale[m];
          float multiplier = product / o.yScale;
          int32_t zero = byteValue(o.yZero, t.ySigned);
          float v =
              static_cast<float>(sum + (t.bias ? o.bias[m] : 0)) * multiplier;
          v = std::nearbyint(std::fmin(std::fmax(v, lo - zero), hi - zero));
          y[((n * t.m + m) * o.oh + oy) * o.ow + ox] =
              static_cast<uint8_t>(static_cast<int32_t>(v) + zero);
        }
  return y;
}

/// [N, C, H, W] -> [N, H, W, C] of bytes, or back with `back`.
std::vector<uint8_t> channelsLast(const std::vector<uint8_t> &v, int64_t n,
                                  int64_t c, int64_t hw, bool back = false) {
  std::vector<uint8_t> out(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) {
        int64_t planar = (i * c + ch) * hw + p, last = (i * hw + p) * c + ch;
        out[back ? planar : last] = v[back ? last : planar];
      }
  return out;
}

/// The runtime call, in NCHW or NHWC; Y comes back NCHW.
std::vector<uint8_t> runtimeConv(const ConvCase &t, Operands o, bool nhwc,
                                 int32_t *status) {
  std::vector<uint8_t> x = nhwc ? channelsLast(o.x, t.n, t.c, t.h * t.w) : o.x;
  std::vector<uint8_t> y(t.n * t.m * o.oh * o.ow, 0xAB);
  std::vector<int64_t> dx, dxs, dxz, dw, dws, dwz, dys, dyz, db, dy;
  onnxc_unranked_memref rx, rxs, rxz, rw, rws, rwz, rys, ryz, rb, ry;
  std::vector<int64_t> xShape = nhwc ? std::vector<int64_t>{t.n, t.h, t.w, t.c}
                                     : std::vector<int64_t>{t.n, t.c, t.h, t.w};
  std::vector<int64_t> yShape =
      nhwc ? std::vector<int64_t>{t.n, o.oh, o.ow, t.m}
           : std::vector<int64_t>{t.n, t.m, o.oh, o.ow};
  describeDense(x.data(), xShape, dx, rx);
  describeDense(&o.xScale, {}, dxs, rxs);
  describeDense(&o.xZero, {}, dxz, rxz);
  describeDense(o.w.data(), {t.m, t.c / t.group, t.kh, t.kw}, dw, rw);
  describeDense(o.wScale.data(), {t.m}, dws, rws);
  describeDense(o.wZero.data(), {t.m}, dwz, rwz);
  describeDense(&o.yScale, {}, dys, rys);
  describeDense(&o.yZero, {}, dyz, ryz);
  describeDense(o.bias.data(), {t.m}, db, rb);
  describeDense(y.data(), yShape, dy, ry);
  int64_t slotValue = 0;
  onnxc_memref1 slot = {&slotValue, &slotValue, 0, 1, 1};
  int32_t flags = (t.xSigned ? ONNXC_QCONV_X_SIGNED : 0) |
                  (t.wSigned ? ONNXC_QCONV_W_SIGNED : 0) |
                  (t.ySigned ? ONNXC_QCONV_Y_SIGNED : 0) |
                  (t.bias ? ONNXC_QCONV_BIAS : 0) | ONNXC_QCONV_Y_ZERO |
                  (nhwc ? ONNXC_QCONV_CHANNELS_LAST : 0);
  *status = _mlir_ciface_onnxc_rt_qlinear_conv2d(
      &rx, &rxs, &rxz, &rw, &rws, &rwz, &rys, &ryz, &rb, &ry, &slot, flags,
      t.pad, t.pad, t.stride, t.stride, t.dilation, t.dilation, t.group);
  // The slot's packed W is freed when the runtime unloads; a fresh slot per
  // call keeps the cases apart.
  return nhwc ? channelsLast(y, t.n, t.m, o.oh * o.ow, /*back=*/true) : y;
}

class QLinearConvLayouts : public ::testing::TestWithParam<ConvCase> {};

TEST_P(QLinearConvLayouts, BothLayoutsMatchTheLoop) {
  const ConvCase &t = GetParam();
  Operands o = makeOperands(t, static_cast<unsigned>(t.c * 31 + t.m));
  std::vector<uint8_t> want = reference(t, o);
  for (int threads : {1, 2})
    for (bool nhwc : {false, true}) {
      onnxc_set_num_threads(threads);
      int32_t status = -1;
      std::vector<uint8_t> got = runtimeConv(t, o, nhwc, &status);
      ASSERT_EQ(status, ONNXC_KERNEL_OK) << (nhwc ? "NHWC" : "NCHW");
      size_t mismatches = 0, first = got.size();
      for (size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i] && mismatches++ == 0)
          first = i;
      EXPECT_EQ(mismatches, 0u)
          << (nhwc ? "NHWC" : "NCHW") << ", " << threads
          << " threads; first at " << first << ": " << int(got[first]) << " vs "
          << int(want[first]);
    }
  onnxc_set_num_threads(0);
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, QLinearConvLayouts,
    ::testing::Values(
        // n, c, h, w, m, kh, kw, group, stride, pad, dilation, signs, bias
        ConvCase{1, 16, 9, 7, 24, 1, 1, 1, 1, 0, 1, false, true, false, true},
        ConvCase{2, 8, 10, 9, 20, 3, 3, 1, 1, 1, 1, false, true, false, true},
        ConvCase{1, 12, 11, 13, 16, 3, 3, 1, 2, 1, 1, true, true, true, false},
        ConvCase{1, 5, 8, 8, 7, 3, 3, 1, 1, 2, 2, false, false, false, true},
        ConvCase{1, 3, 17, 15, 32, 7, 7, 1, 2, 3, 1, false, true, false, true},
        ConvCase{1, 8, 9, 9, 12, 3, 3, 2, 1, 1, 1, false, true, true, true},
        ConvCase{2, 24, 12, 10, 24, 3, 3, 24, 1, 1, 1, false, true, false,
                 true},
        ConvCase{1, 40, 13, 11, 40, 3, 3, 40, 2, 1, 1, true, true, false, true},
        ConvCase{1, 17, 9, 9, 17, 5, 5, 17, 1, 2, 1, false, false, true, false},
        ConvCase{1, 32, 7, 7, 32, 3, 3, 32, 1, 2, 2, false, true, false, true},
        // The indirect kernel: 1x1, 3x3 with pads, strides and dilations,
        // groups of 8 channels, 40 and 70 output channels (a partial
        // panel), pixel counts that leave partial tiles and several
        // blocks, two images, u8 and s8 Y.
        ConvCase{1, 16, 9, 7, 40, 1, 1, 1, 1, 0, 1, false, true, false, true,
                 true},
        ConvCase{2, 8, 10, 9, 20, 3, 3, 1, 1, 1, 1, false, true, true, true,
                 true},
        ConvCase{1, 64, 14, 14, 70, 3, 3, 1, 1, 1, 1, false, true, false, true,
                 true},
        ConvCase{1, 12, 11, 13, 33, 3, 3, 1, 2, 1, 1, false, true, false, false,
                 true},
        ConvCase{1, 16, 12, 12, 24, 3, 3, 2, 1, 2, 2, false, true, true, true,
                 true},
        ConvCase{1, 4, 23, 19, 64, 5, 5, 1, 2, 2, 1, false, true, false, true,
                 true},
        // Channels not a multiple of 4: one group reads a padded copy of X
        // (a stem convolution), several groups take the GEMM.
        ConvCase{1, 3, 17, 15, 32, 7, 7, 1, 2, 3, 1, false, true, false, true,
                 true},
        ConvCase{2, 5, 9, 8, 12, 3, 3, 1, 1, 1, 1, false, true, true, false,
                 true},
        ConvCase{1, 6, 9, 9, 12, 3, 3, 2, 1, 1, 1, false, true, false, true,
                 true},
        // The indirect kernel with W's zero points (its window sums of X):
        // u8 W (as ONNX Runtime's quantizer writes weights it reads as
        // activations), s8 W with zero points, a padded stem, groups, two
        // images, a partial panel, pixels past one tile.
        ConvCase{1, 16, 9, 7, 40, 3, 3, 1, 1, 1, 1, false, false, false, true},
        ConvCase{2, 8, 10, 9, 20, 3, 3, 1, 2, 1, 1, false, true, true, true},
        ConvCase{1, 3, 17, 15, 16, 3, 3, 1, 2, 1, 1, false, false, false,
                 true},
        ConvCase{1, 16, 12, 12, 24, 3, 3, 2, 1, 2, 2, false, false, true,
                 false},
        ConvCase{1, 64, 6, 6, 70, 1, 1, 1, 1, 0, 1, false, false, false,
                 true}));

TEST(QLinearConvNhwc, RefusesStridedViews) {
  ConvCase t{1, 8, 6, 6, 8, 1, 1, 1, 1, 0, 1, false, true, false, false};
  Operands o = makeOperands(t, 7);
  std::vector<uint8_t> x(2 * o.x.size()), y(o.x.size());
  std::vector<int64_t> dx, dxs, dxz, dw, dws, dwz, dys, dyz, dy;
  onnxc_unranked_memref rx, rxs, rxz, rw, rws, rwz, rys, ryz, ry;
  describeDense(x.data(), {1, 6, 6, 8}, dx, rx);
  dx[3 + 4 + 2] *= 2; // every other pixel: not dense
  describeDense(&o.xScale, {}, dxs, rxs);
  describeDense(&o.xZero, {}, dxz, rxz);
  describeDense(o.w.data(), {8, 8, 1, 1}, dw, rw);
  describeDense(o.wScale.data(), {8}, dws, rws);
  describeDense(o.wZero.data(), {8}, dwz, rwz);
  describeDense(&o.yScale, {}, dys, rys);
  describeDense(&o.yZero, {}, dyz, ryz);
  describeDense(y.data(), {1, 6, 6, 8}, dy, ry);
  int64_t slotValue = 0;
  onnxc_memref1 slot = {&slotValue, &slotValue, 0, 1, 1};
  EXPECT_EQ(_mlir_ciface_onnxc_rt_qlinear_conv2d(
                &rx, &rxs, &rxz, &rw, &rws, &rwz, &rys, &ryz, &rx, &ry, &slot,
                ONNXC_QCONV_W_SIGNED | ONNXC_QCONV_CHANNELS_LAST, 0, 0, 1, 1, 1,
                1, 1),
            ONNXC_KERNEL_BAD_OPERANDS);
}

} // namespace
