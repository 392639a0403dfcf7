//===- Cumulative.cpp - CumSum and CumProd --------------------------------===//
//
// CumSum and CumProd along an axis given as a (0-D or one-element) run-time
// input, with `exclusive` (each element leaves itself out) and `reverse`
// (accumulate from the end). The axis is only a value at run time, so the
// scan is a loop nest over every element that combines it with the result
// already computed for its predecessor along the axis: in row-major order
// (or its exact reverse, for `reverse`) that predecessor is always visited
// first.
//
// Half floats are combined in f32 and rounded at every step.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// `lhs + rhs` (`isProduct` false) or `lhs * rhs` on scalars of one type.
Value combine(OpBuilder &b, Location loc, Value lhs, Value rhs,
              bool isProduct) {
  if (llvm::isa<FloatType>(lhs.getType()))
    return isProduct ? b.create<arith::MulFOp>(loc, lhs, rhs).getResult()
                     : b.create<arith::AddFOp>(loc, lhs, rhs).getResult();
  return isProduct ? b.create<arith::MulIOp>(loc, lhs, rhs).getResult()
                   : b.create<arith::AddIOp>(loc, lhs, rhs).getResult();
}

/// CumSum (`isProduct` false) and CumProd on numeric tensors of rank >= 1.
template <typename OpTy, bool isProduct>
struct CumulativeLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    Value input = adaptor.getX();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    auto axisType =
        llvm::dyn_cast<RankedTensorType>(adaptor.getAxis().getType());
    if (!resultType || !inputType || !axisType ||
        !isElementKind(onnxElementType(op.getX()), kNumeric) ||
        resultType.getElementType() != inputType.getElementType() ||
        failed(verifyCompatibleShape(resultType, inputType)))
      return rewriter.notifyMatchFailure(op, "expected a numeric tensor");
    int64_t rank = inputType.getRank();
    if (rank == 0)
      return op.emitError() << "the input must have rank >= 1";
    if (axisType.getRank() > 1 || axisType.getNumElements() != 1 ||
        !llvm::isa<IntegerType>(axisType.getElementType()))
      return op.emitError()
             << "axis must be a one-element integer tensor, got " << axisType;
    bool exclusive = op.getExclusive() != 0;
    bool reverse = op.getReverse() != 0;

    // The axis, normalized at run time (an invalid one selects no dim).
    Value zero = indexConst(rewriter, loc, 0);
    Value one = indexConst(rewriter, loc, 1);
    Value axis = extractAsIndex(rewriter, loc, adaptor.getAxis(), 0);
    Value isNegative = rewriter.create<arith::CmpIOp>(
        loc, arith::CmpIPredicate::slt, axis, zero);
    axis = rewriter.create<arith::SelectOp>(
        loc, isNegative,
        rewriter.create<arith::AddIOp>(loc, axis,
                                       indexConst(rewriter, loc, rank)),
        axis);
    SmallVector<Value> isAxis, sizes;
    for (int64_t d = 0; d < rank; ++d) {
      isAxis.push_back(rewriter.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::eq, axis, indexConst(rewriter, loc, d)));
      sizes.push_back(dimValue(rewriter, loc, input, d));
    }

    Type element = inputType.getElementType();
    Type accType = computeType(element);
    Value init = emptyTensor(rewriter, loc, inputType,
                             tensorSizes(rewriter, loc, input));
    SmallVector<Value> lbs(rank, zero), steps(rank, one);
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, sizes, steps, init,
        [&](OpBuilder &b, Location nloc, ValueRange ivs,
            ValueRange iterArgs) -> scf::ValueVector {
          Value c0 = indexConst(b, nloc, 0);
          Value c1 = indexConst(b, nloc, 1);
          // The element visited now, and its position along the axis.
          SmallVector<Value> coords;
          Value position = c0;
          Value last = c0; // The position of the axis' first element visited.
          for (int64_t d = 0; d < rank; ++d) {
            Value iv = ivs[d];
            if (reverse)
              iv = b.create<arith::SubIOp>(
                  nloc, b.create<arith::SubIOp>(nloc, sizes[d], c1), iv);
            coords.push_back(iv);
            position = b.create<arith::SelectOp>(nloc, isAxis[d], iv, position);
            if (reverse)
              last = b.create<arith::SelectOp>(
                  nloc, isAxis[d], b.create<arith::SubIOp>(nloc, sizes[d], c1),
                  last);
          }
          Value hasPrevious = b.create<arith::CmpIOp>(
              nloc, arith::CmpIPredicate::ne, position, last);
          // The predecessor along the axis (the element itself when there is
          // none, so the read stays in bounds; its value is not used then).
          SmallVector<Value> previous;
          for (int64_t d = 0; d < rank; ++d) {
            Value moved =
                reverse
                    ? b.create<arith::AddIOp>(nloc, coords[d], c1).getResult()
                    : b.create<arith::SubIOp>(nloc, coords[d], c1).getResult();
            Value step = b.create<arith::AndIOp>(nloc, isAxis[d], hasPrevious);
            previous.push_back(
                b.create<arith::SelectOp>(nloc, step, moved, coords[d]));
          }
          Value acc = iterArgs[0];
          Value before = promoteHalf(
              b, nloc, b.create<tensor::ExtractOp>(nloc, acc, previous));
          Value value;
          if (exclusive) {
            Value previousInput = promoteHalf(
                b, nloc, b.create<tensor::ExtractOp>(nloc, input, previous));
            value = b.create<arith::SelectOp>(
                nloc, hasPrevious,
                combine(b, nloc, before, previousInput, isProduct),
                scalarConst(b, nloc, accType, isProduct ? 1 : 0));
          } else {
            Value current = promoteHalf(
                b, nloc, b.create<tensor::ExtractOp>(nloc, input, coords));
            value = b.create<arith::SelectOp>(
                nloc, hasPrevious, combine(b, nloc, before, current, isProduct),
                current);
          }
          value = llvm::isa<FloatType>(accType)
                      ? demoteTo(b, nloc, value, element)
                      : value;
          return {
              b.create<tensor::InsertOp>(nloc, value, acc, coords).getResult()};
        });
    rewriter.replaceOp(
        op, castIfNeeded(rewriter, loc, nest.results.front(), resultType));
    return success();
  }
};

} // namespace

void populateCumulativePatterns(const TypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  patterns.add<CumulativeLowering<onnx::CumSumOp, false>,
               CumulativeLowering<onnx::CumProdOp, true>>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
