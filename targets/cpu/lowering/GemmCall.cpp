//===- GemmCall.cpp - f32 MatMul/Gemm (and fused forms) as GEMM calls -----===//
//
// onnx.MatMul, onnx.Gemm, onnxc.FusedMatMul and onnxc.FusedGemm on f32
// become one call of the runtime's packed GEMM (runtime/cpu/MatMul.c), which
// reaches near the FMA peak where linalg loops do not. The operands cross as
// read-only identity-layout memrefs cast to unranked ones, so one C entry
// point serves every rank; the C side applies numpy's batch broadcasting,
// the transposes, alpha, the bias (Gemm's C scaled by beta, FusedMatMul's
// bias) and the activation in the GEMM's epilogue. The result is a fresh
// buffer the call fills, wrapped as a restrict/writable tensor: it
// bufferizes in place, with no copy.
//
// These patterns outrank the linalg ones (MatMul.cpp, Fused.cpp) and fail to
// match, leaving the op to them, for other element types, for shapes that are
// wrong at compile time (the linalg patterns report those), and when the
// callee was not declared (onnxc-declare-runtime-helpers did not run).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/KernelActivation.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeCall.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

// Must match runtime/cpu/CpuRuntime.h and kernels/Gemm.h.
enum : int32_t {
  kActNone = 0,
  kActRelu = 1,
  kActLeakyRelu = 2,
  kActClip = 3,
  kActSigmoid = 4,
  kActTanh = 5,
  kActHardSigmoid = 6,
  kActGelu = 7,
  kActFastGelu = 8,
  kActSilu = 9,
  kActHardSwish = 10
};

struct Activation {
  int32_t kind = kActNone;
  float alpha = 0.0f, beta = 0.0f;
};

/// The runtime's code for a fused op's `activation` (see OnnxcOps.td), or
/// nullopt for a name or parameter count the op does not allow.
std::optional<Activation> activationFor(StringRef name,
                                        std::optional<ArrayAttr> params) {
  SmallVector<float, 2> values;
  if (params)
    for (Attribute attr : *params) {
      auto f = llvm::dyn_cast<FloatAttr>(attr);
      if (!f)
        return std::nullopt;
      values.push_back(static_cast<float>(f.getValueAsDouble()));
    }
  auto param = [&](size_t i, float defaultValue) {
    return i < values.size() ? values[i] : defaultValue;
  };
  Activation act;
  if (name.empty() || name == "Relu" || name == "Sigmoid" || name == "Tanh" ||
      name == "Gelu" || name == "FastGelu" || name == "Silu") {
    if (!values.empty())
      return std::nullopt;
    act.kind = name.empty()        ? kActNone
               : name == "Relu"    ? kActRelu
               : name == "Sigmoid" ? kActSigmoid
               : name == "Tanh"    ? kActTanh
               : name == "Gelu"    ? kActGelu
               : name == "Silu"    ? kActSilu
                                   : kActFastGelu;
  } else if (name == "LeakyRelu" && values.size() <= 1) {
    act.kind = kActLeakyRelu;
    act.alpha = param(0, 0.01f);
  } else if (name == "Clip" && values.size() == 2) {
    act.kind = kActClip;
    act.alpha = values[0];
    act.beta = values[1];
  } else if (name == "HardSigmoid" && (values.empty() || values.size() == 2)) {
    act.kind = kActHardSigmoid;
    act.alpha = param(0, 0.2f);
    act.beta = param(1, 0.5f);
  } else if (name == "HardSwish" && values.empty()) {
    act.kind = kActHardSwish;
    act.alpha = 1.0f / 6.0f;
    act.beta = 0.5f;
  } else {
    return std::nullopt;
  }
  return act;
}

/// A ranked f32 tensor type, or null.
RankedTensorType f32Tensor(Value value) {
  auto type = llvm::dyn_cast_if_present<RankedTensorType>(
      value ? value.getType() : Type());
  return type && type.getElementType().isF32() ? type : RankedTensorType();
}

bool present(Value value) { return value && !isNoneValue(value); }

/// Whether static sizes `a` and `b` may be equal at run time.
bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// The run-time size of a result dim that broadcasts operand dims `x` and
/// `y` (either may be absent: `hasX`/`hasY`).
OpFoldResult broadcastSize(OpBuilder &b, Location loc, Value xTensor, int64_t x,
                           Value yTensor, int64_t y) {
  if (x < 0)
    return mixedDims(b, loc, yTensor)[y];
  if (y < 0)
    return mixedDims(b, loc, xTensor)[x];
  int64_t xs = llvm::cast<RankedTensorType>(xTensor.getType()).getDimSize(x);
  int64_t ys = llvm::cast<RankedTensorType>(yTensor.getType()).getDimSize(y);
  if (xs == 1)
    return mixedDims(b, loc, yTensor)[y];
  if (ys == 1 || !ShapedType::isDynamic(xs))
    return mixedDims(b, loc, xTensor)[x];
  if (!ShapedType::isDynamic(ys))
    return mixedDims(b, loc, yTensor)[y];
  // Both dynamic: numpy's result is the larger (the other is 1 or equal).
  return b
      .create<arith::MaxUIOp>(loc, dimValue(b, loc, xTensor, x),
                              dimValue(b, loc, yTensor, y))
      .getResult();
}

/// The call replacing `op`: y = activation(alpha * op(a) @ op(b) + biasScale *
/// bias) into a new buffer of `resultType` whose dynamic dims are `sizes`.
/// `thirdOperand` is the op's bias/C operand (null when absent), passed even
/// when unused.
Value buildCall(ConversionPatternRewriter &rewriter, Operation *op,
                Location loc, func::FuncOp callee, Value a, Value b, Value bias,
                Value thirdOperand, RankedTensorType resultType,
                ArrayRef<OpFoldResult> sizes, int32_t flags, float alpha,
                float biasScale, const Activation &act) {
  Value buffer = allocRuntimeResult(rewriter, loc, resultType, sizes);
  // A constant B's cache slot (RuntimeHelpers.h, kPackedBSlotAttr) goes
  // right after the result, as the packed callee expects; a B packed at
  // compile time (kPrepackedBAttr) is its packed global, and the slot is
  // followed by that layout's ISA and op(B)'s K and N.
  SmallVector<Value> slot;
  auto slotSymbol = op->getAttrOfType<FlatSymbolRefAttr>(kPackedBSlotAttr);
  if (slotSymbol)
    slot.push_back(rewriter.create<memref::GetGlobalOp>(
        loc, packedBSlotType(rewriter.getContext()), slotSymbol.getValue()));
  auto prepacked = op->getAttrOfType<FlatSymbolRefAttr>(kPrepackedBAttr);
  auto prepackedIsa = op->getAttrOfType<IntegerAttr>(kPrepackedIsaAttr);
  Value aRef = runtimeCallArgument(rewriter, loc, a), bRef;
  if (slotSymbol && prepacked && prepackedIsa) {
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        op, prepacked.getAttr());
    bRef =
        castToDynamicMemref(rewriter, loc,
                            rewriter.create<memref::GetGlobalOp>(
                                loc, global.getType(), prepacked.getValue()));
    auto bType = llvm::cast<RankedTensorType>(b.getType());
    bool transB = flags & kGemmTransB;
    flags &= ~kGemmTransB;
    auto i64 = [&](int64_t v) -> Value {
      return rewriter.create<arith::ConstantIntOp>(loc, v, 64);
    };
    slot.append(
        {rewriter.create<arith::ConstantIntOp>(loc, prepackedIsa.getInt(), 32),
         i64(bType.getDimSize(transB ? 1 : 0)),
         i64(bType.getDimSize(transB ? 0 : 1))});
  } else {
    bRef = runtimeCallArgument(rewriter, loc, b);
  }
  // The third memref is the bias/C operand whenever the op has one (see
  // runtimeHelperFor), used or not.
  Value biasRef =
      thirdOperand ? runtimeCallArgument(rewriter, loc, thirdOperand) : aRef;
  if (bias)
    flags |= kGemmHasBias;
  auto i32 = [&](int32_t v) -> Value {
    return rewriter.create<arith::ConstantIntOp>(loc, v, 32);
  };
  auto f32c = [&](float v) -> Value {
    return rewriter.create<arith::ConstantOp>(loc, rewriter.getF32FloatAttr(v));
  };
  SmallVector<Value> args{aRef, bRef, biasRef,
                          castToDynamicMemref(rewriter, loc, buffer)};
  args.append(slot);
  args.append({i32(flags), f32c(alpha), f32c(biasScale), i32(act.kind),
               f32c(act.alpha), f32c(act.beta)});
  rewriter.create<func::CallOp>(loc, callee, args);
  return runtimeResultTensor(rewriter, loc, resultType, buffer);
}

/// The declared runtime GEMM for `op`, or null (also when a packed B the op
/// names is missing: the linalg lowering then reads the original B).
func::FuncOp lookupCallee(Operation *op) {
  if (auto prepacked = op->getAttrOfType<FlatSymbolRefAttr>(kPrepackedBAttr))
    if (!op->getAttrOfType<IntegerAttr>(kPrepackedIsaAttr) ||
        !SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
            op, prepacked.getAttr()))
      return {};
  return lookupRuntimeCallee(op);
}

/// MatMul (numpy semantics) with an optional bias that broadcasts onto the
/// result, alpha and an activation. Fails (to the linalg lowering) on shapes
/// that cannot be right.
LogicalResult lowerMatMul(ConversionPatternRewriter &rewriter, Operation *op,
                          Value a, Value b, Value bias, float alpha,
                          const Activation &act) {
  RankedTensorType resultType = f32Tensor(op->getResult(0));
  RankedTensorType aType = f32Tensor(a), bType = f32Tensor(b);
  if (!resultType || !aType || !bType)
    return rewriter.notifyMatchFailure(op, "not an f32 MatMul");
  func::FuncOp callee = lookupCallee(op);
  if (!callee)
    return rewriter.notifyMatchFailure(op, "runtime GEMM not declared");
  int64_t ra = aType.getRank(), rb = bType.getRank();
  if (ra == 0 || rb == 0)
    return rewriter.notifyMatchFailure(op, "scalar operand");
  int64_t aBatch = std::max<int64_t>(ra - 2, 0);
  int64_t bBatch = std::max<int64_t>(rb - 2, 0);
  int64_t batchRank = std::max(aBatch, bBatch);
  int64_t ry = batchRank + (ra >= 2) + (rb >= 2);
  if (resultType.getRank() != ry)
    return rewriter.notifyMatchFailure(op, "unexpected result rank");
  if (!compatible(aType.getDimSize(ra - 1),
                  bType.getDimSize(rb >= 2 ? rb - 2 : 0)))
    return rewriter.notifyMatchFailure(op, "inner dims differ");
  if (bias) {
    RankedTensorType biasType = f32Tensor(bias);
    if (!biasType || !broadcastMap(biasType, resultType))
      return rewriter.notifyMatchFailure(op, "bias does not broadcast");
  }

  Location loc = op->getLoc();
  SmallVector<OpFoldResult> sizes;
  for (int64_t j = 0; j < batchRank; ++j) {
    int64_t ai = j - (batchRank - aBatch), bi = j - (batchRank - bBatch);
    int64_t as = ai >= 0 ? aType.getDimSize(ai) : 1;
    int64_t bs = bi >= 0 ? bType.getDimSize(bi) : 1;
    if (!ShapedType::isDynamic(as) && !ShapedType::isDynamic(bs) && as != bs &&
        as != 1 && bs != 1)
      return rewriter.notifyMatchFailure(op, "batch dims do not broadcast");
    sizes.push_back(broadcastSize(rewriter, loc, a, ai, b, bi));
  }
  if (ra >= 2)
    sizes.push_back(mixedDims(rewriter, loc, a)[ra - 2]);
  if (rb >= 2)
    sizes.push_back(mixedDims(rewriter, loc, b)[rb - 1]);
  for (int64_t j = 0; j < batchRank; ++j) {
    int64_t ai = j - (batchRank - aBatch), bi = j - (batchRank - bBatch);
    if (ai >= 0 && bi >= 0)
      reportDimMismatch(rewriter, loc, a, ai, b, bi, /*broadcasts=*/true,
                        ShapeErrorKind::Broadcast);
  }
  reportDimMismatch(rewriter, loc, a, ra - 1, b, rb >= 2 ? rb - 2 : 0,
                    /*broadcasts=*/false, ShapeErrorKind::InnerDims);
  Value result = buildCall(rewriter, op, loc, callee, a, b, bias, bias,
                           resultType, sizes, 0, alpha, 1.0f, act);
  rewriter.replaceOp(op, result);
  return success();
}

/// Gemm: alpha * op(A) @ op(B) + beta * C, C broadcast to [M, N].
LogicalResult lowerGemm(ConversionPatternRewriter &rewriter, Operation *op,
                        Value a, Value b, Value c, float alpha, float beta,
                        bool transA, bool transB, const Activation &act) {
  RankedTensorType resultType = f32Tensor(op->getResult(0));
  RankedTensorType aType = f32Tensor(a), bType = f32Tensor(b);
  if (!resultType || !aType || !bType)
    return rewriter.notifyMatchFailure(op, "not an f32 Gemm");
  func::FuncOp callee = lookupCallee(op);
  if (!callee)
    return rewriter.notifyMatchFailure(op, "runtime GEMM not declared");
  if (aType.getRank() != 2 || bType.getRank() != 2 || resultType.getRank() != 2)
    return rewriter.notifyMatchFailure(op, "Gemm operands must be 2-D");
  if (!compatible(aType.getDimSize(transA ? 0 : 1),
                  bType.getDimSize(transB ? 1 : 0)))
    return rewriter.notifyMatchFailure(op, "inner dims differ");
  Value bias = present(c) && beta != 0.0f ? c : Value();
  if (bias) {
    RankedTensorType cType = f32Tensor(bias);
    if (!cType || cType.getRank() > 2)
      return rewriter.notifyMatchFailure(op, "C is not an f32 of rank <= 2");
    for (int64_t d = 0; d < cType.getRank(); ++d) {
      int64_t size = cType.getDimSize(d);
      int64_t out = resultType.getDimSize(2 - cType.getRank() + d);
      if (size != 1 && !compatible(size, out))
        return rewriter.notifyMatchFailure(op, "C does not broadcast");
    }
  }
  Location loc = op->getLoc();
  SmallVector<OpFoldResult> sizes = {
      mixedDims(rewriter, loc, a)[transA ? 1 : 0],
      mixedDims(rewriter, loc, b)[transB ? 0 : 1]};
  reportDimMismatch(rewriter, loc, a, transA ? 0 : 1, b, transB ? 1 : 0,
                    /*broadcasts=*/false, ShapeErrorKind::InnerDims);
  int32_t flags = (transA ? kGemmTransA : 0) | (transB ? kGemmTransB : 0);
  Value result =
      buildCall(rewriter, op, loc, callee, a, b, bias, present(c) ? c : Value(),
                resultType, sizes, flags, alpha, beta, act);
  rewriter.replaceOp(op, result);
  return success();
}

/// f32 onnx.MatMul.
struct MatMulCall : OpConversionPattern<onnx::MatMulOp> {
  MatMulCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerMatMul(rewriter, op, adaptor.getA(), adaptor.getB(), Value(),
                       1.0f, Activation());
  }
};

/// f32 onnx.Gemm.
struct GemmCall : OpConversionPattern<onnx::GemmOp> {
  GemmCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerGemm(rewriter, op, adaptor.getA(), adaptor.getB(),
                     adaptor.getC(), op.getAlpha().convertToFloat(),
                     op.getBeta().convertToFloat(), op.getTransA() != 0,
                     op.getTransB() != 0, Activation());
  }
};

/// f32 onnxc.FusedMatMul: the bias and activation go into the epilogue.
struct FusedMatMulCall : OpConversionPattern<fused::FusedMatMulOp> {
  FusedMatMulCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(fused::FusedMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<Activation> act =
        activationFor(op.getActivation(), op.getActivationParams());
    if (!act)
      return rewriter.notifyMatchFailure(op, "unknown activation");
    Value bias = present(adaptor.getBias()) ? adaptor.getBias() : Value();
    return lowerMatMul(rewriter, op, adaptor.getA(), adaptor.getB(), bias,
                       op.getAlpha().convertToFloat(), *act);
  }
};

/// f32 onnxc.FusedGemm: the activation goes into the epilogue.
struct FusedGemmCall : OpConversionPattern<fused::FusedGemmOp> {
  FusedGemmCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(fused::FusedGemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::optional<Activation> act =
        activationFor(op.getActivation(), op.getActivationParams());
    if (!act)
      return rewriter.notifyMatchFailure(op, "unknown activation");
    return lowerGemm(rewriter, op, adaptor.getA(), adaptor.getB(),
                     adaptor.getC(), op.getAlpha().convertToFloat(),
                     op.getBeta().convertToFloat(), op.getTransA() != 0,
                     op.getTransB() != 0, *act);
  }
};

} // namespace

std::optional<KernelActivation>
kernelActivationFor(StringRef name, std::optional<ArrayAttr> params) {
  std::optional<Activation> act = activationFor(name, params);
  if (!act)
    return std::nullopt;
  return KernelActivation{act->kind, act->alpha, act->beta};
}

void populateGemmCallPatterns(const TypeConverter &typeConverter,
                              RewritePatternSet &patterns) {
  patterns.add<MatMulCall, GemmCall, FusedMatMulCall, FusedGemmCall>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
