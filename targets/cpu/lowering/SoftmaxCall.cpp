//===- SoftmaxCall.cpp - f32 last-axis softmax as a runtime kernel call ---===//
//
// onnx.Softmax and onnxc.BiasSoftmax over the last axis of an f32 tensor
// become one call of the runtime's row kernel (runtime/cpu/TransformerOps.c,
// kernels/Transformer.h: max subtraction, vectorized exp, rows over the
// thread pool). BiasSoftmax's bias crosses as its own memref and is
// broadcast by the runtime (0 strides), so the sum is never materialized.
// Semantics are the linalg form's: a row with NaN or +inf, or all -inf,
// gives NaN.
//
// These patterns outrank the linalg ones (Softmax.cpp, Fused.cpp) and fail
// to match, leaving the op to them, for other element types and axes, and
// when the callee was not declared (static mode).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeCall.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

// Must match runtime/cpu/CpuRuntime.h.
enum : int32_t { kRowsBias = 1 };

/// Softmax of `data` (+ `bias`, null when absent) over axis `axis`.
LogicalResult lowerSoftmax(ConversionPatternRewriter &rewriter, Operation *op,
                           Value data, Value bias, int64_t axis) {
  auto resultType =
      llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
  if (!resultType || !dataType || !dataType.getElementType().isF32() ||
      resultType.getElementType() != dataType.getElementType() ||
      resultType.getRank() != dataType.getRank() || dataType.getRank() == 0 ||
      failed(verifyCompatibleShape(resultType, dataType)))
    return rewriter.notifyMatchFailure(op, "not an f32 softmax");
  int64_t rank = dataType.getRank();
  if (axis < -rank || axis >= rank || normalizeAxis(axis, rank) != rank - 1)
    return rewriter.notifyMatchFailure(op, "not over the last axis");
  if (bias) {
    auto biasType = llvm::dyn_cast<RankedTensorType>(bias.getType());
    if (!biasType || !biasType.getElementType().isF32() ||
        !broadcastMap(biasType, resultType))
      return rewriter.notifyMatchFailure(op, "bias does not broadcast");
  }
  func::FuncOp callee = lookupRuntimeCallee(op);
  if (!callee)
    return rewriter.notifyMatchFailure(op, "runtime softmax not declared");

  Location loc = op->getLoc();
  if (bias) {
    int64_t biasRank = llvm::cast<RankedTensorType>(bias.getType()).getRank();
    for (int64_t d = 0; d < biasRank; ++d)
      reportDimMismatch(rewriter, loc, bias, d, data, rank - biasRank + d,
                        /*broadcasts=*/true);
  }
  Value x = runtimeCallArgument(rewriter, loc, data);
  Value biasRef = bias ? runtimeCallArgument(rewriter, loc, bias) : x;
  Value buffer = allocRuntimeResult(rewriter, loc, resultType,
                                    mixedDims(rewriter, loc, data));
  Value flags =
      rewriter.create<arith::ConstantIntOp>(loc, bias ? kRowsBias : 0, 32);
  rewriter.create<func::CallOp>(
      loc, callee,
      ValueRange{x, biasRef, castToDynamicMemref(rewriter, loc, buffer),
                 flags});
  rewriter.replaceOp(op,
                     runtimeResultTensor(rewriter, loc, resultType, buffer));
  return success();
}

/// f32 onnx.Softmax over the last axis.
struct SoftmaxCall : OpConversionPattern<onnx::SoftmaxOp> {
  SoftmaxCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerSoftmax(rewriter, op, adaptor.getInput(), Value(),
                        op.getAxis());
  }
};

/// f32 onnxc.BiasSoftmax over the last axis: the bias is added in the row
/// kernel's first pass.
struct BiasSoftmaxCall : OpConversionPattern<fused::BiasSoftmaxOp> {
  BiasSoftmaxCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(fused::BiasSoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isNoneValue(adaptor.getBias()))
      return lowerSoftmax(rewriter, op, adaptor.getData(), Value(),
                          op.getAxis());
    return lowerSoftmax(rewriter, op, adaptor.getData(), adaptor.getBias(),
                        op.getAxis());
  }
};

} // namespace

void populateSoftmaxCallPatterns(const TypeConverter &typeConverter,
                                 RewritePatternSet &patterns) {
  patterns.add<SoftmaxCall, BiasSoftmaxCall>(typeConverter,
                                             patterns.getContext());
}

} // namespace onnxc::cpu
