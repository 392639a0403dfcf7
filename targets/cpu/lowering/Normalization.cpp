//===- Normalization.cpp - Batch/Layer/Instance/Lp normalization ----------===//
//
// BatchNormalization (inference only), LayerNormalization (with its optional
// Mean and InvStdDev outputs), InstanceNormalization and LpNormalization.
//
// BatchNormalization folds its per-channel inputs into a scale and a shift
// once (one small generic over C), then applies x * a[c] + b[c]. The
// statistics-based ones reduce the mean first and then the squared
// deviations from it (two passes, the spec's formula) before one elementwise
// generic writes the result. Half floats are computed in f32.
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
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// A map reading a per-channel (rank-1) tensor at dim 1 of a rank-`rank`
/// iteration space.
AffineMap channelMap(MLIRContext *ctx, int64_t rank) {
  return AffineMap::get(rank, 0, getAffineDimExpr(1, ctx), ctx);
}

/// Whether `value` is a rank-1 tensor of element type `element` whose size
/// can equal `channels`.
bool isChannelVector(Value value, Type element, int64_t channels) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() == 1 && type.getElementType() == element &&
         (type.isDynamicDim(0) || ShapedType::isDynamic(channels) ||
          type.getDimSize(0) == channels);
}

/// The statistics of `x` over `reducedDims` in the compute type, as tensors
/// without the reduced dims: the mean, the sum of squared deviations from
/// it, and the element count (a scalar).
struct Moments {
  Value mean, squares, count;
};

Moments computeMoments(OpBuilder &b, Location loc, Value x,
                       ArrayRef<bool> reducedDims) {
  Type accType = computeType(getElementTypeOrSelf(x));
  Value count = b.create<arith::UIToFPOp>(
      loc, accType,
      b.create<arith::IndexCastUIOp>(
          loc, b.getI64Type(), reducedElementCount(b, loc, x, reducedDims)));
  Value zero = scalarConst(b, loc, accType, 0.0);
  Value sum = buildReduction(
      b, loc, x, reducedDims, zero, {},
      [](OpBuilder &nb, Location nloc, ValueRange in, Value acc) -> Value {
        return nb.create<arith::AddFOp>(nloc, acc,
                                        promoteHalf(nb, nloc, in[0]));
      });
  auto statType = llvm::cast<RankedTensorType>(sum.getType());
  AffineMap identity = b.getMultiDimIdentityMap(statType.getRank());
  Value mean = buildParallelGeneric(
      b, loc, statType, tensorSizes(b, loc, sum), sum, identity,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        return nb.create<arith::DivFOp>(nloc, args[0], count);
      });
  Value squares = buildReduction(
      b, loc, x, reducedDims, zero, mean,
      [](OpBuilder &nb, Location nloc, ValueRange in, Value acc) -> Value {
        Value d =
            nb.create<arith::SubFOp>(nloc, promoteHalf(nb, nloc, in[0]), in[1]);
        return nb.create<arith::AddFOp>(nloc, acc,
                                        nb.create<arith::MulFOp>(nloc, d, d));
      });
  return {mean, squares, count};
}

/// One elementwise function of the sum of squared deviations of `m`.
Value fromSquares(OpBuilder &b, Location loc, const Moments &m,
                  function_ref<Value(OpBuilder &, Location, Value)> body) {
  auto statType = llvm::cast<RankedTensorType>(m.squares.getType());
  return buildParallelGeneric(
      b, loc, statType, tensorSizes(b, loc, m.squares), m.squares,
      b.getMultiDimIdentityMap(statType.getRank()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        return body(nb, nloc, nb.create<arith::DivFOp>(nloc, args[0], m.count));
      });
}

/// Mean and (population) variance of `x` over `reducedDims`.
std::pair<Value, Value> meanAndVariance(OpBuilder &b, Location loc, Value x,
                                        ArrayRef<bool> reducedDims) {
  Moments m = computeMoments(b, loc, x, reducedDims);
  Value variance =
      fromSquares(b, loc, m, [](OpBuilder &, Location, Value variance) {
        return variance;
      });
  return {m.mean, variance};
}

/// Mean and 1 / sqrt(variance + epsilon) of `x` over `reducedDims`, in the
/// compute type, as tensors without the reduced dims.
std::pair<Value, Value> meanAndInvStdDev(OpBuilder &b, Location loc, Value x,
                                         ArrayRef<bool> reducedDims,
                                         double epsilon) {
  Moments m = computeMoments(b, loc, x, reducedDims);
  Value invStdDev = fromSquares(
      b, loc, m, [&](OpBuilder &nb, Location nloc, Value variance) -> Value {
        Type accType = variance.getType();
        Value shifted = nb.create<arith::AddFOp>(
            nloc, variance, scalarConst(nb, nloc, accType, epsilon));
        Value stdDev = nb.create<math::SqrtOp>(nloc, shifted);
        return nb.create<arith::DivFOp>(nloc, scalarConst(nb, nloc, accType, 1),
                                        stdDev);
      });
  return {m.mean, invStdDev};
}

/// BatchNormalization:
///   y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c]
/// computed as x * a[c] + b[c]. In inference mode (training_mode = 0) mean
/// and var are the inputs, and the running_mean/running_var outputs (which
/// only exist in training mode) must be absent or unused. In training mode
/// they are the batch statistics over all dims but C, and the running
/// outputs are input * momentum + batch statistic * (1 - momentum).
struct BatchNormalizationLowering
    : OpConversionPattern<onnx::BatchNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::BatchNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool training = op.getTrainingMode() != 0;
    if (!training &&
        (!op.getRunningMean().use_empty() || !op.getRunningVar().use_empty()))
      return rewriter.notifyMatchFailure(op, "running statistics are used");
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    Value x = adaptor.getX();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    if (!resultType || !xType || xType.getRank() < 2 ||
        !isElementKind(onnxElementType(op.getX()), kFloat) ||
        resultType.getElementType() != xType.getElementType() ||
        failed(verifyCompatibleShape(resultType, xType)))
      return rewriter.notifyMatchFailure(op, "expected a float (N, C, ...) "
                                             "tensor");
    Type element = xType.getElementType();
    int64_t channels = xType.getDimSize(1);
    // Scale and B have X's type; mean and var may have another float type
    // (opset 15's T1/T2), read through computeType below.
    SmallVector<Value> params{adaptor.getScale(), adaptor.getB(),
                              adaptor.getInputMean(), adaptor.getInputVar()};
    for (auto [i, param] : llvm::enumerate(params)) {
      Type paramElement = getElementTypeOrSelf(param);
      if (!isChannelVector(param, paramElement, channels) ||
          !isElementKind(paramElement, kFloat))
        return rewriter.notifyMatchFailure(op, "expected (C) parameters");
    }

    Type accType = computeType(element);
    int64_t rank = xType.getRank();
    SmallVector<Value> running;
    if (training) {
      SmallVector<bool> reducedDims(rank, true);
      reducedDims[1] = false;
      auto [mean, variance] = meanAndVariance(rewriter, loc, x, reducedDims);
      double momentum = op.getMomentum().convertToDouble();
      SmallVector<Value, 2> stats{mean, variance};
      for (auto [i, stat] : llvm::enumerate(stats)) {
        Value result = op->getResult(i + 1);
        if (llvm::isa<NoneType>(result.getType())) {
          running.push_back(Value());
          continue;
        }
        RankedTensorType runningType =
            convertedResultType(*getTypeConverter(), op.getOperation(), i + 1);
        if (!runningType)
          return failure();
        Value input = params[2 + i];
        Type inputElement = getElementTypeOrSelf(input);
        Type runningElement = runningType.getElementType();
        running.push_back(buildParallelGeneric(
            rewriter, loc, runningType, tensorSizes(rewriter, loc, stat),
            ValueRange{input, stat},
            SmallVector<AffineMap>(2, rewriter.getMultiDimIdentityMap(1)),
            [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
              Value old = castScalar(b, nloc, args[0], inputElement, accType);
              Value updated = b.create<arith::AddFOp>(
                  nloc,
                  b.create<arith::MulFOp>(
                      nloc, old, scalarConst(b, nloc, accType, momentum)),
                  b.create<arith::MulFOp>(
                      nloc, args[1],
                      scalarConst(b, nloc, accType, 1.0 - momentum)));
              return castScalar(b, nloc, updated, accType, runningElement);
            }));
      }
      params[2] = mean;
      params[3] = variance;
    }

    // a = scale / sqrt(var + epsilon), b = B - mean * a, over C.
    double epsilon = op.getEpsilon().convertToDouble();
    auto channelType = RankedTensorType::get({channels}, accType);
    SmallVector<OpFoldResult> channelSizes{tensorSizes(rewriter, loc, x)[1]};
    Value emptyA = emptyTensor(rewriter, loc, channelType, channelSizes);
    Value emptyB = emptyTensor(rewriter, loc, channelType, channelSizes);
    AffineMap id1 = rewriter.getMultiDimIdentityMap(1);
    auto folded = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{channelType, channelType}, params,
        ValueRange{emptyA, emptyB}, SmallVector<AffineMap>(6, id1),
        utils::IteratorType::parallel,
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          SmallVector<Value> v;
          for (Value arg : args.take_front(4))
            v.push_back(castScalar(b, nloc, arg, arg.getType(), accType));
          Value shifted = b.create<arith::AddFOp>(
              nloc, v[3], scalarConst(b, nloc, accType, epsilon));
          Value a = b.create<arith::DivFOp>(
              nloc, v[0], b.create<math::SqrtOp>(nloc, shifted));
          Value shift = b.create<arith::SubFOp>(
              nloc, v[1], b.create<arith::MulFOp>(nloc, v[2], a));
          b.create<linalg::YieldOp>(nloc, ValueRange{a, shift});
        });

    AffineMap perChannel = channelMap(rewriter.getContext(), rank);
    Value y = buildParallelGeneric(
        rewriter, loc, resultType, tensorSizes(rewriter, loc, x),
        ValueRange{x, folded.getResult(0), folded.getResult(1)},
        {rewriter.getMultiDimIdentityMap(rank), perChannel, perChannel},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value value = b.create<arith::AddFOp>(
              nloc,
              b.create<arith::MulFOp>(nloc, promoteHalf(b, nloc, args[0]),
                                      args[1]),
              args[2]);
          return demoteTo(b, nloc, value, element);
        });
    if (training)
      rewriter.replaceOp(op, {y, running[0], running[1]});
    else
      rewriter.replaceOp(op, {y, Value(), Value()});
    return success();
  }
};

/// LayerNormalization: statistics over dims [axis, rank), then
///   Y = (X - Mean) * InvStdDev * Scale + B
/// with Scale and B broadcast (right-aligned) to X. Mean and InvStdDev are
/// produced when the node has those outputs, with X's leading dims and unit
/// dims from `axis` on, in their own element type (stash_type).
struct LayerNormalizationLowering
    : OpConversionPattern<onnx::LayerNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LayerNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    Value x = adaptor.getX();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    if (!resultType || !xType ||
        !isElementKind(onnxElementType(op.getX()), kFloat) ||
        resultType.getElementType() != xType.getElementType() ||
        failed(verifyCompatibleShape(resultType, xType)))
      return rewriter.notifyMatchFailure(op, "expected a float tensor");
    int64_t rank = xType.getRank();
    int64_t axis = op.getAxis();
    if (rank == 0 || axis < -rank || axis >= rank)
      return op.emitError() << "axis " << axis << " is out of range for a rank-"
                            << rank << " input";
    axis = normalizeAxis(axis, rank);
    Type element = xType.getElementType();

    SmallVector<Value> affine{adaptor.getScale()};
    if (!isNoneValue(op.getB()))
      affine.push_back(adaptor.getB());
    for (Value v : affine) {
      auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
      if (!type || type.getElementType() != element ||
          !broadcastMap(type, resultType))
        return rewriter.notifyMatchFailure(op, "Scale/B do not broadcast to X");
    }
    // Optional statistics outputs: keepdims-shaped tensors of a float type.
    SmallVector<RankedTensorType, 2> statTypes;
    for (Value stat : {op.getMean(), op.getInvStdDev()}) {
      RankedTensorType type;
      if (!llvm::isa<NoneType>(stat.getType())) {
        type = llvm::dyn_cast_or_null<RankedTensorType>(
            getTypeConverter()->convertType(stat.getType()));
        if (!type || !isElementKind(type.getElementType(), kFloat) ||
            type.getRank() != rank)
          return rewriter.notifyMatchFailure(op, "unexpected Mean/InvStdDev");
      }
      statTypes.push_back(type);
    }

    SmallVector<bool> reducedDims(rank, false);
    for (int64_t d = axis; d < rank; ++d)
      reducedDims[d] = true;
    auto [mean, invStdDev] = meanAndInvStdDev(
        rewriter, loc, x, reducedDims, op.getEpsilon().convertToDouble());

    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced = reducedMap(rewriter.getContext(), reducedDims);
    SmallVector<Value> operands{x, mean, invStdDev};
    SmallVector<AffineMap> maps{identity, reduced, reduced};
    for (Value v : affine) {
      operands.push_back(v);
      maps.push_back(
          broadcastMap(llvm::cast<RankedTensorType>(v.getType()), resultType));
    }
    bool hasBias = affine.size() == 2;
    Value y = buildParallelGeneric(
        rewriter, loc, resultType, tensorSizes(rewriter, loc, x), operands,
        maps, [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value centered = b.create<arith::SubFOp>(
              nloc, promoteHalf(b, nloc, args[0]), args[1]);
          Value normalized = b.create<arith::MulFOp>(nloc, centered, args[2]);
          Value value = b.create<arith::MulFOp>(nloc, normalized,
                                                promoteHalf(b, nloc, args[3]));
          if (hasBias)
            value = b.create<arith::AddFOp>(nloc, value,
                                            promoteHalf(b, nloc, args[4]));
          return demoteTo(b, nloc, value, element);
        });

    SmallVector<Value> results{y};
    SmallVector<Value, 2> stats{mean, invStdDev};
    for (auto [stat, type] : llvm::zip(stats, statTypes)) {
      if (!type) {
        results.push_back(Value());
        continue;
      }
      Value value = stat;
      Type statElement = getElementTypeOrSelf(stat);
      Type resultElement = type.getElementType();
      if (resultElement != statElement) {
        auto statType = llvm::cast<RankedTensorType>(stat.getType());
        value = buildParallelGeneric(
            rewriter, loc, statType.clone(resultElement),
            tensorSizes(rewriter, loc, stat), stat,
            rewriter.getMultiDimIdentityMap(statType.getRank()),
            [&](OpBuilder &b, Location nloc, ValueRange args) {
              return castScalar(b, nloc, args[0], statElement, resultElement);
            });
      }
      value = keepReducedDims(rewriter, loc, value, x, reducedDims);
      results.push_back(castIfNeeded(rewriter, loc, value, type));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// InstanceNormalization: per (n, c) statistics over the spatial dims, then
///   y = scale[c] * (x - mean) * invStdDev + B[c].
struct InstanceNormalizationLowering
    : OpConversionPattern<onnx::InstanceNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::InstanceNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Value x = adaptor.getInput();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    if (!resultType || !xType || xType.getRank() < 3 ||
        !isElementKind(onnxElementType(op.getInput()), kFloat) ||
        resultType.getElementType() != xType.getElementType() ||
        failed(verifyCompatibleShape(resultType, xType)))
      return rewriter.notifyMatchFailure(op, "expected a float (N, C, D...) "
                                             "tensor");
    Type element = xType.getElementType();
    int64_t channels = xType.getDimSize(1);
    if (!isChannelVector(adaptor.getScale(), element, channels) ||
        !isChannelVector(adaptor.getB(), element, channels))
      return rewriter.notifyMatchFailure(op, "expected (C) scale and B");

    int64_t rank = xType.getRank();
    SmallVector<bool> reducedDims(rank, true);
    reducedDims[0] = reducedDims[1] = false;
    auto [mean, invStdDev] = meanAndInvStdDev(
        rewriter, loc, x, reducedDims, op.getEpsilon().convertToDouble());
    AffineMap reduced = reducedMap(rewriter.getContext(), reducedDims);
    AffineMap perChannel = channelMap(rewriter.getContext(), rank);
    Value y = buildParallelGeneric(
        rewriter, loc, resultType, tensorSizes(rewriter, loc, x),
        ValueRange{x, mean, invStdDev, adaptor.getScale(), adaptor.getB()},
        {rewriter.getMultiDimIdentityMap(rank), reduced, reduced, perChannel,
         perChannel},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value centered = b.create<arith::SubFOp>(
              nloc, promoteHalf(b, nloc, args[0]), args[1]);
          Value normalized = b.create<arith::MulFOp>(nloc, centered, args[2]);
          Value scaled = b.create<arith::MulFOp>(nloc, normalized,
                                                 promoteHalf(b, nloc, args[3]));
          Value value = b.create<arith::AddFOp>(nloc, scaled,
                                                promoteHalf(b, nloc, args[4]));
          return demoteTo(b, nloc, value, element);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

/// LpNormalization: x / ||x||_p along `axis`, p = 1 or 2. A zero norm gives
/// 0 (not NaN), as ONNX Runtime does.
struct LpNormalizationLowering : OpConversionPattern<onnx::LpNormalizationOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LpNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Value x = adaptor.getInput();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    int64_t p = op.getP();
    if (!resultType || !xType || (p != 1 && p != 2) ||
        !isElementKind(onnxElementType(op.getInput()), kFloat) ||
        resultType.getElementType() != xType.getElementType() ||
        failed(verifyCompatibleShape(resultType, xType)))
      return rewriter.notifyMatchFailure(op, "expected a float tensor, p 1/2");
    int64_t rank = xType.getRank();
    int64_t axis = op.getAxis();
    if (rank == 0 || axis < -rank || axis >= rank)
      return op.emitError() << "axis " << axis << " is out of range for a rank-"
                            << rank << " input";
    SmallVector<bool> reducedDims(rank, false);
    reducedDims[normalizeAxis(axis, rank)] = true;
    Type element = xType.getElementType();
    Type accType = computeType(element);

    Value norm = buildReduction(
        rewriter, loc, x, reducedDims, scalarConst(rewriter, loc, accType, 0),
        {},
        [&](OpBuilder &b, Location nloc, ValueRange in, Value acc) -> Value {
          Value v = promoteHalf(b, nloc, in[0]);
          Value term = p == 1 ? b.create<math::AbsFOp>(nloc, v).getResult()
                              : b.create<arith::MulFOp>(nloc, v, v).getResult();
          return b.create<arith::AddFOp>(nloc, acc, term);
        });
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    Value y = buildParallelGeneric(
        rewriter, loc, resultType, tensorSizes(rewriter, loc, x),
        ValueRange{x, norm},
        {identity, reducedMap(rewriter.getContext(), reducedDims)},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value n = args[1];
          if (p == 2)
            n = b.create<math::SqrtOp>(nloc, n);
          Value zero = scalarConst(b, nloc, accType, 0);
          Value isZero =
              b.create<arith::CmpFOp>(nloc, arith::CmpFPredicate::OEQ, n, zero);
          Value quotient =
              b.create<arith::DivFOp>(nloc, promoteHalf(b, nloc, args[0]), n);
          Value value = b.create<arith::SelectOp>(nloc, isZero, zero, quotient);
          return demoteTo(b, nloc, value, element);
        });
    rewriter.replaceOp(op, y);
    return success();
  }
};

} // namespace

void populateNormalizationPatterns(const TypeConverter &typeConverter,
                                   RewritePatternSet &patterns) {
  patterns.add<BatchNormalizationLowering, LayerNormalizationLowering,
               InstanceNormalizationLowering, LpNormalizationLowering>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
