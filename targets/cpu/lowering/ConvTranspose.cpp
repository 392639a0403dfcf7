//===- ConvTranspose.cpp - ConvTranspose to linalg ------------------------===//
//
// onnx.ConvTranspose (X: N x C x in..., W: C x M/group x k..., bias [M])
// scatters every input element through the kernel:
//   Y[n, m, o] += X[n, c, i] * W[c, m, k]  where  o = i*s + k*d - padBegin.
// It is lowered as the equivalent gather: X is spread onto a zero buffer
// (element i at i*s + offset, via tensor.insert_slice with strides) and a
// stride-1 linalg.generic convolution reads that buffer with the kernel
// flipped (index o + span - k*d), so every output is a plain reduction over
// (c, k...) and no scatter is needed.
//
// Pads follow ONNX Runtime: with output_shape (or auto_pad SAME, whose output
// is in*s) the total padding is max(0, natural - wanted), split with the odd
// element at the end for SAME_UPPER and at the beginning otherwise; an
// output_shape longer than the natural output is filled with zeros (bias).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The geometry of one spatial dim of a ConvTranspose.
struct TransposedDim {
  OpFoldResult input, output;
  int64_t kernel, stride, dilation;
  int64_t padBegin;
  /// Where input element 0 lands in the spread buffer.
  int64_t offset;
  /// How far the flipped kernel reaches back: buffer index of output o and
  /// tap k is o + reach - k*dilation.
  int64_t reach;
  OpFoldResult bufferSize;
};

SmallVector<int64_t> staticShape(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return shape;
}

Value expand(OpBuilder &b, Location loc, Value source,
             ArrayRef<ReassociationIndices> groups,
             ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> folded = foldSizes(sizes);
  auto type = RankedTensorType::get(
      staticShape(folded),
      llvm::cast<RankedTensorType>(source.getType()).getElementType());
  return b.create<tensor::ExpandShapeOp>(loc, type, source, groups, folded);
}

/// Merges dims `first` and `first + 1`, keeps the others.
SmallVector<ReassociationIndices> mergePair(int64_t rank, int64_t first) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == first + 1)
      continue;
    groups.push_back(d == first ? ReassociationIndices{d, d + 1}
                                : ReassociationIndices{d});
  }
  return groups;
}

Type accumulatorType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

/// onnx.ConvTranspose on float tensors with a static kernel size.
struct ConvTransposeLowering : OpConversionPattern<onnx::ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ConvTransposeOp op, OpAdaptor adaptor,
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
    int64_t rank = xType.getRank(), spatialRank = rank - 2;
    if (rank < 3 || wType.getRank() != rank || resultType.getRank() != rank)
      return op.emitError(
          "ConvTranspose expects X, W and Y of the same rank >= 3");
    if (isNoneValue(bias)) {
      bias = nullptr;
    } else {
      auto biasType = llvm::dyn_cast<RankedTensorType>(bias.getType());
      if (!biasType || biasType.getRank() != 1 ||
          biasType.getElementType() != elementType)
        return op.emitError(
            "ConvTranspose's bias must be a 1-D tensor of X's type");
    }

    SmallVector<int64_t> kernel(wType.getShape().drop_front(2));
    if (std::optional<ArrayAttr> attr = op.getKernelShape()) {
      SmallVector<int64_t> declared = getI64Array(attr, 0, 0);
      if (static_cast<int64_t>(declared.size()) != spatialRank)
        return op.emitError("kernel_shape must have one value per spatial dim");
      for (int64_t i = 0; i < spatialRank; ++i) {
        if (!ShapedType::isDynamic(kernel[i]) && kernel[i] != declared[i])
          return op.emitError("kernel_shape differs from W's shape");
        kernel[i] = declared[i];
      }
    }
    if (llvm::any_of(kernel, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "dynamic kernel size");

    int64_t group = op.getGroup();
    int64_t channels = xType.getDimSize(1);
    int64_t groupFilters = wType.getDimSize(1);
    if (group < 1)
      return op.emitError("group must be positive");
    if (ShapedType::isDynamic(channels) || ShapedType::isDynamic(groupFilters))
      return rewriter.notifyMatchFailure(op, "dynamic channel counts");
    if (wType.getDimSize(0) != ShapedType::kDynamic &&
        wType.getDimSize(0) != channels)
      return op.emitError("W's first dim must equal X's channels");
    if (channels % group != 0)
      return op.emitError("X's channels are not divisible by group");

    SmallVector<int64_t> strides = getI64Array(op.getStrides(), spatialRank, 1);
    SmallVector<int64_t> dilations =
        getI64Array(op.getDilations(), spatialRank, 1);
    SmallVector<int64_t> pads = getI64Array(op.getPads(), 2 * spatialRank, 0);
    SmallVector<int64_t> outputPadding =
        getI64Array(op.getOutputPadding(), spatialRank, 0);
    SmallVector<int64_t> outputShape = getI64Array(op.getOutputShape(), 0, 0);
    if (static_cast<int64_t>(strides.size()) != spatialRank ||
        static_cast<int64_t>(dilations.size()) != spatialRank ||
        static_cast<int64_t>(pads.size()) != 2 * spatialRank ||
        static_cast<int64_t>(outputPadding.size()) != spatialRank)
      return op.emitError("strides, dilations, output_padding and pads must "
                          "have one value per spatial dim (two for pads)");
    bool hasOutputShape = op.getOutputShape().has_value();
    if (hasOutputShape) {
      // output_shape may also list N and C; only the spatial part counts.
      if (static_cast<int64_t>(outputShape.size()) == rank)
        outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
      if (static_cast<int64_t>(outputShape.size()) != spatialRank)
        return op.emitError("output_shape must have one value per spatial dim");
    }
    StringRef autoPad = op.getAutoPad();
    bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    if (!same && autoPad != "VALID" && autoPad != "NOTSET")
      return op.emitError() << "unknown auto_pad '" << autoPad << "'";

    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> xDims = mixedDims(rewriter, loc, x);
    SmallVector<TransposedDim> dims;
    for (int64_t i = 0; i < spatialRank; ++i) {
      TransposedDim t;
      t.input = xDims[i + 2];
      t.kernel = kernel[i];
      t.stride = strides[i];
      t.dilation = dilations[i];
      if (t.stride < 1 || t.dilation < 1 || t.kernel < 1 || pads[i] < 0 ||
          pads[i + spatialRank] < 0 || outputPadding[i] < 0)
        return op.emitError("strides, dilations and kernel sizes must be "
                            "positive, pads and output_padding "
                            "non-negative");
      int64_t extent = (t.kernel - 1) * t.dilation + 1;
      // The natural output length s*(in-1) + output_padding + extent.
      OpFoldResult natural =
          m.add(m.mul(m.sub(t.input, m.constant(1)), t.stride),
                m.constant(outputPadding[i] + extent));
      if (hasOutputShape || same) {
        // Pads derived from the wanted length need a static input length.
        std::optional<int64_t> n = getConstantIntValue(natural);
        if (!n)
          return rewriter.notifyMatchFailure(
              op, "output_shape/auto_pad with a dynamic spatial dim");
        std::optional<int64_t> in = getConstantIntValue(t.input);
        int64_t wanted = hasOutputShape ? outputShape[i] : *in * t.stride;
        int64_t total = std::max<int64_t>(0, *n - wanted);
        t.padBegin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
        t.output = m.constant(hasOutputShape ? wanted : *n - total);
      } else if (autoPad == "VALID") {
        t.padBegin = 0;
        t.output = natural;
      } else {
        t.padBegin = pads[i];
        t.output = m.sub(natural, m.constant(pads[i] + pads[i + spatialRank]));
      }
      // Buffer index j holds input i at j = i*s + offset and output o reads
      // j = o + reach - k*d; offset = reach - padBegin keeps them in step.
      // Both are shifted so that offset >= 0.
      int64_t span = (t.kernel - 1) * t.dilation;
      int64_t shift = std::max<int64_t>(0, t.padBegin - span);
      t.reach = span + shift;
      t.offset = span - t.padBegin + shift;
      // Big enough for every read and for every input element.
      t.bufferSize = m.max(m.add(t.output, m.constant(t.reach)),
                           m.add(m.mul(m.sub(t.input, m.constant(1)), t.stride),
                                 m.constant(t.offset + 1)));

      std::optional<int64_t> out = getConstantIntValue(t.output);
      if (out && *out < 0)
        return op.emitError("ConvTranspose output size is negative");
      int64_t declared = resultType.getDimSize(i + 2);
      if (!ShapedType::isDynamic(declared)) {
        if (out && *out != declared)
          return op.emitError()
                 << "spatial dim " << i << " of the output is " << declared
                 << " but the attributes give " << *out;
        t.output = m.constant(declared);
      }
      dims.push_back(t);
    }

    // Spread X onto a zero buffer: element i at i*s + offset.
    SmallVector<OpFoldResult> bufferSizes = {xDims[0], xDims[1]};
    SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sliceStrides(2, rewriter.getIndexAttr(1));
    bool unitStrides = true;
    for (const TransposedDim &t : dims) {
      bufferSizes.push_back(t.bufferSize);
      offsets.push_back(rewriter.getIndexAttr(t.offset));
      sliceStrides.push_back(rewriter.getIndexAttr(t.stride));
      unitStrides &= t.stride == 1;
    }
    Value zero = zeroScalar(rewriter, loc, elementType);
    Value buffer;
    if (unitStrides) {
      SmallVector<OpFoldResult> low, high;
      for (const TransposedDim &t : dims) {
        low.push_back(m.constant(t.offset));
        high.push_back(
            m.sub(m.sub(t.bufferSize, t.input), m.constant(t.offset)));
      }
      buffer = padSpatial(rewriter, loc, x, low, high, zero);
    } else {
      Value empty = rewriter.create<tensor::EmptyOp>(
          loc, foldSizes(bufferSizes), elementType);
      Value zeros =
          rewriter.create<linalg::FillOp>(loc, zero, empty).getResult(0);
      buffer = rewriter.create<tensor::InsertSliceOp>(loc, x, zeros, offsets,
                                                      xDims, sliceStrides);
    }

    // Channel-split views: buffer [N, G, C/G, len...], filter
    // [G, C/G, M/G, k...], accumulator [N, G, M/G, out...].
    int64_t groupChannels = channels / group;
    SmallVector<OpFoldResult> bufferDims = mixedDims(rewriter, loc, buffer);
    SmallVector<OpFoldResult> inputSizes = {
        bufferDims[0], rewriter.getIndexAttr(group),
        rewriter.getIndexAttr(groupChannels)};
    inputSizes.append(bufferDims.begin() + 2, bufferDims.end());
    Value input =
        expand(rewriter, loc, buffer, mergePair(rank + 1, 1), inputSizes);
    SmallVector<OpFoldResult> filterSizes = {
        rewriter.getIndexAttr(group), rewriter.getIndexAttr(groupChannels),
        rewriter.getIndexAttr(groupFilters)};
    for (int64_t k : kernel)
      filterSizes.push_back(rewriter.getIndexAttr(k));
    Value filter =
        expand(rewriter, loc, w, mergePair(rank + 1, 0), filterSizes);

    Type accType = accumulatorType(elementType);
    SmallVector<OpFoldResult> accSizes = {xDims[0],
                                          rewriter.getIndexAttr(group),
                                          rewriter.getIndexAttr(groupFilters)};
    for (const TransposedDim &t : dims)
      accSizes.push_back(t.output);
    Value accEmpty =
        rewriter.create<tensor::EmptyOp>(loc, foldSizes(accSizes), accType);
    MLIRContext *ctx = rewriter.getContext();
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    int64_t accRank = rank + 1;
    Value acc;
    if (bias) {
      // Bias [M] seen as [G, M/G].
      Value groupedBias = expand(
          rewriter, loc, bias, {{0, 1}},
          {rewriter.getIndexAttr(group), rewriter.getIndexAttr(groupFilters)});
      SmallVector<AffineMap> maps = {
          AffineMap::get(accRank, 0, {dim(1), dim(2)}, ctx),
          rewriter.getMultiDimIdentityMap(accRank)};
      acc = rewriter
                .create<linalg::GenericOp>(
                    loc, accEmpty.getType(), groupedBias, accEmpty, maps,
                    SmallVector<utils::IteratorType>(
                        accRank, utils::IteratorType::parallel),
                    [&](OpBuilder &nb, Location nloc, ValueRange args) {
                      Value v = args[0];
                      if (v.getType() != accType)
                        v = nb.create<arith::ExtFOp>(nloc, accType, v);
                      nb.create<linalg::YieldOp>(nloc, v);
                    })
                .getResult(0);
    } else {
      acc = rewriter
                .create<linalg::FillOp>(loc, zeroScalar(rewriter, loc, accType),
                                        accEmpty)
                .getResult(0);
    }

    // Loops: n g m o... | c k...
    int64_t loops = 3 + 2 * spatialRank + 1;
    int64_t cLoop = 3 + spatialRank;
    SmallVector<AffineExpr> inputExprs = {dim(0), dim(1), dim(cLoop)};
    SmallVector<AffineExpr> filterExprs = {dim(1), dim(cLoop), dim(2)};
    SmallVector<AffineExpr> outExprs = {dim(0), dim(1), dim(2)};
    for (int64_t i = 0; i < spatialRank; ++i) {
      AffineExpr o = dim(3 + i), k = dim(cLoop + 1 + i);
      inputExprs.push_back(o + dims[i].reach - k * dims[i].dilation);
      filterExprs.push_back(k);
      outExprs.push_back(o);
    }
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inputExprs, ctx),
                                   AffineMap::get(loops, 0, filterExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(3 + spatialRank,
                                               utils::IteratorType::parallel);
    iterators.append(spatialRank + 1, utils::IteratorType::reduction);
    acc = rewriter
              .create<linalg::GenericOp>(
                  loc, acc.getType(), ValueRange{input, filter}, acc, maps,
                  iterators,
                  [&](OpBuilder &nb, Location nloc, ValueRange args) {
                    Value xv = args[0], wv = args[1];
                    if (xv.getType() != accType)
                      xv = nb.create<arith::ExtFOp>(nloc, accType, xv);
                    if (wv.getType() != accType)
                      wv = nb.create<arith::ExtFOp>(nloc, accType, wv);
                    Value prod = nb.create<arith::MulFOp>(nloc, xv, wv);
                    nb.create<linalg::YieldOp>(
                        nloc, nb.create<arith::AddFOp>(nloc, args[2], prod)
                                  .getResult());
                  })
              .getResult(0);

    Value result = rewriter.create<tensor::CollapseShapeOp>(
        loc, acc, mergePair(accRank, 1));
    if (accType != elementType) {
      Value empty = rewriter.create<tensor::EmptyOp>(
          loc, mixedDims(rewriter, loc, result), elementType);
      SmallVector<AffineMap> idMaps(2, rewriter.getMultiDimIdentityMap(rank));
      result = rewriter
                   .create<linalg::GenericOp>(
                       loc, empty.getType(), result, empty, idMaps,
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

void populateConvTransposePatterns(const TypeConverter &typeConverter,
                                   RewritePatternSet &patterns) {
  patterns.add<ConvTransposeLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
