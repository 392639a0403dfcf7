//===- ConvCall.cpp - f32 2-D NCHW Conv / FusedConv as kernel calls -------===//
//
// f32 onnx.Conv and onnxc.FusedConv with 4-D (NCHW) operands become one call
// of the runtime's convolution kernels (runtime/cpu/Conv.c): 1x1 through the
// packed GEMM, im2col tiles + GEMM, or the direct depthwise kernel, with the
// bias, FusedConv's residual Z and its activation in the kernel's epilogue.
// The window (auto_pad or explicit pads, strides, dilations) is resolved here
// as for the linalg form (WindowUtils.h) and passed as its begin pads,
// strides and dilations; the kernel derives the end pads from Y's size and
// never reads outside X. Batch and spatial dims may be dynamic. The result is
// a fresh buffer the call fills, wrapped as a restrict/writable tensor.
//
// The callee allocates scratch memory, so it is a wrapper-form
// RuntimeHelper: `--emit static` does not declare it and these patterns then
// fail to match. They outrank the linalg ones (Conv.cpp, Fused.cpp) and also
// fail to match, leaving the op to them, for other element types and ranks,
// dynamic kernel sizes or channels of grouped convolutions, and attributes
// or shapes that are wrong at compile time (the linalg patterns report
// those).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/KernelActivation.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"
#include "targets/cpu/lowering/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

// Must match runtime/cpu/CpuRuntime.h.
enum : int32_t { kHasBias = 1, kHasResidual = 2 };

/// A ranked f32 tensor type of rank `rank`, or null.
RankedTensorType f32Tensor(Value value, int64_t rank) {
  auto type = llvm::dyn_cast_if_present<RankedTensorType>(
      value ? value.getType() : Type());
  return type && type.getElementType().isF32() && type.getRank() == rank
             ? type
             : RankedTensorType();
}

bool isStatic(int64_t size) { return !ShapedType::isDynamic(size); }

/// Conv (X, W, B) plus FusedConv's Z and activation as one call. `op`
/// carries the ONNX window attributes.
template <typename OpTy>
LogicalResult lowerConv(ConversionPatternRewriter &rewriter, OpTy op, Value x,
                        Value w, Value bias, Value residual,
                        const KernelActivation &act) {
  Operation *operation = op.getOperation();
  RankedTensorType resultType = f32Tensor(operation->getResult(0), 4);
  RankedTensorType xType = f32Tensor(x, 4), wType = f32Tensor(w, 4);
  if (!resultType || !xType || !wType)
    return rewriter.notifyMatchFailure(op, "not a 2-D f32 NCHW Conv");
  std::optional<RuntimeHelper> helper = runtimeHelperFor(operation);
  auto callee = helper ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                             operation, rewriter.getStringAttr(helper->name))
                       : func::FuncOp();
  if (!callee)
    return rewriter.notifyMatchFailure(op, "runtime conv not declared");
  if (bias) {
    RankedTensorType biasType = f32Tensor(bias, 1);
    if (!biasType ||
        (isStatic(biasType.getDimSize(0)) && isStatic(wType.getDimSize(0)) &&
         biasType.getDimSize(0) != wType.getDimSize(0)))
      return rewriter.notifyMatchFailure(op, "bias is not [M]");
  }
  if (residual && residual.getType() != resultType)
    return rewriter.notifyMatchFailure(op, "Z does not have Y's type");

  int64_t group = op.getGroup();
  int64_t channels = xType.getDimSize(1), filters = wType.getDimSize(0);
  int64_t groupChannels = wType.getDimSize(1);
  if (group < 1 ||
      (group > 1 && (!isStatic(channels) || !isStatic(filters) ||
                     !isStatic(groupChannels))) ||
      (isStatic(channels) && isStatic(groupChannels) &&
       channels != groupChannels * group) ||
      (isStatic(filters) && filters % group != 0))
    return rewriter.notifyMatchFailure(op, "channels do not match group");
  if (isStatic(filters) && isStatic(resultType.getDimSize(1)) &&
      filters != resultType.getDimSize(1))
    return rewriter.notifyMatchFailure(op, "Y's channels are not W's");

  // The window, resolved as the linalg lowering does; its diagnostics are
  // left to that lowering (this pattern just does not match).
  FailureOr<SmallVector<WindowDim>> window = failure();
  {
    ScopedDiagnosticHandler silence(op.getContext(),
                                    [](Diagnostic &) { return success(); });
    FailureOr<SmallVector<int64_t>> kernel =
        resolveKernelShape(operation, wType, op.getKernelShape());
    if (failed(kernel) || llvm::any_of(*kernel, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "kernel size not static");
    window =
        resolveWindow(rewriter, operation, x, *kernel, op.getStrides(),
                      op.getDilations(), op.getPads(), op.getAutoPad(),
                      /*ceilMode=*/false, /*clampAutoPad=*/true, resultType);
  }
  if (failed(window))
    return rewriter.notifyMatchFailure(op, "bad window attributes");
  Location loc = op.getLoc();
  IndexMath m(rewriter, loc);
  for (const WindowDim &wd : *window) {
    std::optional<int64_t> padded =
        getConstantIntValue(m.add(m.add(wd.input, wd.padBegin), wd.padEnd));
    if (padded && *padded < wd.extent())
      return rewriter.notifyMatchFailure(op, "kernel larger than the input");
  }

  // Channels that disagree at run time (the kernel fills Y with NaN).
  if (group == 1 && (!isStatic(channels) || !isStatic(groupChannels))) {
    Value xc = dimValue(rewriter, loc, x, 1);
    Value wc = dimValue(rewriter, loc, w, 1);
    Value differ =
        rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, xc, wc);
    emitShapeErrorIf(rewriter, loc, differ, ShapeErrorKind::InnerDims, xc, wc);
  }

  SmallVector<OpFoldResult> sizes = {mixedDims(rewriter, loc, x)[0],
                                     mixedDims(rewriter, loc, w)[0],
                                     (*window)[0].output, (*window)[1].output};
  SmallVector<Value> dynamicSizes;
  for (auto [d, size] : llvm::enumerate(sizes))
    if (resultType.isDynamicDim(d))
      dynamicSizes.push_back(m.value(size));
  Type f32 = rewriter.getF32Type();
  Value buffer = rewriter.create<memref::AllocOp>(
      loc, MemRefType::get(resultType.getShape(), f32), dynamicSizes,
      rewriter.getI64IntegerAttr(64));

  // The callee's memref arguments are all-dynamic, of each operand's rank.
  auto toCallee = [&](Value memref, Type calleeType) -> Value {
    return memref.getType() == calleeType
               ? memref
               : rewriter.create<memref::CastOp>(loc, calleeType, memref);
  };
  auto asArgument = [&](Value tensor, Type calleeType) -> Value {
    auto type = llvm::cast<RankedTensorType>(tensor.getType());
    Value memref = rewriter.create<bufferization::ToMemrefOp>(
        loc, MemRefType::get(type.getShape(), f32), tensor,
        rewriter.getUnitAttr());
    return toCallee(memref, calleeType);
  };
  TypeRange inputs = callee.getFunctionType().getInputs();
  Value xRef = asArgument(x, inputs[0]);
  // Absent bias / Z: X again (see runtimeHelperFor), never read.
  Value biasRef = bias ? asArgument(bias, inputs[2]) : xRef;
  Value residualRef = residual ? asArgument(residual, inputs[3]) : xRef;
  int32_t flags = (bias ? kHasBias : 0) | (residual ? kHasResidual : 0);
  auto i64c = [&](int64_t v) -> Value {
    return rewriter.create<arith::ConstantIntOp>(loc, v, 64);
  };
  auto i64 = [&](OpFoldResult v) -> Value {
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return i64c(*c);
    return rewriter.create<arith::IndexCastOp>(loc, rewriter.getI64Type(),
                                               m.value(v));
  };
  const WindowDim &h = (*window)[0], &wd = (*window)[1];
  rewriter.create<func::CallOp>(
      loc, callee,
      ValueRange{xRef, asArgument(w, inputs[1]), biasRef, residualRef,
                 toCallee(buffer, inputs[4]),
                 rewriter.create<arith::ConstantIntOp>(loc, flags, 32),
                 i64(h.padBegin), i64(wd.padBegin), i64c(h.stride),
                 i64c(wd.stride), i64c(h.dilation), i64c(wd.dilation),
                 i64c(group),
                 rewriter.create<arith::ConstantIntOp>(loc, act.kind, 32),
                 rewriter.create<arith::ConstantOp>(
                     loc, rewriter.getF32FloatAttr(act.alpha)),
                 rewriter.create<arith::ConstantOp>(
                     loc, rewriter.getF32FloatAttr(act.beta))});
  rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
      op, resultType, buffer, /*restrict=*/rewriter.getUnitAttr(),
      /*writable=*/rewriter.getUnitAttr());
  return success();
}

/// f32 2-D onnx.Conv.
struct ConvCall : OpConversionPattern<onnx::ConvOp> {
  ConvCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value bias = isNoneValue(adaptor.getB()) ? Value() : adaptor.getB();
    return lowerConv(rewriter, op, adaptor.getX(), adaptor.getW(), bias,
                     Value(), KernelActivation());
  }
};

/// f32 2-D onnxc.FusedConv: bias, Z and the activation go into the epilogue.
struct FusedConvCall : OpConversionPattern<fused::FusedConvOp> {
  FusedConvCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(fused::FusedConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<KernelActivation> act =
        kernelActivationFor(op.getActivation(), op.getActivationParams());
    if (!act)
      return rewriter.notifyMatchFailure(op, "unknown activation");
    Value bias = isNoneValue(adaptor.getB()) ? Value() : adaptor.getB();
    Value residual = isNoneValue(adaptor.getZ()) ? Value() : adaptor.getZ();
    return lowerConv(rewriter, op, adaptor.getX(), adaptor.getW(), bias,
                     residual, *act);
  }
};

} // namespace

void populateConvCallPatterns(const TypeConverter &typeConverter,
                              RewritePatternSet &patterns) {
  patterns.add<ConvCall, FusedConvCall>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
