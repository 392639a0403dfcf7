//===- DeformConv.cpp - DeformConv to linalg ------------------------------===//
//
// onnx.DeformConv (X [N, C, in...], W [M, C/G, k...], offset
// [N, OG * K * r, out...], optional B [M] and mask [N, OG * K, out...], with
// K = prod(k) taps and r spatial dims) is a convolution whose taps sample X
// at fractional positions: tap k of output o reads, per spatial dim i,
//   p_i = o_i * stride_i - pad_begin_i + k_i * dilation_i + offset_i
// by multilinear interpolation with zeros outside X (GridSample with
// align_corners and zero padding, as the reference does), times the mask.
// Two linalg generics:
//   columns [N, G, C/G, k..., out...] = mask * sample(X, p)
//   Y [N, G, M/G, out...] += W [G, M/G, C/G, k...] * columns  (over C/G, k)
// then the bias is added and 16-bit floats are rounded once. The window
// attributes go through the same helpers as Conv (WindowUtils.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

SmallVector<int64_t> shapeOf(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return shape;
}

/// Sampling positions beyond this magnitude are outside any tensor; clamping
/// them first keeps the float -> integer conversion defined.
constexpr double kFarAway = 1 << 30;

/// The columns tensor: for every (n, g, c, k..., o...), the mask times X of
/// channel g * channelsPerGroup + c sampled at the deformed tap position.
Value sampleColumns(OpBuilder &b, Location loc, Value x, Value offset,
                    Value mask, ArrayRef<WindowDim> window,
                    ArrayRef<int64_t> kernel, int64_t groups,
                    int64_t channelsPerGroup, int64_t channelsPerOffsetGroup,
                    Type computeTy) {
  int64_t r = kernel.size();
  int64_t taps = 1;
  for (int64_t k : kernel)
    taps *= k;
  SmallVector<OpFoldResult> sizes = {tensorSize(b, loc, x, 0),
                                     b.getIndexAttr(groups),
                                     b.getIndexAttr(channelsPerGroup)};
  for (int64_t k : kernel)
    sizes.push_back(b.getIndexAttr(k));
  for (const WindowDim &w : window)
    sizes.push_back(w.output);
  sizes = foldSizes(sizes);
  int64_t loops = sizes.size();
  Value init = emptyTensor(
      b, loc, RankedTensorType::get(shapeOf(sizes), computeTy), sizes);
  SmallVector<Value> inputSizes;
  for (int64_t i = 0; i < r; ++i)
    inputSizes.push_back(dimValue(b, loc, x, 2 + i));

  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, init.getType(), ValueRange{}, init,
          b.getMultiDimIdentityMap(loops), iterators,
          [&](OpBuilder &nb, Location l, ValueRange) {
            auto cst = [&](int64_t v) { return indexConst(nb, l, v); };
            auto fcst = [&](double v) {
              return scalarConst(nb, l, computeTy, v);
            };
            SmallVector<Value> ivs;
            for (int64_t d = 0; d < loops; ++d)
              ivs.push_back(nb.create<linalg::IndexOp>(l, d));
            Value n = ivs[0];
            Value channel = nb.create<arith::AddIOp>(
                l, nb.create<arith::MulIOp>(l, ivs[1], cst(channelsPerGroup)),
                ivs[2]);
            Value offsetGroup = nb.create<arith::DivUIOp>(
                l, channel, cst(channelsPerOffsetGroup));
            // Row-major tap number within the kernel.
            Value tap = cst(0);
            for (int64_t i = 0; i < r; ++i)
              tap = nb.create<arith::AddIOp>(
                  l, nb.create<arith::MulIOp>(l, tap, cst(kernel[i])),
                  ivs[3 + i]);
            Value tapRow = nb.create<arith::AddIOp>(
                l, nb.create<arith::MulIOp>(l, offsetGroup, cst(taps)), tap);
            SmallVector<Value> outIdx(ivs.begin() + 3 + r, ivs.end());
            auto readAt = [&](Value tensor, Value row) {
              SmallVector<Value> coords = {n, row};
              coords.append(outIdx);
              Value e = nb.create<tensor::ExtractOp>(l, tensor, coords);
              return castScalar(nb, l, e, e.getType(), computeTy);
            };

            // Floor and fraction of each sampling coordinate.
            SmallVector<Value> floors, fractions;
            for (int64_t i = 0; i < r; ++i) {
              const WindowDim &w = window[i];
              Value base = nb.create<arith::AddIOp>(
                  l, nb.create<arith::MulIOp>(l, outIdx[i], cst(w.stride)),
                  nb.create<arith::MulIOp>(l, ivs[3 + i], cst(w.dilation)));
              base =
                  nb.create<arith::SubIOp>(l, base, toValue(nb, l, w.padBegin));
              Value pos = nb.create<arith::SIToFPOp>(
                  l, computeTy,
                  nb.create<arith::IndexCastOp>(l, nb.getI64Type(), base));
              Value row = nb.create<arith::AddIOp>(
                  l, nb.create<arith::MulIOp>(l, tapRow, cst(r)), cst(i));
              pos = nb.create<arith::AddFOp>(l, pos, readAt(offset, row));
              // NaN and far-away positions sample nothing.
              Value near = nb.create<arith::AndIOp>(
                  l,
                  nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, pos,
                                           fcst(-kFarAway)),
                  nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLT, pos,
                                           fcst(kFarAway)));
              pos =
                  nb.create<arith::SelectOp>(l, near, pos, fcst(-2 * kFarAway));
              Value lo = nb.create<math::FloorOp>(l, pos);
              fractions.push_back(nb.create<arith::SubFOp>(l, pos, lo));
              floors.push_back(nb.create<arith::IndexCastOp>(
                  l, nb.getIndexType(),
                  nb.create<arith::FPToSIOp>(l, nb.getI64Type(), lo)));
            }

            // Sum over the 2^r corners of the cell around the position.
            Value sum = fcst(0.0);
            Value one = fcst(1.0);
            for (int64_t corner = 0; corner < (int64_t(1) << r); ++corner) {
              Value weight = one;
              Value inside = nb.create<arith::ConstantIntOp>(l, 1, 1);
              SmallVector<Value> coords = {n, channel};
              for (int64_t i = 0; i < r; ++i) {
                bool upper = (corner >> i) & 1;
                Value idx = upper
                                ? nb.create<arith::AddIOp>(l, floors[i], cst(1))
                                      .getResult()
                                : floors[i];
                Value factor =
                    upper ? fractions[i]
                          : nb.create<arith::SubFOp>(l, one, fractions[i])
                                .getResult();
                weight = nb.create<arith::MulFOp>(l, weight, factor);
                inside = nb.create<arith::AndIOp>(
                    l, inside,
                    nb.create<arith::AndIOp>(
                        l,
                        nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge,
                                                 idx, cst(0)),
                        nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt,
                                                 idx, inputSizes[i])));
                // Clamped so that the read stays in the buffer; the value
                // of an outside corner is then dropped.
                Value clamped = nb.create<arith::MaxSIOp>(
                    l, cst(0),
                    nb.create<arith::MinSIOp>(
                        l, idx,
                        nb.create<arith::SubIOp>(l, inputSizes[i], cst(1))));
                coords.push_back(clamped);
              }
              Value e = nb.create<tensor::ExtractOp>(l, x, coords);
              Value term = nb.create<arith::MulFOp>(
                  l, weight, castScalar(nb, l, e, e.getType(), computeTy));
              term = nb.create<arith::SelectOp>(l, inside, term, fcst(0.0));
              sum = nb.create<arith::AddFOp>(l, sum, term);
            }
            if (mask)
              sum = nb.create<arith::MulFOp>(l, sum, readAt(mask, tapRow));
            nb.create<linalg::YieldOp>(l, sum);
          })
      .getResult(0);
}

/// onnx.DeformConv on float tensors with static channels and kernel.
struct DeformConvLowering : OpConversionPattern<onnx::DeformConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::DeformConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    Value x = adaptor.getX(), w = adaptor.getW(), offset = adaptor.getOffset();
    Value bias = adaptor.getB(), mask = adaptor.getMask();
    Type element = resultType.getElementType();
    if (!llvm::isa<FloatType>(element))
      return rewriter.notifyMatchFailure(op, "expects float tensors");
    auto typeOf = [&](Value v) {
      return llvm::dyn_cast<RankedTensorType>(v.getType());
    };
    RankedTensorType xType = typeOf(x), wType = typeOf(w),
                     offsetType = typeOf(offset);
    int64_t rank = xType ? xType.getRank() : 0;
    if (!xType || !wType || !offsetType || rank < 3 ||
        wType.getRank() != rank || offsetType.getRank() != rank ||
        resultType.getRank() != rank || xType.getElementType() != element ||
        wType.getElementType() != element ||
        offsetType.getElementType() != element)
      return op.emitError("DeformConv expects X, W, offset and Y of one float "
                          "type and the same rank >= 3");
    bool hasBias = !isNoneValue(bias), hasMask = !isNoneValue(mask);
    if (hasBias && (!typeOf(bias) || typeOf(bias).getRank() != 1 ||
                    typeOf(bias).getElementType() != element))
      return op.emitError("DeformConv's bias must be a 1-D tensor of X's type");
    if (hasMask && (!typeOf(mask) || typeOf(mask).getRank() != rank ||
                    typeOf(mask).getElementType() != element))
      return op.emitError("DeformConv's mask must have offset's rank and X's "
                          "type");
    int64_t r = rank - 2;

    FailureOr<SmallVector<int64_t>> kernel =
        resolveKernelShape(op, wType, op.getKernelShape());
    if (failed(kernel))
      return failure();
    int64_t channels = xType.getDimSize(1), filters = wType.getDimSize(0),
            groupChannels = wType.getDimSize(1);
    if (llvm::any_of(*kernel, ShapedType::isDynamic) ||
        ShapedType::isDynamic(channels) || ShapedType::isDynamic(filters) ||
        ShapedType::isDynamic(groupChannels))
      return rewriter.notifyMatchFailure(op, "dynamic channels or kernel");
    int64_t group = op.getGroup(), offsetGroup = op.getOffsetGroup();
    if (group < 1 || offsetGroup < 1)
      return op.emitError("group and offset_group must be positive");
    if (channels != groupChannels * group || filters % group != 0)
      return op.emitError() << "X has " << channels << " channels and W "
                            << wType << " does not fit group " << group;
    if (channels % offsetGroup != 0)
      return op.emitError()
             << channels << " channels are not divisible by offset_group "
             << offsetGroup;
    int64_t taps = 1;
    for (int64_t k : *kernel)
      taps *= k;
    if (!offsetType.isDynamicDim(1) &&
        offsetType.getDimSize(1) != offsetGroup * taps * r)
      return op.emitError() << "offset has " << offsetType.getDimSize(1)
                            << " channels, expected offset_group * taps * "
                               "spatial dims = "
                            << offsetGroup * taps * r;
    if (hasMask && !typeOf(mask).isDynamicDim(1) &&
        typeOf(mask).getDimSize(1) != offsetGroup * taps)
      return op.emitError() << "mask has " << typeOf(mask).getDimSize(1)
                            << " channels, expected offset_group * taps = "
                            << offsetGroup * taps;

    FailureOr<SmallVector<WindowDim>> window =
        resolveWindow(rewriter, op, x, *kernel, op.getStrides(),
                      op.getDilations(), op.getPads(), "NOTSET",
                      /*ceilMode=*/false, /*clampAutoPad=*/true, resultType);
    if (failed(window))
      return failure();
    // offset and mask are read at every output position.
    for (Value v : {offset, mask}) {
      if (isNoneValue(v))
        continue;
      auto type = llvm::cast<RankedTensorType>(v.getType());
      for (int64_t i = 0; i < r; ++i) {
        std::optional<int64_t> out = getConstantIntValue((*window)[i].output);
        if (out && !type.isDynamicDim(2 + i) && type.getDimSize(2 + i) != *out)
          return op.emitError()
                 << (v == offset ? "offset" : "mask") << " has "
                 << type.getDimSize(2 + i) << " positions in spatial dim " << i
                 << " but the output has " << *out;
      }
    }

    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type computeTy = computeType(element);
    int64_t filtersPerGroup = filters / group;
    Value columns = sampleColumns(
        rewriter, loc, x, offset, hasMask ? mask : Value(), *window, *kernel,
        group, groupChannels, channels / offsetGroup, computeTy);

    // W [M, C/G, k...] as [G, M/G, C/G, k...].
    SmallVector<ReassociationIndices> splitFilters = {{0, 1}};
    for (int64_t d = 2; d <= rank; ++d)
      splitFilters.push_back({d});
    SmallVector<int64_t> weightShape = {filters, groupChannels};
    weightShape.append(kernel->begin(), kernel->end());
    SmallVector<int64_t> filterShape = {group, filtersPerGroup, groupChannels};
    filterShape.append(kernel->begin(), kernel->end());
    SmallVector<OpFoldResult> filterSizes;
    for (int64_t s : filterShape)
      filterSizes.push_back(rewriter.getIndexAttr(s));
    Value filter = rewriter.create<tensor::ExpandShapeOp>(
        loc, RankedTensorType::get(filterShape, element),
        castIfNeeded(rewriter, loc, w,
                     RankedTensorType::get(weightShape, element)),
        splitFilters, filterSizes);

    // Y[n, g, m, o...] = sum_{c, k} W[g, m, c, k...] * columns[n, g, c, k...,
    // o...]; loops n g m o... | c k...
    SmallVector<OpFoldResult> accSizes = {
        tensorSize(rewriter, loc, x, 0), rewriter.getIndexAttr(group),
        rewriter.getIndexAttr(filtersPerGroup)};
    for (const WindowDim &wd : *window)
      accSizes.push_back(wd.output);
    accSizes = foldSizes(accSizes);
    Value acc = emptyTensor(rewriter, loc,
                            RankedTensorType::get(shapeOf(accSizes), computeTy),
                            accSizes);
    acc = rewriter
              .create<linalg::FillOp>(loc, zeroScalar(rewriter, loc, computeTy),
                                      acc)
              .getResult(0);
    int64_t loops = 3 + r + 1 + r;
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    int64_t cLoop = 3 + r;
    SmallVector<AffineExpr> colExprs = {dim(0), dim(1), dim(cLoop)};
    SmallVector<AffineExpr> filterExprs = {dim(1), dim(2), dim(cLoop)};
    SmallVector<AffineExpr> accExprs = {dim(0), dim(1), dim(2)};
    for (int64_t i = 0; i < r; ++i) {
      colExprs.push_back(dim(cLoop + 1 + i));
      filterExprs.push_back(dim(cLoop + 1 + i));
      accExprs.push_back(dim(3 + i));
    }
    for (int64_t i = 0; i < r; ++i)
      colExprs.push_back(dim(3 + i));
    SmallVector<utils::IteratorType> iterators(3 + r,
                                               utils::IteratorType::parallel);
    iterators.append(r + 1, utils::IteratorType::reduction);
    acc = rewriter
              .create<linalg::GenericOp>(
                  loc, acc.getType(), ValueRange{columns, filter}, acc,
                  SmallVector<AffineMap>{
                      AffineMap::get(loops, 0, colExprs, ctx),
                      AffineMap::get(loops, 0, filterExprs, ctx),
                      AffineMap::get(loops, 0, accExprs, ctx)},
                  iterators,
                  [&](OpBuilder &nb, Location l, ValueRange args) {
                    Value wv = castScalar(nb, l, args[1], args[1].getType(),
                                          computeTy);
                    Value p = nb.create<arith::MulFOp>(l, args[0], wv);
                    nb.create<linalg::YieldOp>(
                        l, nb.create<arith::AddFOp>(l, args[2], p).getResult());
                  })
              .getResult(0);
    SmallVector<ReassociationIndices> mergeFilters = {{0}, {1, 2}};
    for (int64_t d = 3; d < rank + 1; ++d)
      mergeFilters.push_back({d});
    Value merged =
        rewriter.create<tensor::CollapseShapeOp>(loc, acc, mergeFilters);

    // Bias and rounding.
    SmallVector<OpFoldResult> outSizes = {accSizes[0],
                                          rewriter.getIndexAttr(filters)};
    outSizes.append(accSizes.begin() + 3, accSizes.end());
    SmallVector<Value> operands = {merged};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    if (hasBias) {
      operands.push_back(bias);
      maps.push_back(AffineMap::get(rank, 0, dim(1), ctx));
    }
    Value result = buildParallelGeneric(
        rewriter, loc, RankedTensorType::get(shapeOf(outSizes), element),
        outSizes, operands, maps,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value v = args[0];
          if (hasBias)
            v = b.create<arith::AddFOp>(
                l, v, castScalar(b, l, args[1], args[1].getType(), computeTy));
          return castScalar(b, l, v, computeTy, element);
        });
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void populateDeformConvPatterns(const TypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  patterns.add<DeformConvLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
