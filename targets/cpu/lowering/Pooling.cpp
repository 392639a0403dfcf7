//===- Pooling.cpp - MaxPool, AveragePool and LpPool to linalg ------------===//
//
// A pool is a linalg.generic over (n, c, out..., window...) reading the padded
// input at o*stride + k*dilation, the window loops being reductions (the form
// of linalg's pooling_* named ops, for any spatial rank). The input is padded
// once with the reduction's identity: the explicit/auto pads at the front and
// whatever the last (ceil_mode) window needs at the end.
//
// Semantics follow ONNX Runtime:
//  - MaxPool ignores NaN (arith.maxnumf) and starts from the lowest finite
//    value, so padding never wins; integer pools use the type's minimum.
//    The Indices output, when used, holds the first maximum's flat offset
//    (row-major spatial dims, or column-major with storage_order = 1).
//  - AveragePool divides by the number of window taps inside the input
//    (count_include_pad = 0) or inside the explicitly padded input
//    (count_include_pad = 1); taps a ceil_mode window has past the end pad
//    never count. The divisor is a constant when every window is full and is
//    computed from the output index otherwise.
//  - LpPool is (sum |x|^p)^(1/p) over the window (padding adds nothing).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

using namespace mlir;

namespace onnxc::cpu {
namespace {

enum class PoolKind { Max, Average, Lp };

/// What a pool needs from its op beyond the shared window attributes.
struct PoolConfig {
  PoolKind kind;
  bool countIncludePad = false;
  int64_t p = 2;
  /// Whether the MaxPool Indices output must be computed, and its layout.
  bool indices = false;
  bool columnMajor = false;
};

/// The value padding and the accumulator start from: the lowest finite
/// value (max over floats), the type's minimum (max over integers), zero
/// (sums).
Value identityValue(OpBuilder &b, Location loc, Type type, PoolKind kind,
                    bool isUnsigned) {
  if (kind != PoolKind::Max)
    return zeroScalar(b, loc, type);
  if (auto floatType = llvm::dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        loc, type,
        b.getFloatAttr(type, APFloat::getLargest(floatType.getFloatSemantics(),
                                                 /*Negative=*/true)));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt lowest =
      isUnsigned ? APInt::getMinValue(width) : APInt::getSignedMinValue(width);
  return b.create<arith::ConstantOp>(loc, type, b.getIntegerAttr(type, lowest));
}

/// Whether every window of `w` has all its taps counted by AveragePool (a
/// compile-time fact only with static sizes).
bool allWindowsFull(const WindowDim &w, bool countIncludePad) {
  std::optional<int64_t> in = getConstantIntValue(w.input);
  std::optional<int64_t> out = getConstantIntValue(w.output);
  std::optional<int64_t> begin = getConstantIntValue(w.padBegin);
  std::optional<int64_t> end = getConstantIntValue(w.padEnd);
  if (!in || !out || !begin || !end)
    return false;
  int64_t last = (*out - 1) * w.stride + w.extent(); // in padded coordinates
  if (countIncludePad)
    return last <= *in + *begin + *end;
  return *begin == 0 && last <= *in;
}

/// Number of taps j in [0, kernel) of the window at output index `o` with
/// lo <= o*s - padBegin + j*d < hi, as an index value.
Value tapsInside(OpBuilder &b, Location loc, const WindowDim &w, Value o,
                 Value lo, Value hi) {
  auto c = [&](int64_t v) { return indexConst(b, loc, v); };
  Value start =
      b.create<arith::SubIOp>(loc, b.create<arith::MulIOp>(loc, o, c(w.stride)),
                              toValue(b, loc, w.padBegin));
  // First tap at or after lo, last tap before hi.
  Value first = b.create<arith::CeilDivSIOp>(
      loc, b.create<arith::SubIOp>(loc, lo, start), c(w.dilation));
  first = b.create<arith::MaxSIOp>(loc, first, c(0));
  Value last = b.create<arith::FloorDivSIOp>(
      loc,
      b.create<arith::SubIOp>(loc, b.create<arith::SubIOp>(loc, hi, c(1)),
                              start),
      c(w.dilation));
  last = b.create<arith::MinSIOp>(loc, last, c(w.kernel - 1));
  Value count = b.create<arith::AddIOp>(
      loc, b.create<arith::SubIOp>(loc, last, first), c(1));
  return b.create<arith::MaxSIOp>(loc, count, c(0));
}

Type accumulatorType(Type elementType, PoolKind kind) {
  if (kind != PoolKind::Max && (elementType.isF16() || elementType.isBF16()))
    return Float32Type::get(elementType.getContext());
  return elementType;
}

/// Lowers a pool of `x` into values of `resultType` (and, with
/// config.indices, an i64 Indices tensor of `indicesType`).
FailureOr<SmallVector<Value>>
lowerPool(ConversionPatternRewriter &rewriter, Operation *op, Value x,
          bool isUnsigned, ArrayRef<int64_t> kernel,
          std::optional<ArrayAttr> strides, std::optional<ArrayAttr> dilations,
          std::optional<ArrayAttr> pads, StringRef autoPad, bool ceilMode,
          RankedTensorType resultType, RankedTensorType indicesType,
          const PoolConfig &config) {
  Location loc = op->getLoc();
  auto xType = llvm::cast<RankedTensorType>(x.getType());
  Type elementType = xType.getElementType();
  FailureOr<SmallVector<WindowDim>> window =
      resolveWindow(rewriter, op, x, kernel, strides, dilations, pads, autoPad,
                    ceilMode, /*clampAutoPad=*/false, resultType);
  if (failed(window))
    return failure();
  int64_t spatialRank = window->size();
  int64_t rank = spatialRank + 2;

  // Negative (auto_pad SAME) pads cut the input instead: windows start
  // inside it and never read what is cut off at the end.
  IndexMath m(rewriter, loc);
  SmallVector<OpFoldResult> cutOffsets(2, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> cutSizes = mixedDims(rewriter, loc, x);
  Value original = x;
  bool cut = false;
  for (int64_t i = 0; i < spatialRank; ++i) {
    WindowDim &w = (*window)[i];
    OpFoldResult beginCut =
        m.max(m.constant(0), m.sub(m.constant(0), w.padBegin));
    OpFoldResult endCut = m.max(m.constant(0), m.sub(m.constant(0), w.padEnd));
    cut |= !isConstantIntValue(beginCut, 0) || !isConstantIntValue(endCut, 0);
    w.input = m.sub(m.sub(w.input, beginCut), endCut);
    w.padBegin = m.max(m.constant(0), w.padBegin);
    w.padEnd = m.max(m.constant(0), w.padEnd);
    cutOffsets.push_back(beginCut);
    cutSizes[2 + i] = w.input;
  }
  if (cut)
    x = rewriter.create<tensor::ExtractSliceOp>(
        loc, x, foldSizes(cutOffsets), foldSizes(cutSizes),
        SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1)));

  // Pad: the leading pad, and at the end whatever the last window reaches.
  SmallVector<OpFoldResult> low, high;
  SmallVector<OpFoldResult> outSizes = {mixedDims(rewriter, loc, x)[0],
                                        mixedDims(rewriter, loc, x)[1]};
  for (const WindowDim &w : *window) {
    OpFoldResult reach = m.add(m.mul(m.sub(w.output, m.constant(1)), w.stride),
                               m.constant(w.extent()));
    low.push_back(w.padBegin);
    high.push_back(
        m.max(m.constant(0), m.sub(m.sub(reach, w.input), w.padBegin)));
    outSizes.push_back(w.output);
  }
  Value padValue =
      identityValue(rewriter, loc, elementType, config.kind, isUnsigned);
  Value padded = padSpatial(rewriter, loc, x, low, high, padValue);

  // The reduction: loops n, c, out... | window...
  Type accType = accumulatorType(elementType, config.kind);
  MLIRContext *ctx = rewriter.getContext();
  int64_t loops = rank + spatialRank;
  auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
  SmallVector<AffineExpr> inputExprs = {dim(0), dim(1)};
  SmallVector<AffineExpr> windowExprs, outExprs = {dim(0), dim(1)};
  for (int64_t i = 0; i < spatialRank; ++i) {
    const WindowDim &w = (*window)[i];
    inputExprs.push_back(dim(2 + i) * w.stride + dim(rank + i) * w.dilation);
    windowExprs.push_back(dim(rank + i));
    outExprs.push_back(dim(2 + i));
  }
  AffineMap outMap = AffineMap::get(loops, 0, outExprs, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inputExprs, ctx),
                                 AffineMap::get(loops, 0, windowExprs, ctx),
                                 outMap};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.append(spatialRank, utils::IteratorType::reduction);
  // The window operand only gives the reduction loops their sizes.
  Value windowShape =
      rewriter.create<tensor::EmptyOp>(loc, kernel, rewriter.getI1Type());
  Value empty =
      rewriter.create<tensor::EmptyOp>(loc, foldSizes(outSizes), accType);
  Value start = identityValue(rewriter, loc, accType, config.kind, isUnsigned);
  Value init = rewriter.create<linalg::FillOp>(loc, start, empty).getResult(0);
  bool isFloat = llvm::isa<FloatType>(elementType);

  SmallVector<Value> results;
  if (config.indices) {
    // Values and the flat offset of the first maximum, updated together.
    Value indexEmpty = rewriter.create<tensor::EmptyOp>(
        loc, foldSizes(outSizes), rewriter.getI64Type());
    Value minusOne =
        rewriter.create<arith::ConstantOp>(loc, rewriter.getI64IntegerAttr(-1));
    Value indexInit =
        rewriter.create<linalg::FillOp>(loc, minusOne, indexEmpty).getResult(0);
    SmallVector<Value> inputDims;
    for (int64_t d = 1; d < rank; ++d)
      inputDims.push_back(dimValue(rewriter, loc, original, d));
    maps.push_back(outMap);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{init.getType(), indexInit.getType()},
        ValueRange{padded, windowShape}, ValueRange{init, indexInit}, maps,
        iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
          // Input coordinates of this tap: o*s - padBegin + k*d (plus what
          // a negative pad cut off).
          SmallVector<Value> coords;
          for (int64_t i = 0; i < spatialRank; ++i) {
            const WindowDim &w = (*window)[i];
            Value o = nb.create<linalg::IndexOp>(nloc, 2 + i);
            Value k = nb.create<linalg::IndexOp>(nloc, rank + i);
            Value pos = nb.create<arith::AddIOp>(
                nloc,
                nb.create<arith::MulIOp>(nloc, o,
                                         indexConst(nb, nloc, w.stride)),
                nb.create<arith::MulIOp>(nloc, k,
                                         indexConst(nb, nloc, w.dilation)));
            pos = nb.create<arith::SubIOp>(nloc, pos,
                                           toValue(nb, nloc, w.padBegin));
            coords.push_back(nb.create<arith::AddIOp>(
                nloc, pos, toValue(nb, nloc, cutOffsets[2 + i])));
          }
          // (n * C + c) * prod(in) + spatial offset.
          Value n = nb.create<linalg::IndexOp>(nloc, 0);
          Value c = nb.create<linalg::IndexOp>(nloc, 1);
          Value flat = nb.create<arith::AddIOp>(
              nloc, nb.create<arith::MulIOp>(nloc, n, inputDims[0]), c);
          if (!config.columnMajor) {
            for (int64_t i = 0; i < spatialRank; ++i)
              flat = nb.create<arith::AddIOp>(
                  nloc, nb.create<arith::MulIOp>(nloc, flat, inputDims[1 + i]),
                  coords[i]);
          } else {
            Value spatial = coords[spatialRank - 1];
            for (int64_t i = spatialRank - 2; i >= 0; --i)
              spatial = nb.create<arith::AddIOp>(
                  nloc,
                  nb.create<arith::MulIOp>(nloc, spatial, inputDims[1 + i]),
                  coords[i]);
            for (int64_t i = 0; i < spatialRank; ++i)
              flat = nb.create<arith::MulIOp>(nloc, flat, inputDims[1 + i]);
            flat = nb.create<arith::AddIOp>(nloc, flat, spatial);
          }
          flat = nb.create<arith::IndexCastOp>(nloc, nb.getI64Type(), flat);
          Value greater =
              isFloat
                  ? nb.create<arith::CmpFOp>(nloc, arith::CmpFPredicate::OGT,
                                             args[0], args[2])
                        .getResult()
                  : nb.create<arith::CmpIOp>(nloc,
                                             isUnsigned
                                                 ? arith::CmpIPredicate::ugt
                                                 : arith::CmpIPredicate::sgt,
                                             args[0], args[2])
                        .getResult();
          Value value =
              nb.create<arith::SelectOp>(nloc, greater, args[0], args[2]);
          Value index =
              nb.create<arith::SelectOp>(nloc, greater, flat, args[3]);
          nb.create<linalg::YieldOp>(nloc, ValueRange{value, index});
        });
    results = {generic.getResult(0), generic.getResult(1)};
  } else {
    Value reduced =
        rewriter
            .create<linalg::GenericOp>(
                loc, init.getType(), ValueRange{padded, windowShape}, init,
                maps, iterators,
                [&](OpBuilder &nb, Location nloc, ValueRange args) {
                  Value v = args[0], acc = args[2];
                  Value next;
                  switch (config.kind) {
                  case PoolKind::Max:
                    if (isFloat)
                      next = nb.create<arith::MaxNumFOp>(nloc, acc, v);
                    else if (isUnsigned)
                      next = nb.create<arith::MaxUIOp>(nloc, acc, v);
                    else
                      next = nb.create<arith::MaxSIOp>(nloc, acc, v);
                    break;
                  case PoolKind::Average:
                    if (v.getType() != accType)
                      v = nb.create<arith::ExtFOp>(nloc, accType, v);
                    next = nb.create<arith::AddFOp>(nloc, acc, v);
                    break;
                  case PoolKind::Lp: {
                    if (v.getType() != accType)
                      v = nb.create<arith::ExtFOp>(nloc, accType, v);
                    Value a = nb.create<math::AbsFOp>(nloc, v);
                    Value term;
                    if (config.p == 1)
                      term = a;
                    else if (config.p == 2)
                      term = nb.create<arith::MulFOp>(nloc, a, a);
                    else
                      term = nb.create<math::PowFOp>(
                          nloc, a,
                          scalarConst(nb, nloc, accType,
                                      static_cast<double>(config.p)));
                    next = nb.create<arith::AddFOp>(nloc, acc, term);
                    break;
                  }
                  }
                  nb.create<linalg::YieldOp>(nloc, next);
                })
            .getResult(0);
    results = {reduced};
  }

  // Average divisor / Lp root, and the conversion back to the element type.
  bool uniform = config.kind == PoolKind::Average &&
                 llvm::all_of(*window, [&](const WindowDim &w) {
                   return allWindowsFull(w, config.countIncludePad);
                 });
  if (config.kind != PoolKind::Max) {
    int64_t windowSize = 1;
    for (int64_t k : kernel)
      windowSize *= k;
    Value constDivisor =
        scalarConst(rewriter, loc, accType, static_cast<double>(windowSize));
    // Bounds of the counted region per dim: [-padBegin, in + padEnd) or
    // [0, in).
    SmallVector<Value> los, his;
    for (const WindowDim &w : *window) {
      if (config.countIncludePad) {
        los.push_back(toValue(rewriter, loc, m.sub(m.constant(0), w.padBegin)));
        his.push_back(toValue(rewriter, loc, m.add(w.input, w.padEnd)));
      } else {
        los.push_back(indexConst(rewriter, loc, 0));
        his.push_back(toValue(rewriter, loc, w.input));
      }
    }
    Value finalEmpty =
        rewriter.create<tensor::EmptyOp>(loc, foldSizes(outSizes), elementType);
    SmallVector<AffineMap> idMaps(2, rewriter.getMultiDimIdentityMap(rank));
    Value root = config.kind == PoolKind::Lp && config.p > 2
                     ? scalarConst(rewriter, loc, accType,
                                   1.0 / static_cast<double>(config.p))
                     : Value();
    results[0] =
        rewriter
            .create<linalg::GenericOp>(
                loc, finalEmpty.getType(), results[0], finalEmpty, idMaps,
                SmallVector<utils::IteratorType>(rank,
                                                 utils::IteratorType::parallel),
                [&](OpBuilder &nb, Location nloc, ValueRange args) {
                  Value v = args[0];
                  if (config.kind == PoolKind::Average) {
                    Value divisor = constDivisor;
                    if (!uniform) {
                      Value count = indexConst(nb, nloc, 1);
                      for (int64_t i = 0; i < spatialRank; ++i)
                        count = nb.create<arith::MulIOp>(
                            nloc, count,
                            tapsInside(nb, nloc, (*window)[i],
                                       nb.create<linalg::IndexOp>(nloc, 2 + i),
                                       los[i], his[i]));
                      // A window with no counted tap averages to 0, as in
                      // ONNX Runtime, not 0/0.
                      count = nb.create<arith::MaxSIOp>(
                          nloc, count, indexConst(nb, nloc, 1));
                      divisor = nb.create<arith::SIToFPOp>(
                          nloc, accType,
                          nb.create<arith::IndexCastOp>(nloc, nb.getI64Type(),
                                                        count));
                    }
                    v = nb.create<arith::DivFOp>(nloc, v, divisor);
                  } else if (config.p == 2) {
                    v = nb.create<math::SqrtOp>(nloc, v);
                  } else if (config.p > 2) {
                    v = nb.create<math::PowFOp>(nloc, v, root);
                  }
                  if (v.getType() != elementType)
                    v = nb.create<arith::TruncFOp>(nloc, elementType, v);
                  nb.create<linalg::YieldOp>(nloc, v);
                })
            .getResult(0);
  }

  results[0] = castIfNeeded(rewriter, loc, results[0], resultType);
  if (config.indices)
    results[1] = castIfNeeded(rewriter, loc, results[1], indicesType);
  return results;
}

/// Checks the input of a pool: a ranked tensor of rank >= 3 whose element
/// type the pool supports.
LogicalResult checkPoolInput(ConversionPatternRewriter &rewriter, Operation *op,
                             Value x, RankedTensorType result,
                             bool allowIntegers) {
  auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
  if (!xType || xType.getElementType() != result.getElementType())
    return rewriter.notifyMatchFailure(op, "unsupported input type");
  Type element = xType.getElementType();
  bool ok = llvm::isa<FloatType>(element) ||
            (allowIntegers && llvm::isa<IntegerType>(element) &&
             !element.isInteger(1));
  if (!ok)
    return rewriter.notifyMatchFailure(op, "unsupported element type");
  if (xType.getRank() < 3)
    return op->emitError("expects an input of rank >= 3 (N x C x D1 ...)");
  return success();
}

/// onnx.MaxPool on float and integer tensors, with or without Indices.
struct MaxPoolLowering : OpConversionPattern<onnx::MaxPoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::MaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op, 0);
    if (!resultType)
      return failure();
    Value x = adaptor.getX();
    if (failed(checkPoolInput(rewriter, op, x, resultType, true)))
      return failure();
    PoolConfig config{PoolKind::Max};
    RankedTensorType indicesType;
    Value indices = op.getIndices();
    if (!llvm::isa<NoneType>(indices.getType()) && !indices.use_empty()) {
      indicesType = convertedResultType(*getTypeConverter(), op, 1);
      if (!indicesType || !indicesType.getElementType().isInteger(64))
        return op.emitError("MaxPool's Indices must be an int64 tensor");
      config.indices = true;
      config.columnMajor = op.getStorageOrder() == 1;
    }
    FailureOr<SmallVector<Value>> results =
        lowerPool(rewriter, op, x, isUnsignedElement(op.getX()),
                  getI64Array(op.getKernelShape(), 0, 0), op.getStrides(),
                  op.getDilations(), op.getPads(), op.getAutoPad(),
                  op.getCeilMode() != 0, resultType, indicesType, config);
    if (failed(results))
      return failure();
    // An unused Indices output needs no value.
    rewriter.replaceOp(
        op, {(*results)[0], config.indices ? (*results)[1] : Value()});
    return success();
  }
};

/// onnx.AveragePool on float tensors.
struct AveragePoolLowering : OpConversionPattern<onnx::AveragePoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::AveragePoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    Value x = adaptor.getX();
    if (failed(checkPoolInput(rewriter, op, x, resultType, false)))
      return failure();
    PoolConfig config{PoolKind::Average};
    config.countIncludePad = op.getCountIncludePad() != 0;
    FailureOr<SmallVector<Value>> results = lowerPool(
        rewriter, op, x, false, getI64Array(op.getKernelShape(), 0, 0),
        op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad(),
        op.getCeilMode() != 0, resultType, {}, config);
    if (failed(results))
      return failure();
    rewriter.replaceOp(op, (*results)[0]);
    return success();
  }
};

/// onnx.LpPool on float tensors (p >= 1).
struct LpPoolLowering : OpConversionPattern<onnx::LpPoolOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LpPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    Value x = adaptor.getX();
    if (failed(checkPoolInput(rewriter, op, x, resultType, false)))
      return failure();
    PoolConfig config{PoolKind::Lp};
    config.p = op.getP();
    if (config.p < 1)
      return op.emitError("LpPool's p must be >= 1");
    FailureOr<SmallVector<Value>> results = lowerPool(
        rewriter, op, x, false, getI64Array(op.getKernelShape(), 0, 0),
        op.getStrides(), op.getDilations(), op.getPads(), op.getAutoPad(),
        op.getCeilMode() != 0, resultType, {}, config);
    if (failed(results))
      return failure();
    rewriter.replaceOp(op, (*results)[0]);
    return success();
  }
};

} // namespace

void populatePoolingPatterns(const TypeConverter &typeConverter,
                             RewritePatternSet &patterns) {
  patterns.add<MaxPoolLowering, AveragePoolLowering, LpPoolLowering>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
