//===- RuntimeHelpersTest.cpp - The runtime helpers lowered code calls ----===//
//
// NonMaxSuppression and Unique (runtime/cpu/) called directly through their
// C-interface entry points, on cases the conformance suite does not reach:
// the capacity of the result buffer, NaN scores and values, ties, unsorted
// slices along an inner axis, and the 16-bit float orderings; and
// memrefCopy (MemrefCopy.c) between strided views.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/CpuRuntime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

extern "C" {
int64_t _mlir_ciface_onnxc_rt_unique_f16(onnxc_memref1 *x, int64_t outer,
                                         int64_t len, int64_t inner,
                                         int32_t sorted, onnxc_memref1 *y,
                                         onnxc_memref1 *indices,
                                         onnxc_memref1 *inverse,
                                         onnxc_memref1 *counts);
int64_t _mlir_ciface_onnxc_rt_unique_u8(onnxc_memref1 *x, int64_t outer,
                                        int64_t len, int64_t inner,
                                        int32_t sorted, onnxc_memref1 *y,
                                        onnxc_memref1 *indices,
                                        onnxc_memref1 *inverse,
                                        onnxc_memref1 *counts);
struct UnrankedMemref {
  int64_t rank;
  void *descriptor;
};
void memrefCopy(int64_t elemSize, UnrankedMemref *src, UnrankedMemref *dst);
}

namespace {

template <typename T> onnxc_memref1 view1(std::vector<T> &data) {
  return {data.data(), data.data(), 0, (int64_t)data.size(), 1};
}

onnxc_memref3 view3(std::vector<float> &data, int64_t d0, int64_t d1,
                    int64_t d2) {
  return {data.data(), data.data(), 0, {d0, d1, d2}, {d1 * d2, d2, 1}};
}

/// Runs NMS on one batch and class; returns the kept box indices.
std::vector<int64_t> nms(std::vector<float> boxes, std::vector<float> scores,
                         int64_t maxPerClass, float iou, bool hasScore,
                         float score, int64_t center = 0,
                         int64_t capacity = -1) {
  int64_t n = scores.size();
  onnxc_memref3 boxesDesc = view3(boxes, 1, n, 4);
  onnxc_memref3 scoresDesc = view3(scores, 1, 1, n);
  if (capacity < 0)
    capacity = n;
  std::vector<int64_t> rows(capacity * 3 + 3, -7);
  onnxc_memref2 rowsDesc = {rows.data(), rows.data(), 0, {capacity, 3}, {3, 1}};
  int64_t count =
      _mlir_ciface_onnxc_rt_nms(&boxesDesc, &scoresDesc, maxPerClass, iou,
                                score, hasScore, center, &rowsDesc);
  EXPECT_LE(count, capacity);
  EXPECT_EQ(rows[capacity * 3], -7) << "wrote past the capacity";
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < count; ++i) {
    EXPECT_EQ(rows[i * 3], 0);
    EXPECT_EQ(rows[i * 3 + 1], 0);
    kept.push_back(rows[i * 3 + 2]);
  }
  return kept;
}

TEST(NonMaxSuppression, TiesGoToTheLowerIndexAndNaNScoresLast) {
  // Four disjoint boxes: nothing suppresses anything.
  std::vector<float> boxes = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7};
  EXPECT_EQ(nms(boxes, {0.5f, NAN, 0.9f, 0.5f}, 10, 0.5f, false, 0),
            (std::vector<int64_t>{2, 0, 3, 1}));
  // A score threshold drops NaN and scores at the threshold.
  EXPECT_EQ(nms(boxes, {0.5f, NAN, 0.9f, 0.4f}, 10, 0.5f, true, 0.5f),
            (std::vector<int64_t>{2}));
}

TEST(NonMaxSuppression, SuppressesAboveTheIoUThresholdOnly) {
  // Box 1 overlaps box 0 with IoU 1/2 (flipped corners); box 2 equals box 0.
  std::vector<float> boxes = {0, 0, 2, 1, 2, 0, 1, 1, 0, 0, 2, 1};
  EXPECT_EQ(nms(boxes, {0.9f, 0.8f, 0.7f}, 10, 0.5f, false, 0),
            (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(nms(boxes, {0.9f, 0.8f, 0.7f}, 10, 0.49f, false, 0),
            (std::vector<int64_t>{0}));
  // The same boxes as [x_center, y_center, width, height].
  std::vector<float> centers = {0.5f, 1, 1, 2, 0.5f, 1.5f, 1, 1, 0.5f, 1, 1, 2};
  EXPECT_EQ(nms(centers, {0.9f, 0.8f, 0.7f}, 10, 0.5f, false, 0, 1),
            (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(nms(centers, {0.9f, 0.8f, 0.7f}, 10, 0.49f, false, 0, 1),
            (std::vector<int64_t>{0}));
}

TEST(NonMaxSuppression, LimitsAndCapacity) {
  std::vector<float> boxes = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
  EXPECT_EQ(nms(boxes, {0.1f, 0.3f, 0.2f}, 2, 0.5f, false, 0),
            (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(nms(boxes, {0.1f, 0.3f, 0.2f}, 0, 0.5f, false, 0).empty());
  EXPECT_TRUE(nms(boxes, {0.1f, 0.3f, 0.2f}, -3, 0.5f, false, 0).empty());
  // A buffer smaller than the rows kept is never overrun.
  EXPECT_EQ(nms(boxes, {0.1f, 0.3f, 0.2f}, 3, 0.5f, false, 0, 0, 1),
            (std::vector<int64_t>{1}));
}

TEST(NonMaxSuppression, MismatchedShapesKeepNothing) {
  std::vector<float> boxes = {0, 0, 1, 1, 2, 2, 3, 3};
  std::vector<float> scores = {0.5f, 0.6f, 0.7f};
  onnxc_memref3 boxesDesc = view3(boxes, 1, 2, 4);
  onnxc_memref3 scoresDesc = view3(scores, 1, 1, 3);
  std::vector<int64_t> rows(9);
  onnxc_memref2 rowsDesc = {rows.data(), rows.data(), 0, {3, 3}, {3, 1}};
  EXPECT_EQ(_mlir_ciface_onnxc_rt_nms(&boxesDesc, &scoresDesc, 5, 0.5f, 0, 0, 0,
                                      &rowsDesc),
            0);
}

struct UniqueResult {
  std::vector<int64_t> indices, inverse, counts;
  int64_t count;
};

template <typename T, typename Entry>
UniqueResult unique(Entry entry, std::vector<T> x, int64_t outer, int64_t len,
                    int64_t inner, bool sorted, std::vector<T> &y) {
  y.assign(x.size(), T());
  UniqueResult r;
  r.indices.assign(len, -1);
  r.inverse.assign(len, -1);
  r.counts.assign(len, -1);
  onnxc_memref1 xd = view1(x), yd = view1(y), id = view1(r.indices),
                vd = view1(r.inverse), cd = view1(r.counts);
  r.count = entry(&xd, outer, len, inner, sorted, &yd, &id, &vd, &cd);
  y.resize(outer * r.count * inner);
  r.indices.resize(r.count);
  r.counts.resize(r.count);
  return r;
}

TEST(Unique, UnsortedSlicesAlongAnInnerAxis) {
  // x [2, 4, 1]: slices k are the columns (x[0][k], x[1][k]).
  std::vector<float> y;
  UniqueResult r =
      unique(_mlir_ciface_onnxc_rt_unique_f32,
             std::vector<float>{3, 1, 3, 0, 5, 2, 5, 2}, 2, 4, 1, false, y);
  ASSERT_EQ(r.count, 3);
  EXPECT_EQ(y, (std::vector<float>{3, 1, 0, 5, 2, 2}));
  EXPECT_EQ(r.indices, (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(r.inverse, (std::vector<int64_t>{0, 1, 0, 2}));
  EXPECT_EQ(r.counts, (std::vector<int64_t>{2, 1, 1}));
  // Sorted: (0, 2) < (1, 2) < (3, 5).
  r = unique(_mlir_ciface_onnxc_rt_unique_f32,
             std::vector<float>{3, 1, 3, 0, 5, 2, 5, 2}, 2, 4, 1, true, y);
  EXPECT_EQ(y, (std::vector<float>{0, 1, 3, 2, 2, 5}));
  EXPECT_EQ(r.indices, (std::vector<int64_t>{3, 1, 0}));
  EXPECT_EQ(r.inverse, (std::vector<int64_t>{2, 1, 2, 0}));
  EXPECT_EQ(r.counts, (std::vector<int64_t>{1, 1, 2}));
}

TEST(Unique, NaNSortsLastAndEqualsNaN) {
  std::vector<float> y;
  UniqueResult r =
      unique(_mlir_ciface_onnxc_rt_unique_f32,
             std::vector<float>{NAN, 1, -INFINITY, NAN, 1}, 1, 5, 1, true, y);
  ASSERT_EQ(r.count, 3);
  EXPECT_EQ(y[0], -INFINITY);
  EXPECT_EQ(y[1], 1);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(r.counts, (std::vector<int64_t>{1, 2, 2}));
  EXPECT_EQ(r.indices, (std::vector<int64_t>{2, 1, 0}));
}

TEST(Unique, SixteenBitFloatsAndUnsignedOrder) {
  // f16 bits of 2.0, -1.0, a subnormal (2^-24), 2.0, -0.5.
  std::vector<uint16_t> y16;
  UniqueResult r =
      unique(_mlir_ciface_onnxc_rt_unique_f16,
             std::vector<uint16_t>{0x4000, 0xbc00, 0x0001, 0x4000, 0xb800}, 1,
             5, 1, true, y16);
  EXPECT_EQ(y16, (std::vector<uint16_t>{0xbc00, 0xb800, 0x0001, 0x4000}));
  EXPECT_EQ(r.counts, (std::vector<int64_t>{1, 1, 1, 2}));
  // 200 is above 3 as uint8 (it would be negative as int8).
  std::vector<uint8_t> y8;
  unique(_mlir_ciface_onnxc_rt_unique_u8, std::vector<uint8_t>{200, 3, 0}, 1, 3,
         1, true, y8);
  EXPECT_EQ(y8, (std::vector<uint8_t>{0, 3, 200}));
}

/// A rank-3 float view {allocated, aligned, offset, sizes, strides}.
struct View3 {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
  float &at(int64_t i, int64_t j, int64_t k) {
    return aligned[offset + i * strides[0] + j * strides[1] + k * strides[2]];
  }
};

/// memrefCopy between views of every contiguity against a plain loop: both
/// dense, rows of a wider buffer (Q of a fused QKV), a padded middle dim,
/// a transposed source, size-1 dims with odd strides.
TEST(MemrefCopy, StridedViewsMatchAPlainLoop) {
  struct Case {
    int64_t sizes[3], srcStrides[3], dstStrides[3], srcOffset;
  };
  const Case cases[] = {
      {{2, 3, 4}, {12, 4, 1}, {12, 4, 1}, 0},  // both dense
      {{2, 3, 4}, {36, 12, 1}, {12, 4, 1}, 8}, // rows of [2, 3, 12] at 8
      {{2, 3, 4}, {20, 5, 1}, {12, 4, 1}, 1},  // a padded last dim
      {{2, 3, 4}, {12, 1, 3}, {12, 4, 1}, 0},  // dims 1 and 2 swapped
      {{1, 3, 1}, {99, 1, 77}, {3, 1, 5}, 2},  // size-1 dims, odd strides
      {{2, 1, 4}, {4, 50, 1}, {8, 3, 2}, 0},   // a strided destination
  };
  for (const Case &c : cases) {
    std::vector<float> src(128), dst(128, -1.0f), want(128, -1.0f);
    for (size_t i = 0; i < src.size(); ++i)
      src[i] = float(i) + 0.5f;
    View3 from = {src.data(), src.data(), c.srcOffset, {}, {}};
    View3 to = {dst.data(), dst.data(), 0, {}, {}};
    View3 ref = {want.data(), want.data(), 0, {}, {}};
    for (int d = 0; d < 3; ++d) {
      from.sizes[d] = to.sizes[d] = ref.sizes[d] = c.sizes[d];
      from.strides[d] = c.srcStrides[d];
      to.strides[d] = ref.strides[d] = c.dstStrides[d];
    }
    for (int64_t i = 0; i < c.sizes[0]; ++i)
      for (int64_t j = 0; j < c.sizes[1]; ++j)
        for (int64_t k = 0; k < c.sizes[2]; ++k)
          ref.at(i, j, k) = from.at(i, j, k);
    UnrankedMemref srcDesc = {3, &from}, dstDesc = {3, &to};
    memrefCopy(sizeof(float), &srcDesc, &dstDesc);
    EXPECT_EQ(dst, want) << "sizes " << c.sizes[0] << "x" << c.sizes[1] << "x"
                         << c.sizes[2] << ", source strides " << c.srcStrides[0]
                         << "," << c.srcStrides[1] << "," << c.srcStrides[2];
  }
}

} // namespace
