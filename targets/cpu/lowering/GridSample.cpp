//===- GridSample.cpp - GridSample and AffineGrid -------------------------===//
//
// The spatial-transformer ops. AffineGrid maps the normalized coordinates of
// every output position (x along the last dim first, then y, then z, in
// [-1, 1]) through the affine matrices theta. GridSample reads X at the
// normalized grid positions: each output element denormalizes its grid
// coordinates, moves out-of-border ones inside (clamp or reflection), and
// sums the nearest / linear / cubic taps around them over all spatial dims.
// Tap indices follow padding_mode: zeros reads 0 outside, border clamps,
// reflection mirrors. The arithmetic is the ONNX reference's, in one
// linalg.generic whose body reads X and the grid with tensor.extract.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/ScalarFloatMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Mirrors `x` at the borders lo and hi until it is inside them.
Value reflect(ScalarFloatMath &m, Value x, Value lo, Value hi) {
  OpBuilder &b = m.b;
  Location loc = m.loc;
  Type type = m.type;
  Value range = m.sub(hi, lo);
  auto fold = [&](Value dx, Value near, Value far, bool below) {
    Value n = b.create<arith::FPToSIOp>(loc, b.getI64Type(), m.div(dx, range));
    Value r = m.sub(dx, m.mul(b.create<arith::SIToFPOp>(loc, type, n), range));
    Value odd = b.create<arith::TruncIOp>(loc, b.getI1Type(), n);
    Value even = below ? m.add(near, r) : m.sub(near, r);
    Value oddValue = below ? m.sub(far, r) : m.add(far, r);
    return m.select(odd, oddValue, even);
  };
  Value below = fold(m.sub(lo, x), lo, hi, true);
  Value above = fold(m.sub(x, hi), hi, lo, false);
  return m.select(m.lt(x, lo), below, m.select(m.gt(x, hi), above, x));
}

struct GridSampleLowering : OpConversionPattern<onnx::GridSampleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GridSampleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX(), grid = adaptor.getGrid();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    auto gridType = llvm::dyn_cast<RankedTensorType>(grid.getType());
    if (!xType || !gridType ||
        !isElementKind(onnxElementType(op.getX()), kFloat) ||
        !isElementKind(onnxElementType(op.getGrid()), kFloat))
      return rewriter.notifyMatchFailure(op, "expected float tensors");
    int64_t rank = xType.getRank(), spatial = rank - 2;
    if (rank < 3 || gridType.getRank() != rank ||
        (!gridType.isDynamicDim(rank - 1) &&
         gridType.getDimSize(rank - 1) != spatial))
      return op.emitError()
             << "expects X [N, C, D...] and a grid [N, O..., " << spatial
             << "], got " << xType << " and " << gridType;
    StringRef mode = op.getMode(), padding = op.getPaddingMode();
    if (mode == "bilinear")
      mode = "linear";
    else if (mode == "bicubic")
      mode = "cubic";
    if (mode != "nearest" && mode != "linear" && mode != "cubic")
      return op.emitError() << "unknown mode '" << mode << "'";
    if (padding != "zeros" && padding != "border" && padding != "reflection")
      return op.emitError() << "unknown padding_mode '" << padding << "'";
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op, 0);
    if (!resultType)
      return failure();
    bool alignCorners = op.getAlignCorners() != 0;
    Type element = xType.getElementType();
    Type accType = computeType(element);
    Type gridElement = gridType.getElementType();

    SmallVector<OpFoldResult> sizes{tensorSize(rewriter, loc, x, 0),
                                    tensorSize(rewriter, loc, x, 1)};
    for (int64_t d = 1; d < rank - 1; ++d)
      sizes.push_back(tensorSize(rewriter, loc, grid, d));
    SmallVector<Value> dims;
    for (int64_t d = 2; d < rank; ++d)
      dims.push_back(dimValue(rewriter, loc, x, d));

    Value result = buildIndexedGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, resultType, sizes), {}, {},
        [&](OpBuilder &b, Location nloc, ValueRange ivs, ValueRange) -> Value {
          ScalarFloatMath m{b, nloc, accType};
          // Per spatial dim: the tap indices (possibly outside), weights.
          SmallVector<SmallVector<Value>> tapIndex(spatial), tapWeight(spatial);
          SmallVector<Value> lows, highs;
          for (int64_t i = 0; i < spatial; ++i) {
            SmallVector<Value> at{ivs[0]};
            at.append(ivs.begin() + 2, ivs.end());
            at.push_back(indexConst(b, nloc, spatial - 1 - i));
            Value g = b.create<tensor::ExtractOp>(nloc, grid, at);
            g = castScalar(b, nloc, g, gridElement, accType);
            Value length = m.fromIndex(dims[i]);
            Value pos, lo, hi;
            if (alignCorners) {
              pos =
                  m.mul(m.div(m.add(g, m.c(1)), m.c(2)), m.sub(length, m.c(1)));
              lo = m.c(0);
              hi = m.sub(length, m.c(1));
            } else {
              pos =
                  m.div(m.sub(m.mul(m.add(g, m.c(1)), length), m.c(1)), m.c(2));
              lo = m.c(-0.5);
              hi = m.sub(length, m.c(0.5));
            }
            lows.push_back(lo);
            highs.push_back(hi);
            if (mode == "nearest")
              pos = b.create<math::RoundEvenOp>(nloc, pos);
            if (padding != "zeros") {
              Value moved =
                  padding == "border"
                      ? b.create<arith::MinimumFOp>(
                            nloc,
                            b.create<arith::MaximumFOp>(nloc, pos, m.c(0)),
                            m.sub(length, m.c(1)))
                      : reflect(m, pos, lo, hi);
              Value outside =
                  b.create<arith::OrIOp>(nloc, m.lt(pos, lo), m.gt(pos, hi));
              pos = m.select(outside, moved, pos);
            }
            if (mode == "nearest") {
              tapIndex[i].push_back(pos);
              tapWeight[i].push_back(m.c(1));
              continue;
            }
            Value base = m.floor(pos);
            Value t = m.sub(pos, base);
            if (mode == "linear") {
              tapIndex[i] = {base, m.add(base, m.c(1))};
              tapWeight[i] = {m.sub(m.c(1), t), t};
            } else {
              for (int64_t k = -1; k <= 2; ++k)
                tapIndex[i].push_back(m.add(base, m.c(double(k))));
              tapWeight[i] = cubicConvolutionWeights(m, t, -0.75);
            }
          }
          // Resolve each tap to an in-bounds index and a validity flag.
          SmallVector<SmallVector<std::pair<Value, Value>>> taps(spatial);
          Value zeroIndex = indexConst(b, nloc, 0);
          for (int64_t i = 0; i < spatial; ++i) {
            for (Value pos : tapIndex[i]) {
              Value valid;
              if (padding == "reflection")
                pos = reflect(m, pos, lows[i], highs[i]);
              Value index = m.toIndex(pos);
              if (padding == "zeros") {
                Value nonNegative = b.create<arith::CmpIOp>(
                    nloc, arith::CmpIPredicate::sge, index, zeroIndex);
                Value below = b.create<arith::CmpIOp>(
                    nloc, arith::CmpIPredicate::slt, index, dims[i]);
                valid = b.create<arith::AndIOp>(nloc, nonNegative, below);
              }
              taps[i].push_back(
                  {clampIntoBounds(b, nloc, index, dims[i]), valid});
            }
          }
          // Sum over every combination of taps.
          Value acc = m.c(0);
          SmallVector<int64_t> choice(spatial, 0);
          while (true) {
            SmallVector<Value> at{ivs[0], ivs[1]};
            Value weight, valid;
            for (int64_t i = 0; i < spatial; ++i) {
              auto [index, ok] = taps[i][choice[i]];
              at.push_back(index);
              Value w = tapWeight[i][choice[i]];
              weight = weight ? m.mul(weight, w) : w;
              if (ok)
                valid = valid ? b.create<arith::AndIOp>(nloc, valid, ok) : ok;
            }
            Value pixel =
                promoteHalf(b, nloc, b.create<tensor::ExtractOp>(nloc, x, at));
            if (valid)
              pixel = m.select(valid, pixel, m.c(0));
            acc = m.add(acc, m.mul(weight, pixel));
            int64_t i = spatial - 1;
            while (i >= 0 && ++choice[i] == int64_t(taps[i].size()))
              choice[i--] = 0;
            if (i < 0)
              break;
          }
          return demoteTo(b, nloc, acc, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// AffineGrid(theta [N, r, r + 1], size) -> [N, D..., r].
struct AffineGridLowering : OpConversionPattern<onnx::AffineGridOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::AffineGridOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value theta = adaptor.getTheta();
    auto thetaType = llvm::dyn_cast<RankedTensorType>(theta.getType());
    if (!thetaType || !isElementKind(onnxElementType(op.getTheta()), kFloat))
      return rewriter.notifyMatchFailure(op, "expected a float theta");
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op, 0);
    if (!resultType)
      return failure();
    int64_t spatial = resultType.getRank() - 2;
    if ((spatial != 2 && spatial != 3) || thetaType.getRank() != 3)
      return op.emitError()
             << "expects theta [N, 2, 3] or [N, 3, 4], got " << thetaType;
    bool alignCorners = op.getAlignCorners() != 0;
    Type element = thetaType.getElementType();
    Type accType = computeType(element);
    SmallVector<OpFoldResult> size =
        readIntsAsIndex(rewriter, loc, adaptor.getSize(), spatial + 2);
    SmallVector<OpFoldResult> sizes{size[0]};
    sizes.append(size.begin() + 2, size.end());
    sizes.push_back(rewriter.getIndexAttr(spatial));
    SmallVector<Value> lengths;
    for (int64_t i = 0; i < spatial; ++i)
      lengths.push_back(toValue(rewriter, loc, size[2 + i]));

    Value result = buildIndexedGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, resultType, sizes), {}, {},
        [&](OpBuilder &b, Location nloc, ValueRange ivs, ValueRange) -> Value {
          ScalarFloatMath m{b, nloc, accType};
          Value row = ivs.back();
          auto thetaAt = [&](Value col) {
            return promoteHalf(b, nloc,
                               b.create<tensor::ExtractOp>(
                                   nloc, theta, ValueRange{ivs[0], row, col}));
          };
          Value acc = thetaAt(indexConst(b, nloc, spatial));
          // Coordinate j of the base grid is that of spatial dim
          // spatial - 1 - j (x runs along the last dim).
          for (int64_t j = 0; j < spatial; ++j) {
            int64_t d = spatial - 1 - j;
            Value i = m.fromIndex(ivs[1 + d]);
            Value length = m.fromIndex(lengths[d]);
            Value coord =
                alignCorners
                    ? m.sub(m.div(m.mul(i, m.c(2)), m.sub(length, m.c(1))),
                            m.c(1))
                    : m.sub(m.div(m.add(m.mul(i, m.c(2)), m.c(1)), length),
                            m.c(1));
            // A single aligned position sits at -1 (the reference's arange).
            if (alignCorners)
              coord = m.select(m.lt(length, m.c(1.5)), m.c(-1), coord);
            acc = m.add(acc, m.mul(thetaAt(indexConst(b, nloc, j)), coord));
          }
          return demoteTo(b, nloc, acc, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateGridSamplePatterns(const TypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  patterns.add<GridSampleLowering, AffineGridLowering>(typeConverter,
                                                       patterns.getContext());
}

} // namespace onnxc::cpu
