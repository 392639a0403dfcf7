//===- ConvNchwcTest.cpp - The NCHWc convolution vs plain loops -----------===//
//
// Every micro-kernel variant the CPU runs (forced through
// onnxc_sgemm_force_isa) against onnxc_conv_nchwc_reference: odd spatial
// sizes, channel counts that are not multiples of 16 (with X's padding lanes
// holding NaN and inf, which must not reach a real output channel), strides,
// pads, dilations, kernel sizes 1 to 7, depthwise, every epilogue, 1 to 4
// threads; Winograd F(2x2, 3x3) on the same operands, its weights
// transformed by ConvWinogradWeights.h. Then the entry point of lowered code
// (geometry read from memref descriptors, a mismatch giving NaN).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/kernels/ConvNchwc.h"
#include "KernelTestUtils.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cpu/ThreadPool.h"
#include "runtime/cpu/kernels/ConvWinogradWeights.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using onnxc::test::supportedIsas;

constexpr int64_t B = ONNXC_NCHWC_BLOCK;

int64_t blocks(int64_t channels) { return (channels + B - 1) / B; }

struct ConvCase {
  int64_t batch, c, m, h, w, kh, kw;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  bool depthwise = false, bias = true, residual = false;
  bool nchwInput = false; // the kernel reads X as plain [N][C][H][W]
  int32_t activation = ONNXC_ACTIVATION_NONE;
  float alpha = 0.0f, beta = 0.0f;
};

std::string describe(const ConvCase &c) {
  return "N=" + std::to_string(c.batch) + " C=" + std::to_string(c.c) +
         " M=" + std::to_string(c.m) + " HxW=" + std::to_string(c.h) + "x" +
         std::to_string(c.w) + " K=" + std::to_string(c.kh) + "x" +
         std::to_string(c.kw) + " s=" + std::to_string(c.sh) + "," +
         std::to_string(c.sw) + " d=" + std::to_string(c.dh) + "," +
         std::to_string(c.dw) + " pads=" + std::to_string(c.pt) + "," +
         std::to_string(c.pl) + "," + std::to_string(c.pb) + "," +
         std::to_string(c.pr) + " dw=" + std::to_string(c.depthwise) +
         " bias=" + std::to_string(c.bias) +
         " z=" + std::to_string(c.residual) +
         " nchw=" + std::to_string(c.nchwInput) +
         " act=" + std::to_string(c.activation);
}

onnxc_conv_nchwc_shape shapeOf(const ConvCase &c) {
  onnxc_conv_nchwc_shape s{};
  s.batch = c.batch;
  s.in_channels = c.c;
  s.out_channels = c.m;
  s.in_h = c.h;
  s.in_w = c.w;
  s.out_h = (c.h + c.pt + c.pb - (c.kh - 1) * c.dh - 1) / c.sh + 1;
  s.out_w = (c.w + c.pl + c.pr - (c.kw - 1) * c.dw - 1) / c.sw + 1;
  s.kernel_h = c.kh;
  s.kernel_w = c.kw;
  s.stride_h = c.sh;
  s.stride_w = c.sw;
  s.dilation_h = c.dh;
  s.dilation_w = c.dw;
  s.pad_top = c.pt;
  s.pad_left = c.pl;
  s.depthwise = c.depthwise;
  return s;
}

/// Blocked operands: random where a channel is real; X's padding lanes hold
/// NaN and inf, the weights' and bias's are zero (as NchwcLayout makes them).
struct Operands {
  std::vector<float> x, w, bias, z;

  Operands(const ConvCase &c, const onnxc_conv_nchwc_shape &s) {
    std::mt19937 rng(1234);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    float inf = std::numeric_limits<float>::infinity();
    float nan = std::numeric_limits<float>::quiet_NaN();
    int64_t cb = blocks(c.c), mb = blocks(c.m);
    x.resize(c.batch * cb * c.h * c.w * B);
    for (size_t i = 0; i < x.size(); ++i) {
      int64_t lane = i % B, block = (i / B / (c.h * c.w)) % cb;
      bool real = block * B + lane < c.c;
      x[i] = real ? dist(rng) : (i % 2 ? nan : inf);
    }
    int64_t taps = c.kh * c.kw;
    if (c.depthwise) {
      w.assign(cb * taps * B, 0.0f);
      for (size_t i = 0; i < w.size(); ++i)
        if ((int64_t)(i / (taps * B)) * B + (int64_t)(i % B) < c.c)
          w[i] = dist(rng);
    } else {
      w.assign(mb * cb * taps * B * B, 0.0f);
      for (size_t i = 0; i < w.size(); ++i) {
        int64_t mo = i % B, ci = (i / B) % B;
        int64_t cBlock = (i / (taps * B * B)) % cb;
        int64_t mBlock = i / (cb * taps * B * B);
        if (mBlock * B + mo < c.m && cBlock * B + ci < c.c)
          w[i] = dist(rng);
      }
    }
    bias.assign(mb * B, 0.0f);
    for (int64_t i = 0; i < c.m; ++i)
      bias[i] = dist(rng);
    z.resize(c.batch * mb * s.out_h * s.out_w * B);
    for (float &v : z)
      v = dist(rng);
  }

  /// X's true channels as a plain [N][C][H][W] tensor.
  std::vector<float> plainX(const ConvCase &c) const {
    int64_t plane = c.h * c.w;
    std::vector<float> plain(c.batch * c.c * plane);
    for (int64_t n = 0; n < c.batch; ++n)
      for (int64_t ch = 0; ch < c.c; ++ch)
        for (int64_t i = 0; i < plane; ++i)
          plain[(n * c.c + ch) * plane + i] =
              x[((n * blocks(c.c) + ch / B) * plane + i) * B + ch % B];
    return plain;
  }
};

/// Runs `c` on `isa` with `threads` threads (by Winograd F(T x T, 3x3) with
/// `winogradTile` T = 2 or 4) and compares the real output channels with the
/// reference.
void checkCase(const ConvCase &c, int isa, int threads, int winogradTile = 0) {
  SCOPED_TRACE(
      describe(c) + " isa=" + onnxc_sgemm_isa_name(isa) +
      " threads=" + std::to_string(threads) +
      (winogradTile ? " winograd" + std::to_string(winogradTile) : ""));
  onnxc_conv_nchwc_shape s = shapeOf(c);
  Operands ops(c, s);
  onnxc_sgemm_epilogue e{};
  e.activation = c.activation;
  e.activation_alpha = c.alpha;
  e.activation_beta = c.beta;
  size_t ySize = ops.z.size();
  std::vector<float> expected(ySize, 0.0f), actual(ySize, -7.0f);
  const float *bias = c.bias ? ops.bias.data() : nullptr;
  const float *z = c.residual ? ops.z.data() : nullptr;
  onnxc_conv_nchwc_reference(&s, ops.x.data(), ops.w.data(), bias, z,
                             expected.data(), &e);
  // The expected values come from the blocked X; the kernel reads the same
  // channels from the plain one.
  std::vector<float> plain;
  const float *x = ops.x.data();
  if (c.nchwInput) {
    plain = ops.plainX(c);
    x = plain.data();
    s.nchw_input = 1;
  }
  ASSERT_TRUE(onnxc_sgemm_force_isa(isa));
  onnxc_set_num_threads(threads);
  if (winogradTile) {
    ASSERT_TRUE(onnxc_conv_nchwc_winograd_applies(&s));
    std::vector<float> u(
        onnxc_conv_winograd_weight_floats(winogradTile, c.c, c.m));
    onnxc_conv_winograd_weights(winogradTile, c.c, c.m, ops.w.data(), u.data());
    ASSERT_EQ(onnxc_conv_nchwc_winograd(&s, winogradTile, ops.x.data(),
                                        u.data(), bias, z, actual.data(), &e,
                                        0),
              1);
  } else {
    onnxc_conv_nchwc(&s, x, ops.w.data(), bias, z, actual.data(), &e, 0);
  }
  onnxc_set_num_threads(0);
  onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
  int64_t terms = (c.depthwise ? 1 : c.c) * c.kh * c.kw;
  double tolerance = 1e-5 * std::sqrt((double)terms) + 1e-6;
  // F(4x4)'s transforms scale the values by up to 8 and 1/24 before they
  // round (ConvNchwc.h): a few times the rounding of the other forms.
  if (winogradTile == 4)
    tolerance *= 2;
  int64_t mismatches = 0;
  for (size_t i = 0; i < ySize && mismatches < 5; ++i) {
    int64_t lane = i % B, block = (i / B / (s.out_h * s.out_w)) % blocks(c.m);
    if (block * B + lane >= c.m)
      continue; // Y's padding lanes are unspecified
    float want = expected[i], got = actual[i];
    bool same = std::isnan(want) ? std::isnan(got)
                                 : std::fabs(got - want) <=
                                       tolerance * (1.0 + std::fabs(want));
    if (!same) {
      ++mismatches;
      ADD_FAILURE() << "element " << i << ": got " << got << ", want " << want;
    }
  }
}

class ConvNchwcIsaTest : public ::testing::TestWithParam<int> {};

/// Runs `check` with narrow maps gathered into columns, then with them run
/// in their own rows (onnxc_conv_nchwc_force_direct).
template <typename Check> void bothPaths(Check check) {
  for (int direct : {0, 1}) {
    SCOPED_TRACE(direct ? "direct" : "columns");
    onnxc_conv_nchwc_force_direct(direct);
    check();
  }
  onnxc_conv_nchwc_force_direct(0);
}

TEST_P(ConvNchwcIsaTest, KernelSizesStridesPadsDilations) {
  std::vector<ConvCase> cases;
  for (int64_t k : {1, 3, 5, 7})
    for (int64_t stride : {1, 2}) {
      ConvCase c{1, 19, 21, 13, 17, k, k};
      c.sh = c.sw = stride;
      c.pt = c.pl = c.pb = c.pr = k / 2;
      cases.push_back(c);
    }
  ConvCase dilated{1, 16, 32, 11, 14, 3, 3};
  dilated.dh = 2;
  dilated.dw = 3;
  dilated.pt = 1, dilated.pl = 3, dilated.pb = 2, dilated.pr = 0;
  cases.push_back(dilated);
  ConvCase asymmetric{2, 40, 24, 9, 30, 3, 5};
  asymmetric.sh = 2, asymmetric.sw = 3;
  asymmetric.pt = 0, asymmetric.pl = 2, asymmetric.pb = 1, asymmetric.pr = 1;
  cases.push_back(asymmetric);
  ConvCase wide{1, 8, 48, 5, 40, 1, 3}; // several tiles per row, C < 16
  wide.pl = wide.pr = 1;
  cases.push_back(wide);
  ConvCase bigPad{1, 12, 9, 3, 4, 3, 3}; // windows wider than the input
  bigPad.pt = bigPad.pl = bigPad.pb = bigPad.pr = 3;
  cases.push_back(bigPad);
  for (int64_t c : {3, 35}) { // an RGB stem; 3 lanes in a last block
    ConvCase stem{1, c, 64, 30, 34, 7, 7};
    stem.sh = stem.sw = 2;
    stem.pt = stem.pl = stem.pb = stem.pr = 3;
    stem.activation = ONNXC_ACTIVATION_RELU;
    cases.push_back(stem);
  }
  ConvCase oneD{2, 33, 50, 1, 37, 1, 5}; // 1-D: H = KH = 1
  oneD.sw = 2, oneD.pl = 2, oneD.pr = 2;
  cases.push_back(oneD);
  bothPaths([&] {
    for (const ConvCase &c : cases)
      checkCase(c, GetParam(), 1);
  });
}

TEST_P(ConvNchwcIsaTest, OneByOneFastPath) {
  for (int64_t c : {16, 24, 64, 17})
    for (int64_t m : {16, 40, 9}) {
      checkCase({1, c, m, 7, 9, 1, 1}, GetParam(), 1);
      checkCase({2, c, m, 14, 14, 1, 1}, GetParam(), 1);
    }
  ConvCase strided{1, 32, 48, 15, 15, 1, 1}; // copied at the strides
  strided.sh = strided.sw = 2;
  checkCase(strided, GetParam(), 1);
  // Strides 2 and 3, an end pad (the last row and column read past X: bias
  // only), a residual, two images and threads.
  ConvCase padded{2, 40, 36, 10, 11, 1, 1};
  padded.sh = 2, padded.sw = 3;
  padded.pb = padded.pr = 1;
  padded.residual = true;
  for (int threads : {1, 3})
    checkCase(padded, GetParam(), threads);
  ConvCase wide{1, 24, 16, 9, 120, 1, 1}; // a wide map keeps its rows
  wide.sh = wide.sw = 2;
  checkCase(wide, GetParam(), 1);
}

// The register tile is chosen per convolution (1 to 4 output blocks, up to
// 12 pixels, cut into tiles of equal width): every output block count with
// row widths 1 to 30 reaches every tile shape and width, with strides 1 and
// 2 (constant in the kernel) and 3 (read from the shape), and channel counts
// with and without a partial input block. Rows of 60 have few enough edge
// pixels to be computed without the padded copy of X. Rows narrower than 4
// tiles are gathered into columns by default: both paths are run.
TEST_P(ConvNchwcIsaTest, EveryTileShape) {
  bothPaths([&] {
    for (int64_t m : {16, 32, 48, 64, 80, 112, 144})
      for (int64_t w : {1, 5, 7, 11, 14, 23, 30, 60})
        for (int64_t stride : {1, 2, 3}) {
          ConvCase c{1, m == 48 ? 21 : 32, m, 3, w * stride, 3, 3};
          c.sh = c.sw = stride;
          c.pt = c.pl = c.pb = c.pr = 1;
          c.residual = m == 80;
          checkCase(c, GetParam(), 1);
        }
  });
  // 1x1: one long flattened row, and a strided one.
  for (int64_t m : {16, 48, 64, 144}) {
    checkCase({1, 40, m, 7, 7, 1, 1}, GetParam(), 1);
    ConvCase strided{1, 40, m, 14, 14, 1, 1};
    strided.sh = strided.sw = 2;
    checkCase(strided, GetParam(), 1);
  }
}

// Weights over the cache budget walk the output blocks outermost; small
// maps with several threads cut rows into chunks; weights that outweigh X
// give each thread whole groups of output blocks.
TEST_P(ConvNchwcIsaTest, LargeWeightsAndSmallMaps) {
  for (int threads : {1, 2, 3}) {
    checkCase({1, 1024, 512, 3, 3, 1, 1}, GetParam(), threads); // 2 MB
    checkCase({2, 1024, 520, 3, 3, 1, 1}, GetParam(), threads); // partial
    ConvCase wide{1, 256, 512, 4, 4, 3, 3};                     // 4.7 MB
    wide.pt = wide.pl = wide.pb = wide.pr = 1;
    wide.residual = true;
    checkCase(wide, GetParam(), threads);
    ConvCase odd{1, 256, 192, 4, 4, 3, 3}; // groups re-cut for the threads
    odd.pt = odd.pl = odd.pb = odd.pr = 1;
    checkCase(odd, GetParam(), threads);
  }
  ConvCase large{1, 256, 272, 5, 6, 3, 3}; // 2.6 MB of weights
  large.pt = large.pl = large.pb = large.pr = 1;
  checkCase(large, GetParam(), 1);
  checkCase(large, GetParam(), 3);
  for (int threads : {1, 2, 3}) {
    checkCase({1, 64, 512, 7, 7, 1, 1}, GetParam(), threads);
    ConvCase c{1, 48, 256, 7, 7, 3, 3};
    c.pt = c.pl = c.pb = c.pr = 1;
    checkCase(c, GetParam(), threads);
  }
}

TEST_P(ConvNchwcIsaTest, Depthwise) {
  for (int64_t channels : {16, 24, 96, 9})
    for (int64_t k : {3, 5})
      for (int64_t stride : {1, 2}) {
        ConvCase c{1, channels, channels, 15, 20, k, k};
        c.depthwise = true;
        c.sh = c.sw = stride;
        c.pt = c.pl = c.pb = c.pr = k / 2;
        c.activation = ONNXC_ACTIVATION_CLIP;
        c.alpha = 0.0f, c.beta = 0.5f;
        checkCase(c, GetParam(), 1);
      }
  // 3-wide kernels take dw_slide_tile where the ISA has one: rows whose
  // interior is shorter than, a multiple of, and not a multiple of its
  // tile, with and without bias and Z, no padding, and an odd end pad.
  for (int64_t width : {4, 6, 9, 13, 34})
    for (int64_t stride : {1, 2})
      for (bool residual : {false, true}) {
        ConvCase c{1, 40, 40, 5, width, 3, 3};
        c.depthwise = true;
        c.sh = c.sw = stride;
        c.pl = c.pt = residual ? 0 : 1;
        c.pr = c.pb = stride == 2 ? 0 : 1;
        c.bias = !residual;
        c.residual = residual;
        checkCase(c, GetParam(), 1);
      }
  ConvCase dilated{2, 32, 32, 12, 11, 3, 3};
  dilated.depthwise = true;
  dilated.dh = 2, dilated.dw = 3;
  dilated.pt = 2, dilated.pl = 1, dilated.pb = 0, dilated.pr = 3;
  dilated.residual = true;
  checkCase(dilated, GetParam(), 1);
  ConvCase oneD{1, 20, 20, 1, 33, 1, 7};
  oneD.depthwise = true;
  oneD.pl = 3, oneD.pr = 3;
  oneD.bias = false;
  checkCase(oneD, GetParam(), 1);
}

TEST_P(ConvNchwcIsaTest, EveryEpilogue) {
  struct Act {
    int32_t kind;
    float alpha, beta;
  };
  for (Act act :
       {Act{ONNXC_ACTIVATION_NONE, 0, 0}, Act{ONNXC_ACTIVATION_RELU, 0, 0},
        Act{ONNXC_ACTIVATION_LEAKY_RELU, 0.1f, 0},
        Act{ONNXC_ACTIVATION_CLIP, -0.5f, 0.75f},
        Act{ONNXC_ACTIVATION_SIGMOID, 0, 0}, Act{ONNXC_ACTIVATION_TANH, 0, 0},
        Act{ONNXC_ACTIVATION_HARD_SIGMOID, 0.2f, 0.5f},
        Act{ONNXC_ACTIVATION_GELU, 0, 0}, Act{ONNXC_ACTIVATION_FAST_GELU, 0, 0},
        Act{ONNXC_ACTIVATION_SILU, 0, 0},
        Act{ONNXC_ACTIVATION_HARD_SWISH, 1.0f / 6.0f, 0.5f}})
    for (bool bias : {false, true})
      for (bool residual : {false, true}) {
        ConvCase c{1, 20, 35, 6, 13, 3, 3};
        c.pt = c.pl = c.pb = c.pr = 1;
        c.bias = bias;
        c.residual = residual;
        c.activation = act.kind;
        c.alpha = act.alpha;
        c.beta = act.beta;
        checkCase(c, GetParam(), 1);
        c.depthwise = true;
        c.m = c.c;
        checkCase(c, GetParam(), 1);
      }
}

// X read as plain NCHW (an RGB stem's image, not reordered first): the
// stems of ResNet (7x7 s2) and MobileNet/EfficientNet (3x3 s2), 1 to 19
// channels (a second, partial block), every tile width with strides 1 to 3,
// a 1x1 (flattened rows), dilations and asymmetric pads, Z, batches and
// threads.
TEST_P(ConvNchwcIsaTest, PlainInput) {
  std::vector<ConvCase> cases;
  for (int64_t channels : {1, 3, 8, 16, 19}) {
    ConvCase resnet{2, channels, 64, 30, 34, 7, 7};
    resnet.sh = resnet.sw = 2;
    resnet.pt = resnet.pl = resnet.pb = resnet.pr = 3;
    resnet.activation = ONNXC_ACTIVATION_RELU;
    cases.push_back(resnet);
    ConvCase mobilenet{1, channels, 32, 32, 32, 3, 3};
    mobilenet.sh = mobilenet.sw = 2;
    mobilenet.pt = mobilenet.pl = mobilenet.pb = mobilenet.pr = 1;
    mobilenet.activation = ONNXC_ACTIVATION_CLIP;
    mobilenet.alpha = 0.0f, mobilenet.beta = 6.0f;
    cases.push_back(mobilenet);
  }
  for (int64_t w : {1, 5, 7, 11, 14, 23, 30})
    for (int64_t stride : {1, 2, 3}) {
      ConvCase c{1, 3, w == 7 ? 8 : 32, 4, w * stride, 3, 3};
      c.sh = c.sw = stride;
      c.pt = c.pl = c.pb = c.pr = 1;
      c.residual = w == 11;
      c.activation = w == 14 ? ONNXC_ACTIVATION_SILU : ONNXC_ACTIVATION_NONE;
      cases.push_back(c);
    }
  cases.push_back({2, 3, 24, 9, 13, 1, 1});
  ConvCase dilated{1, 5, 40, 11, 14, 3, 3};
  dilated.dh = 2, dilated.dw = 3;
  dilated.pt = 1, dilated.pl = 3, dilated.pb = 2, dilated.pr = 0;
  cases.push_back(dilated);
  for (ConvCase &c : cases) {
    c.nchwInput = true;
    checkCase(c, GetParam(), 1);
  }
  ConvCase big{3, 3, 32, 40, 40, 3, 3}; // > 1 MFLOP: spread over threads
  big.sh = big.sw = 2;
  big.pt = big.pl = big.pb = big.pr = 1;
  big.nchwInput = true;
  for (int threads : {2, 3})
    checkCase(big, GetParam(), threads);
}

TEST_P(ConvNchwcIsaTest, SeveralThreads) {
  for (int threads : {2, 3, 4}) {
    ConvCase c{2, 48, 80, 10, 11, 3, 3};
    c.pt = c.pl = c.pb = c.pr = 1;
    c.residual = true;
    c.activation = ONNXC_ACTIVATION_RELU;
    checkCase(c, GetParam(), threads);
    checkCase({1, 64, 64, 28, 28, 1, 1}, GetParam(), threads); // flat rows
    // Depthwise, large enough (> 1 MFLOP) to be spread over the threads.
    ConvCase d{2, 48, 48, 40, 37, 3, 3};
    d.depthwise = true;
    d.pt = d.pl = d.pb = d.pr = 1;
    d.residual = true;
    checkCase(d, GetParam(), threads);
  }
}

// Winograd F(2x2, 3x3): odd output sizes (a last tile half outside Y), no,
// symmetric and asymmetric pads (tiles reading past X's edges), channel
// counts with partial blocks (NaN and inf in X's padding lanes must not
// reach Y), two images, Z, every activation kind the epilogue switches on,
// bands of tiles cut for 1 to 3 threads, and weights over 1 MB (wider
// bands). The output transform adds before it rounds, so it is checked to
// the same tolerance as the direct kernel.
TEST_P(ConvNchwcIsaTest, Winograd) {
  std::vector<ConvCase> cases;
  for (int64_t pad : {0, 1, 2}) {
    ConvCase c{1, 32, 32, 9, 12, 3, 3};
    c.pt = c.pl = c.pb = c.pr = pad;
    cases.push_back(c);
  }
  ConvCase asymmetric{2, 19, 40, 11, 8, 3, 3};
  asymmetric.pt = 0, asymmetric.pl = 2, asymmetric.pb = 1, asymmetric.pr = 0;
  asymmetric.residual = true;
  asymmetric.activation = ONNXC_ACTIVATION_RELU;
  cases.push_back(asymmetric);
  ConvCase clip{1, 33, 17, 13, 13, 3, 3};
  clip.pt = clip.pl = clip.pb = clip.pr = 1;
  clip.activation = ONNXC_ACTIVATION_CLIP;
  clip.alpha = -0.25f, clip.beta = 0.5f;
  cases.push_back(clip);
  ConvCase silu{1, 48, 64, 6, 7, 3, 3};
  silu.pt = silu.pl = silu.pb = silu.pr = 1;
  silu.bias = false;
  silu.activation = ONNXC_ACTIVATION_SILU;
  cases.push_back(silu);
  for (int tile : {2, 4})
    for (const ConvCase &c : cases)
      checkCase(c, GetParam(), 1, tile);
  for (int tile : {2, 4})
    for (int threads : {1, 2, 3}) {
      ConvCase resnet{1, 64, 64, 28, 28, 3, 3}; // bands of a 14 x 14 tile grid
      resnet.pt = resnet.pl = resnet.pb = resnet.pr = 1;
      resnet.residual = true;
      resnet.activation = ONNXC_ACTIVATION_RELU;
      checkCase(resnet, GetParam(), threads, tile);
      ConvCase large{2, 272, 264, 10, 9, 3, 3}; // U of 4.6 MB
      large.pt = large.pl = large.pb = large.pr = 1;
      checkCase(large, GetParam(), threads, tile);
      checkCase({1, 40, 24, 4, 4, 3, 3}, GetParam(), threads, tile); // 1 tile
      // Three images of 30 tiles each, with Z and an activation.
      ConvCase images{3, 48, 40, 9, 11, 3, 3};
      images.pt = images.pl = images.pb = images.pr = 1;
      images.residual = true;
      images.activation = ONNXC_ACTIVATION_RELU;
      checkCase(images, GetParam(), threads, tile);
    }
}

INSTANTIATE_TEST_SUITE_P(SupportedIsas, ConvNchwcIsaTest,
                         ::testing::ValuesIn(supportedIsas()),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::string(onnxc_sgemm_isa_name(info.param));
                         });

/// Y's real output channels against `expected`, to 1e-4 (the entry-point
/// tests: Y's padding lanes are unspecified).
::testing::AssertionResult realChannelsNear(const std::vector<float> &actual,
                                            const std::vector<float> &expected,
                                            const onnxc_conv_nchwc_shape &s) {
  int64_t mb = blocks(s.out_channels);
  for (size_t i = 0; i < actual.size(); ++i) {
    int64_t block = (int64_t)(i / B / (s.out_h * s.out_w)) % mb;
    if (block * B + (int64_t)(i % B) < s.out_channels &&
        !(std::fabs(actual[i] - expected[i]) <= 1e-4))
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << actual[i] << ", want "
             << expected[i];
  }
  return ::testing::AssertionSuccess();
}

/// Whether every value is NaN (a geometry the entry point rejected).
::testing::AssertionResult allNan(const std::vector<float> &values) {
  for (size_t i = 0; i < values.size(); ++i)
    if (!std::isnan(values[i]))
      return ::testing::AssertionFailure()
             << "element " << i << " is " << values[i] << ", not NaN";
  return ::testing::AssertionSuccess();
}

/// A dense memref descriptor of any rank, as lowered code passes it.
struct Memref {
  std::vector<int64_t> descriptor;
  onnxc_unranked_memref ref;

  Memref(float *data, const std::vector<int64_t> &shape) {
    int64_t rank = shape.size();
    descriptor.resize(3 + 2 * rank);
    descriptor[0] = descriptor[1] = reinterpret_cast<intptr_t>(data);
    descriptor[2] = 0;
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      descriptor[3 + d] = shape[d];
      descriptor[3 + rank + d] = stride;
      stride *= shape[d];
    }
    ref.rank = rank;
    ref.descriptor = descriptor.data();
  }
};

TEST(ConvNchwcEntry, GeometryFromDescriptors) {
  for (bool depthwise : {false, true}) {
    SCOPED_TRACE(depthwise ? "depthwise" : "group 1");
    ConvCase c{2, 24, depthwise ? 24 : 40, 9, 10, 3, 3};
    c.depthwise = depthwise;
    c.sh = 2, c.sw = 1, c.dh = 1, c.dw = 2;
    c.pt = 1, c.pl = 2, c.pb = 1, c.pr = 2;
    c.residual = true;
    c.activation = ONNXC_ACTIVATION_LEAKY_RELU;
    c.alpha = 0.3f;
    onnxc_conv_nchwc_shape s = shapeOf(c);
    Operands ops(c, s);
    std::vector<float> expected(ops.z.size()), actual(ops.z.size());
    onnxc_sgemm_epilogue e{};
    e.activation = c.activation;
    e.activation_alpha = c.alpha;
    onnxc_conv_nchwc_reference(&s, ops.x.data(), ops.w.data(), ops.bias.data(),
                               ops.z.data(), expected.data(), &e);
    int64_t cb = blocks(c.c), mb = blocks(c.m);
    Memref x(ops.x.data(), {c.batch, cb, c.h, c.w, B});
    Memref w(ops.w.data(),
             depthwise ? std::vector<int64_t>{cb, c.kh, c.kw, B}
                       : std::vector<int64_t>{mb, cb, c.kh, c.kw, B, B});
    Memref bias(ops.bias.data(), {mb, B});
    std::vector<int64_t> yShape{c.batch, mb, s.out_h, s.out_w, B};
    Memref z(ops.z.data(), yShape), y(actual.data(), yShape);
    int32_t flags = ONNXC_CONV_NCHWC_BIAS | ONNXC_CONV_NCHWC_RESIDUAL |
                    (depthwise ? ONNXC_CONV_NCHWC_DEPTHWISE : 0);
    _mlir_ciface_onnxc_rt_conv_nchwc_f32(
        &x.ref, &w.ref, &bias.ref, &z.ref, &y.ref, flags, c.c, c.m, c.sh, c.sw,
        c.dh, c.dw, c.pt, c.pl, c.activation, c.alpha, 0.0f);
    ASSERT_TRUE(realChannelsNear(actual, expected, s));

    // W of the wrong shape for these channel counts: Y is NaN.
    _mlir_ciface_onnxc_rt_conv_nchwc_f32(
        &x.ref, &w.ref, &bias.ref, &z.ref, &y.ref, flags, c.c + 16, c.m, c.sh,
        c.sw, c.dh, c.dw, c.pt, c.pl, c.activation, c.alpha, 0.0f);
    ASSERT_TRUE(allNan(actual));
  }
}

// A plain NCHW X (ONNXC_CONV_NCHWC_NCHW_INPUT), 2-D and 1-D: one dim less
// than a blocked X, holding the true channels only. A channel count that
// disagrees with X, or the flag with depthwise weights, gives NaN.
TEST(ConvNchwcEntry, PlainInput) {
  for (int64_t h : {7, 1}) {
    SCOPED_TRACE(h == 1 ? "1-D" : "2-D");
    ConvCase c{2, 3, 20, h, 11, h == 1 ? 1 : 3, 3};
    c.sh = h == 1 ? 1 : 2, c.sw = 2;
    c.pt = c.pb = h == 1 ? 0 : 1, c.pl = c.pr = 1;
    c.residual = true;
    c.activation = ONNXC_ACTIVATION_RELU;
    onnxc_conv_nchwc_shape s = shapeOf(c);
    Operands ops(c, s);
    std::vector<float> expected(ops.z.size()), actual(ops.z.size());
    onnxc_sgemm_epilogue e{};
    e.activation = c.activation;
    onnxc_conv_nchwc_reference(&s, ops.x.data(), ops.w.data(), ops.bias.data(),
                               ops.z.data(), expected.data(), &e);
    std::vector<float> plain = ops.plainX(c);
    int64_t mb = blocks(c.m);
    bool twoD = h != 1;
    Memref x(plain.data(), twoD ? std::vector<int64_t>{c.batch, c.c, c.h, c.w}
                                : std::vector<int64_t>{c.batch, c.c, c.w});
    Memref w(ops.w.data(), twoD ? std::vector<int64_t>{mb, 1, c.kh, c.kw, B, B}
                                : std::vector<int64_t>{mb, 1, c.kw, B, B});
    Memref bias(ops.bias.data(), {mb, B});
    std::vector<int64_t> yShape =
        twoD ? std::vector<int64_t>{c.batch, mb, s.out_h, s.out_w, B}
             : std::vector<int64_t>{c.batch, mb, s.out_w, B};
    Memref z(ops.z.data(), yShape), y(actual.data(), yShape);
    int32_t flags = ONNXC_CONV_NCHWC_BIAS | ONNXC_CONV_NCHWC_RESIDUAL |
                    ONNXC_CONV_NCHWC_NCHW_INPUT;
    _mlir_ciface_onnxc_rt_conv_nchwc_f32(
        &x.ref, &w.ref, &bias.ref, &z.ref, &y.ref, flags, c.c, c.m, c.sh, c.sw,
        1, 1, c.pt, c.pl, c.activation, 0.0f, 0.0f);
    ASSERT_TRUE(realChannelsNear(actual, expected, s));

    // X holds 3 channels, not 4: Y is NaN.
    _mlir_ciface_onnxc_rt_conv_nchwc_f32(
        &x.ref, &w.ref, &bias.ref, &z.ref, &y.ref, flags, c.c + 1, c.m, c.sh,
        c.sw, 1, 1, c.pt, c.pl, c.activation, 0.0f, 0.0f);
    ASSERT_TRUE(allNan(actual));
  }
  // Depthwise convolutions read blocked X only.
  std::vector<float> x(1 * 16 * 4 * 4, 1.0f), w(1 * 3 * 3 * B, 1.0f),
      y(1 * 1 * 4 * 4 * B, 0.0f);
  Memref xRef(x.data(), {1, 16, 4, 4}), wRef(w.data(), {1, 3, 3, B}),
      yRef(y.data(), {1, 1, 4, 4, B});
  _mlir_ciface_onnxc_rt_conv_nchwc_f32(
      &xRef.ref, &wRef.ref, &xRef.ref, &xRef.ref, &yRef.ref,
      ONNXC_CONV_NCHWC_DEPTHWISE | ONNXC_CONV_NCHWC_NCHW_INPUT, 16, 16, 1, 1, 1,
      1, 1, 1, 0, 0.0f, 0.0f);
  ASSERT_TRUE(allNan(y));
}

// Winograd weights (ONNXC_CONV_NCHWC_WINOGRAD, with
// ONNXC_CONV_NCHWC_WINOGRAD_4X4 for F(4x4)): U as a 1-D memref; U of the
// wrong size (F(2x2)'s with the 4x4 flag among them), a geometry Winograd
// does not compute (a stride of 2), or the 4x4 flag without Winograd gives
// NaN.
TEST(ConvNchwcEntry, WinogradWeights) {
  ConvCase c{2, 40, 24, 9, 10, 3, 3};
  c.pt = c.pl = c.pb = c.pr = 1;
  c.residual = true;
  onnxc_conv_nchwc_shape s = shapeOf(c);
  Operands ops(c, s);
  std::vector<float> expected(ops.z.size()), actual(ops.z.size());
  onnxc_conv_nchwc_reference(&s, ops.x.data(), ops.w.data(), ops.bias.data(),
                             ops.z.data(), expected.data(), nullptr);
  int64_t cb = blocks(c.c), mb = blocks(c.m);
  Memref x(ops.x.data(), {c.batch, cb, c.h, c.w, B});
  Memref bias(ops.bias.data(), {mb, B});
  std::vector<int64_t> yShape{c.batch, mb, s.out_h, s.out_w, B};
  Memref z(ops.z.data(), yShape), y(actual.data(), yShape);
  auto call = [&](Memref &w, int32_t flags, int64_t stride) {
    _mlir_ciface_onnxc_rt_conv_nchwc_f32(
        &x.ref, &w.ref, &bias.ref, &z.ref, &y.ref,
        ONNXC_CONV_NCHWC_BIAS | ONNXC_CONV_NCHWC_RESIDUAL | flags, c.c, c.m,
        stride, 1, 1, 1, c.pt, c.pl, 0, 0.0f, 0.0f);
  };
  std::vector<float> u2(onnxc_conv_winograd_weight_floats(2, c.c, c.m));
  onnxc_conv_winograd_weights(2, c.c, c.m, ops.w.data(), u2.data());
  Memref w2(u2.data(), {(int64_t)u2.size()});
  for (int tile : {2, 4}) {
    SCOPED_TRACE("tile " + std::to_string(tile));
    int32_t flags = ONNXC_CONV_NCHWC_WINOGRAD |
                    (tile == 4 ? ONNXC_CONV_NCHWC_WINOGRAD_4X4 : 0);
    std::vector<float> u(onnxc_conv_winograd_weight_floats(tile, c.c, c.m));
    onnxc_conv_winograd_weights(tile, c.c, c.m, ops.w.data(), u.data());
    Memref w(u.data(), {(int64_t)u.size()});
    Memref shortW(u.data(), {(int64_t)u.size() - B});
    std::fill(actual.begin(), actual.end(), 0.0f);
    call(w, flags, 1);
    ASSERT_TRUE(realChannelsNear(actual, expected, s));
    call(shortW, flags, 1);
    ASSERT_TRUE(allNan(actual));
    std::fill(actual.begin(), actual.end(), 0.0f);
    call(w, flags, 2);
    ASSERT_TRUE(allNan(actual));
  }
  std::fill(actual.begin(), actual.end(), 0.0f);
  call(w2, ONNXC_CONV_NCHWC_WINOGRAD | ONNXC_CONV_NCHWC_WINOGRAD_4X4, 1);
  ASSERT_TRUE(allNan(actual));
  Memref w(ops.w.data(), {mb, cb, c.kh, c.kw, B, B});
  std::fill(actual.begin(), actual.end(), 0.0f);
  call(w, ONNXC_CONV_NCHWC_WINOGRAD_4X4, 1);
  ASSERT_TRUE(allNan(actual));
}

} // namespace

namespace {

// The reorder of lowered code into the blocked layout: every real channel
// in its lane, the lanes past C zero (whatever Y held), 1 to 3 spatial dims,
// more pixels than one task's run, and one large enough for the threads.
TEST(ConvNchwcEntry, ReorderToBlocked) {
  struct Case {
    std::vector<int64_t> xShape;
  };
  for (const Case &c :
       {Case{{2, 3, 7, 9}}, Case{{1, 16, 5}}, Case{{2, 20, 3, 4, 5}},
        Case{{1, 33, 300}}, Case{{1, 3, 224, 224}}}) {
    SCOPED_TRACE("C=" + std::to_string(c.xShape[1]) +
                 " rank=" + std::to_string(c.xShape.size()));
    int64_t n = c.xShape[0], channels = c.xShape[1], pixels = 1;
    for (size_t i = 2; i < c.xShape.size(); ++i)
      pixels *= c.xShape[i];
    std::vector<float> x(n * channels * pixels);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(i % 1013) - 500.0f;
    std::vector<int64_t> yShape(c.xShape);
    yShape[1] = blocks(channels);
    yShape.push_back(B);
    std::vector<float> y(n * blocks(channels) * pixels * B, -7.0f);
    Memref xRef(x.data(), c.xShape), yRef(y.data(), yShape);
    onnxc_set_num_threads(2);
    _mlir_ciface_onnxc_rt_reorder_to_nchwc_f32(&xRef.ref, &yRef.ref);
    onnxc_set_num_threads(0);
    for (int64_t i = 0; i < (int64_t)y.size(); ++i) {
      int64_t lane = i % B, s = (i / B) % pixels;
      int64_t cb = (i / B / pixels) % blocks(channels);
      int64_t image = i / B / pixels / blocks(channels);
      int64_t ch = cb * B + lane;
      float want = ch < channels ? x[(image * channels + ch) * pixels + s] : 0;
      ASSERT_EQ(y[i], want) << "element " << i;
    }
    // Y with one block too many: NaN.
    yShape[1] += 1;
    std::vector<float> bad(n * yShape[1] * pixels * B, 0.0f);
    Memref badRef(bad.data(), yShape);
    _mlir_ciface_onnxc_rt_reorder_to_nchwc_f32(&xRef.ref, &badRef.ref);
    for (float v : bad)
      ASSERT_TRUE(std::isnan(v));
  }
}

} // namespace

namespace {

// The blocked max pool of lowered code against plain loops: strides,
// dilations, begin pads, windows past the end (ceil_mode), NaN inputs
// ignored as the linalg form does (a window of NaN only gives the lowest
// finite value), on every ISA and 1-3 threads; Y of the wrong block count
// gives NaN.
TEST(ConvNchwcEntry, MaxPoolBlocked) {
  struct Case {
    int64_t n, cb, h, w, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow;
  };
  for (const Case &c : {Case{1, 2, 9, 11, 3, 3, 2, 2, 1, 1, 1, 1, 5, 6},
                        Case{2, 1, 8, 7, 2, 3, 1, 2, 2, 1, 0, 2, 6, 5},
                        Case{1, 3, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 56, 56},
                        Case{1, 1, 5, 5, 3, 3, 2, 2, 1, 1, 0, 0, 3, 3}}) {
    SCOPED_TRACE("HxW=" + std::to_string(c.h) + "x" + std::to_string(c.w));
    std::vector<float> x(c.n * c.cb * c.h * c.w * B);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = i % 37 == 0 ? std::numeric_limits<float>::quiet_NaN() : dist(rng);
    for (int64_t b = 0; b < B; b += 3) // lanes all NaN in the first window
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 2; ++j)
          x[(i * c.w + j) * B + b] = std::numeric_limits<float>::quiet_NaN();
    Memref xRef(x.data(), {c.n, c.cb, c.h, c.w, B});
    for (int isa : supportedIsas())
      for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(std::string("isa=") + onnxc_sgemm_isa_name(isa) +
                     " threads=" + std::to_string(threads));
        std::vector<float> y(c.n * c.cb * c.oh * c.ow * B, 0.0f);
        Memref yRef(y.data(), {c.n, c.cb, c.oh, c.ow, B});
        ASSERT_TRUE(onnxc_sgemm_force_isa(isa));
        onnxc_set_num_threads(threads);
        _mlir_ciface_onnxc_rt_maxpool_nchwc_f32(&xRef.ref, &yRef.ref, c.kh,
                                                c.kw, c.sh, c.sw, c.dh, c.dw,
                                                c.pt, c.pl);
        onnxc_set_num_threads(0);
        onnxc_sgemm_force_isa(ONNXC_SGEMM_ISA_AUTO);
        for (int64_t plane = 0; plane < c.n * c.cb; ++plane)
          for (int64_t oh = 0; oh < c.oh; ++oh)
            for (int64_t ow = 0; ow < c.ow; ++ow)
              for (int64_t b = 0; b < B; ++b) {
                float want = -std::numeric_limits<float>::max();
                for (int64_t kh = 0; kh < c.kh; ++kh)
                  for (int64_t kw = 0; kw < c.kw; ++kw) {
                    int64_t ih = oh * c.sh + kh * c.dh - c.pt;
                    int64_t iw = ow * c.sw + kw * c.dw - c.pl;
                    if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w)
                      continue;
                    float v = x[((plane * c.h + ih) * c.w + iw) * B + b];
                    if (v > want)
                      want = v;
                  }
                ASSERT_EQ(y[((plane * c.oh + oh) * c.ow + ow) * B + b], want)
                    << "plane " << plane << " at " << oh << "," << ow;
              }
      }
    std::vector<float> y(c.n * c.cb * c.oh * c.ow * B, 0.0f);
    Memref badRef(y.data(), {c.n, c.cb + 1, c.oh, c.ow / 2, B});
    _mlir_ciface_onnxc_rt_maxpool_nchwc_f32(&xRef.ref, &badRef.ref, c.kh, c.kw,
                                            c.sh, c.sw, c.dh, c.dw, c.pt, c.pl);
    ASSERT_TRUE(std::isnan(y[0]));
  }
}

} // namespace
