//===- NormalizationExtra.cpp - RMS, group, MVN and LRN normalization -----===//
//
// RMSNormalization (x / sqrt(mean(x^2) + eps) * scale over dims axis..),
// MeanVarianceNormalization ((x - mean) / (sqrt(E[x^2] - mean^2) + 1e-9),
// the spec's function body), GroupNormalization (statistics per group of
// channels, seen as a [N, G, C/G, ...] view) and LRN (a sum of squares over
// a channel window). Reductions first, then one elementwise generic. Half
// floats are computed in f32.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Sum over `dims` of f(x) (x promoted to the compute type).
Value sumOf(OpBuilder &b, Location loc, Value x, ArrayRef<bool> dims,
            bool squared) {
  Type acc = computeType(getElementTypeOrSelf(x));
  return buildReduction(
      b, loc, x, dims, scalarConst(b, loc, acc, 0.0), {},
      [squared](OpBuilder &nb, Location nloc, ValueRange in,
                Value accum) -> Value {
        Value v = promoteHalf(nb, nloc, in[0]);
        if (squared)
          v = nb.create<arith::MulFOp>(nloc, v, v);
        return nb.create<arith::AddFOp>(nloc, accum, v);
      });
}

/// The element count of `dims` of `x` as a compute-type float.
Value countOf(OpBuilder &b, Location loc, Value x, ArrayRef<bool> dims) {
  Type acc = computeType(getElementTypeOrSelf(x));
  return b.create<arith::UIToFPOp>(
      loc, acc,
      b.create<arith::IndexCastUIOp>(loc, b.getI64Type(),
                                     reducedElementCount(b, loc, x, dims)));
}

/// Checks that `op`'s input 0 is a ranked float tensor of the result's type.
LogicalResult matchFloatInput(Operation *op, Value x,
                              const TypeConverter &converter,
                              RankedTensorType &resultType) {
  auto type = llvm::dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isElementKind(onnxElementType(op->getOperand(0)), kFloat))
    return failure();
  resultType = llvm::dyn_cast_or_null<RankedTensorType>(
      converter.convertType(op->getResult(0).getType()));
  if (!resultType || resultType.getElementType() != type.getElementType())
    return failure();
  return success();
}

/// Lowers RMSNormalization: scale broadcasts to X.
struct RMSNormalizationLowering
    : OpConversionPattern<onnx::RMSNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::RMSNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX(), scale = adaptor.getScale();
    RankedTensorType resultType;
    if (failed(matchFloatInput(op, x, *getTypeConverter(), resultType)))
      return rewriter.notifyMatchFailure(op, "expected a float tensor");
    auto scaleType = llvm::dyn_cast<RankedTensorType>(scale.getType());
    if (!scaleType || scaleType.getElementType() != resultType.getElementType())
      return op.emitError() << "scale must have X's element type";
    AffineMap scaleMap = broadcastMap(scaleType, resultType);
    if (!scaleMap)
      return op.emitError() << "scale does not broadcast to X";
    int64_t rank = resultType.getRank();
    int64_t axis = op.getAxis();
    if (rank == 0 || axis < -rank || axis >= rank)
      return op.emitError() << "axis " << axis << " is out of range for rank "
                            << rank;
    axis = normalizeAxis(axis, rank);
    SmallVector<bool> dims(rank, false);
    for (int64_t d = axis; d < rank; ++d)
      dims[d] = true;
    Value sum = sumOf(rewriter, loc, x, dims, /*squared=*/true);
    Value count = countOf(rewriter, loc, x, dims);
    double epsilon = op.getEpsilon().convertToDouble();
    Type element = resultType.getElementType();
    Value y = buildParallelGeneric(
        rewriter, loc, resultType, tensorSizes(rewriter, loc, x),
        ValueRange{x, sum, scale},
        {rewriter.getMultiDimIdentityMap(rank),
         reducedMap(rewriter.getContext(), dims), scaleMap},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value v = promoteHalf(b, nloc, args[0]);
          Value ms = b.create<arith::AddFOp>(
              nloc, b.create<arith::DivFOp>(nloc, args[1], count),
              scalarConst(b, nloc, args[1].getType(), epsilon));
          Value inv = b.create<arith::DivFOp>(
              nloc, scalarConst(b, nloc, ms.getType(), 1.0),
              b.create<math::SqrtOp>(nloc, ms));
          Value normed = b.create<arith::MulFOp>(nloc, v, inv);
          return demoteTo(b, nloc,
                          b.create<arith::MulFOp>(
                              nloc, normed, promoteHalf(b, nloc, args[2])),
                          element);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Lowers MeanVarianceNormalization over `axes` (default [0, 2, 3]).
struct MeanVarianceNormalizationLowering
    : OpConversionPattern<onnx::MeanVarianceNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::MeanVarianceNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    RankedTensorType resultType;
    if (failed(matchFloatInput(op, x, *getTypeConverter(), resultType)))
      return rewriter.notifyMatchFailure(op, "expected a float tensor");
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> axes = {0, 2, 3};
    if (std::optional<ArrayAttr> attr = op.getAxes())
      axes = getI64Array(attr, 0, 0);
    SmallVector<bool> dims(rank, false);
    for (int64_t axis : axes) {
      if (axis < -rank || axis >= rank)
        return op.emitError() << "axis " << axis << " is out of range for rank "
                              << rank;
      dims[normalizeAxis(axis, rank)] = true;
    }
    Value sum = sumOf(rewriter, loc, x, dims, false);
    Value sumSq = sumOf(rewriter, loc, x, dims, true);
    Value count = countOf(rewriter, loc, x, dims);
    AffineMap reduced = reducedMap(rewriter.getContext(), dims);
    Type element = resultType.getElementType();
    Value y = buildParallelGeneric(
        rewriter, loc, resultType, tensorSizes(rewriter, loc, x),
        ValueRange{x, sum, sumSq},
        {rewriter.getMultiDimIdentityMap(rank), reduced, reduced},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value v = promoteHalf(b, nloc, args[0]);
          Value mean = b.create<arith::DivFOp>(nloc, args[1], count);
          Value meanSq = b.create<arith::DivFOp>(nloc, args[2], count);
          Value var = b.create<arith::SubFOp>(
              nloc, meanSq, b.create<arith::MulFOp>(nloc, mean, mean));
          Value std = b.create<arith::AddFOp>(
              nloc, b.create<math::SqrtOp>(nloc, var),
              scalarConst(b, nloc, var.getType(), 1e-9));
          return demoteTo(
              b, nloc,
              b.create<arith::DivFOp>(
                  nloc, b.create<arith::SubFOp>(nloc, v, mean), std),
              element);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Lowers GroupNormalization (opset 21: per-channel scale and bias) on an
/// [N, C, ...] input with a static channel count.
struct GroupNormalizationLowering
    : OpConversionPattern<onnx::GroupNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GroupNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getX();
    RankedTensorType resultType;
    if (failed(matchFloatInput(op, x, *getTypeConverter(), resultType)))
      return rewriter.notifyMatchFailure(op, "expected a float tensor");
    int64_t rank = resultType.getRank();
    int64_t groups = op.getNumGroups();
    auto xType = llvm::cast<RankedTensorType>(x.getType());
    if (rank < 2 || xType.isDynamicDim(1))
      return op.emitError() << "X must be [N, C, ...] with a static C";
    int64_t channels = xType.getDimSize(1);
    if (groups <= 0 || channels % groups != 0)
      return op.emitError() << channels << " channels cannot be split into "
                            << groups << " groups";
    Type element = resultType.getElementType();
    for (Value v : {adaptor.getScale(), adaptor.getBias()}) {
      auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
      if (!type || type.getRank() != 1 || type.getElementType() != element ||
          type.getDimSize(0) != channels)
        return op.emitError() << "scale and bias must be [" << channels << "]";
    }
    int64_t perGroup = channels / groups;
    // The [N, G, C/G, ...] view.
    SmallVector<OpFoldResult> sizes = tensorSizes(rewriter, loc, x);
    SmallVector<OpFoldResult> viewSizes = {sizes[0], rewriter.getIndexAttr(groups),
                                           rewriter.getIndexAttr(perGroup)};
    SmallVector<int64_t> viewShape = {xType.getDimSize(0), groups, perGroup};
    for (int64_t d = 2; d < rank; ++d) {
      viewSizes.push_back(sizes[d]);
      viewShape.push_back(xType.getDimSize(d));
    }
    auto viewType = RankedTensorType::get(viewShape, element);
    Value view = reshapeTo(rewriter, loc, x, viewType, viewSizes);
    int64_t viewRank = rank + 1;
    SmallVector<bool> dims(viewRank, true);
    dims[0] = dims[1] = false;
    Value sum = sumOf(rewriter, loc, view, dims, false);
    Value sumSq = sumOf(rewriter, loc, view, dims, true);
    Value count = countOf(rewriter, loc, view, dims);
    AffineMap reduced = reducedMap(ctx, dims);
    AffineMap channel = AffineMap::get(
        viewRank, 0,
        getAffineDimExpr(1, ctx) * perGroup + getAffineDimExpr(2, ctx), ctx);
    double epsilon = op.getEpsilon().convertToDouble();
    Value y = buildParallelGeneric(
        rewriter, loc, viewType, viewSizes,
        ValueRange{view, sum, sumSq, adaptor.getScale(), adaptor.getBias()},
        {rewriter.getMultiDimIdentityMap(viewRank), reduced, reduced, channel,
         channel},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value v = promoteHalf(b, nloc, args[0]);
          Value mean = b.create<arith::DivFOp>(nloc, args[1], count);
          Value meanSq = b.create<arith::DivFOp>(nloc, args[2], count);
          Value var = b.create<arith::SubFOp>(
              nloc, meanSq, b.create<arith::MulFOp>(nloc, mean, mean));
          Value inv = b.create<arith::DivFOp>(
              nloc, scalarConst(b, nloc, var.getType(), 1.0),
              b.create<math::SqrtOp>(
                  nloc, b.create<arith::AddFOp>(
                            nloc, var,
                            scalarConst(b, nloc, var.getType(), epsilon))));
          Value normed = b.create<arith::MulFOp>(
              nloc, b.create<arith::SubFOp>(nloc, v, mean), inv);
          Value out = b.create<arith::AddFOp>(
              nloc,
              b.create<arith::MulFOp>(nloc, normed,
                                      promoteHalf(b, nloc, args[3])),
              promoteHalf(b, nloc, args[4]));
          return demoteTo(b, nloc, out, element);
        });
    y = reshapeTo(rewriter, loc, y, resultType, sizes);
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// Lowers LRN on an [N, C, ...] input: the square sum over channels
/// [c - floor((size-1)/2), c + ceil((size-1)/2)] is a reduction generic over
/// a window dim whose out-of-range channels read as zero.
struct LRNLowering : OpConversionPattern<onnx::LRNOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    RankedTensorType resultType;
    if (failed(matchFloatInput(op, x, *getTypeConverter(), resultType)))
      return rewriter.notifyMatchFailure(op, "expected a float tensor");
    int64_t rank = resultType.getRank();
    int64_t size = op.getSize();
    if (rank < 3 || size <= 0)
      return op.emitError() << "LRN needs an [N, C, ...] input and size > 0";
    int64_t before = (size - 1) / 2;
    Type element = resultType.getElementType();
    Type acc = computeType(element);
    SmallVector<OpFoldResult> sizes = tensorSizes(rewriter, loc, x);
    Value channels = toValue(rewriter, loc, sizes[1]);
    // Square sums with one extra (window) reduction dim, via tensor.extract.
    SmallVector<int64_t> shape(resultType.getShape());
    Value init = emptyTensor(rewriter, loc, RankedTensorType::get(shape, acc),
                             sizes);
    init = rewriter
               .create<linalg::FillOp>(loc, scalarConst(rewriter, loc, acc, 0.0),
                                       init)
               .getResult(0);
    Value window = rewriter.create<tensor::EmptyOp>(
        loc, ArrayRef<int64_t>{size}, acc);
    MLIRContext *ctx = rewriter.getContext();
    AffineMap outMap = AffineMap::getMultiDimIdentityMap(rank, ctx);
    outMap = AffineMap::get(rank + 1, 0, outMap.getResults(), ctx);
    AffineMap windowMap =
        AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx), ctx);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value squareSum =
        rewriter
            .create<linalg::GenericOp>(
                loc, init.getType(), window, init,
                ArrayRef<AffineMap>{windowMap, outMap}, iterators,
                [&](OpBuilder &b, Location nloc, ValueRange args) {
                  SmallVector<Value> idx;
                  for (int64_t d = 0; d < rank; ++d)
                    idx.push_back(b.create<linalg::IndexOp>(nloc, d));
                  Value w = b.create<linalg::IndexOp>(nloc, rank);
                  // c' = c + w - before, as a signed index.
                  Value c = b.create<arith::SubIOp>(
                      nloc, b.create<arith::AddIOp>(nloc, idx[1], w),
                      indexConst(b, nloc, before));
                  Value inRange = b.create<arith::AndIOp>(
                      nloc,
                      b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::sge,
                                              c, indexConst(b, nloc, 0)),
                      b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::slt,
                                              c, channels));
                  Value safe = b.create<arith::SelectOp>(
                      nloc, inRange, c, indexConst(b, nloc, 0));
                  idx[1] = safe;
                  Value v = promoteHalf(
                      b, nloc, b.create<tensor::ExtractOp>(nloc, x, idx));
                  Value sq = b.create<arith::MulFOp>(nloc, v, v);
                  sq = b.create<arith::SelectOp>(
                      nloc, inRange, sq, scalarConst(b, nloc, acc, 0.0));
                  b.create<linalg::YieldOp>(
                      nloc, ValueRange{b.create<arith::AddFOp>(nloc, args[1],
                                                               sq)});
                })
            .getResult(0);
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    double bias = op.getBias().convertToDouble();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    Value y = buildParallelGeneric(
        rewriter, loc, resultType, sizes, ValueRange{x, squareSum},
        {identity, identity},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value v = promoteHalf(b, nloc, args[0]);
          Value base = b.create<arith::AddFOp>(
              nloc, scalarConst(b, nloc, acc, bias),
              b.create<arith::MulFOp>(
                  nloc, scalarConst(b, nloc, acc, alpha / size), args[1]));
          Value denom = b.create<math::PowFOp>(
              nloc, base, scalarConst(b, nloc, acc, beta));
          return demoteTo(b, nloc, b.create<arith::DivFOp>(nloc, v, denom),
                          element);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

void populateNormalizationExtraPatterns(const TypeConverter &typeConverter,
                                        RewritePatternSet &patterns) {
  patterns.add<RMSNormalizationLowering, MeanVarianceNormalizationLowering,
               GroupNormalizationLowering, LRNLowering>(typeConverter,
                                                        patterns.getContext());
}

} // namespace onnxc::cpu
