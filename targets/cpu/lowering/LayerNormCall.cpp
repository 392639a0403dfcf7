//===- LayerNormCall.cpp - f32 last-axis layer norm as a runtime call -----===//
//
// onnx.LayerNormalization over the last axis and onnxc.SkipLayerNorm on f32
// become one call of the runtime's row kernel (runtime/cpu/TransformerOps.c,
// kernels/Transformer.h): per row, the residual sum (SkipLayerNorm's input +
// skip + bias), its mean and variance (two passes over the row while it is
// in cache), then the scale and shift, with rows over the thread pool.
//
// These patterns outrank the linalg ones (Normalization.cpp, Fused.cpp) and
// fail to match, leaving the op to them, for other element types, other
// axes, Scale/B/bias that are not vectors over the last dim, the Mean and
// InvStdDev outputs, a stash type other than float, and when the callee was
// not declared (static mode). Sizes only known at run time are checked by
// the runtime (a mismatch fills Y with NaN).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeCall.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

// Must match runtime/cpu/CpuRuntime.h.
enum : int32_t { kRowsBias = 1, kRowsSkip = 2, kRowsBeta = 4 };

/// Whether `v` is an f32 tensor whose dims are all 1 but the last, which
/// may equal `n` (a static size or kDynamic).
bool isLastDimVector(Value v, int64_t n) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.getElementType().isF32() || type.getRank() == 0)
    return false;
  for (int64_t d = 0; d + 1 < type.getRank(); ++d)
    if (type.getDimSize(d) != 1)
      return false;
  int64_t last = type.getDimSize(type.getRank() - 1);
  return ShapedType::isDynamic(last) || ShapedType::isDynamic(n) || last == n;
}

/// Y = LayerNorm(x + skip + bias) * gamma + beta over the last axis; skip,
/// bias and beta may be null.
LogicalResult lowerLayerNorm(ConversionPatternRewriter &rewriter, Operation *op,
                             Value x, Value skip, Value bias, Value gamma,
                             Value beta, float epsilon) {
  auto resultType =
      llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
  if (!resultType || !xType || !xType.getElementType().isF32() ||
      resultType.getElementType() != xType.getElementType() ||
      xType.getRank() == 0 || resultType.getRank() != xType.getRank() ||
      failed(verifyCompatibleShape(resultType, xType)))
    return rewriter.notifyMatchFailure(op, "not an f32 layer norm");
  int64_t n = xType.getDimSize(xType.getRank() - 1);
  if (skip && failed(verifyCompatibleShape(skip.getType(), xType)))
    return rewriter.notifyMatchFailure(op, "skip is not X's shape");
  for (Value v : {gamma, beta, bias})
    if (v && !isLastDimVector(v, n))
      return rewriter.notifyMatchFailure(op, "not a vector over the last dim");
  func::FuncOp callee = lookupRuntimeCallee(op);
  if (!callee)
    return rewriter.notifyMatchFailure(op, "runtime layer norm not declared");

  Location loc = op->getLoc();
  int64_t last = xType.getRank() - 1;
  if (skip)
    for (int64_t d = 0; d <= last; ++d)
      reportDimMismatch(rewriter, loc, skip, d, x, d, /*broadcasts=*/false);
  for (Value v : {gamma, beta, bias})
    if (v)
      reportDimMismatch(rewriter, loc, v,
                        llvm::cast<RankedTensorType>(v.getType()).getRank() - 1,
                        x, last, /*broadcasts=*/false);
  Value xRef = runtimeCallArgument(rewriter, loc, x);
  auto argument = [&](Value v) {
    return v ? runtimeCallArgument(rewriter, loc, v) : xRef;
  };
  int32_t flags =
      (skip ? kRowsSkip : 0) | (bias ? kRowsBias : 0) | (beta ? kRowsBeta : 0);
  Value buffer = allocRuntimeResult(rewriter, loc, resultType,
                                    mixedDims(rewriter, loc, x));
  rewriter.create<func::CallOp>(
      loc, callee,
      ValueRange{xRef, argument(skip), argument(bias), argument(gamma),
                 argument(beta), castToDynamicMemref(rewriter, loc, buffer),
                 rewriter.create<arith::ConstantIntOp>(loc, flags, 32),
                 rewriter.create<arith::ConstantOp>(
                     loc, rewriter.getF32FloatAttr(epsilon))});
  SmallVector<Value> results(op->getNumResults(), Value());
  results[0] = runtimeResultTensor(rewriter, loc, resultType, buffer);
  rewriter.replaceOp(op, results);
  return success();
}

Value presentOrNull(Value v) { return isNoneValue(v) ? Value() : v; }

/// f32 onnx.LayerNormalization over the last axis without the statistics
/// outputs.
struct LayerNormalizationCall
    : OpConversionPattern<onnx::LayerNormalizationOp> {
  LayerNormalizationCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::LayerNormalizationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto xType = llvm::dyn_cast<RankedTensorType>(adaptor.getX().getType());
    if (!xType)
      return rewriter.notifyMatchFailure(op, "unranked X");
    int64_t rank = xType.getRank(), axis = op.getAxis();
    if (axis < -rank || axis >= rank || normalizeAxis(axis, rank) != rank - 1)
      return rewriter.notifyMatchFailure(op, "not over the last axis");
    if (!llvm::isa<NoneType>(op.getMean().getType()) ||
        !llvm::isa<NoneType>(op.getInvStdDev().getType()))
      return rewriter.notifyMatchFailure(op, "statistics outputs");
    if (op.getStashType() != 1)
      return rewriter.notifyMatchFailure(op, "stash type is not float");
    return lowerLayerNorm(rewriter, op, adaptor.getX(), Value(), Value(),
                          adaptor.getScale(), presentOrNull(adaptor.getB()),
                          op.getEpsilon().convertToFloat());
  }
};

/// f32 onnxc.SkipLayerNorm: the residual sum is formed in the kernel's first
/// pass, never stored.
struct SkipLayerNormCall : OpConversionPattern<fused::SkipLayerNormOp> {
  SkipLayerNormCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(fused::SkipLayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerLayerNorm(rewriter, op, adaptor.getInput(), adaptor.getSkip(),
                          presentOrNull(adaptor.getBias()), adaptor.getGamma(),
                          presentOrNull(adaptor.getBeta()),
                          op.getEpsilon().convertToFloat());
  }
};

} // namespace

void populateLayerNormCallPatterns(const TypeConverter &typeConverter,
                                   RewritePatternSet &patterns) {
  patterns.add<LayerNormalizationCall, SkipLayerNormCall>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
