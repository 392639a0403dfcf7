//===- DynamicQuantizeCall.cpp - DynamicQuantizeLinear as a kernel call ---===//
//
// f32 onnx.DynamicQuantizeLinear becomes one call of the runtime's dynamic
// quantization (runtime/cpu/DynamicQuantize.c): two vectorized passes over
// the input, where the linalg form (Quantization.cpp) reduces min and max
// element by element into one scalar and rounds with a call per element.
// The call writes the quantized tensor and a [scale, zero point] pair that
// become the op's two scalar results. Outranks the linalg pattern; fails to
// match, leaving the op to it, when the callee was not declared.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeCall.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

struct DynamicQuantizeCall
    : OpConversionPattern<onnx::DynamicQuantizeLinearOp> {
  DynamicQuantizeCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::DynamicQuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!callee)
      return rewriter.notifyMatchFailure(op, "runtime quantizer not declared");
    Value x = adaptor.getX();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    const TypeConverter &converter = *getTypeConverter();
    RankedTensorType yType = convertedResultType(converter, op, 0);
    RankedTensorType scaleType = convertedResultType(converter, op, 1);
    RankedTensorType zeroType = convertedResultType(converter, op, 2);
    if (!xType || !xType.getElementType().isF32() || !yType ||
        yType.getRank() != xType.getRank() || !scaleType || !zeroType ||
        scaleType.getRank() != 0 || zeroType.getRank() != 0)
      return rewriter.notifyMatchFailure(op, "expected an f32 ranked input");

    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value y =
        allocRuntimeResult(rewriter, loc, yType, mixedDims(rewriter, loc, x));
    auto paramsType = MemRefType::get({2}, f32);
    // Freed by the buffer deallocation that follows bufferization.
    Value params = rewriter.create<memref::AllocOp>(loc, paramsType);
    auto call = rewriter.create<func::CallOp>(
        loc, callee,
        ValueRange{runtimeCallArgument(rewriter, loc, x),
                   castToDynamicMemref(rewriter, loc, y), params});
    emitKernelStatusCheck(rewriter, loc, call.getResult(0));
    auto load = [&](int64_t index) -> Value {
      Value i = rewriter.create<arith::ConstantIndexOp>(loc, index);
      return rewriter.create<memref::LoadOp>(loc, params, ValueRange{i});
    };
    Value scale = load(0);
    Value zero =
        rewriter.create<arith::FPToUIOp>(loc, rewriter.getI8Type(), load(1));
    rewriter.replaceOp(
        op, {runtimeResultTensor(rewriter, loc, yType, y),
             rewriter.create<tensor::FromElementsOp>(loc, scaleType, scale),
             rewriter.create<tensor::FromElementsOp>(loc, zeroType, zero)});
    return success();
  }
};

} // namespace

void populateDynamicQuantizeCallPatterns(const TypeConverter &typeConverter,
                                         RewritePatternSet &patterns) {
  patterns.add<DynamicQuantizeCall>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
