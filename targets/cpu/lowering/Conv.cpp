//===- Conv.cpp - Conv to linalg ------------------------------------------===//
//
// onnx.Conv (X: N x C x D1..Dr, W: M x C/group x k1..kr, optional bias [M])
// becomes: tensor.pad of the spatial dims (explicit pads or auto_pad), an
// accumulator initialized with the broadcast bias (or zero), and a linalg
// convolution:
//   - group == 1, r <= 3: conv_{1d_ncw_fcw, 2d_nchw_fchw, 3d_ncdhw_fcdhw};
//   - depthwise (group == C == M), r <= 3: depthwise_conv_*_nc*_c*;
//   - other groups, r == 2: conv_2d_ngchw_gfchw on the channel-split views;
//   - anything else: an equivalent linalg.generic on the same views.
// 16-bit floats accumulate in f32 and are rounded once at the end.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// f32 for the 16-bit floats, the type itself otherwise.
Type accumulatorType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

SmallVector<int64_t> staticShape(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return shape;
}

/// tensor.expand_shape of `source` by `groups` into a tensor of `sizes`.
Value expand(OpBuilder &b, Location loc, Value source,
             ArrayRef<ReassociationIndices> groups,
             ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> folded = foldSizes(sizes);
  auto type = RankedTensorType::get(
      staticShape(folded),
      llvm::cast<RankedTensorType>(source.getType()).getElementType());
  return b.create<tensor::ExpandShapeOp>(loc, type, source, groups, folded);
}

/// Reassociation that merges dims `first` and `first + 1` of a rank-`rank`
/// tensor and keeps the others.
SmallVector<ReassociationIndices> mergePair(int64_t rank, int64_t first) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == first + 1)
      continue;
    if (d == first)
      groups.push_back({d, d + 1});
    else
      groups.push_back({d});
  }
  return groups;
}

/// The accumulator [N, M, out...]: `bias` broadcast along dim 1, or zeros.
Value initialAccumulator(OpBuilder &b, Location loc, Type accType,
                         ArrayRef<OpFoldResult> sizes, Value bias) {
  Value empty = b.create<tensor::EmptyOp>(loc, foldSizes(sizes), accType);
  if (!bias)
    return b.create<linalg::FillOp>(loc, zeroScalar(b, loc, accType), empty)
        .getResult(0);
  int64_t rank = sizes.size();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, getAffineDimExpr(1, ctx), ctx),
      b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, empty.getType(), bias, empty, maps, iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value v = args[0];
            if (v.getType() != accType)
              v = nb.create<arith::ExtFOp>(nloc, accType, v);
            nb.create<linalg::YieldOp>(nloc, v);
          })
      .getResult(0);
}

/// A grouped convolution as linalg.generic on channel-split views:
/// input [N, G, C/G, in...], filter [G, M/G, C/G, k...], accumulator
/// [N, G, M/G, out...]. Works for any spatial rank and group count.
Value genericGroupedConv(OpBuilder &b, Location loc, Value input, Value filter,
                         Value init, ArrayRef<WindowDim> window) {
  int64_t rank = window.size();
  int64_t loops = 3 + rank + 1 + rank; // n g m o... | c k...
  MLIRContext *ctx = b.getContext();
  auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
  int64_t cLoop = 3 + rank;
  SmallVector<AffineExpr> inputExprs = {dim(0), dim(1), dim(cLoop)};
  SmallVector<AffineExpr> filterExprs = {dim(1), dim(2), dim(cLoop)};
  SmallVector<AffineExpr> outExprs = {dim(0), dim(1), dim(2)};
  for (int64_t i = 0; i < rank; ++i) {
    AffineExpr o = dim(3 + i), k = dim(cLoop + 1 + i);
    inputExprs.push_back(o * window[i].stride + k * window[i].dilation);
    filterExprs.push_back(k);
    outExprs.push_back(o);
  }
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inputExprs, ctx),
                                 AffineMap::get(loops, 0, filterExprs, ctx),
                                 AffineMap::get(loops, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(3 + rank,
                                             utils::IteratorType::parallel);
  iterators.append(rank + 1, utils::IteratorType::reduction);
  return b
      .create<linalg::GenericOp>(
          loc, init.getType(), ValueRange{input, filter}, init, maps, iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Type accType = args[2].getType();
            Value x = args[0], w = args[1];
            if (x.getType() != accType)
              x = nb.create<arith::ExtFOp>(nloc, accType, x);
            if (w.getType() != accType)
              w = nb.create<arith::ExtFOp>(nloc, accType, w);
            Value prod = nb.create<arith::MulFOp>(nloc, x, w);
            nb.create<linalg::YieldOp>(
                nloc,
                nb.create<arith::AddFOp>(nloc, args[2], prod).getResult());
          })
      .getResult(0);
}

/// onnx.Conv on float tensors with a static kernel size.
struct ConvLowering : OpConversionPattern<onnx::ConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    Value x = adaptor.getX(), w = adaptor.getW(), bias = adaptor.getB();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    auto wType = llvm::dyn_cast<RankedTensorType>(w.getType());
    Type elementType = resultType.getElementType();
    if (!xType || !wType || !llvm::isa<FloatType>(elementType) ||
        xType.getElementType() != elementType ||
        wType.getElementType() != elementType)
      return rewriter.notifyMatchFailure(op, "expects float tensors");
    int64_t rank = xType.getRank();
    int64_t spatialRank = rank - 2;
    if (rank < 3 || wType.getRank() != rank || resultType.getRank() != rank)
      return op.emitError("Conv expects X, W and Y of the same rank >= 3");
    if (isNoneValue(bias)) {
      bias = nullptr;
    } else {
      auto biasType = llvm::dyn_cast<RankedTensorType>(bias.getType());
      if (!biasType || biasType.getRank() != 1 ||
          biasType.getElementType() != elementType)
        return op.emitError("Conv's bias must be a 1-D tensor of X's type");
    }

    // Kernel size: the attribute, else W's spatial dims (must be static).
    FailureOr<SmallVector<int64_t>> resolvedKernel =
        resolveKernelShape(op, wType, op.getKernelShape());
    if (failed(resolvedKernel))
      return failure();
    SmallVector<int64_t> kernel = std::move(*resolvedKernel);
    if (llvm::any_of(kernel, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "dynamic kernel size");

    int64_t group = op.getGroup();
    int64_t channels = xType.getDimSize(1);
    int64_t filters = wType.getDimSize(0);
    int64_t groupChannels = wType.getDimSize(1);
    if (group < 1)
      return op.emitError("group must be positive");
    if (!ShapedType::isDynamic(channels) &&
        !ShapedType::isDynamic(groupChannels) &&
        channels != groupChannels * group)
      return op.emitError() << "X has " << channels << " channels but W "
                            << "expects " << groupChannels * group << " (group "
                            << group << ")";
    if (!ShapedType::isDynamic(filters) && filters % group != 0)
      return op.emitError("W's output channels are not divisible by group");
    if (group > 1 &&
        (ShapedType::isDynamic(channels) || ShapedType::isDynamic(filters) ||
         ShapedType::isDynamic(groupChannels)))
      return rewriter.notifyMatchFailure(op,
                                         "grouped Conv with dynamic channels");

    FailureOr<SmallVector<WindowDim>> window = resolveWindow(
        rewriter, op, x, kernel, op.getStrides(), op.getDilations(),
        op.getPads(), op.getAutoPad(), /*ceilMode=*/false,
        /*clampAutoPad=*/true, resultType);
    if (failed(window))
      return failure();

    Location loc = op.getLoc();
    SmallVector<OpFoldResult> low, high, outSizes;
    SmallVector<int64_t> strides, dilations;
    outSizes.push_back(mixedDims(rewriter, loc, x)[0]);
    outSizes.push_back(mixedDims(rewriter, loc, w)[0]);
    IndexMath m(rewriter, loc);
    for (auto [i, wd] : llvm::enumerate(*window)) {
      // ONNX Runtime rejects a kernel larger than the padded input (the pools
      // accept it).
      std::optional<int64_t> padded =
          getConstantIntValue(m.add(m.add(wd.input, wd.padBegin), wd.padEnd));
      if (padded && *padded < wd.extent())
        return op.emitError() << "the kernel (extent " << wd.extent()
                              << ") is larger than the padded input ("
                              << *padded << ") in spatial dim " << i;
      // Pad the end to what the last window reads, so that a run-time size
      // can never make the convolution read past the buffer.
      OpFoldResult reach =
          m.add(m.mul(m.sub(wd.output, m.constant(1)), wd.stride),
                m.constant(wd.extent()));
      low.push_back(wd.padBegin);
      high.push_back(
          m.max(wd.padEnd, m.sub(m.sub(reach, wd.input), wd.padBegin)));
      outSizes.push_back(wd.output);
      strides.push_back(wd.stride);
      dilations.push_back(wd.dilation);
    }
    Value padded = padSpatial(rewriter, loc, x, low, high,
                              zeroScalar(rewriter, loc, elementType));
    Type accType = accumulatorType(elementType);
    Value init = initialAccumulator(rewriter, loc, accType, outSizes, bias);
    Type initType = init.getType();
    Attribute stridesAttr = rewriter.getI64TensorAttr(strides);
    Attribute dilationsAttr = rewriter.getI64TensorAttr(dilations);
    ValueRange outs(init);

    Value result;
    bool depthwise = group > 1 && group == channels && group == filters;
    if (group == 1 && spatialRank == 1) {
      result = rewriter
                   .create<linalg::Conv1DNcwFcwOp>(loc, initType,
                                                   ValueRange{padded, w}, outs,
                                                   stridesAttr, dilationsAttr)
                   .getResult(0);
    } else if (group == 1 && spatialRank == 2) {
      result = rewriter
                   .create<linalg::Conv2DNchwFchwOp>(
                       loc, initType, ValueRange{padded, w}, outs, stridesAttr,
                       dilationsAttr)
                   .getResult(0);
    } else if (group == 1 && spatialRank == 3) {
      result = rewriter
                   .create<linalg::Conv3DNcdhwFcdhwOp>(
                       loc, initType, ValueRange{padded, w}, outs, stridesAttr,
                       dilationsAttr)
                   .getResult(0);
    } else if (depthwise && spatialRank <= 3) {
      // W is [C, 1, k...]: drop the unit dim for the depthwise layout.
      SmallVector<ReassociationIndices> groups = {{0, 1}};
      for (int64_t d = 2; d < rank; ++d)
        groups.push_back({d});
      Value filter = rewriter.create<tensor::CollapseShapeOp>(loc, w, groups);
      ValueRange ins{padded, filter};
      if (spatialRank == 1)
        result = rewriter
                     .create<linalg::DepthwiseConv1DNcwCwOp>(
                         loc, initType, ins, outs, stridesAttr, dilationsAttr)
                     .getResult(0);
      else if (spatialRank == 2)
        result = rewriter
                     .create<linalg::DepthwiseConv2DNchwChwOp>(
                         loc, initType, ins, outs, stridesAttr, dilationsAttr)
                     .getResult(0);
      else
        result = rewriter
                     .create<linalg::DepthwiseConv3DNcdhwCdhwOp>(
                         loc, initType, ins, outs, stridesAttr, dilationsAttr)
                     .getResult(0);
    } else {
      // Split the channels into (group, channels per group) everywhere.
      SmallVector<OpFoldResult> paddedDims = mixedDims(rewriter, loc, padded);
      SmallVector<OpFoldResult> inputSizes = {
          paddedDims[0], rewriter.getIndexAttr(group),
          rewriter.getIndexAttr(groupChannels)};
      inputSizes.append(paddedDims.begin() + 2, paddedDims.end());
      Value input =
          expand(rewriter, loc, padded, mergePair(rank + 1, 1), inputSizes);

      SmallVector<OpFoldResult> filterSizes = {
          rewriter.getIndexAttr(group), rewriter.getIndexAttr(filters / group),
          rewriter.getIndexAttr(groupChannels)};
      for (int64_t k : kernel)
        filterSizes.push_back(rewriter.getIndexAttr(k));
      Value filter =
          expand(rewriter, loc, w, mergePair(rank + 1, 0), filterSizes);

      SmallVector<OpFoldResult> accSizes = {
          outSizes[0], rewriter.getIndexAttr(group),
          rewriter.getIndexAttr(filters / group)};
      accSizes.append(outSizes.begin() + 2, outSizes.end());
      Value acc = expand(rewriter, loc, init, mergePair(rank + 1, 1), accSizes);
      if (spatialRank == 2)
        acc = rewriter
                  .create<linalg::Conv2DNgchwGfchwOp>(
                      loc, acc.getType(), ValueRange{input, filter},
                      ValueRange{acc}, stridesAttr, dilationsAttr)
                  .getResult(0);
      else
        acc = genericGroupedConv(rewriter, loc, input, filter, acc, *window);
      result = rewriter.create<tensor::CollapseShapeOp>(loc, acc,
                                                        mergePair(rank + 1, 1));
    }

    if (accType != elementType) {
      Value empty = rewriter.create<tensor::EmptyOp>(
          loc, mixedDims(rewriter, loc, result), elementType);
      SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
      result = rewriter
                   .create<linalg::GenericOp>(
                       loc, empty.getType(), result, empty, maps,
                       SmallVector<utils::IteratorType>(
                           rank, utils::IteratorType::parallel),
                       [&](OpBuilder &nb, Location nloc, ValueRange args) {
                         nb.create<linalg::YieldOp>(
                             nloc, nb.create<arith::TruncFOp>(nloc, elementType,
                                                              args[0])
                                       .getResult());
                       })
                   .getResult(0);
    }
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void populateConvPatterns(const TypeConverter &typeConverter,
                          RewritePatternSet &patterns) {
  patterns.add<ConvLowering>(typeConverter, patterns.getContext());
  populateConvTransposePatterns(typeConverter, patterns);
}

} // namespace onnxc::cpu
