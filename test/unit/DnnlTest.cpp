//===- DnnlTest.cpp - The oneDNN glue vs plain loops ----------------------===//
//
// Every entry point of runtime/dnnl through memref descriptors, against a
// reference loop written here: convolutions (groups, depthwise, strides,
// dilations, pads, bias, residual, activations, constant weights; plain
// NCHW and the layouts oneDNN picks, odd channel counts), matmuls
// (batch broadcasting, transposes, every bias shape), pooling (ceil-mode end
// pads), eltwise, the normalizations, ConvTranspose. Then the
// per-site cache (two shapes on one slot), refused shapes, and four threads
// on one slot.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/kernels/Gemm.h"
#include "runtime/dnnl/DnnlRuntime.h"
#include "test/unit/DnnlSlot.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

std::vector<float> randomVector(size_t size, unsigned seed,
                                float range = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-range, range);
  std::vector<float> v(size);
  for (float &x : v)
    x = dist(rng);
  return v;
}

int64_t volume(const std::vector<int64_t> &shape) {
  int64_t v = 1;
  for (int64_t s : shape)
    v *= s;
  return v;
}

/// A dense row-major f32 tensor and its unranked memref. Unit dims get an
/// odd stride: the glue must not read it.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;
  std::vector<int64_t> descriptor;
  onnxc_unranked_memref ref{};

  Tensor(std::vector<int64_t> s, std::vector<float> values)
      : shape(std::move(s)), data(std::move(values)) {}
  Tensor(std::vector<int64_t> s, unsigned seed, float range = 1.0f)
      : shape(std::move(s)),
        data(randomVector((size_t)volume(shape), seed, range)) {}

  /// The memref, rebuilt when the data moved (a copied tensor); built once
  /// it is only read, so threads may share a tensor built beforehand.
  onnxc_unranked_memref *memref() {
    size_t rank = shape.size();
    float *p = data.data();
    if (descriptor.size() == 3 + 2 * rank &&
        std::memcmp(&descriptor[1], &p, sizeof p) == 0)
      return &ref;
    descriptor.assign(3 + 2 * rank, 0);
    std::memcpy(&descriptor[0], &p, sizeof p);
    std::memcpy(&descriptor[1], &p, sizeof p);
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
      descriptor[3 + d] = shape[d];
      descriptor[3 + rank + d] = shape[d] == 1 ? 7777 : stride;
      stride *= shape[d];
    }
    ref = {(int64_t)rank, descriptor.data()};
    return &ref;
  }
};

using onnxc::test::Slot;

float activate(int32_t kind, float x, float alpha, float beta) {
  switch (kind) {
  case ONNXC_ACTIVATION_RELU:
    return x > 0 ? x : 0;
  case ONNXC_ACTIVATION_LEAKY_RELU:
    return x < 0 ? alpha * x : x;
  case ONNXC_ACTIVATION_CLIP:
    return std::min(std::max(x, alpha), beta);
  case ONNXC_ACTIVATION_SIGMOID:
    return 1.0f / (1.0f + std::exp(-x));
  case ONNXC_ACTIVATION_TANH:
    return std::tanh(x);
  case ONNXC_ACTIVATION_GELU:
    return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
  case ONNXC_ACTIVATION_FAST_GELU:
    return 0.5f * x *
           (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
  case ONNXC_ACTIVATION_SILU:
    return x / (1.0f + std::exp(-x));
  case ONNXC_ACTIVATION_HARD_SWISH:
    return x * std::max(0.0f, std::min(1.0f, alpha * x + beta));
  default:
    return x;
  }
}

void expectNear(const std::vector<float> &actual,
                const std::vector<float> &expected, const std::string &what,
                float tolerance = 2e-4f) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    ASSERT_NEAR(actual[i], expected[i],
                tolerance * (1.0f + std::fabs(expected[i])))
        << what << " at " << i;
}

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

struct ConvCase {
  int64_t n, c, h, w, m, kh, kw;
  int64_t sh, sw, dh, dw, pt, pl, pb, pr, group;
  int32_t flags, activation;
  float alpha, beta;
};

int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0,
                int64_t p1, bool ceil = false) {
  int64_t span = in + p0 + p1 - ((k - 1) * d + 1);
  return (ceil ? (span + s - 1) / s : span / s) + 1;
}

std::vector<float> convReference(const ConvCase &k, const Tensor &x,
                                 const Tensor &w, const Tensor &bias,
                                 const Tensor &residual, int64_t oh,
                                 int64_t ow) {
  std::vector<float> y((size_t)(k.n * k.m * oh * ow));
  int64_t cg = k.c / k.group, mg = k.m / k.group;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t m = 0; m < k.m; ++m)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double sum = (k.flags & ONNXC_DNNL_CONV_BIAS) ? bias.data[m] : 0.0;
          int64_t g = m / mg;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t r = 0; r < k.kh; ++r)
              for (int64_t s = 0; s < k.kw; ++s) {
                int64_t hi = i * k.sh - k.pt + r * k.dh;
                int64_t wi = j * k.sw - k.pl + s * k.dw;
                if (hi < 0 || hi >= k.h || wi < 0 || wi >= k.w)
                  continue;
                sum +=
                    (double)
                        x.data[((n * k.c + g * cg + c) * k.h + hi) * k.w + wi] *
                    w.data[((m * cg + c) * k.kh + r) * k.kw + s];
              }
          size_t at = (size_t)(((n * k.m + m) * oh + i) * ow + j);
          if (k.flags & ONNXC_DNNL_CONV_RESIDUAL)
            sum += residual.data[at];
          y[at] = activate(k.activation, (float)sum, k.alpha, k.beta);
        }
  return y;
}

std::string describe(const ConvCase &k) {
  char text[200];
  std::snprintf(text, sizeof text,
                "N%lld C%lld %lldx%lld M%lld k%lldx%lld s%lld,%lld d%lld,%lld "
                "p%lld,%lld,%lld,%lld g%lld f%d act%d",
                (long long)k.n, (long long)k.c, (long long)k.h, (long long)k.w,
                (long long)k.m, (long long)k.kh, (long long)k.kw,
                (long long)k.sh, (long long)k.sw, (long long)k.dh,
                (long long)k.dw, (long long)k.pt, (long long)k.pl,
                (long long)k.pb, (long long)k.pr, (long long)k.group, k.flags,
                k.activation);
  return text;
}

/// Runs one case on `slot` and checks it; `seed` varies the data. A
/// constant weight must be given: its pointer is part of the cache key.
/// `residualInY`: Z is passed as Y itself, which holds it.
void checkConv(const ConvCase &k, Slot &slot, unsigned seed,
               Tensor *weights = nullptr, bool residualInY = false) {
  int64_t oh = outSize(k.h, k.kh, k.sh, k.dh, k.pt, k.pb);
  int64_t ow = outSize(k.w, k.kw, k.sw, k.dw, k.pl, k.pr);
  Tensor x({k.n, k.c, k.h, k.w}, seed);
  Tensor fresh({k.m, k.c / k.group, k.kh, k.kw}, seed + 1);
  Tensor &w = weights ? *weights : fresh;
  Tensor bias({k.m}, seed + 2);
  Tensor residual({k.n, k.m, oh, ow}, seed + 3);
  Tensor y({k.n, k.m, oh, ow},
           std::vector<float>((size_t)(k.n * k.m * oh * ow), NAN));
  std::vector<float> expected = convReference(k, x, w, bias, residual, oh, ow);
  onnxc_unranked_memref *xr = x.memref();
  onnxc_unranked_memref *zr = residual.memref();
  if (residualInY) {
    y.data = residual.data;
    zr = y.memref();
  }
  int32_t status = _mlir_ciface_onnxc_dnnl_conv2d_f32(
      slot.memref(), xr, w.memref(),
      (k.flags & ONNXC_DNNL_CONV_BIAS) ? bias.memref() : xr,
      (k.flags & ONNXC_DNNL_CONV_RESIDUAL) ? zr : xr, y.memref(), k.flags, k.pt,
      k.pl, k.sh, k.sw, k.dh, k.dw, k.group, k.activation, k.alpha, k.beta);
  ASSERT_EQ(status, 0) << describe(k);
  expectNear(y.data, expected, describe(k));
}

const int32_t kBias = ONNXC_DNNL_CONV_BIAS, kRes = ONNXC_DNNL_CONV_RESIDUAL,
              kConst = ONNXC_DNNL_CONV_CONST_WEIGHTS;

// clang-format off
const ConvCase kConvCases[] = {
    // n  c   h   w   m kh kw sh sw dh dw pt pl pb pr  g  flags, activation
    {2,  3,  7,  9,  5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, kBias,
     ONNXC_ACTIVATION_RELU, 0, 0},
    {1,  4, 11, 10,  6, 3, 3, 2, 2, 2, 2, 1, 2, 0, 1, 2, kRes,
     ONNXC_ACTIVATION_LEAKY_RELU, 0.1f, 0},
    // Depthwise.
    {2,  6,  9,  9,  6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 6, kBias | kConst,
     ONNXC_ACTIVATION_CLIP, -0.3f, 0.4f},
    // 1x1 stride 2 on an even size: a negative end pad.
    {1,  8,  8,  6, 16, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1, kConst,
     ONNXC_ACTIVATION_SILU, 0, 0},
    {2,  6,  7,  5,  9, 3, 2, 1, 1, 1, 1, 1, 0, 1, 1, 3, kBias | kRes | kConst,
     ONNXC_ACTIVATION_GELU, 0, 0},
    {1,  5, 13, 12,  7, 5, 3, 1, 2, 1, 3, 2, 0, 2, 1, 1, kBias,
     ONNXC_ACTIVATION_FAST_GELU, 0, 0},
    {1, 16, 10, 10, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, kBias | kConst,
     ONNXC_ACTIVATION_HARD_SWISH, 1.0f / 6.0f, 0.5f},
    // Depthwise with a residual.
    {3,  8,  5,  7,  8, 3, 3, 1, 1, 1, 1, 0, 2, 2, 0, 8, kRes | kConst,
     ONNXC_ACTIVATION_SIGMOID, 0, 0},
    {1,  3, 17, 15,  4, 7, 7, 2, 2, 1, 1, 3, 3, 3, 3, 1, kConst,
     ONNXC_ACTIVATION_TANH, 0, 0},
    // Stride larger than the kernel.
    {1,  4,  6,  6,  4, 2, 2, 3, 3, 1, 1, 0, 0, 0, 0, 2, 0,
     ONNXC_ACTIVATION_NONE, 0, 0},
};
// clang-format on

TEST(DnnlConv, MatchesTheReference) {
  // A constant weight keeps its pointer and contents from run to run.
  unsigned seed = 1;
  for (const ConvCase &k : kConvCases) {
    Slot slot;
    Tensor w({k.m, k.c / k.group, k.kh, k.kw}, seed);
    checkConv(k, slot, seed += 10, &w);
    checkConv(k, slot, seed += 10, &w); // the cached primitive
  }
}

// The glue lets oneDNN pick the layouts of X, W and Y where Y has more than
// one pixel per channel (with a non-constant W, at least 100), and reorders
// between them and NCHW: odd channel counts pad channel blocks (nChw8c under
// DNNL_MAX_CPU_ISA=AVX2; AVX-512 picks NHWC), a residual is reordered into
// Y's layout before the sum post-op.
// clang-format off
const ConvCase kChosenLayoutCases[] = {
    // n  c   h   w   m kh kw sh sw dh dw pt pl pb pr  g  flags, activation
    {1,  3, 12, 12, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1, kBias | kRes | kConst,
     ONNXC_ACTIVATION_RELU, 0, 0},
    // W not constant: reordered on every call.
    {2, 17, 11, 10, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1, kRes,
     ONNXC_ACTIVATION_LEAKY_RELU, 0.2f, 0},
    {1, 33, 23, 21,  3, 3, 3, 2, 2, 1, 1, 1, 0, 1, 1,  1, kBias | kConst,
     ONNXC_ACTIVATION_CLIP, -0.5f, 0.5f},
    // Depthwise, and 17 channels per group.
    {1, 33, 14, 14, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 33, kBias | kRes | kConst,
     ONNXC_ACTIVATION_SILU, 0, 0},
    {1, 34, 12, 12, 66, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  2, kBias | kRes,
     ONNXC_ACTIVATION_TANH, 0, 0},
    // 1x1 stride 2 with a negative end pad; a dilated one.
    {1, 17, 20, 22, 33, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0,  1, kRes | kConst,
     ONNXC_ACTIVATION_HARD_SWISH, 1.0f / 6.0f, 0.5f},
    {1, 17, 16, 16,  3, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2,  1, kBias | kConst,
     ONNXC_ACTIVATION_GELU, 0, 0},
    // One output pixel: plain NCHW again.
    {1, 33,  3,  3, 17, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0,  1, kBias | kRes | kConst,
     ONNXC_ACTIVATION_RELU, 0, 0},
};
// clang-format on

TEST(DnnlConv, ChosenLayoutsMatchTheReference) {
  unsigned seed = 500;
  for (const ConvCase &k : kChosenLayoutCases) {
    Slot slot;
    Tensor w({k.m, k.c / k.group, k.kh, k.kw}, seed);
    checkConv(k, slot, seed += 10, &w);
    checkConv(k, slot, seed += 10, &w); // the cached primitive and reorders
  }
}

TEST(DnnlConv, ResidualAlreadyInY) {
  // Z passed as Y: copied onto itself on the plain path, reordered from Y
  // into the temporary on the chosen one.
  unsigned seed = 700;
  for (const ConvCase *k :
       {&kConvCases[1], &kConvCases[4], &kChosenLayoutCases[0],
        &kChosenLayoutCases[1], &kChosenLayoutCases[3]}) {
    Slot slot;
    Tensor w({k->m, k->c / k->group, k->kh, k->kw}, seed);
    checkConv(*k, slot, seed += 10, &w, true);
    checkConv(*k, slot, seed += 10, &w, true);
  }
}

TEST(DnnlConv, CachesTwoShapesOnOneSlot) {
  ConvCase a = kConvCases[0], b = a;
  b.n = 1;
  b.h = 12;
  b.w = 5;
  Slot slot;
  for (int round = 0; round < 3; ++round) {
    checkConv(a, slot, 100 + round);
    checkConv(b, slot, 200 + round);
  }
}

TEST(DnnlConv, ConstantWeightsPerPointer) {
  // The reordered weights are keyed by their pointer: a second weight on
  // the same site gets its own entry, and the first stays right.
  ConvCase k = kConvCases[6];
  Tensor w1({k.m, k.c, k.kh, k.kw}, 5), w2({k.m, k.c, k.kh, k.kw}, 6);
  Slot slot;
  for (int round = 0; round < 2; ++round) {
    checkConv(k, slot, 300 + round, &w1);
    checkConv(k, slot, 400 + round, &w2);
  }
}

TEST(DnnlConv, RefusesBadShapes) {
  Slot slot;
  Tensor x({1, 4, 5, 5}, 1), w({2, 3, 3, 3}, 2); // 3 channels, X has 4
  Tensor y({1, 2, 3, 3}, std::vector<float>(18, 0.0f));
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv2d_f32(
                slot.memref(), x.memref(), w.memref(), x.memref(), x.memref(),
                y.memref(), 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0),
            ONNXC_DNNL_ERROR_SHAPE);
  Tensor w4({2, 4, 3, 3}, 3), bias({3}, 4); // Y has 2 channels
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv2d_f32(
                slot.memref(), x.memref(), w4.memref(), bias.memref(),
                x.memref(), y.memref(), kBias, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0),
            ONNXC_DNNL_ERROR_SHAPE);
  // Y [1, 2, 2, 3]: 2 rows where 3 fit (an end pad of -stride).
  Tensor small({1, 2, 2, 3}, std::vector<float>(12, 0.0f));
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv2d_f32(
                slot.memref(), x.memref(), w4.memref(), x.memref(), x.memref(),
                small.memref(), 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0),
            ONNXC_DNNL_ERROR_SHAPE);
  // Y larger than the pads allow is fine only within one stride: 4 rows
  // at stride 1 need an end pad of 1.
  Tensor big({1, 2, 4, 3}, std::vector<float>(24, 0.0f));
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv2d_f32(
                slot.memref(), x.memref(), w4.memref(), x.memref(), x.memref(),
                big.memref(), 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0),
            0);
  // Group that does not divide, a bad stride, a bad slot, an unsupported
  // activation, a memref that is not dense.
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv2d_f32(
                slot.memref(), x.memref(), w4.memref(), x.memref(), x.memref(),
                y.memref(), 0, 0, 0, 1, 1, 1, 1, 3, 0, 0, 0),
            ONNXC_DNNL_ERROR_SHAPE);
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv2d_f32(
                slot.memref(), x.memref(), w4.memref(), x.memref(), x.memref(),
                y.memref(), 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0),
            ONNXC_DNNL_ERROR_SHAPE);
  onnxc_unranked_memref badSlot = *x.memref();
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv2d_f32(
                &badSlot, x.memref(), w4.memref(), x.memref(), x.memref(),
                y.memref(), 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0),
            ONNXC_DNNL_ERROR_ARGUMENT);
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv2d_f32(
                slot.memref(), x.memref(), w4.memref(), x.memref(), x.memref(),
                y.memref(), 0, 0, 0, 1, 1, 1, 1, 1,
                ONNXC_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f),
            ONNXC_DNNL_ERROR_ACTIVATION);
  Tensor copy = x;
  onnxc_unranked_memref *strided = copy.memref();
  copy.descriptor[3 + 4 + 2] = 2 * 5; // H's stride: rows apart
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv2d_f32(
                slot.memref(), strided, w4.memref(), x.memref(), x.memref(),
                y.memref(), 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0),
            ONNXC_DNNL_ERROR_ARGUMENT);
  for (float v : y.data)
    EXPECT_EQ(v, 0.0f);
}

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//

struct ConvTransposeCase {
  int64_t n, c, h, w, m, kh, kw;
  int64_t sh, sw, dh, dw, pt, pl, pb, pr, oph, opw, group;
  int32_t flags;
};

/// ONNX ConvTranspose's output size: the end pads and output_padding are
/// what the glue reads back from it.
int64_t transposedSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0,
                       int64_t p1, int64_t outputPadding) {
  return (in - 1) * s + (k - 1) * d + 1 - p0 - p1 + outputPadding;
}

/// Every input pixel scattered through the kernel: Y[n, g*Mg + m, oh, ow]
/// += X[n, g*Cg + c, ih, iw] * W[g*Cg + c, m, kh, kw], oh = ih*sh - pt +
/// kh*dh, where it lands inside Y.
std::vector<float> convTransposeReference(const ConvTransposeCase &k,
                                          const Tensor &x, const Tensor &w,
                                          const Tensor &bias, int64_t oh,
                                          int64_t ow) {
  std::vector<double> sum((size_t)(k.n * k.m * oh * ow), 0.0);
  int64_t cg = k.c / k.group, mg = k.m / k.group;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t g = 0; g < k.group; ++g)
      for (int64_t c = 0; c < cg; ++c)
        for (int64_t hi = 0; hi < k.h; ++hi)
          for (int64_t wi = 0; wi < k.w; ++wi) {
            double v = x.data[(
                size_t)(((n * k.c + g * cg + c) * k.h + hi) * k.w + wi)];
            for (int64_t m = 0; m < mg; ++m)
              for (int64_t r = 0; r < k.kh; ++r)
                for (int64_t s = 0; s < k.kw; ++s) {
                  int64_t i = hi * k.sh - k.pt + r * k.dh;
                  int64_t j = wi * k.sw - k.pl + s * k.dw;
                  if (i < 0 || i >= oh || j < 0 || j >= ow)
                    continue;
                  sum[(size_t)(((n * k.m + g * mg + m) * oh + i) * ow + j)] +=
                      v * w.data[(size_t)((((g * cg + c) * mg + m) * k.kh + r) *
                                              k.kw +
                                          s)];
                }
          }
  std::vector<float> y(sum.size());
  for (size_t at = 0; at < y.size(); ++at) {
    int64_t m = (int64_t)at / (oh * ow) % k.m;
    y[at] = (float)(sum[at] + ((k.flags & ONNXC_DNNL_CONV_BIAS)
                                   ? (double)bias.data[(size_t)m]
                                   : 0.0));
  }
  return y;
}

std::string describe(const ConvTransposeCase &k) {
  char text[220];
  std::snprintf(text, sizeof text,
                "ConvTranspose N%lld C%lld %lldx%lld M%lld k%lldx%lld "
                "s%lld,%lld d%lld,%lld p%lld,%lld,%lld,%lld op%lld,%lld g%lld "
                "f%d",
                (long long)k.n, (long long)k.c, (long long)k.h, (long long)k.w,
                (long long)k.m, (long long)k.kh, (long long)k.kw,
                (long long)k.sh, (long long)k.sw, (long long)k.dh,
                (long long)k.dw, (long long)k.pt, (long long)k.pl,
                (long long)k.pb, (long long)k.pr, (long long)k.oph,
                (long long)k.opw, (long long)k.group, k.flags);
  return text;
}

/// Runs one case on `slot` and checks it; `seed` varies the data. A
/// constant weight must be given: its pointer is part of the cache key.
void checkConvTranspose(const ConvTransposeCase &k, Slot &slot, unsigned seed,
                        Tensor *weights = nullptr) {
  int64_t oh = transposedSize(k.h, k.kh, k.sh, k.dh, k.pt, k.pb, k.oph);
  int64_t ow = transposedSize(k.w, k.kw, k.sw, k.dw, k.pl, k.pr, k.opw);
  Tensor x({k.n, k.c, k.h, k.w}, seed);
  Tensor fresh({k.c, k.m / k.group, k.kh, k.kw}, seed + 1);
  Tensor &w = weights ? *weights : fresh;
  Tensor bias({k.m}, seed + 2);
  Tensor y({k.n, k.m, oh, ow},
           std::vector<float>((size_t)(k.n * k.m * oh * ow), NAN));
  std::vector<float> expected = convTransposeReference(k, x, w, bias, oh, ow);
  onnxc_unranked_memref *xr = x.memref();
  int32_t status = _mlir_ciface_onnxc_dnnl_conv_transpose2d_f32(
      slot.memref(), xr, w.memref(),
      (k.flags & ONNXC_DNNL_CONV_BIAS) ? bias.memref() : xr, y.memref(),
      k.flags, k.pt, k.pl, k.sh, k.sw, k.dh, k.dw, k.group);
  ASSERT_EQ(status, 0) << describe(k);
  expectNear(y.data, expected, describe(k));
}

// Constant weights (and any Y of at least 100 pixels per channel) take the
// layouts oneDNN picks; the others run on plain NCHW with W read in place.
// clang-format off
const ConvTransposeCase kConvTransposeCases[] = {
    // n  c  h  w   m kh kw sh sw dh dw pt pl pb pr op,op g  flags
    // Stride 2 with a bias.
    {1,  4, 6, 6,  6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, kBias},
    {1,  4, 6, 6,  6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, kBias | kConst},
    // Pads (1, 0, 2, 1) without and with output_padding 1: Y one row and
    // one column larger.
    {1,  3, 5, 7,  4, 3, 3, 2, 2, 1, 1, 1, 0, 2, 1, 0, 0, 1, kBias},
    {1,  3, 5, 7,  4, 3, 3, 2, 2, 1, 1, 1, 0, 2, 1, 1, 1, 1, kBias},
    {1,  3, 5, 7,  4, 3, 3, 2, 2, 1, 1, 1, 0, 2, 1, 1, 1, 1, kBias | kConst},
    // output_padding past the end pad: a negative end pad.
    {1,  2, 4, 4,  3, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0},
    {1,  5, 3, 4,  2, 3, 3, 3, 3, 1, 1, 0, 0, 0, 0, 2, 1, 1, kBias | kConst},
    // Dilation 2; different dilations, strides and pads per dim.
    {1,  3, 5, 6,  4, 3, 3, 1, 1, 2, 2, 1, 1, 1, 1, 0, 0, 1, kBias},
    {1,  4, 4, 5,  2, 3, 2, 2, 1, 2, 3, 2, 1, 0, 2, 1, 0, 1, kConst},
    // Groups 2, and 3 groups of 2 input and 3 output channels.
    {1,  6, 5, 5,  4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2, kBias},
    {1,  6, 5, 5,  4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2, kBias | kConst},
    {2,  6, 5, 7,  9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 3, kConst},
    // Depthwise: 8 channels, 4x4 kernel, stride 2, pad 1.
    {1,  8, 6, 6,  8, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 8, kBias | kConst},
    {2,  8, 5, 5,  8, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 8, kBias},
    // 1x1 stride 1.
    {1, 16, 4, 4,  8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0},
    {1, 16, 4, 4,  8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, kBias | kConst},
    // Odd channel counts: C 3, M 5; C 17, M 33 (padded channel blocks).
    {1,  3, 7, 7,  5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, kBias | kConst},
    {1,  3, 7, 7,  5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, kBias},
    {1, 17, 8, 8, 33, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, kBias},
    // Batch 2.
    {2,  5, 4, 6,  7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, kBias},
    {2,  5, 4, 6,  7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 1, kConst},
    // A non-square 6x9 image.
    {1,  4, 6, 9,  3, 3, 5, 1, 2, 1, 1, 1, 2, 1, 2, 0, 1, 1, kBias | kConst},
    {1,  4, 6, 9,  3, 3, 5, 1, 2, 1, 1, 1, 2, 1, 2, 0, 1, 1, 0},
    // Stride larger than the kernel: Y's gaps get the bias alone.
    {1,  2, 3, 3,  3, 2, 2, 3, 3, 1, 1, 0, 0, 0, 0, 0, 0, 1, kBias},
    // One output pixel.
    {1,  4, 1, 1,  3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, kBias | kConst},
};
// clang-format on

TEST(DnnlConvTranspose, MatchesTheReference) {
  unsigned seed = 900;
  for (const ConvTransposeCase &k : kConvTransposeCases) {
    Slot slot;
    Tensor w({k.c, k.m / k.group, k.kh, k.kw}, seed);
    checkConvTranspose(k, slot, seed += 10, &w);
    checkConvTranspose(k, slot, seed += 10, &w); // cached, W packed once
  }
}

TEST(DnnlConvTranspose, OutputPaddingAddsARowAndAColumn) {
  // The same X and W on one slot, Y without and with output_padding 1:
  // two entries, the extra row and column only the bias.
  const ConvTransposeCase &without = kConvTransposeCases[2];
  const ConvTransposeCase &with = kConvTransposeCases[3];
  ASSERT_EQ(transposedSize(with.h, with.kh, with.sh, with.dh, with.pt, with.pb,
                           with.oph),
            transposedSize(without.h, without.kh, without.sh, without.dh,
                           without.pt, without.pb, without.oph) +
                1);
  Slot slot;
  for (int round = 0; round < 2; ++round) {
    checkConvTranspose(without, slot, 40 + round);
    checkConvTranspose(with, slot, 40 + round);
  }
}

TEST(DnnlConvTranspose, ConstantWeightsPerPointer) {
  // Packed W keyed by its pointer: a second W on the same site gets its
  // own entry, and the first stays right.
  for (const ConvTransposeCase *k :
       {&kConvTransposeCases[1], &kConvTransposeCases[10],
        &kConvTransposeCases[12]}) {
    Tensor w1({k->c, k->m / k->group, k->kh, k->kw}, 5),
        w2({k->c, k->m / k->group, k->kh, k->kw}, 6);
    Slot slot;
    for (int round = 0; round < 2; ++round) {
      checkConvTranspose(*k, slot, 300 + round, &w1);
      checkConvTranspose(*k, slot, 400 + round, &w2);
    }
  }
}

TEST(DnnlConvTranspose, WeightsNotConstantAreReadEveryCall) {
  // Without the flag, W at the same pointer with new contents: on the
  // plain path (W read in place) and where oneDNN picks the layouts (W
  // reordered per call).
  for (const ConvTransposeCase *k :
       {&kConvTransposeCases[5], &kConvTransposeCases[0],
        &kConvTransposeCases[18]}) {
    Tensor w({k->c, k->m / k->group, k->kh, k->kw}, 7);
    Slot slot;
    for (int round = 0; round < 3; ++round) {
      w.data = randomVector(w.data.size(), 70 + (unsigned)round);
      checkConvTranspose(*k, slot, 500 + round, &w);
    }
  }
}

TEST(DnnlConvTranspose, RefusesBadShapes) {
  Slot slot;
  // X [1, 2, 4, 4], W [2, 3, 3, 3], stride 2, no pads: 9 rows, up to 10
  // with output_padding 1.
  Tensor x({1, 2, 4, 4}, 1), w({2, 3, 3, 3}, 2);
  auto run = [&](Tensor &y, Tensor &weights, Tensor *bias, int64_t group) {
    return _mlir_ciface_onnxc_dnnl_conv_transpose2d_f32(
        slot.memref(), x.memref(), weights.memref(),
        bias ? bias->memref() : x.memref(), y.memref(), bias ? kBias : 0, 0, 0,
        2, 2, 1, 1, group);
  };
  Tensor largest({1, 3, 10, 10}, std::vector<float>(300, 0.0f));
  EXPECT_EQ(run(largest, w, nullptr, 1), 0);
  // One and two rows past what output_padding allows.
  Tensor tall({1, 3, 11, 10}, std::vector<float>(330, 0.0f));
  EXPECT_EQ(run(tall, w, nullptr, 1), ONNXC_DNNL_ERROR_SHAPE);
  Tensor big({1, 3, 12, 12}, std::vector<float>(432, 0.0f));
  EXPECT_EQ(run(big, w, nullptr, 1), ONNXC_DNNL_ERROR_SHAPE);
  Tensor y({1, 3, 9, 9}, std::vector<float>(243, 0.0f));
  Tensor bias4({4}, 3); // Y has 3 channels
  EXPECT_EQ(run(y, w, &bias4, 1), ONNXC_DNNL_ERROR_SHAPE);
  Tensor w3({3, 3, 3, 3}, 4); // 3 input channels, X has 2
  EXPECT_EQ(run(y, w3, nullptr, 1), ONNXC_DNNL_ERROR_SHAPE);
  // Y's channels not W's M/group times group; a group that does not
  // divide C.
  Tensor y4({1, 4, 9, 9}, std::vector<float>(324, 0.0f));
  EXPECT_EQ(run(y4, w, nullptr, 1), ONNXC_DNNL_ERROR_SHAPE);
  Tensor x3({1, 3, 4, 4}, 5);
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv_transpose2d_f32(
                slot.memref(), x3.memref(), w3.memref(), x3.memref(),
                y.memref(), 0, 0, 0, 2, 2, 1, 1, 2),
            ONNXC_DNNL_ERROR_SHAPE);
  // A stride of 0, the residual flag, a bad slot.
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv_transpose2d_f32(
                slot.memref(), x.memref(), w.memref(), x.memref(), y.memref(),
                0, 0, 0, 0, 2, 1, 1, 1),
            ONNXC_DNNL_ERROR_SHAPE);
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv_transpose2d_f32(
                slot.memref(), x.memref(), w.memref(), x.memref(), y.memref(),
                kRes, 0, 0, 2, 2, 1, 1, 1),
            ONNXC_DNNL_ERROR_ARGUMENT);
  onnxc_unranked_memref badSlot = *x.memref();
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_conv_transpose2d_f32(
                &badSlot, x.memref(), w.memref(), x.memref(), y.memref(), 0, 0,
                0, 2, 2, 1, 1, 1),
            ONNXC_DNNL_ERROR_ARGUMENT);
  for (const Tensor *t : {&tall, &big, &y, &y4})
    for (float v : t->data)
      EXPECT_EQ(v, 0.0f);
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

struct MatMulCase {
  std::vector<int64_t> a, b, bias; // as stored (transposed when flagged)
  int32_t flags;
  float alpha;
  int32_t activation;
  float actAlpha, actBeta;
};

/// `shape` read at dim d of a rank-`rank` shape (leading 1s), or 1.
int64_t dimAt(const std::vector<int64_t> &shape, size_t rank, size_t d) {
  size_t lead = rank - shape.size();
  return d < lead ? 1 : shape[d - lead];
}

/// Offset of Y's batch index `index` (over `yBatch` dims) in an operand of
/// `shape` whose trailing `inner` dims are not batch dims.
int64_t batchOffset(const std::vector<int64_t> &yBatch, int64_t index,
                    const std::vector<int64_t> &shape, size_t inner) {
  size_t rank = yBatch.size() + inner;
  int64_t offset = 0;
  // Row-major strides of `shape` aligned to Y's dims, 0 where broadcast.
  std::vector<int64_t> strides(rank, 0);
  int64_t s = 1;
  for (size_t d = rank; d-- > 0;) {
    int64_t size = dimAt(shape, rank, d);
    strides[d] = size == 1 ? 0 : s;
    s *= size;
  }
  for (size_t d = yBatch.size(); d-- > 0;) {
    int64_t i = index % yBatch[d];
    index /= yBatch[d];
    offset += i * strides[d];
  }
  return offset;
}

std::vector<float> matmulReference(const MatMulCase &k, const Tensor &a,
                                   const Tensor &b, const Tensor &bias,
                                   std::vector<int64_t> &yShape) {
  bool ta = k.flags & ONNXC_DNNL_MATMUL_TRANS_A;
  bool tb = k.flags & ONNXC_DNNL_MATMUL_TRANS_B;
  size_t rank = std::max(k.a.size(), k.b.size());
  int64_t m = ta ? k.a.back() : k.a[k.a.size() - 2];
  int64_t kk = ta ? k.a[k.a.size() - 2] : k.a.back();
  int64_t n = tb ? k.b[k.b.size() - 2] : k.b.back();
  std::vector<int64_t> batch;
  for (size_t d = 0; d + 2 < rank; ++d)
    batch.push_back(std::max(dimAt(k.a, rank, d), dimAt(k.b, rank, d)));
  yShape = batch;
  yShape.push_back(m);
  yShape.push_back(n);
  int64_t batches = volume(batch);
  std::vector<float> y((size_t)(batches * m * n));
  bool hasBias = k.flags & ONNXC_DNNL_MATMUL_BIAS;
  for (int64_t t = 0; t < batches; ++t) {
    const float *ab = a.data.data() + batchOffset(batch, t, k.a, 2);
    const float *bb = b.data.data() + batchOffset(batch, t, k.b, 2);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < kk; ++p)
          sum += (double)(ta ? ab[p * m + i] : ab[i * kk + p]) *
                 (tb ? bb[j * kk + p] : bb[p * n + j]);
        float v = k.alpha * (float)sum;
        if (hasBias) {
          // The bias at Y's index (t, i, j), broadcast.
          std::vector<int64_t> full = batch;
          full.push_back(m);
          full.push_back(n);
          std::vector<int64_t> index(full.size());
          int64_t rest = t;
          for (size_t d = batch.size(); d-- > 0;) {
            index[d] = rest % batch[d];
            rest /= batch[d];
          }
          index[full.size() - 2] = i;
          index[full.size() - 1] = j;
          int64_t offset = 0, s = 1;
          for (size_t d = full.size(); d-- > 0;) {
            int64_t size = dimAt(k.bias, full.size(), d);
            offset += (size == 1 ? 0 : index[d]) * s;
            s *= size;
          }
          v += bias.data[(size_t)offset];
        }
        y[(size_t)((t * m + i) * n + j)] =
            activate(k.activation, v, k.actAlpha, k.actBeta);
      }
  }
  return y;
}

std::string describe(const MatMulCase &k) {
  auto text = [](const std::vector<int64_t> &s) {
    std::string out = "[";
    for (int64_t d : s)
      out += std::to_string(d) + ",";
    return out + "]";
  };
  return "A" + text(k.a) + " B" + text(k.b) + " bias" + text(k.bias) +
         " flags " + std::to_string(k.flags) + " act " +
         std::to_string(k.activation);
}

void checkMatMul(const MatMulCase &k, Slot &slot, unsigned seed,
                 Tensor *constB = nullptr) {
  Tensor a(k.a, seed), fresh(k.b, seed + 1), bias(k.bias, seed + 2);
  Tensor &b = constB ? *constB : fresh;
  std::vector<int64_t> yShape;
  std::vector<float> expected = matmulReference(k, a, b, bias, yShape);
  Tensor y(yShape, std::vector<float>(expected.size(), NAN));
  onnxc_unranked_memref *ar = a.memref();
  int32_t status = _mlir_ciface_onnxc_dnnl_matmul_f32(
      slot.memref(), ar, b.memref(),
      (k.flags & ONNXC_DNNL_MATMUL_BIAS) ? bias.memref() : ar, y.memref(),
      k.flags, k.alpha, k.activation, k.actAlpha, k.actBeta);
  ASSERT_EQ(status, 0) << describe(k);
  expectNear(y.data, expected, describe(k));
}

const int32_t kTA = ONNXC_DNNL_MATMUL_TRANS_A, kTB = ONNXC_DNNL_MATMUL_TRANS_B,
              kMBias = ONNXC_DNNL_MATMUL_BIAS,
              kConstB = ONNXC_DNNL_MATMUL_CONST_B;

// clang-format off
const MatMulCase kMatMulCases[] = {
    // A, B, bias (as stored), flags, alpha, activation
    {{5, 7}, {7, 3}, {}, 0, 1.0f, ONNXC_ACTIVATION_NONE, 0, 0},
    {{7, 5}, {3, 7}, {3}, kTA | kTB | kMBias, 0.5f,
     ONNXC_ACTIVATION_RELU, 0, 0},
    {{5, 7}, {3, 7}, {5, 1}, kTB | kMBias | kConstB, 1.0f,
     ONNXC_ACTIVATION_NONE, 0, 0},
    {{7, 5}, {7, 3}, {5, 3}, kTA | kMBias | kConstB, 2.0f,
     ONNXC_ACTIVATION_LEAKY_RELU, 0.2f, 0},
    {{5, 7}, {7, 3}, {}, kMBias, 1.0f, ONNXC_ACTIVATION_CLIP, -0.5f, 0.5f},
    {{33, 65}, {65, 17}, {17}, kMBias | kConstB, 1.0f,
     ONNXC_ACTIVATION_GELU, 0, 0},
    {{2, 3, 5, 7}, {7, 4}, {4}, kMBias, 1.0f, ONNXC_ACTIVATION_NONE, 0, 0},
    {{1, 3, 5, 7}, {2, 1, 7, 4}, {2, 1, 1, 4}, kMBias, 1.0f,
     ONNXC_ACTIVATION_TANH, 0, 0},
    {{5, 7}, {3, 7, 4}, {3, 5, 4}, kMBias | kConstB, 1.0f,
     ONNXC_ACTIVATION_SIGMOID, 0, 0},
    {{4, 6, 9}, {4, 9, 5}, {6, 1}, kMBias, 0.25f, ONNXC_ACTIVATION_SILU, 0, 0},
    // M = N = 1, transposed.
    {{7, 1}, {1, 7}, {1, 1}, kTA | kTB | kMBias | kConstB, 1.0f,
     ONNXC_ACTIVATION_NONE, 0, 0},
    {{2, 1, 3, 4, 6}, {1, 2, 1, 6, 3}, {}, 0, 1.0f,
     ONNXC_ACTIVATION_FAST_GELU, 0, 0},
};
// clang-format on

TEST(DnnlMatMul, MatchesTheReference) {
  unsigned seed = 1;
  for (const MatMulCase &k : kMatMulCases) {
    Slot slot;
    Tensor b(k.b, seed);
    checkMatMul(k, slot, seed += 10, &b);
    checkMatMul(k, slot, seed += 10, &b); // the cached primitive
  }
}

TEST(DnnlMatMul, CachesShapesAndConstantB) {
  // Dynamic M on one site with a constant B: each M has its entry, B's
  // reorder stays right for all of them.
  Slot slot;
  Tensor b({64, 48}, 7);
  for (int round = 0; round < 2; ++round)
    for (int64_t m : {1, 5, 31}) {
      MatMulCase k{{m, 64}, {64, 48},
                   {48},    kMBias | kConstB,
                   1.0f,    ONNXC_ACTIVATION_RELU,
                   0,       0};
      checkMatMul(k, slot, 50 + (unsigned)m + round, &b);
    }
}

TEST(DnnlMatMul, RefusesBadShapes) {
  Slot slot;
  Tensor a({3, 4}, 1), b({5, 2}, 2), y({3, 2}, std::vector<float>(6, 0.0f));
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_matmul_f32(slot.memref(), a.memref(),
                                               b.memref(), a.memref(),
                                               y.memref(), 0, 1.0f, 0, 0, 0),
            ONNXC_DNNL_ERROR_SHAPE);
  Tensor b4({4, 2}, 3), bias({3, 2, 2}, 4);
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_matmul_f32(
                slot.memref(), a.memref(), b4.memref(), bias.memref(),
                y.memref(), kMBias, 1.0f, 0, 0, 0),
            ONNXC_DNNL_ERROR_SHAPE);
  Tensor bias3({3}, 5); // broadcasts onto N = 2: no
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_matmul_f32(
                slot.memref(), a.memref(), b4.memref(), bias3.memref(),
                y.memref(), kMBias, 1.0f, 0, 0, 0),
            ONNXC_DNNL_ERROR_SHAPE);
  Tensor a3({2, 3, 4}, 6), b3({3, 4, 2}, 7),
      y3({2, 3, 2}, std::vector<float>(12, 0.0f)); // batch 2 vs 3
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_matmul_f32(slot.memref(), a3.memref(),
                                               b3.memref(), a3.memref(),
                                               y3.memref(), 0, 1.0f, 0, 0, 0),
            ONNXC_DNNL_ERROR_SHAPE);
  for (float v : y.data)
    EXPECT_EQ(v, 0.0f);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

struct PoolCase {
  int64_t n, c, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  bool ceil;
  int32_t kind;
};

std::vector<float> poolReference(const PoolCase &k, const Tensor &x, int64_t oh,
                                 int64_t ow) {
  std::vector<float> y((size_t)(k.n * k.c * oh * ow));
  for (int64_t nc = 0; nc < k.n * k.c; ++nc)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        float best = -INFINITY;
        double sum = 0;
        int64_t count = 0;
        for (int64_t r = 0; r < k.kh; ++r)
          for (int64_t s = 0; s < k.kw; ++s) {
            int64_t hi = i * k.sh - k.pt + r * k.dh;
            int64_t wi = j * k.sw - k.pl + s * k.dw;
            if (hi < 0 || hi >= k.h || wi < 0 || wi >= k.w)
              continue;
            float v = x.data[(size_t)((nc * k.h + hi) * k.w + wi)];
            best = std::max(best, v);
            sum += v;
            ++count;
          }
        float out = k.kind == ONNXC_DNNL_POOL_MAX ? best
                    : k.kind == ONNXC_DNNL_POOL_AVG_INCLUDE_PAD
                        ? (float)(sum / (double)(k.kh * k.kw))
                        : (float)(sum / (double)count);
        y[(size_t)((nc * oh + i) * ow + j)] = out;
      }
  return y;
}

TEST(DnnlPool, MatchesTheReference) {
  const PoolCase cases[] = {
      {2, 3, 9, 10, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, ONNXC_DNNL_POOL_MAX},
      {1, 4, 8, 8, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, true, ONNXC_DNNL_POOL_MAX},
      {1, 2, 7, 7, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, false, ONNXC_DNNL_POOL_MAX},
      {1, 3, 11, 9, 3, 2, 1, 2, 2, 3, 2, 1, 2, 1, false, ONNXC_DNNL_POOL_MAX},
      {2, 3, 9, 10, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false,
       ONNXC_DNNL_POOL_AVG_INCLUDE_PAD},
      {2, 3, 9, 10, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false,
       ONNXC_DNNL_POOL_AVG_EXCLUDE_PAD},
      {1, 5, 8, 7, 3, 3, 2, 2, 1, 1, 1, 0, 1, 0, true,
       ONNXC_DNNL_POOL_AVG_EXCLUDE_PAD},
      {1, 5, 6, 6, 6, 6, 1, 1, 1, 1, 0, 0, 0, 0, false,
       ONNXC_DNNL_POOL_AVG_INCLUDE_PAD},
  };
  unsigned seed = 1;
  for (const PoolCase &k : cases) {
    int64_t oh = outSize(k.h, k.kh, k.sh, k.dh, k.pt, k.pb, k.ceil);
    int64_t ow = outSize(k.w, k.kw, k.sw, k.dw, k.pl, k.pr, k.ceil);
    Slot slot;
    for (int round = 0; round < 2; ++round) {
      Tensor x({k.n, k.c, k.h, k.w}, seed++);
      Tensor y({k.n, k.c, oh, ow},
               std::vector<float>((size_t)(k.n * k.c * oh * ow), NAN));
      ASSERT_EQ(_mlir_ciface_onnxc_dnnl_pool2d_f32(
                    slot.memref(), x.memref(), y.memref(), k.kind, k.kh, k.kw,
                    k.pt, k.pl, k.sh, k.sw, k.dh, k.dw),
                0)
          << "case " << seed;
      expectNear(y.data, poolReference(k, x, oh, ow),
                 "pool case " + std::to_string(seed));
    }
  }
}

TEST(DnnlPool, RefusesBadShapes) {
  Slot slot;
  Tensor x({1, 2, 6, 6}, 1);
  Tensor y({1, 3, 3, 3}, std::vector<float>(27, 0.0f)); // 3 channels
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_pool2d_f32(slot.memref(), x.memref(),
                                               y.memref(), 0, 2, 2, 0, 0, 2, 2,
                                               1, 1),
            ONNXC_DNNL_ERROR_SHAPE);
  Tensor y2({1, 2, 3, 3}, std::vector<float>(18, 0.0f));
  // A pad as wide as the window.
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_pool2d_f32(slot.memref(), x.memref(),
                                               y2.memref(), 1, 2, 2, 2, 0, 2, 2,
                                               1, 1),
            ONNXC_DNNL_ERROR_SHAPE);
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_pool2d_f32(slot.memref(), x.memref(),
                                               y2.memref(), 3, 2, 2, 0, 0, 2, 2,
                                               1, 1),
            ONNXC_DNNL_ERROR_ARGUMENT);
  for (float v : y2.data)
    EXPECT_EQ(v, 0.0f);
}

//===----------------------------------------------------------------------===//
// Eltwise
//===----------------------------------------------------------------------===//

struct Activation {
  int32_t kind;
  float alpha, beta;
  bool supported;
};

const Activation kActivations[] = {
    {ONNXC_ACTIVATION_NONE, 0, 0, true},
    {ONNXC_ACTIVATION_RELU, 0, 0, true},
    {ONNXC_ACTIVATION_LEAKY_RELU, 0.01f, 0, true},
    {ONNXC_ACTIVATION_CLIP, -1.5f, 2.0f, true},
    {ONNXC_ACTIVATION_CLIP, 2.0f, 1.0f, true}, // lo > hi: always hi
    {ONNXC_ACTIVATION_CLIP, NAN, 1.0f, false},
    {ONNXC_ACTIVATION_SIGMOID, 0, 0, true},
    {ONNXC_ACTIVATION_TANH, 0, 0, true},
    {ONNXC_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f, false},
    {ONNXC_ACTIVATION_GELU, 0, 0, true},
    {ONNXC_ACTIVATION_FAST_GELU, 0, 0, true},
    {ONNXC_ACTIVATION_SILU, 0, 0, true},
    {ONNXC_ACTIVATION_HARD_SWISH, 1.0f / 6.0f, 0.5f, true},
    {ONNXC_ACTIVATION_HARD_SWISH, 0.2f, 0.5f, false},
    {42, 0, 0, false},
};

TEST(DnnlEltwise, EveryActivation) {
  unsigned seed = 1;
  for (const Activation &act : kActivations) {
    std::string what = "activation " + std::to_string(act.kind);
    EXPECT_EQ(onnxc_dnnl_activation_supported(act.kind, act.alpha, act.beta),
              act.supported ? 1 : 0)
        << what;
    Slot slot;
    Tensor x({3, 5, 7}, seed++, 4.0f);
    Tensor y({3, 5, 7}, std::vector<float>(x.data.size(), NAN));
    int32_t status = _mlir_ciface_onnxc_dnnl_eltwise_f32(
        slot.memref(), x.memref(), y.memref(), act.kind, act.alpha, act.beta);
    if (!act.supported) {
      EXPECT_EQ(status, ONNXC_DNNL_ERROR_ACTIVATION) << what;
      continue;
    }
    ASSERT_EQ(status, 0) << what;
    std::vector<float> expected(x.data.size());
    for (size_t i = 0; i < expected.size(); ++i)
      expected[i] = activate(act.kind, x.data[i], act.alpha, act.beta);
    expectNear(y.data, expected, what);
    // In place, and a rank-0 tensor.
    std::vector<float> before = x.data;
    ASSERT_EQ(_mlir_ciface_onnxc_dnnl_eltwise_f32(slot.memref(), x.memref(),
                                                  x.memref(), act.kind,
                                                  act.alpha, act.beta),
              0);
    expectNear(x.data, expected, what + " in place");
    Tensor s({}, std::vector<float>{-0.75f}), t({}, std::vector<float>{NAN});
    Slot scalarSlot;
    ASSERT_EQ(_mlir_ciface_onnxc_dnnl_eltwise_f32(
                  scalarSlot.memref(), s.memref(), t.memref(), act.kind,
                  act.alpha, act.beta),
              0);
    expectNear(t.data, {activate(act.kind, -0.75f, act.alpha, act.beta)},
               what + " scalar");
  }
}

//===----------------------------------------------------------------------===//
// Normalizations
//===----------------------------------------------------------------------===//

TEST(DnnlBatchNorm, MatchesTheReference) {
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 3, 4, 5}, {4, 3}, {2, 3, 2, 2, 3}, {1, 7, 9}};
  unsigned seed = 1;
  for (const auto &shape : shapes) {
    int64_t c = shape[1], inner = volume(shape) / shape[0] / c;
    Tensor x(shape, seed++, 3.0f), scale({c}, seed++), bias({c}, seed++),
        mean({c}, seed++);
    Tensor var({c}, randomVector((size_t)c, seed++));
    for (float &v : var.data)
      v = std::fabs(v) + 0.1f;
    Tensor y(shape, std::vector<float>(x.data.size(), NAN));
    const float eps = 1e-3f;
    Slot slot;
    ASSERT_EQ(_mlir_ciface_onnxc_dnnl_batchnorm_f32(
                  slot.memref(), x.memref(), scale.memref(), bias.memref(),
                  mean.memref(), var.memref(), y.memref(), eps),
              0);
    std::vector<float> expected(x.data.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      size_t ch = (size_t)((int64_t)i / inner % c);
      expected[i] = (x.data[i] - mean.data[ch]) /
                        std::sqrt(var.data[ch] + eps) * scale.data[ch] +
                    bias.data[ch];
    }
    expectNear(y.data, expected,
               "batchnorm rank " + std::to_string(shape.size()));
  }
  Slot slot;
  Tensor x({2, 3, 4}, 1), p({4}, 2), y({2, 3, 4}, 3);
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_batchnorm_f32(
                slot.memref(), x.memref(), p.memref(), p.memref(), p.memref(),
                p.memref(), y.memref(), 1e-5f),
            ONNXC_DNNL_ERROR_SHAPE);
}

TEST(DnnlLayerNorm, MatchesTheReference) {
  const std::vector<std::vector<int64_t>> shapes = {{2, 3, 8}, {5}, {7, 33}};
  unsigned seed = 1;
  for (const auto &shape : shapes)
    for (int32_t flags : {0, (int)ONNXC_DNNL_LAYERNORM_BIAS}) {
      int64_t d = shape.back(), rows = volume(shape) / d;
      Tensor x(shape, seed++, 3.0f), scale({d}, seed++), bias({d}, seed++);
      Tensor y(shape, std::vector<float>(x.data.size(), NAN));
      const float eps = 1e-5f;
      Slot slot;
      onnxc_unranked_memref *xr = x.memref();
      ASSERT_EQ(_mlir_ciface_onnxc_dnnl_layernorm_f32(
                    slot.memref(), xr, scale.memref(),
                    flags ? bias.memref() : xr, y.memref(), flags, eps),
                0);
      std::vector<float> expected(x.data.size());
      for (int64_t r = 0; r < rows; ++r) {
        const float *row = x.data.data() + r * d;
        double mean = 0, var = 0;
        for (int64_t i = 0; i < d; ++i)
          mean += row[i];
        mean /= (double)d;
        for (int64_t i = 0; i < d; ++i)
          var += (row[i] - mean) * (row[i] - mean);
        var /= (double)d;
        for (int64_t i = 0; i < d; ++i)
          expected[(size_t)(r * d + i)] =
              (float)((row[i] - mean) / std::sqrt(var + eps)) * scale.data[i] +
              (flags ? bias.data[i] : 0.0f);
      }
      expectNear(y.data, expected,
                 "layernorm " + std::to_string(shape.size()) + " flags " +
                     std::to_string(flags));
    }
  Slot slot;
  Tensor x({2, 8}, 1), scale({7}, 2), y({2, 8}, 3);
  EXPECT_EQ(_mlir_ciface_onnxc_dnnl_layernorm_f32(slot.memref(), x.memref(),
                                                  scale.memref(), x.memref(),
                                                  y.memref(), 0, 1e-5f),
            ONNXC_DNNL_ERROR_SHAPE);
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

TEST(DnnlThreads, FourThreadsOnOneSlot) {
  // Fresh slots, so the first runs race on the slot and on the inserts;
  // two shapes per site, so lookups and inserts interleave.
  Slot convSlot, chosenSlot, matmulSlot;
  ConvCase a = kConvCases[2], b = kConvCases[2];
  b.h = 13;
  b.w = 6;
  Tensor weights({a.m, a.c / a.group, a.kh, a.kw}, 9); // constant, shared
  weights.memref();
  // Temporaries and reorders on every call, a residual among them.
  const ConvCase &c = kChosenLayoutCases[1];
  std::atomic<int> ready{0};
  std::atomic<int> failures{0};
  auto work = [&](int id) {
    ready.fetch_add(1);
    while (ready.load() < 4) {
    }
    for (int round = 0; round < 8; ++round) {
      const ConvCase &k = (round + id) % 2 ? a : b;
      checkConv(k, convSlot, 1000u * (unsigned)id + (unsigned)round, &weights);
      checkConv(c, chosenSlot, 3000u * (unsigned)id + (unsigned)round);
      int64_t m = (round + id) % 2 ? 3 : 20;
      MatMulCase mm{
          {m, 40}, {40, 24}, {24}, kMBias, 1.0f, ONNXC_ACTIVATION_TANH, 0, 0};
      checkMatMul(mm, matmulSlot, 2000u * (unsigned)id + (unsigned)round);
      if (::testing::Test::HasFailure())
        failures.fetch_add(1);
    }
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < 4; ++id)
    threads.emplace_back(work, id);
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
}

} // namespace
