//===- CausalConv.cpp - CausalConvWithState to linalg ---------------------===//
//
// onnx.CausalConvWithState (input [B, C, L], weight [C, 1, K], optional bias
// [C] and past_state [B, C, K - 1]) is a depthwise 1-D convolution over the
// input left-padded with the carried state (zeros when absent):
//   padded  = concat(past_state, input) along the length   [B, C, L + K - 1]
//   output  = act(depthwise_conv_1d(padded, weight) + bias) [B, C, L]
//   present = padded[:, :, L : L + K - 1]
// 16-bit floats accumulate in f32; the convolution is rounded to the element
// type before the optional SiLU, which is computed in f32 and rounded again
// (as the operator's reference does).
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

/// A static dim or kDynamic for each size.
SmallVector<int64_t> shapeOf(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return shape;
}

/// A tensor of `sizes` filled with zeros of `element`.
Value zeros(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
            Type element) {
  SmallVector<OpFoldResult> folded = foldSizes(sizes);
  Value empty = emptyTensor(
      b, loc, RankedTensorType::get(shapeOf(folded), element), folded);
  return b.create<linalg::FillOp>(loc, zeroScalar(b, loc, element), empty)
      .getResult(0);
}

/// Whether `value` is a rank-`rank` float tensor of element type `element`.
bool isTensorOf(Value value, int64_t rank, Type element) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() == rank && type.getElementType() == element;
}

/// onnx.CausalConvWithState on float tensors.
struct CausalConvWithStateLowering
    : OpConversionPattern<onnx::CausalConvWithStateOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::CausalConvWithStateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType outType = convertedResultType(*getTypeConverter(), op, 0);
    RankedTensorType stateType =
        convertedResultType(*getTypeConverter(), op, 1);
    if (!outType || !stateType)
      return failure();
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    Value bias = adaptor.getBias(), past = adaptor.getPastState();
    Type element = outType.getElementType();
    if (!llvm::isa<FloatType>(element))
      return rewriter.notifyMatchFailure(op, "expects float tensors");
    if (!isTensorOf(input, 3, element) || !isTensorOf(weight, 3, element))
      return op.emitError("CausalConvWithState expects a rank-3 input "
                          "[B, C, L] and weight [C, 1, K] of the output's "
                          "type");
    auto weightType = llvm::cast<RankedTensorType>(weight.getType());
    if (!weightType.isDynamicDim(1) && weightType.getDimSize(1) != 1)
      return op.emitError("the weight must be [C, 1, K] (depthwise)");
    if (!weightType.isDynamicDim(2) && weightType.getDimSize(2) < 1)
      return op.emitError("the kernel must have at least one tap");
    bool hasBias = !isNoneValue(bias), hasPast = !isNoneValue(past);
    if (hasBias && !isTensorOf(bias, 1, element))
      return op.emitError("bias must be a 1-D tensor of the input's type");
    if (hasPast && !isTensorOf(past, 3, element))
      return op.emitError("past_state must be a rank-3 tensor of the input's "
                          "type");
    // Static sizes must agree: channels everywhere, [B, C, K - 1] for the
    // state.
    auto inputType = llvm::cast<RankedTensorType>(input.getType());
    auto agree = [](int64_t a, int64_t b) {
      return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
    };
    int64_t channels = inputType.getDimSize(1);
    bool fits = agree(weightType.getDimSize(0), channels);
    if (hasBias)
      fits &= agree(llvm::cast<RankedTensorType>(bias.getType()).getDimSize(0),
                    channels);
    if (hasPast) {
      auto pastType = llvm::cast<RankedTensorType>(past.getType());
      int64_t taps = weightType.getDimSize(2);
      fits &= agree(pastType.getDimSize(0), inputType.getDimSize(0)) &&
              agree(pastType.getDimSize(1), channels) &&
              agree(pastType.getDimSize(2),
                    ShapedType::isDynamic(taps) ? taps : taps - 1);
    }
    if (!fits)
      return op.emitError("the weight, bias and past_state sizes do not fit "
                          "the input (weight [C, 1, K], bias [C], past_state "
                          "[B, C, K - 1])");
    StringRef activation = op.getActivation();
    bool silu = activation == "silu" || activation == "swish";
    if (!silu && activation != "none")
      return op.emitError() << "unknown activation '" << activation << "'";

    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> inputSizes = tensorSizes(rewriter, loc, input);
    OpFoldResult carry =
        m.sub(tensorSize(rewriter, loc, weight, 2), m.constant(1));

    // The input behind the carried positions.
    Value padded = input;
    if (hasPast || getConstantIntValue(carry) != std::optional<int64_t>(0)) {
      SmallVector<OpFoldResult> paddedSizes = {inputSizes[0], inputSizes[1],
                                               m.add(inputSizes[2], carry)};
      padded = zeros(rewriter, loc, paddedSizes, element);
      SmallVector<OpFoldResult> zeroOffsets(3, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> unitStrides(3, rewriter.getIndexAttr(1));
      if (hasPast) {
        SmallVector<OpFoldResult> pastSizes = {inputSizes[0], inputSizes[1],
                                               carry};
        padded = rewriter.create<tensor::InsertSliceOp>(
            loc, past, padded, zeroOffsets, foldSizes(pastSizes), unitStrides);
      }
      SmallVector<OpFoldResult> inputOffsets = {
          rewriter.getIndexAttr(0), rewriter.getIndexAttr(0), carry};
      padded = rewriter.create<tensor::InsertSliceOp>(
          loc, input, padded, foldSizes(inputOffsets), inputSizes, unitStrides);
    }

    // The depthwise convolution into an f32 (or f64) accumulator.
    Type accType = computeType(element);
    Value acc = zeros(rewriter, loc, inputSizes, accType);
    Value filter = rewriter.create<tensor::CollapseShapeOp>(
        loc, weight, SmallVector<ReassociationIndices>{{0, 1}, {2}});
    acc =
        rewriter
            .create<linalg::DepthwiseConv1DNcwCwOp>(
                loc, acc.getType(), ValueRange{padded, filter}, ValueRange{acc},
                rewriter.getI64TensorAttr({1}), rewriter.getI64TensorAttr({1}))
            .getResult(0);

    // Bias, rounding and activation in one pass.
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<Value> operands = {acc};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(3)};
    if (hasBias) {
      operands.push_back(bias);
      maps.push_back(AffineMap::get(3, 0, getAffineDimExpr(1, ctx), ctx));
    }
    auto resultType = RankedTensorType::get(shapeOf(inputSizes), element);
    Value output = acc;
    if (hasBias || silu || accType != element)
      output = buildParallelGeneric(
          rewriter, loc, resultType, inputSizes, operands, maps,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value v = args[0];
            if (hasBias)
              v = b.create<arith::AddFOp>(l, v, promoteHalf(b, l, args[1]));
            if (!silu)
              return demoteTo(b, l, v, element);
            v = promoteHalf(b, l, demoteTo(b, l, v, element));
            Value one = scalarConst(b, l, v.getType(), 1.0);
            Value sigmoid = b.create<arith::DivFOp>(
                l, one,
                b.create<arith::AddFOp>(
                    l, one,
                    b.create<math::ExpOp>(l, b.create<arith::NegFOp>(l, v))));
            return demoteTo(b, l, b.create<arith::MulFOp>(l, v, sigmoid),
                            element);
          });

    SmallVector<OpFoldResult> stateOffsets = {
        rewriter.getIndexAttr(0), rewriter.getIndexAttr(0), inputSizes[2]};
    SmallVector<OpFoldResult> stateSizes = {inputSizes[0], inputSizes[1],
                                            carry};
    Value present = rewriter.create<tensor::ExtractSliceOp>(
        loc, padded, foldSizes(stateOffsets), foldSizes(stateSizes),
        SmallVector<OpFoldResult>(3, rewriter.getIndexAttr(1)));

    rewriter.replaceOp(op, {castIfNeeded(rewriter, loc, output, outType),
                            castIfNeeded(rewriter, loc, present, stateType)});
    return success();
  }
};

} // namespace

void populateCausalConvPatterns(const TypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  patterns.add<CausalConvWithStateLowering>(typeConverter,
                                            patterns.getContext());
}

} // namespace onnxc::cpu
