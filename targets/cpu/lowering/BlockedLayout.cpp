//===- BlockedLayout.cpp - The NCHWc ops to linalg ------------------------===//
//
// onnxc.ReorderToBlocked, ReorderFromBlocked and BlockedConv
// (compiler/dialect/onnxc, made by passes/layout/NchwcLayout.cpp):
//  - ReorderToBlocked: the channels zero-padded to a whole number of blocks
//    (tensor.pad), then one linalg.generic over [N, Cb, D..., B] reading
//    channel cb * B + b;
//  - ReorderFromBlocked: one linalg.generic over [N, C, D...] reading
//    [n, c floordiv B, d..., c mod B];
//  - BlockedConv: tensor.pad of the spatial dims, an accumulator holding the
//    blocked bias (or zero), one linalg.generic for the convolution whose
//    innermost loop runs over the B output channels of a block (contiguous
//    in the weights and the result), and one elementwise generic for the
//    residual add, the activation and the rounding of 16-bit floats. With
//    group 1 and in_channels not a multiple of B, the convolution is two
//    generics, over X's whole channel blocks and over the true lanes of its
//    last block (X and W sliced), so that X's padding lanes, which may be
//    inf or NaN, are never read.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/FusedActivation.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

Type accumulatorType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

/// A linalg.generic copying `input` into a tensor of `resultType` / `sizes`,
/// element (i...) read at `inputMap`(i...).
Value buildGather(OpBuilder &b, Location loc, Value input, AffineMap inputMap,
                  RankedTensorType resultType, ArrayRef<OpFoldResult> sizes) {
  Value init = emptyTensor(b, loc, resultType, sizes);
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps{inputMap, b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, resultType, input, init, maps, iterators,
          [](OpBuilder &nb, Location nloc, ValueRange args) {
            nb.create<linalg::YieldOp>(nloc, args[0]);
          })
      .getResult(0);
}

RankedTensorType getRankedFloat(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !llvm::isa<FloatType>(type.getElementType()))
    return {};
  return type;
}

/// A reorder moves elements of any number type (the 8-bit ones of
/// transforms/QuantizedChannelsLast.cpp included).
RankedTensorType getRankedNumber(Type t) {
  auto type = llvm::dyn_cast<RankedTensorType>(t);
  if (!type || !llvm::isa<FloatType, IntegerType>(type.getElementType()))
    return {};
  return type;
}

/// [N, C, D...] -> [N, ceil(C/B), D..., B], zero-padded.
struct ReorderToBlockedLowering
    : OpConversionPattern<fused::ReorderToBlockedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::ReorderToBlockedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    RankedTensorType xType = getRankedNumber(x.getType());
    // The converted type: signless for 8-bit integers.
    RankedTensorType resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    resultType = resultType ? getRankedNumber(resultType) : resultType;
    if (!xType || !resultType)
      return op.emitError() << "expects ranked number tensors";
    int64_t block = op.getBlockSize();
    int64_t rank = xType.getRank();
    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> dims = mixedDims(rewriter, loc, x);
    OpFoldResult channelBlocks = m.ceilDiv(dims[1], block);

    // Pad the channels to channelBlocks * block.
    SmallVector<OpFoldResult> low(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> high = low;
    high[1] = m.sub(m.mul(channelBlocks, block), dims[1]);
    Value padded = x;
    if (!isConstantIntValue(high[1], 0))
      padded = rewriter.create<tensor::PadOp>(
          loc, Type(), x, low, foldSizes(high),
          zeroScalar(rewriter, loc, xType.getElementType()));

    MLIRContext *ctx = rewriter.getContext();
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    // Loops (n, cb, d..., b); the input is read at (n, cb * B + b, d...).
    SmallVector<AffineExpr> inputExprs{dim(0), dim(1) * block + dim(rank)};
    for (int64_t d = 2; d < rank; ++d)
      inputExprs.push_back(dim(d));
    SmallVector<OpFoldResult> sizes(dims);
    sizes[1] = channelBlocks;
    sizes.push_back(rewriter.getIndexAttr(block));
    rewriter.replaceOp(op,
                       buildGather(rewriter, loc, padded,
                                   AffineMap::get(rank + 1, 0, inputExprs, ctx),
                                   resultType, foldSizes(sizes)));
    return success();
  }
};

/// [N, Cb, D..., B] -> [N, C, D...].
struct ReorderFromBlockedLowering
    : OpConversionPattern<fused::ReorderFromBlockedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::ReorderFromBlockedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    RankedTensorType xType = getRankedNumber(x.getType());
    // The converted type: signless for 8-bit integers.
    RankedTensorType resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    resultType = resultType ? getRankedNumber(resultType) : resultType;
    if (!xType || !resultType || xType.isDynamicDim(xType.getRank() - 1))
      return op.emitError() << "expects ranked number tensors with a static "
                               "block size";
    int64_t block = xType.getShape().back();
    int64_t rank = resultType.getRank();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    // Loops (n, c, d...); the input is read at (n, c / B, d..., c % B).
    SmallVector<AffineExpr> inputExprs{dim(0), dim(1).floorDiv(block)};
    for (int64_t d = 2; d < rank; ++d)
      inputExprs.push_back(dim(d));
    inputExprs.push_back(dim(1) % block);
    SmallVector<OpFoldResult> sizes = mixedDims(rewriter, loc, x);
    sizes.pop_back();
    sizes[1] = rewriter.getIndexAttr(op.getChannels());
    rewriter.replaceOp(op, buildGather(rewriter, loc, x,
                                       AffineMap::get(rank, 0, inputExprs, ctx),
                                       resultType, sizes));
    return success();
  }
};

struct BlockedConvLowering : OpConversionPattern<fused::BlockedConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::BlockedConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX(), w = adaptor.getW();
    RankedTensorType xType = getRankedFloat(x), wType = getRankedFloat(w);
    RankedTensorType resultType = getRankedFloat(op.getY());
    if (!xType || !wType || !resultType || !wType.hasStaticShape() ||
        xType.getRank() < 4 || resultType.getRank() != xType.getRank())
      return op.emitError() << "expects a ranked blocked X and result and "
                               "static weights";
    if (failed(
            verifyActivation(op, op.getActivation(), op.getActivationParams())))
      return failure();
    Value bias = isNoneValue(adaptor.getB()) ? Value() : adaptor.getB();
    Value z = isNoneValue(adaptor.getZ()) ? Value() : adaptor.getZ();
    if (z && z.getType() != resultType)
      return op.emitError() << "Z must have the result's type " << resultType;

    int64_t spatial = xType.getRank() - 3;
    bool depthwise = op.getGroup() != 1;
    int64_t kernelStart = depthwise ? 1 : 2;
    SmallVector<int64_t> kernel(wType.getShape().slice(kernelStart, spatial));
    SmallVector<int64_t> strides = getI64Array(op.getStrides(), spatial, 1);
    SmallVector<int64_t> dilations = getI64Array(op.getDilations(), spatial, 1);
    SmallVector<int64_t> pads = getI64Array(op.getPads(), 2 * spatial, 0);

    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> xDims = mixedDims(rewriter, loc, x);
    SmallVector<OpFoldResult> low, high;
    SmallVector<OpFoldResult> outSizes{
        xDims[0], rewriter.getIndexAttr(wType.getDimSize(0))};
    for (int64_t i = 0; i < spatial; ++i) {
      low.push_back(rewriter.getIndexAttr(pads[i]));
      high.push_back(rewriter.getIndexAttr(pads[spatial + i]));
      int64_t extent = (kernel[i] - 1) * dilations[i] + 1;
      if (!resultType.isDynamicDim(2 + i)) {
        outSizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(2 + i)));
        continue;
      }
      OpFoldResult padded =
          m.add(xDims[2 + i], m.constant(pads[i] + pads[spatial + i] - extent));
      outSizes.push_back(m.add(m.floorDiv(padded, strides[i]), m.constant(1)));
    }
    int64_t block = xType.getShape().back();
    low.push_back(rewriter.getIndexAttr(0));
    high.push_back(rewriter.getIndexAttr(0));
    outSizes.push_back(rewriter.getIndexAttr(block));
    outSizes = foldSizes(outSizes);
    Type elementType = resultType.getElementType();
    Value padded = padSpatial(rewriter, loc, x, low, high,
                              zeroScalar(rewriter, loc, elementType));

    // The accumulator: the blocked bias [Mb, B] broadcast, or zeros.
    Type accType = accumulatorType(elementType);
    auto accTensorType = RankedTensorType::get(resultType.getShape(), accType);
    Value empty = emptyTensor(rewriter, loc, accTensorType, outSizes);
    int64_t rank = resultType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    Value init;
    if (bias) {
      SmallVector<AffineMap> maps{
          AffineMap::get(rank, 0, {dim(1), dim(rank - 1)}, ctx),
          rewriter.getMultiDimIdentityMap(rank)};
      init = rewriter
                 .create<linalg::GenericOp>(
                     loc, accTensorType, bias, empty, maps,
                     SmallVector<utils::IteratorType>(
                         rank, utils::IteratorType::parallel),
                     [&](OpBuilder &nb, Location nloc, ValueRange args) {
                       nb.create<linalg::YieldOp>(
                           nloc, promoteHalf(nb, nloc, args[0]));
                     })
                 .getResult(0);
    } else {
      init = rewriter
                 .create<linalg::FillOp>(
                     loc, zeroScalar(rewriter, loc, accType), empty)
                 .getResult(0);
    }

    // The convolution. Group 1, loops
    //   (n, mo, o..., cBlock, k..., ci, mi)
    // reading X at (n, cBlock, o * s + k * d, ci) and W at
    // (mo, cBlock, k..., ci, mi); depthwise, loops (n, cb, o..., k..., b)
    // reading X at (n, cb, o * s + k * d, b) and W at (cb, k..., b).
    SmallVector<AffineExpr> inputExprs, filterExprs, outExprs;
    SmallVector<utils::IteratorType> iterators;
    auto parallel = utils::IteratorType::parallel;
    auto reduction = utils::IteratorType::reduction;
    int64_t numLoops;
    if (depthwise) {
      numLoops = 3 + 2 * spatial;
      int64_t lane = numLoops - 1;
      inputExprs = {dim(0), dim(1)};
      filterExprs = {dim(1)};
      outExprs = {dim(0), dim(1)};
      iterators.assign(2 + spatial, parallel);
      iterators.append(spatial, reduction);
      iterators.push_back(parallel);
      for (int64_t i = 0; i < spatial; ++i) {
        AffineExpr o = dim(2 + i), k = dim(2 + spatial + i);
        inputExprs.push_back(o * strides[i] + k * dilations[i]);
        filterExprs.push_back(k);
        outExprs.push_back(o);
      }
      inputExprs.push_back(dim(lane));
      filterExprs.push_back(dim(lane));
      outExprs.push_back(dim(lane));
    } else {
      numLoops = 5 + 2 * spatial;
      int64_t cBlock = 2 + spatial, ci = numLoops - 2, mi = numLoops - 1;
      inputExprs = {dim(0), dim(cBlock)};
      filterExprs = {dim(1), dim(cBlock)};
      outExprs = {dim(0), dim(1)};
      iterators.assign(2 + spatial, parallel);
      iterators.append(spatial + 2, reduction);
      iterators.push_back(parallel);
      for (int64_t i = 0; i < spatial; ++i) {
        AffineExpr o = dim(2 + i), k = dim(cBlock + 1 + i);
        inputExprs.push_back(o * strides[i] + k * dilations[i]);
        filterExprs.push_back(k);
        outExprs.push_back(o);
      }
      inputExprs.push_back(dim(ci));
      filterExprs.append({dim(ci), dim(mi)});
      outExprs.push_back(dim(mi));
    }
    SmallVector<AffineMap> maps{AffineMap::get(numLoops, 0, inputExprs, ctx),
                                AffineMap::get(numLoops, 0, filterExprs, ctx),
                                AffineMap::get(numLoops, 0, outExprs, ctx)};
    auto convolve = [&](Value input, Value filter, Value into) -> Value {
      return rewriter
          .create<linalg::GenericOp>(
              loc, accTensorType, ValueRange{input, filter}, into, maps,
              iterators,
              [&](OpBuilder &nb, Location nloc, ValueRange args) {
                Value product = nb.create<arith::MulFOp>(
                    nloc, promoteHalf(nb, nloc, args[0]),
                    promoteHalf(nb, nloc, args[1]));
                nb.create<linalg::YieldOp>(
                    nloc, nb.create<arith::AddFOp>(nloc, args[2], product)
                              .getResult());
              })
          .getResult(0);
    };
    // X's padding lanes may hold inf or NaN, which a zero weight would turn
    // into NaN. With group 1 and a partial last block, the reduction is
    // split: the whole blocks, then the last block's true lanes only (X and
    // W sliced to them), so the padding lanes are never read; this is also
    // less work than multiplying them by zero. A depthwise lane only feeds
    // the same lane of Y.
    int64_t inChannels = op.getInChannels();
    int64_t fullBlocks = inChannels / block, lastLanes = inChannels % block;
    Value acc;
    if (depthwise || lastLanes == 0) {
      acc = convolve(padded, w, init);
    } else {
      SmallVector<OpFoldResult> xSizes = mixedDims(rewriter, loc, padded);
      SmallVector<OpFoldResult> wSizes = mixedDims(rewriter, loc, w);
      auto slice = [&](Value source, SmallVector<OpFoldResult> sizes,
                       int64_t firstBlock, int64_t blocks, int64_t laneDim,
                       int64_t lanes) -> Value {
        SmallVector<OpFoldResult> offsets(sizes.size(),
                                          rewriter.getIndexAttr(0));
        SmallVector<OpFoldResult> strides(sizes.size(),
                                          rewriter.getIndexAttr(1));
        offsets[1] = rewriter.getIndexAttr(firstBlock);
        sizes[1] = rewriter.getIndexAttr(blocks);
        sizes[laneDim] = rewriter.getIndexAttr(lanes);
        return rewriter.create<tensor::ExtractSliceOp>(loc, source, offsets,
                                                       sizes, strides);
      };
      int64_t xLaneDim = rank - 1, wLaneDim = wType.getRank() - 2;
      acc = init;
      if (fullBlocks > 0)
        acc = convolve(slice(padded, xSizes, 0, fullBlocks, xLaneDim, block),
                       slice(w, wSizes, 0, fullBlocks, wLaneDim, block), acc);
      acc = convolve(slice(padded, xSizes, fullBlocks, 1, xLaneDim, lastLanes),
                     slice(w, wSizes, fullBlocks, 1, wLaneDim, lastLanes), acc);
    }

    // The epilogue: + Z, activation, rounding to the element type.
    StringRef activation = op.getActivation();
    if (!z && activation.empty() && accType == elementType) {
      rewriter.replaceOp(op, acc);
      return success();
    }
    SmallVector<Value> operands{acc};
    if (z)
      operands.push_back(z);
    std::optional<ArrayAttr> params = op.getActivationParams();
    rewriter.replaceOp(
        op, buildBroadcastGeneric(
                rewriter, loc, resultType, operands,
                [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
                  Value v = args[0];
                  if (z)
                    v = b.create<arith::AddFOp>(nloc, v,
                                                promoteHalf(b, nloc, args[1]));
                  v = applyActivation(b, nloc, v, activation, params);
                  return demoteTo(b, nloc, v, elementType);
                }));
    return success();
  }
};

} // namespace

void populateBlockedLayoutPatterns(const TypeConverter &typeConverter,
                                   RewritePatternSet &patterns) {
  patterns.add<ReorderToBlockedLowering, ReorderFromBlockedLowering,
               BlockedConvLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
