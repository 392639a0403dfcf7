//===- ConvTest.cpp - The convolution kernels vs plain loops --------------===//
//
// onnxc_conv2d on every path it picks (1x1 through the GEMM, im2col tiles,
// per-group GEMMs, the depthwise kernel on every ISA the CPU runs) against
// onnxc_conv2d_reference: odd sizes, strides, asymmetric pads, dilations,
// groups, every epilogue, 1 to 4 threads. Then the entry point of lowered
// code (_mlir_ciface_onnxc_rt_conv2d_f32) through memref descriptors.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/kernels/Conv.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/ThreadPool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
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

struct ConvCase {
  size_t n, c, h, w, m, kh, kw;
  size_t sh = 1, sw = 1, dh = 1, dw = 1;
  size_t pt = 0, pl = 0, pb = 0, pr = 0;
  size_t group = 1;
};

onnxc_conv2d_shape shapeOf(const ConvCase &k) {
  onnxc_conv2d_shape s{};
  s.batch = k.n;
  s.in_channels = k.c;
  s.in_height = k.h;
  s.in_width = k.w;
  s.out_channels = k.m;
  s.kernel_height = k.kh;
  s.kernel_width = k.kw;
  s.stride_height = k.sh;
  s.stride_width = k.sw;
  s.dilation_height = k.dh;
  s.dilation_width = k.dw;
  s.pad_top = k.pt;
  s.pad_left = k.pl;
  s.group = k.group;
  s.out_height = (k.h + k.pt + k.pb - ((k.kh - 1) * k.dh + 1)) / k.sh + 1;
  s.out_width = (k.w + k.pl + k.pr - ((k.kw - 1) * k.dw + 1)) / k.sw + 1;
  return s;
}

std::string describe(const ConvCase &k) {
  char text[256];
  std::snprintf(text, sizeof text,
                "N%zu C%zu %zux%zu M%zu k%zux%zu s%zu,%zu d%zu,%zu "
                "p%zu,%zu,%zu,%zu g%zu",
                k.n, k.c, k.h, k.w, k.m, k.kh, k.kw, k.sh, k.sw, k.dh, k.dw,
                k.pt, k.pl, k.pb, k.pr, k.group);
  return text;
}

/// The epilogues tried on every case.
struct Epilogue {
  bool bias, residual;
  int32_t activation;
  float alpha, beta;
};

const Epilogue kEpilogues[] = {
    {false, false, ONNXC_ACTIVATION_NONE, 0, 0},
    {true, false, ONNXC_ACTIVATION_RELU, 0, 0},
    {true, true, ONNXC_ACTIVATION_RELU, 0, 0},
    {false, true, ONNXC_ACTIVATION_NONE, 0, 0},
    {true, false, ONNXC_ACTIVATION_CLIP, 0.0f, 0.5f},
    {true, true, ONNXC_ACTIVATION_LEAKY_RELU, 0.1f, 0},
    {true, false, ONNXC_ACTIVATION_SIGMOID, 0, 0},
    {false, false, ONNXC_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f},
    {true, false, ONNXC_ACTIVATION_GELU, 0, 0},
    {true, true, ONNXC_ACTIVATION_SILU, 0, 0},
};

void checkConv(const ConvCase &k, const Epilogue &ep, int threads,
               const std::string &what) {
  onnxc_conv2d_shape s = shapeOf(k);
  ASSERT_TRUE(onnxc_conv2d_shape_valid(&s)) << describe(k);
  size_t taps = (k.c / k.group) * k.kh * k.kw;
  size_t ySize = k.n * k.m * s.out_height * s.out_width;
  std::vector<float> x = randomVector(k.n * k.c * k.h * k.w, 1);
  std::vector<float> w = randomVector(k.m * taps, 2);
  std::vector<float> bias = randomVector(k.m, 3);
  std::vector<float> residual = randomVector(ySize, 4);
  std::vector<float> expected(ySize), actual(ySize, NAN);
  onnxc_sgemm_epilogue act{};
  act.activation = ep.activation;
  act.activation_alpha = ep.alpha;
  act.activation_beta = ep.beta;
  const float *b = ep.bias ? bias.data() : nullptr;
  const float *r = ep.residual ? residual.data() : nullptr;
  onnxc_conv2d_reference(&s, x.data(), w.data(), b, r, expected.data(), &act);
  onnxc_set_num_threads(threads);
  ASSERT_EQ(onnxc_conv2d(&s, x.data(), w.data(), b, r, actual.data(), &act), 0);
  onnxc_set_num_threads(0);
  float tolerance = 2e-6f * (float)taps + 1e-5f;
  for (size_t i = 0; i < ySize; ++i)
    ASSERT_NEAR(actual[i], expected[i],
                tolerance * (1.0f + std::fabs(expected[i])))
        << what << " " << describe(k) << " activation " << ep.activation
        << " bias " << ep.bias << " residual " << ep.residual << " threads "
        << threads << " at " << i;
}

void checkAll(const std::vector<ConvCase> &cases, const std::string &what) {
  for (const ConvCase &k : cases)
    for (const Epilogue &ep : kEpilogues)
      for (int threads = 1; threads <= 4; ++threads)
        checkConv(k, ep, threads, what);
}

TEST(Conv, PointwiseThroughTheGemm) {
  checkAll({{1, 7, 5, 9, 11, 1, 1},
            {3, 16, 13, 1, 5, 1, 1},
            // K = 300: the Clip pass runs on two column tiles.
            {1, 300, 30, 30, 5, 1, 1},
            {2, 33, 6, 7, 40, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1}},
           "1x1");
}

TEST(Conv, Im2colStridesPadsDilations) {
  checkAll({{1, 3, 11, 13, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
            {2, 4, 12, 9, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},
            {1, 3, 17, 19, 4, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3},
            {1, 5, 10, 11, 3, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},
            {1, 2, 9, 10, 3, 2, 4, 3, 2, 2, 1, 0, 2, 1, 0},
            {2, 6, 8, 8, 7, 1, 1, 2, 2},
            {1, 3, 7, 9, 2, 1, 5, 1, 1, 1, 3, 0, 4, 0, 1},
            {1, 4, 3, 3, 2, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2}},
           "im2col");
}

TEST(Conv, Im2colManyColumnTiles) {
  // K = 64 * 9 = 576: a tile holds a few hundred of the 900 columns.
  checkAll({{1, 64, 30, 30, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1}}, "tiles");
}

TEST(Conv, Grouped) {
  checkAll({{2, 6, 7, 9, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},
            {1, 9, 8, 8, 6, 3, 3, 2, 2, 1, 1, 1, 0, 1, 1, 3},
            {3, 8, 5, 5, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4},
            // Depthwise with a channel multiplier: grouped GEMMs.
            {1, 3, 7, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3}},
           "grouped");
}

const std::vector<ConvCase> kDepthwiseCases = {
    {1, 5, 11, 13, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5},
    {2, 3, 12, 17, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3},
    {1, 4, 9, 21, 4, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 4},
    {1, 6, 14, 35, 6, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 6},
    {1, 3, 15, 15, 3, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 3},
    {1, 2, 10, 12, 2, 3, 3, 1, 1, 2, 3, 2, 3, 1, 0, 2},
    {2, 3, 8, 7, 3, 4, 2, 3, 1, 1, 1, 1, 0, 2, 1, 3},
    {1, 7, 7, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 7},
    {1, 4, 5, 6, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4},
    {1, 2, 6, 40, 2, 3, 3, 1, 3, 1, 1, 1, 1, 1, 1, 2},
};

TEST(Conv, DepthwiseEveryIsa) {
  for (int32_t isa : {ONNXC_SGEMM_ISA_PORTABLE, ONNXC_SGEMM_ISA_AVX2,
                      ONNXC_SGEMM_ISA_AVX512}) {
    if (!onnxc_conv_depthwise_force_isa(isa))
      continue; // not in this build or not on this CPU
    EXPECT_EQ(onnxc_conv_depthwise_current_isa(), isa);
    checkAll(kDepthwiseCases, onnxc_sgemm_isa_name(isa));
  }
  onnxc_conv_depthwise_force_isa(ONNXC_SGEMM_ISA_AUTO);
}

TEST(Conv, NonFiniteInputsPropagate) {
  for (const ConvCase &k :
       {ConvCase{1, 4, 6, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
        ConvCase{1, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4},
        ConvCase{1, 4, 6, 6, 3, 1, 1}}) {
    onnxc_conv2d_shape s = shapeOf(k);
    std::vector<float> x = randomVector(k.n * k.c * k.h * k.w, 5);
    std::vector<float> w = randomVector(k.m * (k.c / k.group) * k.kh * k.kw, 6);
    x[7] = INFINITY;
    x[20] = NAN;
    size_t ySize = k.m * s.out_height * s.out_width;
    std::vector<float> expected(ySize), actual(ySize);
    onnxc_conv2d_reference(&s, x.data(), w.data(), nullptr, nullptr,
                           expected.data(), nullptr);
    ASSERT_EQ(onnxc_conv2d(&s, x.data(), w.data(), nullptr, nullptr,
                           actual.data(), nullptr),
              0);
    for (size_t i = 0; i < ySize; ++i) {
      ASSERT_EQ(std::isnan(actual[i]), std::isnan(expected[i]))
          << describe(k) << " at " << i;
      if (std::isinf(expected[i]))
        ASSERT_EQ(actual[i], expected[i]) << describe(k) << " at " << i;
    }
  }
}

/// A dense tensor with its memref descriptor.
struct Tensor {
  std::vector<float> data;
  std::vector<int64_t> descriptor;
  onnxc_unranked_memref ref;

  Tensor(std::vector<int64_t> shape, std::vector<float> values)
      : data(std::move(values)) {
    descriptor.resize(3 + 2 * shape.size());
    float *p = data.data();
    std::memcpy(&descriptor[0], &p, sizeof p);
    std::memcpy(&descriptor[1], &p, sizeof p);
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      descriptor[3 + d] = shape[d];
      descriptor[3 + shape.size() + d] = stride;
      stride *= shape[d];
    }
    ref.rank = (int64_t)shape.size();
    ref.descriptor = descriptor.data();
  }
};

TEST(ConvEntry, MatchesTheReference) {
  ConvCase k{2, 6, 9, 8, 4, 3, 3, 2, 1, 1, 2, 1, 2, 0, 1, 2};
  onnxc_conv2d_shape s = shapeOf(k);
  int64_t oh = (int64_t)s.out_height, ow = (int64_t)s.out_width;
  size_t ySize = 2 * 4 * s.out_height * s.out_width;
  Tensor x({2, 6, 9, 8}, randomVector(2 * 6 * 9 * 8, 1));
  Tensor w({4, 3, 3, 3}, randomVector(4 * 3 * 9, 2));
  Tensor bias({4}, randomVector(4, 3));
  Tensor residual({2, 4, oh, ow}, randomVector(ySize, 4));
  Tensor y({2, 4, oh, ow}, std::vector<float>(ySize, NAN));
  _mlir_ciface_onnxc_rt_conv2d_f32(
      &x.ref, &w.ref, &bias.ref, &residual.ref, &y.ref,
      ONNXC_CONV_BIAS | ONNXC_CONV_RESIDUAL, 1, 2, 2, 1, 1, 2, 2,
      ONNXC_ACTIVATION_CLIP, -0.5f, 0.5f);
  onnxc_sgemm_epilogue act{};
  act.activation = ONNXC_ACTIVATION_CLIP;
  act.activation_alpha = -0.5f;
  act.activation_beta = 0.5f;
  std::vector<float> expected(ySize);
  onnxc_conv2d_reference(&s, x.data.data(), w.data.data(), bias.data.data(),
                         residual.data.data(), expected.data(), &act);
  for (size_t i = 0; i < ySize; ++i)
    ASSERT_NEAR(y.data[i], expected[i], 1e-5f) << i;
}

TEST(ConvEntry, MismatchedRunTimeShapesGiveNaN) {
  Tensor x({1, 4, 5, 5}, randomVector(100, 1));
  Tensor w({2, 3, 3, 3}, randomVector(54, 2)); // 3 channels, X has 4
  Tensor y({1, 2, 3, 3}, std::vector<float>(18, 0.0f));
  _mlir_ciface_onnxc_rt_conv2d_f32(&x.ref, &w.ref, &x.ref, &x.ref, &y.ref, 0, 0,
                                   0, 1, 1, 1, 1, 1, 0, 0, 0);
  for (float v : y.data)
    EXPECT_TRUE(std::isnan(v));
  Tensor w2({2, 4, 3, 3}, randomVector(72, 2));
  Tensor bias({3}, randomVector(3, 3)); // Y has 2 channels
  std::fill(y.data.begin(), y.data.end(), 0.0f);
  _mlir_ciface_onnxc_rt_conv2d_f32(&x.ref, &w2.ref, &bias.ref, &x.ref, &y.ref,
                                   ONNXC_CONV_BIAS, 0, 0, 1, 1, 1, 1, 1, 0, 0,
                                   0);
  for (float v : y.data)
    EXPECT_TRUE(std::isnan(v));
}

} // namespace
