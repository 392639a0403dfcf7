//===- MatMulIntegerCall.cpp - MatMulInteger as an int8 GEMM call ---------===//
//
// onnx.MatMulInteger with a 2-D B (every quantized linear layer: dynamic
// quantization's MatMulInteger, and QLinearMatMul, which lowers to one)
// becomes one call of the runtime's int8 GEMM (runtime/cpu/
// MatMulInteger.c): A's leading dims fold into rows, a constant B is
// packed once into the call site's slot, and the zero points are applied
// as row and column corrections. The result is exact int32, as the linalg
// lowering's (MatMul.cpp), which this pattern outranks; it fails to match,
// leaving the op to that one, for a batched B, a per-row A zero point, or
// when the callee was not declared (`--emit static`).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeCall.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

// Must match runtime/cpu/CpuRuntime.h.
enum : int32_t {
  kASigned = 1,
  kBSigned = 2,
  kAZero = 4,
  kBZero = 8,
  kYSigned = 16
};

/// Whether `zero` (converted) is absent, or a scalar: rank 0 or [1].
bool isScalarOrAbsent(Value zero) {
  if (!zero || isNoneValue(zero))
    return true;
  auto type = llvm::dyn_cast<RankedTensorType>(zero.getType());
  return type && (type.getRank() == 0 ||
                  (type.getRank() == 1 && type.getDimSize(0) == 1));
}

struct MatMulIntegerCall : OpConversionPattern<onnx::MatMulIntegerOp> {
  MatMulIntegerCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::MatMulIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!callee)
      return rewriter.notifyMatchFailure(op, "runtime int8 GEMM not declared");
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    Value a = adaptor.getA(), b = adaptor.getB();
    auto aType = llvm::dyn_cast<RankedTensorType>(a.getType());
    auto bType = llvm::dyn_cast<RankedTensorType>(b.getType());
    if (!resultType || !aType || !bType || aType.getRank() < 1 ||
        bType.getRank() != 2 || !aType.getElementType().isInteger(8) ||
        !bType.getElementType().isInteger(8) ||
        !resultType.getElementType().isInteger(32) ||
        resultType.getRank() != aType.getRank())
      return rewriter.notifyMatchFailure(op, "not 8-bit A @ 2-D B");
    int64_t k = aType.getDimSize(aType.getRank() - 1);
    if (!ShapedType::isDynamic(k) && !bType.isDynamicDim(0) &&
        k != bType.getDimSize(0))
      return rewriter.notifyMatchFailure(op, "inner dims differ");
    Value aZero = adaptor.getAZeroPoint(), bZero = adaptor.getBZeroPoint();
    if (!isScalarOrAbsent(aZero))
      return rewriter.notifyMatchFailure(op, "per-row a_zero_point");
    if (!isScalarOrAbsent(bZero)) {
      auto zeroType = llvm::dyn_cast<RankedTensorType>(bZero.getType());
      if (!zeroType || zeroType.getRank() != 1 ||
          (!zeroType.isDynamicDim(0) && !bType.isDynamicDim(1) &&
           zeroType.getDimSize(0) != bType.getDimSize(1)))
        return rewriter.notifyMatchFailure(op, "unsupported b_zero_point");
    }

    Location loc = op.getLoc();
    int64_t rank = aType.getRank();
    SmallVector<OpFoldResult> sizes = mixedDims(rewriter, loc, a);
    sizes.back() = mixedDims(rewriter, loc, b)[1];
    reportDimMismatch(rewriter, loc, a, rank - 1, b, 0, /*broadcasts=*/false,
                      ShapeErrorKind::InnerDims);
    Value buffer = allocRuntimeResult(rewriter, loc, resultType, sizes);

    int32_t flags = 0;
    if (!isUnsignedElement(op.getA()))
      flags |= kASigned;
    if (!isUnsignedElement(op.getB()))
      flags |= kBSigned;
    Value aRef = runtimeCallArgument(rewriter, loc, a);
    auto zeroArgument = [&](Value zero, int32_t flag) {
      if (!zero || isNoneValue(zero))
        return aRef;
      flags |= flag;
      return runtimeCallArgument(rewriter, loc, zero);
    };
    SmallVector<Value> args{aRef, runtimeCallArgument(rewriter, loc, b),
                            zeroArgument(aZero, kAZero),
                            zeroArgument(bZero, kBZero),
                            castToDynamicMemref(rewriter, loc, buffer)};
    if (auto slot = op->getAttrOfType<FlatSymbolRefAttr>(kPackedBSlotAttr))
      args.push_back(rewriter.create<memref::GetGlobalOp>(
          loc, packedBSlotType(rewriter.getContext()), slot.getValue()));
    args.push_back(rewriter.create<arith::ConstantIntOp>(loc, flags, 32));
    auto call = rewriter.create<func::CallOp>(loc, callee, args);
    emitKernelStatusCheck(rewriter, loc, call.getResult(0));
    rewriter.replaceOp(op,
                       runtimeResultTensor(rewriter, loc, resultType, buffer));
    return success();
  }
};

/// Whether `value` is an f32 tensor of one element, or of `count` in one
/// dim (`count` < 0: one element only).
bool isF32Scale(Value value, int64_t count) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.getElementType().isF32() || !type.hasStaticShape() ||
      type.getRank() > 1)
    return false;
  return type.getNumElements() == 1 ||
         (count > 0 && type.getNumElements() == count);
}

/// onnx.QLinearMatMul with a constant 2-D B and f32 scales: the int8 GEMM
/// requantizing in its epilogue (runtime/cpu/MatMulInteger.c), where the
/// linalg form (Quantization.cpp) writes the int32 product and requantizes
/// it in a pass of its own.
struct QLinearMatMulCall : OpConversionPattern<onnx::QLinearMatMulOp> {
  QLinearMatMulCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::QLinearMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto slot = op->getAttrOfType<FlatSymbolRefAttr>(kPackedBSlotAttr);
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!slot || !callee)
      return rewriter.notifyMatchFailure(op, "no constant B or no callee");
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    Value a = adaptor.getA(), b = adaptor.getB();
    auto aType = llvm::dyn_cast<RankedTensorType>(a.getType());
    auto bType = llvm::dyn_cast<RankedTensorType>(b.getType());
    if (!resultType || !aType || !bType || aType.getRank() < 1 ||
        bType.getRank() != 2 || !aType.getElementType().isInteger(8) ||
        !bType.getElementType().isInteger(8) ||
        !resultType.getElementType().isInteger(8) ||
        resultType.getRank() != aType.getRank())
      return rewriter.notifyMatchFailure(op, "not 8-bit A @ 2-D B");
    int64_t n = bType.getDimSize(1);
    if (!isF32Scale(adaptor.getAScale(), -1) ||
        !isF32Scale(adaptor.getYScale(), -1) ||
        !isF32Scale(adaptor.getBScale(), n) ||
        !isScalarOrAbsent(adaptor.getAZeroPoint()) ||
        !isScalarOrAbsent(adaptor.getYZeroPoint()) ||
        isNoneValue(adaptor.getYZeroPoint()) ||
        isNoneValue(adaptor.getAZeroPoint()) ||
        isNoneValue(adaptor.getBZeroPoint()))
      return rewriter.notifyMatchFailure(op, "scales or zero points");
    auto bZeroType =
        llvm::dyn_cast<RankedTensorType>(adaptor.getBZeroPoint().getType());
    if (!isScalarOrAbsent(adaptor.getBZeroPoint()) &&
        (!bZeroType || bZeroType.getRank() != 1 ||
         (!bZeroType.isDynamicDim(0) && bZeroType.getDimSize(0) != n)))
      return rewriter.notifyMatchFailure(op, "b_zero_point is not [N]");
    int64_t k = aType.getDimSize(aType.getRank() - 1);
    if (!ShapedType::isDynamic(k) && !bType.isDynamicDim(0) &&
        k != bType.getDimSize(0))
      return rewriter.notifyMatchFailure(op, "inner dims differ");

    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes = mixedDims(rewriter, loc, a);
    sizes.back() = mixedDims(rewriter, loc, b)[1];
    reportDimMismatch(rewriter, loc, a, aType.getRank() - 1, b, 0,
                      /*broadcasts=*/false, ShapeErrorKind::InnerDims);
    Value buffer = allocRuntimeResult(rewriter, loc, resultType, sizes);
    int32_t flags = (isUnsignedElement(op.getA()) ? 0 : kASigned) |
                    (isUnsignedElement(op.getB()) ? 0 : kBSigned) |
                    (isUnsignedElement(op.getY()) ? 0 : kYSigned);
    SmallVector<Value> args;
    for (Value v : {a, adaptor.getAScale(), adaptor.getAZeroPoint(), b,
                    adaptor.getBScale(), adaptor.getBZeroPoint(),
                    adaptor.getYScale(), adaptor.getYZeroPoint()})
      args.push_back(runtimeCallArgument(rewriter, loc, v));
    args.push_back(castToDynamicMemref(rewriter, loc, buffer));
    args.push_back(rewriter.create<memref::GetGlobalOp>(
        loc, packedBSlotType(rewriter.getContext()), slot.getValue()));
    args.push_back(rewriter.create<arith::ConstantIntOp>(loc, flags, 32));
    auto call = rewriter.create<func::CallOp>(loc, callee, args);
    emitKernelStatusCheck(rewriter, loc, call.getResult(0));
    rewriter.replaceOp(op,
                       runtimeResultTensor(rewriter, loc, resultType, buffer));
    return success();
  }
};

} // namespace

void populateMatMulIntegerCallPatterns(const TypeConverter &typeConverter,
                                       RewritePatternSet &patterns) {
  patterns.add<MatMulIntegerCall, QLinearMatMulCall>(typeConverter,
                                                     patterns.getContext());
}

} // namespace onnxc::cpu
