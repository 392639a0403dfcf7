//===- Softmax.cpp - Softmax and LogSoftmax -------------------------------===//
//
// Softmax and LogSoftmax with opset-13 semantics (normalize along `axis`
// only), numerically stable: a max reduction, a sum of exp(x - max)
// reduction, then one elementwise generic:
//   Softmax:    exp(x - max) / sum
//   LogSoftmax: (x - max) - log(sum)
// Half floats are computed in f32.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Lowers Softmax (`isLog` false) or LogSoftmax (`isLog` true) on a ranked
/// float tensor whose result has the input's shape.
template <typename OpTy, bool isLog>
struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    Value input = adaptor.getInput();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType ||
        !isElementKind(onnxElementType(op.getInput()), kFloat) ||
        resultType.getElementType() != inputType.getElementType() ||
        failed(verifyCompatibleShape(resultType, inputType)))
      return rewriter.notifyMatchFailure(op, "expected a float tensor");
    int64_t rank = inputType.getRank();
    int64_t axis = op.getAxis();
    if (rank == 0 || axis < -rank || axis >= rank)
      return op.emitError() << "axis " << axis << " is out of range for a rank-"
                            << rank << " input";
    SmallVector<bool> reducedDims(rank, false);
    reducedDims[normalizeAxis(axis, rank)] = true;

    Type element = inputType.getElementType();
    Type accType = computeType(element);
    Value max = buildReduction(
        rewriter, loc, input, reducedDims,
        extremeScalar(rewriter, loc, accType, /*largest=*/false, false), {},
        [](OpBuilder &b, Location nloc, ValueRange in, Value acc) -> Value {
          return b.create<arith::MaximumFOp>(nloc, acc,
                                             promoteHalf(b, nloc, in[0]));
        });
    Value sum = buildReduction(
        rewriter, loc, input, reducedDims,
        scalarConst(rewriter, loc, accType, 0), max,
        [](OpBuilder &b, Location nloc, ValueRange in, Value acc) -> Value {
          Value shifted =
              b.create<arith::SubFOp>(nloc, promoteHalf(b, nloc, in[0]), in[1]);
          return b.create<arith::AddFOp>(nloc, acc,
                                         b.create<math::ExpOp>(nloc, shifted));
        });

    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced = reducedMap(rewriter.getContext(), reducedDims);
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, tensorSizes(rewriter, loc, input),
        ValueRange{input, max, sum}, {identity, reduced, reduced},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value shifted = b.create<arith::SubFOp>(
              nloc, promoteHalf(b, nloc, args[0]), args[1]);
          Value value;
          if (isLog)
            value = b.create<arith::SubFOp>(
                nloc, shifted, b.create<math::LogOp>(nloc, args[2]));
          else
            value = b.create<arith::DivFOp>(
                nloc, b.create<math::ExpOp>(nloc, shifted), args[2]);
          return demoteTo(b, nloc, value, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateSoftmaxPatterns(const TypeConverter &typeConverter,
                             RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering<onnx::SoftmaxOp, false>,
               SoftmaxLowering<onnx::LogSoftmaxOp, true>>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
