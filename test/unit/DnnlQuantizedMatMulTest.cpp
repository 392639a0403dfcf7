//===- DnnlQuantizedMatMulTest.cpp - oneDNN's QLinearMatMul vs a loop -----===//
//
// _mlir_ciface_onnxc_dnnl_qlinear_matmul (runtime/dnnl/DnnlMatMul.c)
// through memref descriptors, against ONNX's QLinearMatMul and
// MatMulInteger written here as a loop (numpy MatMul, batch dims
// broadcast): u8 and s8 A and Y, zero points given or not, per-tensor and
// per-column B scales, all-zero B zero points of 1 or N, 2-D, a 3-D A on a
// 2-D B, batches broadcast both ways, odd sizes, M = 1, a long K, constant
// B on and off. oneDNN rounds in f32 in its own order: each QLinearMatMul
// output may be 1 off, 99% must be exact; MatMulInteger is exact. Then the
// per-site cache (zero points read at run time on every call; one shape
// under several scales; two shapes and two constant Bs on one slot; a B
// changed in place) and the refused operands. Without VNNI the glue refuses
// (ONNXC_DNNL_ERROR_NO_VNNI) and these tests skip.
//
//===----------------------------------------------------------------------===//

#include "runtime/dnnl/DnnlRuntime.h"
#include "test/unit/DnnlSlot.h"
#include "test/unit/DnnlTensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
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

const int32_t kAs = ONNXC_DNNL_QMATMUL_A_SIGNED,
              kYs = ONNXC_DNNL_QMATMUL_Y_SIGNED,
              kConst = ONNXC_DNNL_QMATMUL_CONST_B,
              kAz = ONNXC_DNNL_QMATMUL_A_ZERO, kBz = ONNXC_DNNL_QMATMUL_B_ZERO,
              kYz = ONNXC_DNNL_QMATMUL_Y_ZERO,
              kInt = ONNXC_DNNL_QMATMUL_INTEGER;

/// b_scale's shape: one per column [N], or one element, rank 0 or [1].
enum { kPerColumn = -1, kScalar = 0, kOne = 1 };

struct QMatMulCase {
  const char *name;
  std::vector<int64_t> aShape, bShape; // Y's follows (numpy MatMul)
  int32_t flags;
  int bScales;          // kPerColumn, kScalar or kOne
  int32_t aZero, yZero; // passed where flagged (else 0)
  int64_t bZeros;       // the length of the all-zero b_zero (kBz)
};

void PrintTo(const QMatMulCase &k, std::ostream *os) { *os << k.name; }

/// numpy MatMul's output shape: the batch dims broadcast, [M, N] last.
std::vector<int64_t> productShape(const std::vector<int64_t> &a,
                                  const std::vector<int64_t> &b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> y(rank);
  for (size_t d = 0; d + 2 < rank; ++d) {
    int64_t da = d >= rank - a.size() ? a[d - (rank - a.size())] : 1;
    int64_t db = d >= rank - b.size() ? b[d - (rank - b.size())] : 1;
    y[d] = da == 1 ? db : da;
  }
  y[rank - 2] = a[a.size() - 2];
  y[rank - 1] = b[b.size() - 1];
  return y;
}

/// Which matrix of `t` (batch dims broadcast onto Y's) batch `i` of Y
/// (row-major over Y's batch dims) reads.
int64_t batchOf(const std::vector<int64_t> &t, const std::vector<int64_t> &y,
                int64_t i) {
  int64_t lead = (int64_t)y.size() - (int64_t)t.size(), matrix = 0, stride = 1;
  for (int64_t d = (int64_t)y.size() - 3; d >= 0; --d) {
    int64_t coordinate = i % y[d];
    i /= y[d];
    if (d < lead)
      continue;
    int64_t size = t[d - lead];
    if (size != 1)
      matrix += coordinate * stride;
    stride *= size;
  }
  return matrix;
}

/// What stays from call to call on one site: B and its scales.
struct Weights {
  Tensor<int8_t> b;
  Tensor<float> bScale;
};

Weights makeWeights(const QMatMulCase &k, unsigned seed) {
  std::mt19937 rng(seed);
  int64_t n = k.bShape.back();
  Weights wt;
  wt.b = randomTensor<int8_t>(k.bShape, rng, -128, 127);
  std::uniform_real_distribution<float> scale(0.005f, 0.02f);
  wt.bScale = Tensor<float>(k.bScales == kPerColumn ? std::vector<int64_t>{n}
                            : k.bScales == kOne     ? std::vector<int64_t>{1}
                                                    : std::vector<int64_t>{},
                            {});
  for (int64_t i = 0; i < volume(wt.bScale.shape); ++i)
    wt.bScale.data.push_back(scale(rng));
  return wt;
}

/// One call's A and quantization parameters. a_scale and a_zero are rank
/// 0, y_scale rank 0, y_zero [1].
struct Operands {
  Tensor<uint8_t> a, aZero, yZero, y; // A and Y as bytes, signed or not
  Tensor<int32_t> yInt;               // MatMulInteger's Y
  Tensor<int8_t> bZero;
  Tensor<float> aScale, yScale;
};

Operands makeOperands(const QMatMulCase &k, unsigned seed) {
  std::mt19937 rng(seed);
  Operands o;
  o.a = randomTensor<uint8_t>(k.aShape, rng, 0, 255);
  o.aZero = Tensor<uint8_t>({}, {(uint8_t)k.aZero});
  o.yZero = Tensor<uint8_t>({1}, {(uint8_t)k.yZero});
  o.bZero = Tensor<int8_t>({k.bZeros}, std::vector<int8_t>(k.bZeros, 0));
  o.aScale = Tensor<float>({}, {0.0173f});
  o.yScale = Tensor<float>({}, {1.0f});
  std::vector<int64_t> y = productShape(k.aShape, k.bShape);
  size_t count = (size_t)volume(y);
  o.y = Tensor<uint8_t>(y, std::vector<uint8_t>(count, 0xA5));
  o.yInt = Tensor<int32_t>(y, std::vector<int32_t>(count, 0x5A5A5A5A));
  return o;
}

int32_t byteValue(uint8_t b, bool isSigned) {
  return isSigned ? (int32_t)(int8_t)b : (int32_t)b;
}

/// The exact sum of (A - a_zero) B for each element of Y.
std::vector<int64_t> accumulate(const QMatMulCase &k, const Operands &o,
                                const Weights &wt) {
  bool aSigned = k.flags & kAs;
  int32_t aZero = (k.flags & kAz) ? k.aZero : 0;
  const std::vector<int64_t> &y = o.y.shape;
  size_t rank = y.size();
  int64_t m = y[rank - 2], n = y[rank - 1], kk = k.aShape.back();
  int64_t batches = volume(y) / (m * n);
  std::vector<int64_t> acc((size_t)volume(y));
  for (int64_t batch = 0; batch < batches; ++batch) {
    const uint8_t *a = &o.a.data[batchOf(k.aShape, y, batch) * m * kk];
    const int8_t *b = &wt.b.data[batchOf(k.bShape, y, batch) * kk * n];
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t sum = 0;
        for (int64_t l = 0; l < kk; ++l)
          sum += (int64_t)(byteValue(a[i * kk + l], aSigned) - aZero) *
                 b[l * n + j];
        acc[(size_t)((batch * m + i) * n + j)] = sum;
      }
  }
  return acc;
}

float bScaleOf(const Weights &wt, int64_t column) {
  return wt.bScale.data[wt.bScale.data.size() > 1 ? column : 0];
}

/// A y_scale that maps 3 standard deviations of the real outputs onto
/// half of Y's 256 levels.
float chooseYScale(const std::vector<int64_t> &acc, const Operands &o,
                   const Weights &wt) {
  double sum = 0, squares = 0;
  int64_t n = o.y.shape.back();
  for (size_t i = 0; i < acc.size(); ++i) {
    double v = o.aScale.data[0] * bScaleOf(wt, (int64_t)i % n) * (double)acc[i];
    sum += v;
    squares += v * v;
  }
  double mean = sum / acc.size();
  double sd = std::sqrt(std::max(squares / acc.size() - mean * mean, 0.0));
  return sd > 0 ? (float)(6 * sd / 256) : 1.0f;
}

/// ONNX QLinearMatMul's requantization, in f32.
std::vector<int32_t> quantize(const QMatMulCase &k,
                              const std::vector<int64_t> &acc,
                              const Operands &o, const Weights &wt) {
  bool ySigned = k.flags & kYs;
  int32_t yZero = (k.flags & kYz) ? k.yZero : 0;
  int32_t lo = ySigned ? -128 : 0, hi = ySigned ? 127 : 255;
  int64_t n = o.y.shape.back();
  std::vector<int32_t> y(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    float scale =
        o.aScale.data[0] * bScaleOf(wt, (int64_t)i % n) / o.yScale.data[0];
    float v = std::nearbyint(scale * (float)acc[i]) + (float)yZero;
    y[i] = (int32_t)std::min(std::max(v, (float)lo), (float)hi);
  }
  return y;
}

/// The glue on `o` and `wt`; absent operands (and, for MatMulInteger, the
/// scales and y_zero) passed as A, as the compiler does.
int32_t callQMatMul(const QMatMulCase &k, Slot &slot, Operands &o,
                    Weights &wt) {
  bool integer = k.flags & kInt;
  onnxc_unranked_memref *a = o.a.memref();
  return _mlir_ciface_onnxc_dnnl_qlinear_matmul(
      slot.memref(), a, integer ? a : o.aScale.memref(),
      (k.flags & kAz) ? o.aZero.memref() : a, wt.b.memref(),
      integer ? a : wt.bScale.memref(), (k.flags & kBz) ? o.bZero.memref() : a,
      integer ? a : o.yScale.memref(),
      (!integer && (k.flags & kYz)) ? o.yZero.memref() : a,
      integer ? o.yInt.memref() : o.y.memref(), k.flags);
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string describe(const QMatMulCase &k, float yScale) {
  char text[160];
  std::snprintf(text, sizeof text,
                " flags %d b_scale %d a_zero %d y_zero %d y_scale %g", k.flags,
                k.bScales, k.aZero, k.yZero, yScale);
  return std::string(k.name) + ": " + shapeText(k.aShape) + " x " +
         shapeText(k.bShape) + text;
}

/// Y against `expected`: at most 1 off anywhere, exact at 99% of outputs.
void expectQuantized(const QMatMulCase &k, const Operands &o,
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

/// MatMulInteger's Y against the sums: exact everywhere.
void expectExact(const Operands &o, const std::vector<int64_t> &acc,
                 const std::string &what) {
  ASSERT_EQ(o.yInt.data.size(), acc.size()) << what;
  size_t mismatches = 0;
  std::string examples;
  for (size_t i = 0; i < acc.size(); ++i) {
    if (o.yInt.data[i] == acc[i])
      continue;
    if (++mismatches <= 5)
      examples += " [" + std::to_string(i) + "] expected " +
                  std::to_string(acc[i]) + " got " +
                  std::to_string(o.yInt.data[i]);
  }
  EXPECT_EQ(mismatches, 0u) << what << ": " << mismatches << " of "
                            << acc.size() << " differ:" << examples;
}

/// Runs `k` on `slot` with the A of `seed` and checks Y. `yScale` 0: chosen
/// from the outputs' spread, and then the outputs must span Y's range and
/// most of them must not saturate. Returns the y_scale used (0 for
/// MatMulInteger).
float checkQMatMul(const QMatMulCase &k, Slot &slot, Weights &wt, unsigned seed,
                   float yScale = 0) {
  Operands o = makeOperands(k, seed);
  std::vector<int64_t> acc = accumulate(k, o, wt);
  if (k.flags & kInt) {
    std::string what = describe(k, 0);
    // Past int16: a kernel that saturates pair sums would show.
    int64_t largest = 0;
    for (int64_t v : acc)
      largest = std::max(largest, std::abs(v));
    if (k.aShape.back() >= 256) {
      EXPECT_GT(largest, 32767) << what << ": the sums stay small";
    }
    int32_t status = callQMatMul(k, slot, o, wt);
    EXPECT_EQ(status, 0) << what;
    if (status == 0)
      expectExact(o, acc, what);
    return 0;
  }
  o.yScale.data[0] = yScale ? yScale : chooseYScale(acc, o, wt);
  std::vector<int32_t> expected = quantize(k, acc, o, wt);
  std::string what = describe(k, o.yScale.data[0]);
  if (!yScale) {
    int32_t lo = (k.flags & kYs) ? -128 : 0, hi = lo + 255;
    size_t inside = 0;
    for (int32_t v : expected)
      inside += v > lo && v < hi;
    EXPECT_GE(inside * 2, expected.size()) << what << ": mostly saturated";
    auto [least, most] = std::minmax_element(expected.begin(), expected.end());
    EXPECT_GE(*most - *least, 64)
        << what << ": outputs span " << *least << ".." << *most;
  }
  int32_t status = callQMatMul(k, slot, o, wt);
  EXPECT_EQ(status, 0) << what;
  if (status == 0)
    expectQuantized(k, o, expected, what);
  return o.yScale.data[0];
}

// clang-format off
const QMatMulCase kCases[] = {
  // name                A shape        B shape
  //   flags                            b_scale     aZero yZero bZeros
  {"U8U8PerColumn",      {16, 32},      {32, 24},
     kConst | kAz | kYz,                kPerColumn,   131,  128, 0},
  {"S8S8",               {12, 40},      {40, 20},
     kAs | kYs | kConst | kAz | kYz,    kScalar,       -3,    5, 0},
  {"U8S8",               {10, 24},      {24, 16},
     kYs | kAz | kYz,                   kPerColumn,   128,   -7, 0},
  {"S8U8",               {9, 33},       {33, 18},
     kAs | kConst | kAz | kYz,          kPerColumn,   -10,  128, 0},
  {"PerTensorScalar",    {16, 32},      {32, 24},
     kConst | kAz | kYz,                kScalar,      125,  130, 0},
  {"PerTensorOne",       {16, 32},      {32, 24},
     kAz | kYz,                         kOne,         127,  126, 0},
  {"NoZeroPoints",       {16, 32},      {32, 24},
     kAs | kYs | kConst,                kPerColumn,     0,    0, 0},
  {"U8NoAZero",          {16, 32},      {32, 24},
     kYs | kConst | kYz,                kPerColumn,     0,    3, 0},
  {"BZeroPerColumn",     {16, 32},      {32, 24},
     kConst | kAz | kBz | kYz,          kPerColumn,   128,  128, 24},
  {"BZeroScalar",        {16, 32},      {32, 24},
     kAs | kYs | kAz | kBz | kYz,       kScalar,        4,   -4, 1},
  {"A3DOnB2D",           {2, 16, 32},   {32, 24},
     kConst | kAz | kYz,                kPerColumn,   131,  128, 0},
  {"A3DOnB2DPlain",      {3, 7, 20},    {20, 9},
     kAs | kAz | kYz,                   kScalar,        7,  128, 0},
  {"Batch3D",            {3, 8, 16},    {3, 16, 12},
     kYs | kAz | kYz,                   kPerColumn,   120,    2, 0},
  {"BroadcastBatch",     {2, 1, 8, 16}, {3, 16, 12},
     kConst | kAz | kYz,                kPerColumn,   131,  128, 0},
  {"BroadcastBatchPlain",{2, 1, 8, 16}, {3, 16, 12},
     kAs | kYs | kAz | kYz,             kScalar,       -2,    1, 0},
  {"BroadcastBothWays",  {4, 1, 6, 10}, {1, 3, 10, 7},
     kAz | kYz,                         kPerColumn,   129,  127, 0},
  {"Odd5x7x3",           {5, 7},        {7, 3},
     kConst | kAz | kYz,                kPerColumn,   131,  128, 0},
  {"Odd5x7x3Signed",     {5, 7},        {7, 3},
     kAs | kYs | kAz | kYz,             kScalar,        9,   -9, 0},
  {"M1",                 {1, 64},       {64, 33},
     kConst | kAz | kYz,                kPerColumn,   128,  128, 0},
  {"M1Plain",            {1, 48},       {48, 17},
     kAs | kYs | kAz,                   kScalar,        5,    0, 0},
  {"Wide",               {64, 256},     {256, 128},
     kConst | kAz | kYz,                kPerColumn,   131,  128, 0},
  // MatMulInteger: the scales and y_zero not read; exact.
  {"IntegerK300",        {8, 300},      {300, 16},
     kInt,                              kScalar,        0,    0, 0},
  {"IntegerK300Const",   {8, 300},      {300, 16},
     kInt | kConst,                     kScalar,        0,    0, 0},
  {"IntegerK300AZero",   {8, 300},      {300, 16},
     kInt | kAz | kConst,               kScalar,      128,    0, 0},
  {"IntegerK300AZeroPlain", {8, 300},   {300, 16},
     kInt | kAz,                        kScalar,      255,    0, 0},
  {"IntegerS8AZero",     {8, 300},      {300, 16},
     kInt | kAs | kAz,                  kScalar,       -5,    0, 0},
  {"IntegerS8",          {8, 300},      {300, 16},
     kInt | kAs | kConst,               kScalar,        0,    0, 0},
  {"IntegerBZero",       {8, 300},      {300, 16},
     kInt | kAz | kBz,                  kScalar,      100,    0, 16},
  {"IntegerBroadcast",   {2, 1, 5, 300},{3, 300, 7},
     kInt | kAz | kConst,               kScalar,      128,    0, 0},
  {"IntegerA3D",         {3, 4, 300},   {300, 9},
     kInt,                              kScalar,        0,    0, 0},
  {"IntegerOdd5x7x3",    {5, 7},        {7, 3},
     kInt | kAz,                        kScalar,      131,    0, 0},
  {"IntegerM1",          {1, 300},      {300, 9},
     kInt | kConst,                     kScalar,        0,    0, 0},
};
// clang-format on

const QMatMulCase &findCase(const std::string &name) {
  for (const QMatMulCase &k : kCases)
    if (name == k.name)
      return k;
  std::abort();
}

/// Whether the glue runs int8 products here (VNNI), by one call.
bool runsInt8() {
  static const bool runs = [] {
    const QMatMulCase &k = findCase("Odd5x7x3");
    Slot slot;
    Weights wt = makeWeights(k, 90);
    Operands o = makeOperands(k, 91);
    return callQMatMul(k, slot, o, wt) != ONNXC_DNNL_ERROR_NO_VNNI;
  }();
  return runs;
}

#define SKIP_WITHOUT_VNNI()                                                    \
  if (!runsInt8())                                                             \
  GTEST_SKIP() << "oneDNN has no VNNI kernels here (the glue refuses int8)"

class DnnlQLinearMatMul : public testing::TestWithParam<QMatMulCase> {};

TEST_P(DnnlQLinearMatMul, MatchesTheReference) {
  SKIP_WITHOUT_VNNI();
  const QMatMulCase &k = GetParam();
  Slot slot;
  Weights wt = makeWeights(k, 1);
  float yScale = checkQMatMul(k, slot, wt, 2);
  checkQMatMul(k, slot, wt, 3, yScale); // the cached primitive (and packed B)
}

TEST_P(DnnlQLinearMatMul, MatchesTheReferenceConstantBFlipped) {
  SKIP_WITHOUT_VNNI();
  QMatMulCase k = GetParam();
  k.flags ^= kConst;
  Slot slot;
  Weights wt = makeWeights(k, 1);
  float yScale = checkQMatMul(k, slot, wt, 2);
  checkQMatMul(k, slot, wt, 3, yScale);
}

INSTANTIATE_TEST_SUITE_P(Cases, DnnlQLinearMatMul, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<QMatMulCase> &info) {
                           return std::string(info.param.name);
                         });

TEST(DnnlQLinearMatMulCache, ZeroPointsAreRunTime) {
  SKIP_WITHOUT_VNNI();
  // One slot, one shape, one y_scale: a dynamically quantized A brings a
  // new a_zero (and here a new y_zero) on every call.
  for (const char *name : {"U8U8PerColumn", "S8S8", "BroadcastBatch"})
    for (int32_t constant : {0, kConst}) {
      QMatMulCase k = findCase(name);
      k.flags = (k.flags & ~kConst) | constant;
      bool aSigned = k.flags & kAs, ySigned = k.flags & kYs;
      Slot slot;
      Weights wt = makeWeights(k, 100);
      float yScale = checkQMatMul(k, slot, wt, 101);
      const int32_t aZeros[] = {100, 3, 250, 131, 0, 128};
      const int32_t yZeros[] = {120, 135, 128, 100, 150, 128};
      for (int round = 0; round < 6; ++round) {
        QMatMulCase call = k;
        call.aZero = aSigned ? aZeros[round] - 128 : aZeros[round];
        call.yZero = ySigned ? yZeros[round] - 128 : yZeros[round];
        checkQMatMul(call, slot, wt, 101, yScale);         // the same A
        checkQMatMul(call, slot, wt, 110 + round, yScale); // another A
      }
    }
}

TEST(DnnlQLinearMatMulCache, IntegerZeroPointsAreRunTime) {
  SKIP_WITHOUT_VNNI();
  // MatMulInteger has no scales: the calls share one key.
  for (const char *name : {"IntegerK300AZero", "IntegerS8AZero"})
    for (int32_t constant : {0, kConst}) {
      QMatMulCase k = findCase(name);
      k.flags = (k.flags & ~kConst) | constant;
      bool aSigned = k.flags & kAs;
      Slot slot;
      Weights wt = makeWeights(k, 120);
      for (int32_t zero : {128, 0, 255, 17, 200, 128}) {
        QMatMulCase call = k;
        call.aZero = aSigned ? zero - 128 : zero;
        checkQMatMul(call, slot, wt, 121);
        checkQMatMul(call, slot, wt, 122 + zero);
      }
    }
}

TEST(DnnlQLinearMatMulCache, ZeroPointFlagsOnOneSlot) {
  SKIP_WITHOUT_VNNI();
  // With and without the zero points on one slot.
  for (const char *name : {"U8U8PerColumn", "IntegerK300AZero"}) {
    QMatMulCase with = findCase(name), without = with;
    without.flags &= ~(kAz | kYz);
    Slot slot;
    Weights wt = makeWeights(with, 130);
    float yScale = checkQMatMul(with, slot, wt, 131);
    for (int round = 0; round < 2; ++round) {
      checkQMatMul(without, slot, wt, 132 + round);
      checkQMatMul(with, slot, wt, 134 + round, yScale);
    }
  }
}

TEST(DnnlQLinearMatMulCache, KeysTheScales) {
  SKIP_WITHOUT_VNNI();
  // One shape, one A: each y_scale (and a changed b_scale) gets its own
  // answer.
  for (const char *name : {"U8U8PerColumn", "S8S8", "S8U8", "A3DOnB2D"})
    for (int32_t constant : {0, kConst}) {
      QMatMulCase k = findCase(name);
      k.flags = (k.flags & ~kConst) | constant;
      Slot slot;
      Weights wt = makeWeights(k, 40);
      float yScale = checkQMatMul(k, slot, wt, 41);
      checkQMatMul(k, slot, wt, 41, yScale * 2.5f);
      checkQMatMul(k, slot, wt, 41, yScale);
      checkQMatMul(k, slot, wt, 41, yScale * 0.75f);
      wt.bScale.data[0] *= 3.0f;
      checkQMatMul(k, slot, wt, 41, yScale);
      wt.bScale.data.back() *= 0.5f;
      checkQMatMul(k, slot, wt, 41, yScale);
    }
}

TEST(DnnlQLinearMatMulCache, TwoShapesOnOneSlot) {
  SKIP_WITHOUT_VNNI();
  // The same B at two row counts (and batches), B constant or not.
  for (const char *name : {"U8U8PerColumn", "IntegerK300AZero"})
    for (int32_t constant : {0, kConst}) {
      QMatMulCase a = findCase(name);
      a.flags = (a.flags & ~kConst) | constant;
      QMatMulCase b = a, c = a;
      b.aShape[0] = 3;
      c.aShape.insert(c.aShape.begin(), 2);
      Slot slot;
      Weights wt = makeWeights(a, 10);
      float yScale = checkQMatMul(a, slot, wt, 11);
      for (int round = 0; round < 3; ++round) {
        checkQMatMul(b, slot, wt, 20 + round, yScale);
        checkQMatMul(c, slot, wt, 25 + round, yScale);
        checkQMatMul(a, slot, wt, 30 + round, yScale);
      }
    }
}

TEST(DnnlQLinearMatMulCache, TwoConstantBsOnOneSlot) {
  SKIP_WITHOUT_VNNI();
  // Constant Bs are packed per pointer: two live Bs, one shape.
  for (const char *name : {"U8U8PerColumn", "IntegerK300Const"}) {
    const QMatMulCase &k = findCase(name);
    Slot slot;
    Weights first = makeWeights(k, 140), second = makeWeights(k, 141);
    second.bScale = first.bScale;
    float yScale = checkQMatMul(k, slot, first, 142);
    for (int round = 0; round < 3; ++round) {
      checkQMatMul(k, slot, second, 143 + round, yScale);
      checkQMatMul(k, slot, first, 146 + round, yScale);
    }
  }
}

TEST(DnnlQLinearMatMulCache, VariableBChangedInPlace) {
  SKIP_WITHOUT_VNNI();
  // Without CONST_B, B is read on every call: new values at the same
  // address give the new answer.
  for (const char *name : {"U8S8", "IntegerK300"}) {
    const QMatMulCase &k = findCase(name);
    ASSERT_FALSE(k.flags & kConst);
    Slot slot;
    Weights wt = makeWeights(k, 150);
    float yScale = checkQMatMul(k, slot, wt, 151);
    for (int round = 0; round < 3; ++round) {
      Weights fresh = makeWeights(k, 152 + round);
      std::copy(fresh.b.data.begin(), fresh.b.data.end(), wt.b.data.begin());
      checkQMatMul(k, slot, wt, 151, yScale);
    }
  }
}

TEST(DnnlQLinearMatMul, RefusesBZeroPoints) {
  SKIP_WITHOUT_VNNI();
  for (const char *name : {"BZeroPerColumn", "IntegerBZero"}) {
    const QMatMulCase &k = findCase(name); // all zeros: fine
    Slot slot;
    Weights wt = makeWeights(k, 50);
    Operands o = makeOperands(k, 51);
    EXPECT_EQ(callQMatMul(k, slot, o, wt), 0) << name;
    o.bZero.data[3] = 1;
    EXPECT_EQ(callQMatMul(k, slot, o, wt), ONNXC_DNNL_ERROR_UNSUPPORTED)
        << name;
    o.bZero = Tensor<int8_t>({1}, {-2});
    EXPECT_EQ(callQMatMul(k, slot, o, wt), ONNXC_DNNL_ERROR_UNSUPPORTED)
        << name;
    o.bZero = Tensor<int8_t>({}, {0}); // a scalar zero: fine
    EXPECT_EQ(callQMatMul(k, slot, o, wt), 0) << name;
  }
}

TEST(DnnlQLinearMatMul, RefusesBadScaleLengths) {
  SKIP_WITHOUT_VNNI();
  QMatMulCase k = findCase("Odd5x7x3"); // N = 3
  k.bShape = {7, 5};                    // N = 5
  Slot slot;
  Weights wt = makeWeights(k, 60);
  Operands o = makeOperands(k, 61);
  ASSERT_EQ(callQMatMul(k, slot, o, wt), 0);
  Weights bad = wt;
  for (int64_t length : {2, 4, 6, 10}) {
    bad.bScale = Tensor<float>({length}, std::vector<float>(length, 0.01f));
    EXPECT_EQ(callQMatMul(k, slot, o, bad), ONNXC_DNNL_ERROR_SHAPE)
        << "b_scale of " << length;
  }
  Operands badA = o;
  badA.aScale = Tensor<float>({2}, {0.02f, 0.02f});
  EXPECT_EQ(callQMatMul(k, slot, badA, wt), ONNXC_DNNL_ERROR_SHAPE);
  Operands badY = o;
  badY.yScale = Tensor<float>({5}, std::vector<float>(5, 0.5f));
  EXPECT_EQ(callQMatMul(k, slot, badY, wt), ONNXC_DNNL_ERROR_SHAPE);
  EXPECT_EQ(callQMatMul(k, slot, o, wt), 0); // still fine after
}

TEST(DnnlQLinearMatMul, RefusesMismatchedShapes) {
  SKIP_WITHOUT_VNNI();
  for (int32_t flags : {kAz | kYz, kAz | kYz | kConst, kInt, kInt | kConst}) {
    // K: A's 7 against B's 8.
    QMatMulCase k = {"KMismatch", {5, 7}, {8, 3}, flags, kScalar, 128, 128, 0};
    Slot slot;
    Weights wt = makeWeights(k, 70);
    Operands o = makeOperands(k, 71);
    EXPECT_EQ(callQMatMul(k, slot, o, wt), ONNXC_DNNL_ERROR_SHAPE)
        << "flags " << flags;
    // Batches 2 and 3 that do not broadcast.
    k = {"BatchMismatch", {2, 5, 7}, {3, 7, 3}, flags, kScalar, 128, 128, 0};
    wt = makeWeights(k, 72);
    o = makeOperands(k, 73);
    EXPECT_EQ(callQMatMul(k, slot, o, wt), ONNXC_DNNL_ERROR_SHAPE)
        << "flags " << flags;
    // A Y of the wrong N.
    k = {"YMismatch", {5, 7}, {7, 3}, flags, kScalar, 128, 128, 0};
    wt = makeWeights(k, 74);
    o = makeOperands(k, 75);
    o.y = Tensor<uint8_t>({5, 4}, std::vector<uint8_t>(20));
    o.yInt = Tensor<int32_t>({5, 4}, std::vector<int32_t>(20));
    EXPECT_EQ(callQMatMul(k, slot, o, wt), ONNXC_DNNL_ERROR_SHAPE)
        << "flags " << flags;
  }
}

} // namespace
