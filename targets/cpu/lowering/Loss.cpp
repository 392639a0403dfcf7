//===- Loss.cpp - NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss ---===//
//
// Both losses pick, for every target element t = target[n, d...], the value
// -x[n, t, d...] of the class-log-probabilities x (the input for
// NegativeLogLikelihoodLoss, LogSoftmax(scores, axis 1) for
// SoftmaxCrossEntropyLoss), scaled by w = weight[t] (1 without weights) and 0
// where t == ignore_index. Reduction "sum" adds the losses up; "mean" divides
// that sum by the sum of the w's, which is the element count when there are
// neither weights nor ignored targets. A target out of [0, C) that is not
// ignored is undefined in ONNX; it is clamped so it never reads out of
// bounds. Half floats are computed in f32.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// LogSoftmax of `scores` along dim 1, in `accType`.
Value buildLogSoftmax(OpBuilder &b, Location loc, Value scores, Type accType) {
  auto type = llvm::cast<RankedTensorType>(scores.getType());
  int64_t rank = type.getRank();
  SmallVector<bool> reducedDims(rank, false);
  reducedDims[1] = true;
  Value max = buildReduction(
      b, loc, scores, reducedDims,
      extremeScalar(b, loc, accType, /*largest=*/false, false), {},
      [](OpBuilder &nb, Location nloc, ValueRange in, Value acc) -> Value {
        return nb.create<arith::MaximumFOp>(nloc, acc,
                                            promoteHalf(nb, nloc, in[0]));
      });
  Value sum = buildReduction(
      b, loc, scores, reducedDims, scalarConst(b, loc, accType, 0), max,
      [](OpBuilder &nb, Location nloc, ValueRange in, Value acc) -> Value {
        Value shifted =
            nb.create<arith::SubFOp>(nloc, promoteHalf(nb, nloc, in[0]), in[1]);
        return nb.create<arith::AddFOp>(nloc, acc,
                                        nb.create<math::ExpOp>(nloc, shifted));
      });
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap reduced = reducedMap(b.getContext(), reducedDims);
  return buildParallelGeneric(
      b, loc, RankedTensorType::get(type.getShape(), accType),
      tensorSizes(b, loc, scores), ValueRange{scores, max, sum},
      {identity, reduced, reduced},
      [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Value shifted = nb.create<arith::SubFOp>(
            nloc, promoteHalf(nb, nloc, args[0]), args[1]);
        return nb.create<arith::SubFOp>(nloc, shifted,
                                        nb.create<math::LogOp>(nloc, args[2]));
      });
}

/// Converts a tensor computed in computeType(type) to `resultType`.
Value demoteTensor(OpBuilder &b, Location loc, Value value,
                   RankedTensorType resultType) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (type.getElementType() == resultType.getElementType())
    return castIfNeeded(b, loc, value, resultType);
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  return buildParallelGeneric(
      b, loc, resultType, tensorSizes(b, loc, value), value, identity,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        return demoteTo(nb, nloc, args[0], resultType.getElementType());
      });
}

/// Lowers NegativeLogLikelihoodLoss (`isSoftmax` false) or
/// SoftmaxCrossEntropyLoss (`isSoftmax` true); operands are (input, target,
/// weight) for both.
template <typename OpTy, bool isSoftmax>
struct LossLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange operands = adaptor.getOperands();
    Value input = operands[0], target = operands[1], weight = operands[2];
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    auto targetType = llvm::dyn_cast<RankedTensorType>(target.getType());
    if (!inputType || !targetType ||
        !isElementKind(onnxElementType(op->getOperand(0)), kFloat) ||
        !isElementKind(onnxElementType(op->getOperand(1)), kInt))
      return rewriter.notifyMatchFailure(op,
                                         "expected float input, int target");
    int64_t rank = inputType.getRank();
    if (rank < 2 || targetType.getRank() != rank - 1)
      return op.emitError() << "expects an input [N, C, d...] and a target "
                               "[N, d...], got "
                            << inputType << " and " << targetType;
    bool hasWeight = !isNoneValue(weight);
    if (hasWeight && !llvm::isa<RankedTensorType>(weight.getType()))
      return rewriter.notifyMatchFailure(op, "expected a ranked weight");
    StringRef reduction = op.getReduction();
    if (reduction != "none" && reduction != "sum" && reduction != "mean")
      return op.emitError() << "unknown reduction '" << reduction << "'";
    RankedTensorType lossType =
        convertedResultType(*this->getTypeConverter(), op, 0);
    if (!lossType)
      return failure();
    RankedTensorType logProbType;
    if (isSoftmax && !llvm::isa<NoneType>(op->getResult(1).getType())) {
      logProbType = convertedResultType(*this->getTypeConverter(), op, 1);
      if (!logProbType)
        return failure();
    }

    Type element = inputType.getElementType();
    Type accType = computeType(element);
    Value logProb = input;
    if (isSoftmax)
      logProb = buildLogSoftmax(rewriter, loc, input, accType);

    std::optional<int64_t> ignoreIndex = op.getIgnoreIndex();
    Value numClasses = dimValue(rewriter, loc, input, 1);
    Type targetElement = targetType.getElementType();
    auto weightsType = RankedTensorType::get(targetType.getShape(), accType);
    SmallVector<OpFoldResult> targetSizes = tensorSizes(rewriter, loc, target);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank - 1);

    // Per-element class index (clamped) and whether the element is ignored.
    auto classOf = [&](OpBuilder &b, Location nloc, Value t) {
      Value idx = b.create<arith::IndexCastOp>(nloc, b.getIndexType(), t);
      return clampIntoBounds(b, nloc, idx, numClasses);
    };
    auto isIgnored = [&](OpBuilder &b, Location nloc, Value t) -> Value {
      if (!ignoreIndex)
        return Value();
      Value ignore = b.create<arith::ConstantOp>(
          nloc, IntegerAttr::get(targetElement, *ignoreIndex));
      return b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::eq, t, ignore);
    };

    Value weights = buildParallelGeneric(
        rewriter, loc, weightsType, targetSizes, target, identity,
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value w = scalarConst(b, nloc, accType, 1);
          if (hasWeight) {
            Value cls = classOf(b, nloc, args[0]);
            w = promoteHalf(b, nloc,
                            b.create<tensor::ExtractOp>(nloc, weight, cls));
          }
          if (Value ignored = isIgnored(b, nloc, args[0]))
            w = b.create<arith::SelectOp>(nloc, ignored,
                                          scalarConst(b, nloc, accType, 0), w);
          return w;
        });

    Value losses = buildIndexedGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, weightsType, targetSizes),
        ValueRange{target, weights}, {identity, identity},
        [&](OpBuilder &b, Location nloc, ValueRange ivs,
            ValueRange args) -> Value {
          SmallVector<Value> indices{ivs[0], classOf(b, nloc, args[0])};
          indices.append(ivs.begin() + 1, ivs.end());
          Value x = promoteHalf(
              b, nloc, b.create<tensor::ExtractOp>(nloc, logProb, indices));
          Value loss = b.create<arith::MulFOp>(
              nloc, args[1], b.create<arith::NegFOp>(nloc, x));
          if (Value ignored = isIgnored(b, nloc, args[0]))
            loss = b.create<arith::SelectOp>(
                nloc, ignored, scalarConst(b, nloc, accType, 0), loss);
          return loss;
        });

    Value loss = losses;
    if (reduction != "none") {
      SmallVector<bool> all(rank - 1, true);
      auto add = [](OpBuilder &b, Location nloc, ValueRange in,
                    Value acc) -> Value {
        return b.create<arith::AddFOp>(nloc, acc, in[0]);
      };
      Value zero = scalarConst(rewriter, loc, accType, 0);
      loss = buildReduction(rewriter, loc, losses, all, zero, {}, add);
      if (reduction == "mean") {
        Value total =
            buildReduction(rewriter, loc, weights, all, zero, {}, add);
        loss = buildParallelGeneric(
            rewriter, loc, RankedTensorType::get({}, accType), {},
            ValueRange{loss, total},
            {rewriter.getMultiDimIdentityMap(0),
             rewriter.getMultiDimIdentityMap(0)},
            [](OpBuilder &b, Location nloc, ValueRange args) -> Value {
              return b.create<arith::DivFOp>(nloc, args[0], args[1]);
            });
      }
    }
    SmallVector<Value> results{demoteTensor(rewriter, loc, loss, lossType)};
    if (isSoftmax && logProbType)
      results.push_back(demoteTensor(rewriter, loc, logProb, logProbType));
    else if (isSoftmax)
      results.push_back(
          rewriter.create<onnx::NoValueOp>(loc, rewriter.getNoneType()));
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateLossPatterns(const TypeConverter &typeConverter,
                          RewritePatternSet &patterns) {
  patterns.add<LossLowering<onnx::NegativeLogLikelihoodLossOp, false>,
               LossLowering<onnx::SoftmaxCrossEntropyLossOp, true>>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
