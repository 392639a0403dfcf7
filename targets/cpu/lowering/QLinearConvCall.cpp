//===- QLinearConvCall.cpp - 2-D QLinearConv as an int8 GEMM call ---------===//
//
// onnx.QLinearConv on 4-D (NCHW) 8-bit operands with a constant W and f32
// scales (what QDQ fusion and ONNX Runtime's quantizers produce) becomes one
// call of runtime/cpu/QLinearConv.c: windows gathered into rows, the int8
// GEMM against W packed once per group, and the requantization, in place of
// the linalg form's f64 convolution (Quantization.cpp), which this pattern
// outranks. The window is resolved as for f32 convolutions (WindowUtils.h)
// and passed as begin pads, strides and dilations; the runtime derives the
// end pads from Y's size. Fails to match, leaving the op to the linalg
// form, for other ranks or scale types, a W that is not constant, dynamic
// kernel sizes or grouped channels, and attributes the linalg form reports.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeCall.h"
#include "targets/cpu/lowering/WindowUtils.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

// Must match runtime/cpu/CpuRuntime.h.
enum : int32_t {
  kXSigned = 1,
  kWSigned = 2,
  kYSigned = 4,
  kBias = 8,
  kYZero = 16
};

bool isStatic(int64_t size) { return !ShapedType::isDynamic(size); }

/// A ranked 4-D tensor of 8-bit integers, or null.
RankedTensorType int8Tensor4(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() == 4 && type.getElementType().isInteger(8)
             ? type
             : RankedTensorType();
}

/// Whether `value` is an f32 tensor of one element, or of `count` when
/// `count` > 1.
bool isF32ScaleOf(Value value, int64_t count) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.getElementType().isF32() || !type.hasStaticShape() ||
      type.getRank() > 1)
    return false;
  return type.getNumElements() == 1 || type.getNumElements() == count;
}

struct QLinearConvCall : OpConversionPattern<onnx::QLinearConvOp> {
  QLinearConvCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::QLinearConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto slot = op->getAttrOfType<FlatSymbolRefAttr>(kPackedBSlotAttr);
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!slot || !callee)
      return rewriter.notifyMatchFailure(op, "no constant W or no callee");
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    Value x = adaptor.getX(), w = adaptor.getW();
    RankedTensorType xType = int8Tensor4(x), wType = int8Tensor4(w);
    if (!resultType || !xType || !wType || !int8Tensor4(op->getResult(0)))
      return rewriter.notifyMatchFailure(op, "not a 2-D 8-bit QLinearConv");
    int64_t filters = wType.getDimSize(0), group = op.getGroup();
    int64_t channels = xType.getDimSize(1), groupChannels = wType.getDimSize(1);
    if (!isStatic(filters) || !isStatic(groupChannels) || group < 1 ||
        filters % group != 0 ||
        (isStatic(channels) && channels != groupChannels * group) ||
        (group > 1 && !isStatic(channels)))
      return rewriter.notifyMatchFailure(op, "channels do not match group");
    if (!isF32ScaleOf(adaptor.getXScale(), 1) ||
        !isF32ScaleOf(adaptor.getYScale(), 1) ||
        !isF32ScaleOf(adaptor.getWScale(), filters))
      return rewriter.notifyMatchFailure(op, "scales are not f32 of shape");
    bool hasYZero = !isNoneValue(adaptor.getYZeroPoint());
    bool hasBias = !isNoneValue(adaptor.getB());
    if (hasBias) {
      auto biasType =
          llvm::dyn_cast<RankedTensorType>(adaptor.getB().getType());
      if (!biasType || biasType.getRank() != 1 ||
          !biasType.getElementType().isInteger(32))
        return rewriter.notifyMatchFailure(op, "bias is not i32 [M]");
    }

    // The window, resolved as the linalg lowering does; its diagnostics are
    // left to that lowering (this pattern just does not match).
    FailureOr<SmallVector<WindowDim>> window = failure();
    {
      ScopedDiagnosticHandler silence(op.getContext(),
                                      [](Diagnostic &) { return success(); });
      FailureOr<SmallVector<int64_t>> kernel =
          resolveKernelShape(op, wType, op.getKernelShape());
      if (failed(kernel) || llvm::any_of(*kernel, ShapedType::isDynamic))
        return rewriter.notifyMatchFailure(op, "kernel size not static");
      window =
          resolveWindow(rewriter, op, x, *kernel, op.getStrides(),
                        op.getDilations(), op.getPads(), op.getAutoPad(),
                        /*ceilMode=*/false, /*clampAutoPad=*/true, resultType);
    }
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "bad window attributes");

    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    if (group == 1 && (!isStatic(channels))) {
      Value xc = dimValue(rewriter, loc, x, 1);
      Value wc = dimValue(rewriter, loc, w, 1);
      Value differ =
          rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, xc, wc);
      emitShapeErrorIf(rewriter, loc, differ, ShapeErrorKind::InnerDims, xc,
                       wc);
    }
    SmallVector<OpFoldResult> sizes = {
        mixedDims(rewriter, loc, x)[0], rewriter.getIndexAttr(filters),
        (*window)[0].output, (*window)[1].output};
    Value buffer = allocRuntimeResult(rewriter, loc, resultType, sizes);

    int32_t flags = (isUnsignedElement(op.getX()) ? 0 : kXSigned) |
                    (isUnsignedElement(op.getW()) ? 0 : kWSigned) |
                    (isUnsignedElement(op.getY()) ? 0 : kYSigned) |
                    (hasBias ? kBias : 0) | (hasYZero ? kYZero : 0);
    Value xRef = runtimeCallArgument(rewriter, loc, x);
    auto argument = [&](Value v) {
      return isNoneValue(v) ? xRef : runtimeCallArgument(rewriter, loc, v);
    };
    SmallVector<Value> args{xRef,
                            argument(adaptor.getXScale()),
                            argument(adaptor.getXZeroPoint()),
                            argument(w),
                            argument(adaptor.getWScale()),
                            argument(adaptor.getWZeroPoint()),
                            argument(adaptor.getYScale()),
                            argument(adaptor.getYZeroPoint()),
                            argument(adaptor.getB()),
                            castToDynamicMemref(rewriter, loc, buffer)};
    args.push_back(rewriter.create<memref::GetGlobalOp>(
        loc, packedBSlotType(rewriter.getContext()), slot.getValue()));
    auto i64 = [&](OpFoldResult v) -> Value {
      if (std::optional<int64_t> c = getConstantIntValue(v))
        return rewriter.create<arith::ConstantIntOp>(loc, *c, 64);
      return rewriter.create<arith::IndexCastOp>(loc, rewriter.getI64Type(),
                                                 m.value(v));
    };
    auto i64c = [&](int64_t v) -> Value {
      return rewriter.create<arith::ConstantIntOp>(loc, v, 64);
    };
    const WindowDim &h = (*window)[0], &wd = (*window)[1];
    args.append({rewriter.create<arith::ConstantIntOp>(loc, flags, 32),
                 i64(h.padBegin), i64(wd.padBegin), i64c(h.stride),
                 i64c(wd.stride), i64c(h.dilation), i64c(wd.dilation),
                 i64c(group)});
    auto call = rewriter.create<func::CallOp>(loc, callee, args);
    emitKernelStatusCheck(rewriter, loc, call.getResult(0));
    rewriter.replaceOp(op,
                       runtimeResultTensor(rewriter, loc, resultType, buffer));
    return success();
  }
};

} // namespace

void populateQLinearConvCallPatterns(const TypeConverter &typeConverter,
                                     RewritePatternSet &patterns) {
  patterns.add<QLinearConvCall>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
