//===- Resize.cpp - Resize ------------------------------------------------===//
//
// Resize is separable: the result is the input resized along one axis after
// the other, as the ONNX reference computes it. Along one axis, output
// coordinate o maps to a source coordinate x (coordinate_transformation_mode),
// whose fractional part gives n tap weights (nearest and linear: 2, cubic: 4)
// on the n input indices around x (edge-clamped; exclude_outside zeroes and
// renormalizes the weights of taps outside the input; tf_crop_and_resize
// writes extrapolation_value where x is outside). Each resized axis becomes
// one linalg.generic computing this per element in f64 from the run-time
// scale (scales, or sizes / input size under keep_aspect_ratio_policy) and
// roi. With antialias (downscaling), the linear or cubic kernel is
// stretched by 1 / scale and normalized. An axis the reference leaves alone
// (scale 1, same size, full roi) is copied. Sizes may be dynamic (exporters
// leave a detector's height and width open): an output size shape inference
// could not fix is computed as ONNX Runtime does, floor(in * scale), the
// given size, or round(in * scale) under a keep_aspect_ratio_policy. Antialias
// needs static sizes (its window width is fixed by the smallest scale). Half
// floats are computed in f32. Nearest mode (but tf_crop_and_resize) is no
// weighted sum: each resized axis gets a table of the input index of every
// output index, and one gather reads through all tables, for any element
// type (a QDQ model's Resize runs on uint8) and with infinities intact.
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
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

struct ResizeConfig {
  StringRef mode, nearestMode, transform;
  double cubicA;
  bool excludeOutside;
  bool antialias;
};

/// The tap weights for fractional position `ratio` in (0, 1].
SmallVector<Value> tapWeights(ScalarFloatMath &m, const ResizeConfig &config,
                              Value ratio) {
  using P = arith::CmpFPredicate;
  if (config.mode == "nearest") {
    StringRef mode = config.nearestMode;
    Value isOne = m.cmp(P::OEQ, ratio, m.c(1));
    if (mode == "floor")
      return {m.select(isOne, m.c(0), m.c(1)), m.boolToFloat(isOne)};
    if (mode == "ceil")
      return {m.c(0), m.c(1)};
    if (mode == "round_prefer_ceil")
      return {m.boolToFloat(m.cmp(P::OLT, ratio, m.c(0.5))),
              m.boolToFloat(m.cmp(P::OGE, ratio, m.c(0.5)))};
    return {m.boolToFloat(m.cmp(P::OLE, ratio, m.c(0.5))),
            m.boolToFloat(m.cmp(P::OGT, ratio, m.c(0.5)))};
  }
  if (config.mode == "linear")
    return {m.sub(m.c(1), ratio), ratio};
  return cubicConvolutionWeights(m, ratio, config.cubicA);
}

/// `size` (index) as an f64.
Value indexToF64(OpBuilder &b, Location loc, OpFoldResult size) {
  if (std::optional<int64_t> known = getConstantIntValue(size))
    return b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(double(*known)));
  return b.create<arith::SIToFPOp>(
      loc, b.getF64Type(),
      b.create<arith::IndexCastOp>(loc, b.getI64Type(),
                                   llvm::cast<Value>(size)));
}

/// The source coordinate x of output coordinate `y` (f64) along an axis of
/// `inF` input and `outSize` output elements under `transform`; with
/// tf_crop_and_resize, `outside` is set to whether x lies outside the input.
Value sourceCoordinate(ScalarFloatMath &m, StringRef t, Value y, Value inF,
                       Value outSize, Value scale, Value roiStart, Value roiEnd,
                       Value *outside) {
  using P = arith::CmpFPredicate;
  Value inLast = m.sub(inF, m.c(1));
  Value width = m.mul(scale, inF);
  Value single = m.cmp(P::OEQ, width, m.c(1));
  Value halfPixel = m.sub(m.div(m.add(y, m.c(0.5)), scale), m.c(0.5));
  Value x;
  if (t == "align_corners") {
    x = m.select(single, m.c(0), m.div(m.mul(y, inLast), m.sub(width, m.c(1))));
  } else if (t == "asymmetric") {
    x = m.div(y, scale);
  } else if (t == "tf_crop_and_resize") {
    Value span = m.sub(roiEnd, roiStart);
    x = m.select(single, m.div(m.mul(span, inLast), m.c(2)),
                 m.div(m.mul(m.mul(y, span), inLast), m.sub(width, m.c(1))));
    x = m.add(x, m.mul(roiStart, inLast));
    *outside = m.b.create<arith::OrIOp>(m.loc, m.cmp(P::OLT, x, m.c(0)),
                                        m.cmp(P::OGT, x, inLast));
  } else if (t == "pytorch_half_pixel") {
    x = m.select(single, m.c(-0.5), halfPixel);
  } else if (t == "half_pixel_symmetric") {
    Value adjustment = m.div(outSize, width);
    Value offset = m.mul(m.mul(inF, m.c(0.5)), m.sub(m.c(1), adjustment));
    x = m.add(offset, halfPixel);
  } else {
    x = halfPixel;
  }
  return x;
}

/// The `n` input indices (f64, not yet clamped) around source coordinate x
/// that a nearest, linear or cubic resize reads, as the reference picks
/// them.
SmallVector<Value> tapIndices(ScalarFloatMath &m, int64_t n, Value x) {
  using P = arith::CmpFPredicate;
  int64_t pad = (n + 1) / 2;
  Value padded = m.add(x, m.c(double(pad)));
  Value p = m.floor(padded);
  Value frac = m.sub(padded, p);
  Value offset =
      n % 2 == 0
          ? m.select(m.cmp(P::OEQ, frac, m.c(0)), m.c(-double(n / 2)),
                     m.c(-double(n / 2) + 1))
          : m.select(m.cmp(P::OLE, frac, m.c(0.5)), m.c(-double((n - 1) / 2)),
                     m.c(-double((n - 1) / 2) + 1));
  Value first = m.sub(m.add(p, offset), m.c(double(pad)));
  SmallVector<Value> taps;
  for (int64_t k = 0; k < n; ++k)
    taps.push_back(m.add(first, m.c(double(k))));
  return taps;
}

/// Resizes `input` (elements of the compute type) along `axis` from `in` to
/// `out` elements (static or index values). `scale` is the f64 scale;
/// `roiStart`/`roiEnd` are f64 roi values for tf_crop_and_resize (null
/// otherwise); `skip` is an i1 that makes the axis a copy (null when it
/// cannot be one).
Value resizeAxis(OpBuilder &b, Location loc, const ResizeConfig &config,
                 Value input, int64_t axis, OpFoldResult in, OpFoldResult out,
                 Value scale, Value roiStart, Value roiEnd, Value skip,
                 double extrapolationValue) {
  using P = arith::CmpFPredicate;
  auto type = llvm::cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  SmallVector<int64_t> shape(type.getShape());
  std::optional<int64_t> staticOut = getConstantIntValue(out);
  shape[axis] = staticOut ? *staticOut : ShapedType::kDynamic;
  auto resultType = RankedTensorType::get(shape, element);
  SmallVector<OpFoldResult> sizes = tensorSizes(b, loc, input);
  sizes[axis] = out;
  Value inIndex = getValueOrCreateConstantIndexOp(b, loc, in);
  Value inSize = indexToF64(b, loc, in), outSize = indexToF64(b, loc, out);
  StringRef t = config.transform;
  return buildIndexedGeneric(
      b, loc, emptyTensor(b, loc, resultType, sizes), {}, {},
      [&](OpBuilder &nb, Location nloc, ValueRange ivs, ValueRange) -> Value {
        ScalarFloatMath m{nb, nloc, nb.getF64Type()};
        Value o = ivs[axis];
        Value y = nb.create<arith::SIToFPOp>(
            nloc, nb.getF64Type(),
            nb.create<arith::IndexCastOp>(nloc, nb.getI64Type(), o));
        Value inF = inSize;
        Value outside;
        Value x = sourceCoordinate(m, t, y, inF, outSize, scale, roiStart,
                                   roiEnd, &outside);
        Value floorX = m.floor(x);
        Value ratio =
            m.select(m.cmp(P::OEQ, x, floorX), m.c(1), m.sub(x, floorX));
        SmallVector<Value> weights, taps;
        if (config.antialias) {
          // The kernel stretched by 1 / min(scale, 1), on the taps
          // floor(x) + j - (x integral) for j in [start, 2 - start). The
          // window is the widest the smallest possible scale (out / in, as
          // out = floor(in * scale)) needs; taps beyond the support of the
          // run-time scale get weight 0, exactly as if they were absent.
          double support = config.mode == "linear" ? 1.0 : 2.0;
          // Static here: the lowering refuses antialias on dynamic sizes.
          double minScale = std::min(
              double(*staticOut) / double(*getConstantIntValue(in)), 1.0);
          int64_t start = int64_t(std::floor(-support / minScale) + 1);
          if (config.mode == "cubic")
            start = std::min<int64_t>(start, -1);
          Value s = nb.create<arith::MinimumFOp>(nloc, scale, m.c(1));
          Value isOne = m.cmp(P::OEQ, ratio, m.c(1));
          Value base = m.sub(floorX, m.boolToFloat(isOne));
          Value sum = m.c(0);
          double a = config.cubicA;
          for (int64_t j = start; j < 2 - start; ++j) {
            Value arg = m.mul(s, m.sub(m.c(double(j)), ratio));
            Value ax = nb.create<math::AbsFOp>(nloc, arg);
            Value w;
            if (config.mode == "linear") {
              w = nb.create<arith::MaximumFOp>(nloc, m.sub(m.c(1), ax), m.c(0));
            } else {
              Value ax2 = m.mul(ax, ax), ax3 = m.mul(ax2, ax);
              Value inner =
                  m.add(m.sub(m.mul(m.c(a + 2), ax3), m.mul(m.c(a + 3), ax2)),
                        m.c(1));
              Value outer =
                  m.sub(m.add(m.sub(m.mul(m.c(a), ax3), m.mul(m.c(5 * a), ax2)),
                              m.mul(m.c(8 * a), ax)),
                        m.c(4 * a));
              w = m.select(m.cmp(P::OLE, ax, m.c(1)), inner,
                           m.select(m.cmp(P::OLT, ax, m.c(2)), outer, m.c(0)));
            }
            weights.push_back(w);
            sum = m.add(sum, w);
            taps.push_back(m.add(base, m.c(double(j))));
          }
          for (Value &w : weights)
            w = m.div(w, sum);
        } else {
          weights = tapWeights(m, config, ratio);
          taps = tapIndices(m, weights.size(), x);
        }
        int64_t n = weights.size();
        if (config.excludeOutside) {
          Value sum = m.c(0);
          for (int64_t k = 0; k < n; ++k) {
            Value out =
                nb.create<arith::OrIOp>(nloc, m.cmp(P::OLT, taps[k], m.c(0)),
                                        m.cmp(P::OGE, taps[k], inF));
            weights[k] = m.select(out, m.c(0), weights[k]);
            sum = m.add(sum, weights[k]);
          }
          sum = m.select(m.cmp(P::OEQ, sum, m.c(0)), m.c(1), sum);
          for (Value &w : weights)
            w = m.div(w, sum);
        }
        Type elementType = element;
        Value acc = scalarConst(nb, nloc, elementType, 0);
        SmallVector<Value> at(ivs.begin(), ivs.end());
        for (int64_t k = 0; k < n; ++k) {
          Value index = nb.create<arith::IndexCastOp>(
              nloc, nb.getIndexType(),
              nb.create<arith::FPToSIOp>(nloc, nb.getI64Type(), taps[k]));
          index = clampIntoBounds(nb, nloc, index, inIndex);
          Value w = weights[k];
          if (skip) {
            index = nb.create<arith::SelectOp>(nloc, skip, o, index);
            w = m.select(skip, m.c(k == 0 ? 1 : 0), w);
          }
          at[axis] = index;
          Value v = nb.create<tensor::ExtractOp>(nloc, input, at);
          if (elementType != nb.getF64Type())
            w = nb.create<arith::TruncFOp>(nloc, elementType, w);
          acc = nb.create<arith::AddFOp>(nloc, acc,
                                         nb.create<arith::MulFOp>(nloc, w, v));
        }
        if (outside) {
          if (skip)
            outside = nb.create<arith::AndIOp>(
                nloc, outside,
                nb.create<arith::XOrIOp>(
                    nloc, skip,
                    nb.create<arith::ConstantOp>(nloc, nb.getBoolAttr(true))));
          acc = nb.create<arith::SelectOp>(
              nloc, outside,
              scalarConst(nb, nloc, elementType, extrapolationValue), acc);
        }
        return acc;
      });
}

/// Nearest mode without tf_crop_and_resize reads one input element per
/// output element: along each resized axis, the input index of output index
/// o is the same for every element, so it is computed once per o into this
/// 1-D index table of `out` entries (the tap of weight 1, edge-clamped; o
/// itself where `skip` holds).
Value nearestIndexTable(OpBuilder &b, Location loc, const ResizeConfig &config,
                        OpFoldResult in, OpFoldResult out, Value scale,
                        Value skip) {
  std::optional<int64_t> staticOut = getConstantIntValue(out);
  auto type = RankedTensorType::get(
      {staticOut ? *staticOut : ShapedType::kDynamic}, b.getIndexType());
  Value inIndex = getValueOrCreateConstantIndexOp(b, loc, in);
  Value inSize = indexToF64(b, loc, in), outSize = indexToF64(b, loc, out);
  return buildIndexedGeneric(
      b, loc, emptyTensor(b, loc, type, {out}), {}, {},
      [&](OpBuilder &nb, Location nloc, ValueRange ivs, ValueRange) -> Value {
        using P = arith::CmpFPredicate;
        ScalarFloatMath m{nb, nloc, nb.getF64Type()};
        Value o = ivs[0];
        Value y = nb.create<arith::SIToFPOp>(
            nloc, nb.getF64Type(),
            nb.create<arith::IndexCastOp>(nloc, nb.getI64Type(), o));
        Value x = sourceCoordinate(m, config.transform, y, inSize, outSize,
                                   scale, {}, {}, nullptr);
        Value floorX = m.floor(x);
        Value ratio =
            m.select(m.cmp(P::OEQ, x, floorX), m.c(1), m.sub(x, floorX));
        SmallVector<Value> weights = tapWeights(m, config, ratio);
        SmallVector<Value> taps = tapIndices(m, 2, x);
        Value tap =
            m.select(m.cmp(P::OGT, weights[0], m.c(0.5)), taps[0], taps[1]);
        Value index = nb.create<arith::IndexCastOp>(
            nloc, nb.getIndexType(),
            nb.create<arith::FPToSIOp>(nloc, nb.getI64Type(), tap));
        index = clampIntoBounds(nb, nloc, index, inIndex);
        if (skip)
          index = nb.create<arith::SelectOp>(nloc, skip, o, index);
        return index;
      });
}

/// result[i0, ..] = input[t0[i0], ..], with ti the index table of axis i
/// (null for an axis that is not resized: ti[i] = i). Any element type.
Value gatherNearest(OpBuilder &b, Location loc, Value input,
                    ArrayRef<Value> tables, ArrayRef<OpFoldResult> sizes) {
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  auto type = RankedTensorType::get(shape, inputType.getElementType());
  return buildIndexedGeneric(
      b, loc, emptyTensor(b, loc, type, sizes), {}, {},
      [&](OpBuilder &nb, Location nloc, ValueRange ivs, ValueRange) -> Value {
        SmallVector<Value> at;
        for (auto [table, iv] : llvm::zip(tables, ivs))
          at.push_back(
              table ? nb.create<tensor::ExtractOp>(nloc, table, iv).getResult()
                    : iv);
        return nb.create<tensor::ExtractOp>(nloc, input, at);
      });
}

/// Element `i` of a 1-D float tensor as f64.
Value extractF64(OpBuilder &b, Location loc, Value tensor, int64_t i) {
  Value v = b.create<tensor::ExtractOp>(loc, tensor, indexConst(b, loc, i));
  if (v.getType() != b.getF64Type())
    v = b.create<arith::ExtFOp>(loc, b.getF64Type(), v);
  return v;
}

/// The number of elements of a 1-D input, -1 when dynamic, 0 when omitted.
int64_t givenLength(Value v) {
  if (isNoneValue(v))
    return 0;
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() ? type.getNumElements() : -1;
}

/// The output size of a resized axis of input size `in` that shape
/// inference left dynamic, as ONNX defines it: the given size (`given`, an
/// i64, stretch policy) or round(in * scale) under another policy; else
/// floor(in * scale) (under tf_crop_and_resize too, as ONNX Runtime).
Value outputSize(OpBuilder &b, Location loc, OpFoldResult in, Value scale,
                 Value given, StringRef policy) {
  ScalarFloatMath m{b, loc, b.getF64Type()};
  auto toIndex = [&](Value i64) -> Value {
    return b.create<arith::IndexCastOp>(loc, b.getIndexType(), i64);
  };
  if (given && policy == "stretch")
    return toIndex(given);
  Value size = m.mul(indexToF64(b, loc, in), scale);
  size = given ? b.create<math::RoundEvenOp>(loc, size).getResult()
               : m.floor(size);
  return toIndex(b.create<arith::FPToSIOp>(loc, b.getI64Type(), size));
}

/// Lowers Resize on a float tensor (static or dynamic sizes).
struct ResizeLowering : OpConversionPattern<onnx::ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getX();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    // Nearest mode (except tf_crop_and_resize, whose extrapolation value
    // is a float) only moves elements: any element type.
    bool gathers = op.getMode() == "nearest" &&
                   op.getCoordinateTransformationMode() != "tf_crop_and_resize";
    if (!inputType ||
        (!gathers && !isElementKind(onnxElementType(op.getX()), kFloat)))
      return rewriter.notifyMatchFailure(op, "expected a float tensor");
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op, 0);
    if (!resultType)
      return failure();
    int64_t rank = inputType.getRank();
    ResizeConfig config{op.getMode(),
                        op.getNearestMode(),
                        op.getCoordinateTransformationMode(),
                        op.getCubicCoeffA().convertToDouble(),
                        op.getExcludeOutside() != 0,
                        op.getAntialias() != 0};
    if (config.mode != "nearest" && config.mode != "linear" &&
        config.mode != "cubic")
      return op.emitError() << "unknown mode '" << config.mode << "'";
    if (config.antialias && config.mode == "nearest")
      return op.emitError() << "antialias needs mode linear or cubic";
    StringRef t = config.transform;
    if (t != "half_pixel" && t != "half_pixel_symmetric" &&
        t != "pytorch_half_pixel" && t != "align_corners" &&
        t != "asymmetric" && t != "tf_crop_and_resize")
      return op.emitError()
             << "unknown coordinate_transformation_mode '" << t << "'";
    StringRef policy = op.getKeepAspectRatioPolicy();
    if (policy != "stretch" && policy != "not_larger" &&
        policy != "not_smaller")
      return op.emitError()
             << "unknown keep_aspect_ratio_policy '" << policy << "'";

    SmallVector<int64_t> axes;
    if (std::optional<ArrayAttr> attr = op.getAxes()) {
      axes = getI64Array(attr, 0, 0);
      if (failed(normalizeAxes(op, axes, rank)))
        return failure();
    } else {
      for (int64_t i = 0; i < rank; ++i)
        axes.push_back(i);
    }
    int64_t n = axes.size();
    if (config.antialias)
      for (int64_t axis : axes)
        if (inputType.isDynamicDim(axis) || resultType.isDynamicDim(axis))
          return op.emitError()
                 << "antialias needs static sizes on the resized axes, got "
                 << inputType << " -> " << resultType
                 << " (fix the input's dims with --shape NAME=...)";
    SmallVector<OpFoldResult> inSizes = tensorSizes(rewriter, loc, input);

    // The f64 scale of each resized axis.
    Value scales = adaptor.getScales(), sizes = adaptor.getSizes();
    SmallVector<Value> axisScales, givenSizes;
    ScalarFloatMath m{rewriter, loc, rewriter.getF64Type()};
    if (givenLength(sizes) != 0) {
      if (givenLength(scales) > 0)
        return op.emitError() << "only one of scales and sizes may be given";
      if (givenLength(sizes) != n)
        return op.emitError() << "sizes must have " << n << " elements";
      for (auto [i, axis] : llvm::enumerate(axes)) {
        Value size = rewriter.create<tensor::ExtractOp>(
            loc, sizes, indexConst(rewriter, loc, i));
        givenSizes.push_back(size);
        Value sizeF64 =
            rewriter.create<arith::SIToFPOp>(loc, rewriter.getF64Type(), size);
        axisScales.push_back(
            m.div(sizeF64, indexToF64(rewriter, loc, inSizes[axis])));
      }
      if (policy != "stretch") {
        Value scale = axisScales[0];
        for (Value s : ArrayRef(axisScales).drop_front())
          scale = policy == "not_larger"
                      ? rewriter.create<arith::MinimumFOp>(loc, scale, s)
                            .getResult()
                      : rewriter.create<arith::MaximumFOp>(loc, scale, s)
                            .getResult();
        for (Value &s : axisScales)
          s = scale;
      }
    } else {
      if (givenLength(scales) != n)
        return op.emitError() << "needs " << n << " scales or sizes";
      for (int64_t i = 0; i < n; ++i)
        axisScales.push_back(extractF64(rewriter, loc, scales, i));
    }
    Value roi = adaptor.getRoi();
    bool crop = t == "tf_crop_and_resize";
    if (crop && givenLength(roi) != 2 * n)
      return op.emitError()
             << "tf_crop_and_resize needs a roi of " << 2 * n << " values";

    Type element = inputType.getElementType();
    Type accType = gathers ? element : computeType(element);
    Value current = input;
    if (accType != element) {
      auto promoted = RankedTensorType::get(inputType.getShape(), accType);
      current = buildParallelGeneric(
          rewriter, loc, promoted, tensorSizes(rewriter, loc, input), input,
          rewriter.getMultiDimIdentityMap(rank),
          [](OpBuilder &b, Location nloc, ValueRange args) -> Value {
            return promoteHalf(b, nloc, args[0]);
          });
    }
    double extrapolation = op.getExtrapolationValue().convertToDouble();
    SmallVector<Value> tables(rank);
    SmallVector<OpFoldResult> outSizes(inSizes);
    for (auto [i, axis] : llvm::enumerate(axes)) {
      OpFoldResult in = inSizes[axis];
      Value scale = axisScales[i];
      Value roiStart, roiEnd;
      if (crop) {
        roiStart = extractF64(rewriter, loc, roi, i);
        roiEnd = extractF64(rewriter, loc, roi, i + n);
      }
      OpFoldResult out =
          resultType.isDynamicDim(axis)
              ? OpFoldResult(outputSize(
                    rewriter, loc, in, scale,
                    givenSizes.empty() ? Value() : givenSizes[i], policy))
              : OpFoldResult(
                    rewriter.getIndexAttr(resultType.getDimSize(axis)));
      std::optional<int64_t> staticIn = getConstantIntValue(in),
                             staticOut = getConstantIntValue(out);
      // The reference leaves an axis alone when the scale is 1 (relative
      // tolerance 1e-9), the size stays and the roi is [0, 1].
      Value skip;
      if (!staticIn || !staticOut || *staticIn == *staticOut) {
        auto close = [&](Value v, double target) {
          Value diff =
              rewriter.create<math::AbsFOp>(loc, m.sub(v, m.c(target)));
          Value tol =
              m.mul(m.c(1e-9), rewriter.create<arith::MaximumFOp>(
                                   loc, rewriter.create<math::AbsFOp>(loc, v),
                                   m.c(std::abs(target))));
          return m.cmp(arith::CmpFPredicate::OLE, diff, tol);
        };
        skip = close(scale, 1.0);
        if (!staticIn || !staticOut)
          skip = rewriter.create<arith::AndIOp>(
              loc, skip,
              rewriter.create<arith::CmpIOp>(
                  loc, arith::CmpIPredicate::eq,
                  getValueOrCreateConstantIndexOp(rewriter, loc, in),
                  getValueOrCreateConstantIndexOp(rewriter, loc, out)));
        if (crop) {
          Value startZero =
              m.cmp(arith::CmpFPredicate::OLE,
                    rewriter.create<math::AbsFOp>(loc, roiStart), m.c(0));
          skip = rewriter.create<arith::AndIOp>(
              loc, skip,
              rewriter.create<arith::AndIOp>(loc, startZero,
                                             close(roiEnd, 1.0)));
        }
      }
      if (gathers) {
        tables[axis] =
            nearestIndexTable(rewriter, loc, config, in, out, scale, skip);
        outSizes[axis] = out;
        continue;
      }
      current = resizeAxis(rewriter, loc, config, current, axis, in, out, scale,
                           roiStart, roiEnd, skip, extrapolation);
    }
    if (gathers)
      current = gatherNearest(rewriter, loc, current, tables, outSizes);
    if (accType != element) {
      current = buildParallelGeneric(
          rewriter, loc, resultType, tensorSizes(rewriter, loc, current),
          current, rewriter.getMultiDimIdentityMap(rank),
          [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
            return demoteTo(b, nloc, args[0], element);
          });
    }
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, current, resultType));
    return success();
  }
};

} // namespace

void populateResizePatterns(const TypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<ResizeLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
