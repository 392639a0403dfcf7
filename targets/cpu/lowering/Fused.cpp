//===- Fused.cpp - The onnxc fused ops ------------------------------------===//
//
// onnxc.FusedConv / FusedMatMul / FusedGemm (compiler/dialect/onnxc) lower to
// their core op, created as onnx.Conv / MatMul / Gemm so that the conversion
// lowers it with the same patterns as an unfused one, followed by one
// all-parallel linalg.generic epilogue (alpha, bias, residual add,
// activation) that the pipeline's elementwise fusion can merge with its
// neighbours. Half floats are computed in f32 and rounded once.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/FusedActivation.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;

namespace onnxc::cpu {
namespace {

Value floatConst(OpBuilder &b, Location loc, Type type, double value) {
  return b.create<arith::ConstantOp>(loc, b.getFloatAttr(type, value));
}
} // namespace

/// Checks the activation `name` and its parameters before anything is built.
LogicalResult verifyActivation(Operation *op, StringRef name,
                               std::optional<ArrayAttr> params) {
  size_t expected;
  if (name.empty() || name == "Relu" || name == "Sigmoid" || name == "Tanh")
    expected = 0;
  else if (name == "LeakyRelu")
    expected = 1;
  else if (name == "Clip" || name == "HardSigmoid")
    expected = 2;
  else
    return op->emitError() << "unknown activation '" << name << "'";
  size_t given = params ? params->size() : 0;
  if (given != expected && !(name == "LeakyRelu" && given == 0) &&
      !(name == "HardSigmoid" && given == 0))
    return op->emitError() << "activation '" << name << "' takes " << expected
                           << " activation_params, got " << given;
  return success();
}

/// Applies activation `name` (see OnnxcOps.td) to scalar `x`.
Value applyActivation(OpBuilder &b, Location loc, Value x, StringRef name,
                      std::optional<ArrayAttr> params) {
  Type type = x.getType();
  auto param = [&](size_t i, double defaultValue) {
    if (!params || i >= params->size())
      return defaultValue;
    return llvm::cast<FloatAttr>((*params)[i]).getValueAsDouble();
  };
  auto cst = [&](double v) { return floatConst(b, loc, type, v); };
  if (name == "Relu")
    return b.create<arith::MaximumFOp>(loc, x, cst(0.0));
  if (name == "LeakyRelu") {
    Value negative =
        b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x, cst(0.0));
    Value scaled = b.create<arith::MulFOp>(loc, x, cst(param(0, 0.01)));
    return b.create<arith::SelectOp>(loc, negative, scaled, x);
  }
  if (name == "Clip") {
    Value low = b.create<arith::MaximumFOp>(loc, x, cst(param(0, -INFINITY)));
    return b.create<arith::MinimumFOp>(loc, low, cst(param(1, INFINITY)));
  }
  if (name == "Sigmoid") {
    Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
    return b.create<arith::DivFOp>(loc, cst(1.0),
                                   b.create<arith::AddFOp>(loc, cst(1.0), e));
  }
  if (name == "Tanh")
    return b.create<math::TanhOp>(loc, x);
  if (name == "HardSigmoid") {
    Value linear = b.create<arith::AddFOp>(
        loc, b.create<arith::MulFOp>(loc, x, cst(param(0, 0.2))),
        cst(param(1, 0.5)));
    Value upper = b.create<arith::MinimumFOp>(loc, linear, cst(1.0));
    return b.create<arith::MaximumFOp>(loc, upper, cst(0.0));
  }
  return x; // "": no activation
}

namespace {

/// Creates the core op `name` (an onnx op the conversion lowers next) on
/// `operands` with `op`'s attributes named in `attrNames`.
Value createCoreOp(ConversionPatternRewriter &rewriter, Operation *op,
                   StringRef name, ValueRange operands, Type resultType,
                   ArrayRef<StringRef> attrNames) {
  OperationState state(op->getLoc(), name);
  state.addOperands(operands);
  for (StringRef attr : attrNames)
    if (Attribute value = op->getAttr(attr))
      state.addAttribute(attr, value);
  state.addTypes(resultType);
  return rewriter.create(state)->getResult(0);
}

/// The epilogue: activation(alpha * core + addend) elementwise, with addend
/// (optional) broadcast onto the core result. Returns `core` when there is
/// nothing to do.
Value buildEpilogue(ConversionPatternRewriter &rewriter, Location loc,
                    RankedTensorType resultType, Value core, Value addend,
                    double alpha, StringRef activation,
                    std::optional<ArrayAttr> params) {
  if (!addend && alpha == 1.0 && activation.empty())
    return core;
  SmallVector<Value> operands{core};
  if (addend)
    operands.push_back(addend);
  Type element = resultType.getElementType();
  return buildBroadcastGeneric(
      rewriter, loc, resultType, operands,
      [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
        Value v = promoteHalf(b, nloc, args[0]);
        if (alpha != 1.0)
          v = b.create<arith::MulFOp>(nloc, v,
                                      floatConst(b, nloc, v.getType(), alpha));
        if (addend)
          v = b.create<arith::AddFOp>(nloc, v, promoteHalf(b, nloc, args[1]));
        v = applyActivation(b, nloc, v, activation, params);
        return demoteTo(b, nloc, v, element);
      });
}

/// The float result type of `op`, or null.
RankedTensorType getFloatResultType(Operation *op) {
  auto type = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !llvm::isa<FloatType>(type.getElementType()))
    return {};
  return type;
}

bool isPresent(Value v) { return v && !llvm::isa<NoneType>(v.getType()); }

struct FusedConvLowering : OpConversionPattern<fused::FusedConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::FusedConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getFloatResultType(op);
    if (!resultType)
      return op.emitError() << "expected a ranked float result";
    if (isPresent(adaptor.getZ()) && adaptor.getZ().getType() != resultType)
      return op.emitError() << "Z must have the result's type " << resultType;
    if (failed(
            verifyActivation(op, op.getActivation(), op.getActivationParams())))
      return failure();
    Value conv = createCoreOp(
        rewriter, op, "onnx.Conv",
        {adaptor.getX(), adaptor.getW(), adaptor.getB()}, resultType,
        {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
    Value z = isPresent(adaptor.getZ()) ? adaptor.getZ() : Value();
    rewriter.replaceOp(op, buildEpilogue(rewriter, op.getLoc(), resultType,
                                         conv, z, 1.0, op.getActivation(),
                                         op.getActivationParams()));
    return success();
  }
};

struct FusedMatMulLowering : OpConversionPattern<fused::FusedMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::FusedMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getFloatResultType(op);
    if (!resultType)
      return op.emitError() << "expected a ranked float result";
    Value bias = isPresent(adaptor.getBias()) ? adaptor.getBias() : Value();
    if (bias) {
      auto biasType = llvm::dyn_cast<RankedTensorType>(bias.getType());
      if (!biasType ||
          biasType.getElementType() != resultType.getElementType() ||
          !broadcastMap(biasType, resultType))
        return op.emitError() << "bias " << bias.getType()
                              << " does not broadcast to " << resultType;
    }
    if (failed(
            verifyActivation(op, op.getActivation(), op.getActivationParams())))
      return failure();
    Value matmul =
        createCoreOp(rewriter, op, "onnx.MatMul",
                     {adaptor.getA(), adaptor.getB()}, resultType, {});
    rewriter.replaceOp(
        op, buildEpilogue(rewriter, op.getLoc(), resultType, matmul, bias,
                          op.getAlpha().convertToDouble(), op.getActivation(),
                          op.getActivationParams()));
    return success();
  }
};

struct FusedGemmLowering : OpConversionPattern<fused::FusedGemmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::FusedGemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getFloatResultType(op);
    if (!resultType)
      return op.emitError() << "expected a ranked float result";
    if (failed(
            verifyActivation(op, op.getActivation(), op.getActivationParams())))
      return failure();
    Value gemm =
        createCoreOp(rewriter, op, "onnx.Gemm",
                     {adaptor.getA(), adaptor.getB(), adaptor.getC()},
                     resultType, {"alpha", "beta", "transA", "transB"});
    rewriter.replaceOp(op, buildEpilogue(rewriter, op.getLoc(), resultType,
                                         gemm, Value(), 1.0, op.getActivation(),
                                         op.getActivationParams()));
    return success();
  }
};

} // namespace

void populateFusedPatterns(const TypeConverter &typeConverter,
                           RewritePatternSet &patterns) {
  patterns.add<FusedConvLowering, FusedMatMulLowering, FusedGemmLowering>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
