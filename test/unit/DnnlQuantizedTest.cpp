//===- DnnlQuantizedTest.cpp - oneDNN's QLinearConv vs a plain loop -------===//
//
// _mlir_ciface_onnxc_dnnl_qlinear_conv2d (runtime/dnnl/DnnlConv.c) through
// memref descriptors, against ONNX's QLinearConv written here as a loop:
// u8 and s8 X and Y, zero points given or not, per-tensor and per-channel W
// scales, a bias or none, groups, depthwise, strides, pads, dilations, 1x1,
// odd channel counts, batches, non-square images, constant weights on and
// off; each again channels-last (X [N, 1, H, W, C], W constant). oneDNN
// rounds in f32 in its own order: each output may be 1 off, 99% must be
// exact. Then the per-site cache (two shapes on one slot; one shape under
// several scales; NCHW then channels-last) and the refused operands.
// Without VNNI (DNNL_MAX_CPU_ISA=AVX2) oneDNN's int8 kernels saturate pair
// sums of full-range weights and outputs are several off, so the glue
// refuses (ONNXC_DNNL_ERROR_NO_VNNI) and these tests skip.
//
//===----------------------------------------------------------------------===//

#include "runtime/dnnl/DnnlRuntime.h"
#include "test/unit/DnnlSlot.h"
#include "test/unit/DnnlTensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace {

using onnxc::test::randomTensor;
using onnxc::test::Slot;
using onnxc::test::Tensor;
using onnxc::test::volume;

const int32_t kXs = ONNXC_DNNL_QCONV_X_SIGNED, kYs = ONNXC_DNNL_QCONV_Y_SIGNED,
              kBias = ONNXC_DNNL_QCONV_BIAS,
              kConst = ONNXC_DNNL_QCONV_CONST_WEIGHTS,
              kXz = ONNXC_DNNL_QCONV_X_ZERO, kWz = ONNXC_DNNL_QCONV_W_ZERO,
              kYz = ONNXC_DNNL_QCONV_Y_ZERO,
              kCl = ONNXC_DNNL_QCONV_CHANNELS_LAST;

struct QConvCase {
  const char *name;
  int64_t n, c, h, w, m, kh, kw;
  int64_t sh, sw, dh, dw, pt, pl, pb, pr, group;
  int32_t flags;
  bool perChannel;      // w_scale [M], else [1]
  int32_t xZero, yZero; // passed where flagged (else 0)
  int64_t wZeros;       // the length of the all-zero w_zero (kWz)
};

void PrintTo(const QConvCase &k, std::ostream *os) { *os << k.name; }

int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0,
                int64_t p1) {
  return (in + p0 + p1 - ((k - 1) * d + 1)) / s + 1;
}

/// What stays from call to call on one site: W, its scales, the bias.
struct Weights {
  Tensor<int8_t> w;
  Tensor<float> wScale;
  Tensor<int32_t> bias;
};

Weights makeWeights(const QConvCase &k, unsigned seed) {
  std::mt19937 rng(seed);
  int64_t taps = k.c / k.group * k.kh * k.kw;
  Weights wt;
  wt.w = randomTensor<int8_t>({k.m, k.c / k.group, k.kh, k.kw}, rng, -128, 127);
  std::uniform_real_distribution<float> scale(0.005f, 0.02f);
  wt.wScale = Tensor<float>({k.perChannel ? k.m : 1}, {});
  for (int64_t i = 0; i < volume(wt.wScale.shape); ++i)
    wt.wScale.data.push_back(scale(rng));
  int bound = (int)(5000 * std::sqrt((double)taps));
  wt.bias = randomTensor<int32_t>({k.m}, rng, -bound, bound);
  return wt;
}

/// One call's activations and quantization parameters. x_scale and x_zero
/// are rank 0, y_scale and y_zero [1].
struct Operands {
  Tensor<uint8_t> x, xZero, yZero, y; // X and Y as bytes, signed or not
  Tensor<int8_t> wZero;
  Tensor<float> xScale, yScale;
  int64_t oh, ow;
};

Operands makeOperands(const QConvCase &k, unsigned seed) {
  std::mt19937 rng(seed);
  Operands o;
  o.x = randomTensor<uint8_t>({k.n, k.c, k.h, k.w}, rng, 0, 255);
  o.xZero = Tensor<uint8_t>({}, {(uint8_t)k.xZero});
  o.yZero = Tensor<uint8_t>({1}, {(uint8_t)k.yZero});
  o.wZero = Tensor<int8_t>({k.wZeros}, std::vector<int8_t>(k.wZeros, 0));
  o.xScale = Tensor<float>({}, {0.02f});
  o.yScale = Tensor<float>({1}, {1.0f});
  o.oh = outSize(k.h, k.kh, k.sh, k.dh, k.pt, k.pb);
  o.ow = outSize(k.w, k.kw, k.sw, k.dw, k.pl, k.pr);
  o.y = Tensor<uint8_t>({k.n, k.m, o.oh, o.ow},
                        std::vector<uint8_t>(k.n * k.m * o.oh * o.ow, 0xA5));
  return o;
}

int32_t byteValue(uint8_t b, bool isSigned) {
  return isSigned ? (int32_t)(int8_t)b : (int32_t)b;
}

/// The int32 sum of (X - x_zero) W over each window, plus the bias; padded
/// positions add nothing.
std::vector<int64_t> accumulate(const QConvCase &k, const Operands &o,
                                const Weights &wt) {
  bool xSigned = k.flags & kXs;
  int32_t xZero = (k.flags & kXz) ? k.xZero : 0;
  int64_t cg = k.c / k.group, mg = k.m / k.group;
  std::vector<int64_t> acc((size_t)(k.n * k.m * o.oh * o.ow));
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t m = 0; m < k.m; ++m)
      for (int64_t i = 0; i < o.oh; ++i)
        for (int64_t j = 0; j < o.ow; ++j) {
          int64_t sum = (k.flags & kBias) ? wt.bias.data[m] : 0, g = m / mg;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t r = 0; r < k.kh; ++r)
              for (int64_t s = 0; s < k.kw; ++s) {
                int64_t hi = i * k.sh - k.pt + r * k.dh;
                int64_t wi = j * k.sw - k.pl + s * k.dw;
                if (hi < 0 || hi >= k.h || wi < 0 || wi >= k.w)
                  continue;
                uint8_t x =
                    o.x.data[((n * k.c + g * cg + c) * k.h + hi) * k.w + wi];
                sum += (int64_t)(byteValue(x, xSigned) - xZero) *
                       wt.w.data[((m * cg + c) * k.kh + r) * k.kw + s];
              }
          acc[(size_t)(((n * k.m + m) * o.oh + i) * o.ow + j)] = sum;
        }
  return acc;
}

/// A y_scale that maps 3 standard deviations of the real outputs onto
/// half of Y's 256 levels.
float chooseYScale(const QConvCase &k, const std::vector<int64_t> &acc,
                   const Operands &o, const Weights &wt) {
  double sum = 0, squares = 0;
  int64_t plane = o.oh * o.ow;
  for (size_t i = 0; i < acc.size(); ++i) {
    int64_t m = (int64_t)i / plane % k.m;
    double v = o.xScale.data[0] * wt.wScale.data[k.perChannel ? m : 0] *
               (double)acc[i];
    sum += v;
    squares += v * v;
  }
  double mean = sum / acc.size();
  double sd = std::sqrt(std::max(squares / acc.size() - mean * mean, 0.0));
  return sd > 0 ? (float)(6 * sd / 256) : 1.0f;
}

/// ONNX QLinearConv's requantization, in f32 as ONNX Runtime does it.
std::vector<int32_t> quantize(const QConvCase &k,
                              const std::vector<int64_t> &acc,
                              const Operands &o, const Weights &wt) {
  bool ySigned = k.flags & kYs;
  int32_t yZero = (k.flags & kYz) ? k.yZero : 0;
  int32_t lo = ySigned ? -128 : 0, hi = ySigned ? 127 : 255;
  int64_t plane = o.oh * o.ow;
  std::vector<int32_t> y(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    int64_t m = (int64_t)i / plane % k.m;
    float scale = o.xScale.data[0] * wt.wScale.data[k.perChannel ? m : 0] /
                  o.yScale.data[0];
    float v = std::nearbyint(scale * (float)acc[i]) + (float)yZero;
    y[i] = (int32_t)std::min(std::max(v, (float)lo), (float)hi);
  }
  return y;
}

/// Where element i of an NCHW tensor of `shape` lies in its channels-last
/// [N, 1, H, W, C].
size_t channelsLastIndex(const std::vector<int64_t> &shape, size_t i) {
  size_t c = (size_t)shape[1], plane = (size_t)(shape[2] * shape[3]);
  return (i / (c * plane) * plane + i % plane) * c + i / plane % c;
}

Tensor<uint8_t> channelsLast(const Tensor<uint8_t> &t) {
  Tensor<uint8_t> cl({t.shape[0], 1, t.shape[2], t.shape[3], t.shape[1]},
                     std::vector<uint8_t>(t.data.size()));
  for (size_t i = 0; i < t.data.size(); ++i)
    cl.data[channelsLastIndex(t.shape, i)] = t.data[i];
  return cl;
}

/// The glue on `o`, whose X and Y are NCHW; flagged channels-last, on them
/// as [N, 1, H, W, C], Y read back. `otherX`: an X to pass instead.
int32_t callQConv(const QConvCase &k, Slot &slot, Operands &o, Weights &wt,
                  onnxc_unranked_memref *otherX = nullptr) {
  bool cl = k.flags & kCl;
  Tensor<uint8_t> xCl = cl ? channelsLast(o.x) : Tensor<uint8_t>();
  Tensor<uint8_t> yCl = cl ? channelsLast(o.y) : Tensor<uint8_t>();
  onnxc_unranked_memref *x = otherX ? otherX : cl ? xCl.memref() : o.x.memref();
  int32_t status = _mlir_ciface_onnxc_dnnl_qlinear_conv2d(
      slot.memref(), x, o.xScale.memref(),
      (k.flags & kXz) ? o.xZero.memref() : x, wt.w.memref(), wt.wScale.memref(),
      (k.flags & kWz) ? o.wZero.memref() : x, o.yScale.memref(),
      (k.flags & kYz) ? o.yZero.memref() : x,
      (k.flags & kBias) ? wt.bias.memref() : x,
      cl ? yCl.memref() : o.y.memref(), k.flags, k.pt, k.pl, k.sh, k.sw, k.dh,
      k.dw, k.group);
  for (size_t i = 0; cl && i < o.y.data.size(); ++i)
    o.y.data[i] = yCl.data[channelsLastIndex(o.y.shape, i)];
  return status;
}

std::string describe(const QConvCase &k, float yScale) {
  char text[240];
  std::snprintf(text, sizeof text,
                "%s: N%lld C%lld %lldx%lld M%lld k%lldx%lld s%lld,%lld "
                "d%lld,%lld p%lld,%lld,%lld,%lld g%lld flags %d y_scale %g",
                k.name, (long long)k.n, (long long)k.c, (long long)k.h,
                (long long)k.w, (long long)k.m, (long long)k.kh,
                (long long)k.kw, (long long)k.sh, (long long)k.sw,
                (long long)k.dh, (long long)k.dw, (long long)k.pt,
                (long long)k.pl, (long long)k.pb, (long long)k.pr,
                (long long)k.group, k.flags, yScale);
  return text;
}

/// Y against `expected`: at most 1 off anywhere, exact at 99% of outputs.
void expectQuantized(const QConvCase &k, const Operands &o,
                     const std::vector<int32_t> &expected,
                     const std::string &what) {
  bool ySigned = k.flags & kYs;
  ASSERT_EQ(o.y.data.size(), expected.size()) << what;
  size_t mismatches = 0, far = 0;
  std::string examples;
  for (size_t i = 0; i < expected.size(); ++i) {
    int32_t got = byteValue(o.y.data[i], ySigned);
    if (got == expected[i])
      continue;
    ++mismatches;
    far += std::abs(got - expected[i]) > 1;
    if (mismatches <= 5)
      examples += " [" + std::to_string(i) + "] expected " +
                  std::to_string(expected[i]) + " got " + std::to_string(got);
  }
  EXPECT_EQ(far, 0u) << what << ": " << far << " outputs more than 1 off, "
                     << mismatches << " of " << expected.size()
                     << " differ:" << examples;
  EXPECT_LE(mismatches * 100, expected.size())
      << what << ": " << mismatches << " of " << expected.size()
      << " differ:" << examples;
}

/// Runs `k` on `slot` with the X of `seed` and checks Y. `yScale` 0: chosen
/// from the outputs' spread, and then most of them must not saturate.
/// Returns the y_scale used.
float checkQConv(const QConvCase &k, Slot &slot, Weights &wt, unsigned seed,
                 float yScale = 0) {
  Operands o = makeOperands(k, seed);
  std::vector<int64_t> acc = accumulate(k, o, wt);
  o.yScale.data[0] = yScale ? yScale : chooseYScale(k, acc, o, wt);
  std::vector<int32_t> expected = quantize(k, acc, o, wt);
  std::string what = describe(k, o.yScale.data[0]);
  if (!yScale) {
    int32_t lo = (k.flags & kYs) ? -128 : 0, hi = lo + 255;
    size_t inside = 0;
    for (int32_t v : expected)
      inside += v > lo && v < hi;
    EXPECT_GE(inside * 2, expected.size()) << what << ": mostly saturated";
  }
  int32_t status = callQConv(k, slot, o, wt);
  EXPECT_EQ(status, 0) << what;
  if (status == 0)
    expectQuantized(k, o, expected, what);
  return o.yScale.data[0];
}

// clang-format off
const QConvCase kCases[] = {
  // name              n   c   h   w   m kh kw sh sw dh dw pt pl pb pr   g
  //   flags                                perCh  xZero yZero wZeros
  {"U8U8PerChannel",   1,  8, 10, 10, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kBias | kConst | kXz | kYz,            true,   131,  100, 0},
  {"S8S8",             1,  8,  9,  9, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kXs | kYs | kBias | kConst | kXz | kYz, false,   -3,    5, 0},
  {"U8S8",             1,  6,  8,  8, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kYs | kBias | kXz | kYz,               true,   128,   -7, 0},
  {"S8U8",             1,  7,  9,  8,  9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kXs | kBias | kConst | kXz | kYz,      true,   -10,  128, 0},
  {"NoBias",           1,  8, 10, 10, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kConst | kXz | kYz,                    true,   125,  120, 0},
  {"NoZeroPoints",     1,  8, 10, 10,  8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kXs | kYs | kBias | kConst,            true,     0,    0, 0},
  {"U8NoXZero",        1,  8, 10, 10,  8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kYs | kBias | kConst | kYz,            true,     0,    3, 0},
  {"WZeroPerChannel",  1,  8, 10, 10, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kBias | kConst | kXz | kYz | kWz,      true,   128,  128, 16},
  {"WZeroScalar",      1,  8, 10, 10, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kXs | kYs | kBias | kXz | kYz | kWz,   false,    4,   -4, 1},
  {"Groups2",          1,  8, 10, 10, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  2,
     kBias | kConst | kXz | kYz,            true,   131,  100, 0},
  {"Groups2Plain",     1,  8, 10, 10, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  2,
     kXs | kBias | kXz | kYz,               true,     7,  128, 0},
  {"Depthwise32",      1, 32, 12, 12, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32,
     kBias | kConst | kXz | kYz,            true,   131,  100, 0},
  {"Depthwise32Plain", 2, 32,  9, 11, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 32,
     kXs | kYs | kBias | kXz | kYz,         true,    -1,    2, 0},
  {"Stride2Pad1",      1,  8, 11, 11,  8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1,  1,
     kBias | kConst | kXz | kYz,            true,   131,  100, 0},
  {"Dilation2",        1,  8, 12, 12,  8, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2,  1,
     kBias | kConst | kXz | kYz,            true,   131,  100, 0},
  {"OneByOne",         1, 16,  9,  9, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0,  1,
     kBias | kConst | kXz | kYz,            true,   131,  100, 0},
  // 1x1 stride 2 on an even size: an end pad of -1.
  {"OneByOneStride2",  1, 16,  8,  8, 16, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0,  1,
     kXs | kBias | kXz | kYz,               false,   -5,  130, 0},
  {"OddChannels",      1,  3, 10, 10,  5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kBias | kConst | kXz | kYz,            true,   131,  100, 0},
  {"OddChannelsPlain", 1,  3, 10, 10,  5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kXs | kYs | kBias | kXz | kYz,         true,     9,  -9, 0},
  {"Batch2",           2,  8, 10, 10, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kBias | kConst | kXz | kYz,            true,   131,  100, 0},
  {"NonSquare7x11",    1,  8,  7, 11, 12, 3, 5, 1, 2, 1, 1, 1, 2, 0, 1,  1,
     kBias | kConst | kXz | kYz,            true,   131,  100, 0},
  {"NonSquare7x11Plain", 2, 5, 7, 11, 7, 3, 3, 2, 1, 1, 2, 0, 2, 1, 2,  1,
     kYs | kBias | kXz | kYz,               true,   120,   10, 0},
  {"Wide64",           1, 64, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  1,
     kBias | kConst | kXz | kYz,            true,   131,  100, 0},
};
// clang-format on

const QConvCase &findCase(const std::string &name) {
  for (const QConvCase &k : kCases)
    if (name == k.name)
      return k;
  std::abort();
}

/// Whether the glue runs int8 convolutions here (VNNI), by one call.
bool runsInt8() {
  static const bool runs = [] {
    const QConvCase &k = findCase("U8U8PerChannel");
    Slot slot;
    Weights wt = makeWeights(k, 90);
    Operands o = makeOperands(k, 91);
    return callQConv(k, slot, o, wt) != ONNXC_DNNL_ERROR_NO_VNNI;
  }();
  return runs;
}

#define SKIP_WITHOUT_VNNI()                                                    \
  if (!runsInt8())                                                             \
  GTEST_SKIP() << "oneDNN has no VNNI kernels here (the glue refuses int8)"

class DnnlQLinearConv : public testing::TestWithParam<QConvCase> {};

TEST_P(DnnlQLinearConv, MatchesTheReference) {
  SKIP_WITHOUT_VNNI();
  const QConvCase &k = GetParam();
  Slot slot;
  Weights wt = makeWeights(k, 1);
  float yScale = checkQConv(k, slot, wt, 2);
  checkQConv(k, slot, wt, 3, yScale); // the cached primitive (and packed W)
}

TEST_P(DnnlQLinearConv, MatchesTheReferenceChannelsLast) {
  SKIP_WITHOUT_VNNI();
  QConvCase k = GetParam();
  k.flags |= kCl | kConst; // the compiler's channels-last W is constant
  Slot slot;
  Weights wt = makeWeights(k, 1);
  float yScale = checkQConv(k, slot, wt, 2);
  checkQConv(k, slot, wt, 3, yScale);
}

INSTANTIATE_TEST_SUITE_P(Cases, DnnlQLinearConv, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<QConvCase> &info) {
                           return std::string(info.param.name);
                         });

TEST(DnnlQLinearConvCache, TwoShapesOnOneSlot) {
  SKIP_WITHOUT_VNNI();
  // The same W (constant) and scales at two image sizes.
  for (int32_t constant : {0, kConst}) {
    QConvCase a = findCase("U8U8PerChannel"), b = a;
    a.flags = (a.flags & ~kConst) | constant;
    b.flags = a.flags;
    b.n = 2;
    b.h = 7;
    b.w = 13;
    Slot slot;
    Weights wt = makeWeights(a, 10);
    float yScale = checkQConv(a, slot, wt, 11);
    for (int round = 0; round < 3; ++round) {
      checkQConv(b, slot, wt, 20 + round, yScale);
      checkQConv(a, slot, wt, 30 + round, yScale);
    }
  }
}

TEST(DnnlQLinearConvCache, KeysTheScales) {
  SKIP_WITHOUT_VNNI();
  // One shape, one X: each y_scale (and a changed w_scale) gets its own
  // answer.
  for (const char *name : {"U8U8PerChannel", "S8S8", "S8U8"}) {
    const QConvCase &k = findCase(name);
    Slot slot;
    Weights wt = makeWeights(k, 40);
    float yScale = checkQConv(k, slot, wt, 41);
    checkQConv(k, slot, wt, 41, yScale * 2.5f);
    checkQConv(k, slot, wt, 41, yScale);
    checkQConv(k, slot, wt, 41, yScale * 0.75f);
    wt.wScale.data[0] *= 3.0f;
    checkQConv(k, slot, wt, 41, yScale);
  }
}

TEST(DnnlQLinearConvCache, NchwThenChannelsLastOnOneSlot) {
  SKIP_WITHOUT_VNNI();
  // The same W (constant), shapes and scales in both layouts.
  for (const char *name : {"U8U8PerChannel", "Groups2", "Depthwise32"}) {
    QConvCase nchw = findCase(name), cl = nchw;
    cl.flags |= kCl;
    Slot slot;
    Weights wt = makeWeights(nchw, 70);
    float yScale = checkQConv(nchw, slot, wt, 71);
    for (int round = 0; round < 2; ++round) {
      checkQConv(cl, slot, wt, 72 + round, yScale);
      checkQConv(nchw, slot, wt, 74 + round, yScale);
    }
  }
}

TEST(DnnlQLinearConv, RefusesWeightZeroPoints) {
  SKIP_WITHOUT_VNNI();
  QConvCase k = findCase("WZeroPerChannel"); // all zeros: fine
  Slot slot;
  Weights wt = makeWeights(k, 50);
  Operands o = makeOperands(k, 51);
  EXPECT_EQ(callQConv(k, slot, o, wt), 0);
  o.wZero.data[3] = 1;
  EXPECT_EQ(callQConv(k, slot, o, wt), ONNXC_DNNL_ERROR_UNSUPPORTED);
  o.wZero = Tensor<int8_t>({1}, {-2});
  EXPECT_EQ(callQConv(k, slot, o, wt), ONNXC_DNNL_ERROR_UNSUPPORTED);
}

TEST(DnnlQLinearConv, RefusesBadLengths) {
  SKIP_WITHOUT_VNNI();
  QConvCase k = findCase("OddChannels"); // M = 5
  Slot slot;
  Weights wt = makeWeights(k, 60);
  Operands o = makeOperands(k, 61);
  ASSERT_EQ(callQConv(k, slot, o, wt), 0);
  Weights bad = wt;
  for (int64_t length : {2, 4, 6}) {
    bad.wScale = Tensor<float>({length}, std::vector<float>(length, 0.01f));
    EXPECT_EQ(callQConv(k, slot, o, bad), ONNXC_DNNL_ERROR_SHAPE)
        << "w_scale of " << length;
  }
  bad = wt;
  for (int64_t length : {1, 4, 6}) {
    bad.bias = Tensor<int32_t>({length}, std::vector<int32_t>(length, 7));
    EXPECT_EQ(callQConv(k, slot, o, bad), ONNXC_DNNL_ERROR_SHAPE)
        << "bias of " << length;
  }
  o.xScale = Tensor<float>({2}, {0.02f, 0.02f});
  EXPECT_EQ(callQConv(k, slot, o, wt), ONNXC_DNNL_ERROR_SHAPE);
}

TEST(DnnlQLinearConv, RefusesChannelsLastShapes) {
  SKIP_WITHOUT_VNNI();
  QConvCase k = findCase("U8U8PerChannel"); // C = 8
  QConvCase nchw = k;
  k.flags |= kCl;
  Slot slot;
  Weights wt = makeWeights(k, 80);
  Operands o = makeOperands(k, 81);
  ASSERT_EQ(callQConv(k, slot, o, wt), 0);
  // The unit dim holding half of the channels.
  Tensor<uint8_t> split({k.n, 2, k.h, k.w, k.c / 2}, o.x.data);
  EXPECT_EQ(callQConv(k, slot, o, wt, split.memref()), ONNXC_DNNL_ERROR_SHAPE);
  // An NCHW X flagged channels-last, and a channels-last one not flagged.
  EXPECT_EQ(callQConv(k, slot, o, wt, o.x.memref()), ONNXC_DNNL_ERROR_ARGUMENT);
  Tensor<uint8_t> xCl = channelsLast(o.x);
  EXPECT_EQ(callQConv(nchw, slot, o, wt, xCl.memref()),
            ONNXC_DNNL_ERROR_ARGUMENT);
}

} // namespace
