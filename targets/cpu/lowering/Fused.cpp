//===- Fused.cpp - The onnxc fused ops ------------------------------------===//
//
// onnxc.FusedConv / FusedMatMul / FusedGemm (compiler/dialect/onnxc) lower to
// their core op, created as onnx.Conv / MatMul / Gemm so that the conversion
// lowers it with the same patterns as an unfused one, followed by one
// all-parallel linalg.generic epilogue (alpha, bias, residual add,
// activation) that the pipeline's elementwise fusion can merge with its
// neighbours. Half floats are computed in f32 and rounded once.
//
// The transformer fusions (SkipLayerNorm, BiasGelu, BiasSoftmax,
// EmbedLayerNorm) lower to their onnx decomposition (Add, Gather, Gelu,
// Softmax, LayerNormalization), which the conversion lowers next; the
// pipeline's elementwise fusion then merges the adds into the consumer's
// loop nests.
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
  if (name.empty() || name == "Relu" || name == "Sigmoid" || name == "Tanh" ||
      name == "Gelu" || name == "FastGelu" || name == "Silu" ||
      name == "HardSwish")
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
  if (name == "Sigmoid" || name == "Silu") {
    Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
    Value sigmoid = b.create<arith::DivFOp>(
        loc, cst(1.0), b.create<arith::AddFOp>(loc, cst(1.0), e));
    return name == "Silu" ? b.create<arith::MulFOp>(loc, x, sigmoid) : sigmoid;
  }
  if (name == "Tanh")
    return b.create<math::TanhOp>(loc, x);
  if (name == "HardSigmoid" || name == "HardSwish") {
    // HardSwish is x * HardSigmoid(x) with alpha 1/6, beta 0.5 (fixed).
    bool swish = name == "HardSwish";
    double alpha = swish ? 1.0 / 6.0 : param(0, 0.2);
    double beta = swish ? 0.5 : param(1, 0.5);
    Value linear = b.create<arith::AddFOp>(
        loc, b.create<arith::MulFOp>(loc, x, cst(alpha)), cst(beta));
    Value upper = b.create<arith::MinimumFOp>(loc, linear, cst(1.0));
    Value hard = b.create<arith::MaximumFOp>(loc, upper, cst(0.0));
    return swish ? b.create<arith::MulFOp>(loc, x, hard) : hard;
  }
  if (name == "Gelu" || name == "FastGelu") {
    Value inner;
    if (name == "FastGelu") {
      // tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))
      Value x3 =
          b.create<arith::MulFOp>(loc, x, b.create<arith::MulFOp>(loc, x, x));
      Value sum = b.create<arith::AddFOp>(
          loc, x, b.create<arith::MulFOp>(loc, cst(0.044715), x3));
      inner = b.create<math::TanhOp>(
          loc, b.create<arith::MulFOp>(loc, cst(std::sqrt(2.0 / M_PI)), sum));
    } else {
      inner = b.create<math::ErfOp>(
          loc, b.create<arith::MulFOp>(loc, x, cst(M_SQRT1_2)));
    }
    Value halfX = b.create<arith::MulFOp>(loc, cst(0.5), x);
    return b.create<arith::MulFOp>(
        loc, halfX, b.create<arith::AddFOp>(loc, cst(1.0), inner));
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

/// Checks that `v`, when present, is a ranked tensor of `resultType`'s
/// element type that broadcasts onto it without growing it.
LogicalResult checkBroadcastOperand(Operation *op, Value v, StringRef name,
                                    RankedTensorType resultType) {
  if (!isPresent(v))
    return success();
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getElementType() != resultType.getElementType() ||
      !broadcastMap(type, resultType))
    return op->emitError() << name << " " << v.getType()
                           << " does not broadcast to " << resultType;
  return success();
}

struct FusedMatMulLowering : OpConversionPattern<fused::FusedMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::FusedMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getFloatResultType(op);
    if (!resultType)
      return op.emitError() << "expected a ranked float result";
    if (failed(
            checkBroadcastOperand(op, adaptor.getBias(), "bias", resultType)))
      return failure();
    Value bias = isPresent(adaptor.getBias()) ? adaptor.getBias() : Value();
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

/// The f32 epsilon attribute of a LayerNormalization. (Fused ops read
/// their attributes through the getters, which apply the defaults: an
/// imported onnxc node need not spell them out.)
FloatAttr epsilonAttr(OpBuilder &b, APFloat epsilon) {
  return b.getF32FloatAttr(epsilon.convertToFloat());
}

/// onnx.LayerNormalization(x, gamma, beta) over the last axis.
Value createLastAxisLayerNorm(ConversionPatternRewriter &rewriter, Location loc,
                              RankedTensorType resultType, Value x, Value gamma,
                              Value beta, FloatAttr epsilon) {
  NoneType none = rewriter.getNoneType();
  return createOnnxOp(
      rewriter, loc, "onnx.LayerNormalization", {x, gamma, beta},
      {resultType, none, none},
      {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(-1)),
       rewriter.getNamedAttr("epsilon", epsilon),
       rewriter.getNamedAttr("stash_type", rewriter.getI64IntegerAttr(1))});
}

struct SkipLayerNormLowering : OpConversionPattern<fused::SkipLayerNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::SkipLayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getFloatResultType(op);
    if (!resultType)
      return op.emitError() << "expected a ranked float result";
    if (adaptor.getInput().getType() != resultType ||
        adaptor.getSkip().getType() != resultType)
      return op.emitError()
             << "input and skip must have the result's type " << resultType;
    if (failed(
            checkBroadcastOperand(op, adaptor.getBias(), "bias", resultType)))
      return failure();
    Location loc = op.getLoc();
    Value sum =
        createOnnxOp(rewriter, loc, "onnx.Add",
                     {adaptor.getInput(), adaptor.getSkip()}, resultType);
    if (isPresent(adaptor.getBias()))
      sum = createOnnxOp(rewriter, loc, "onnx.Add", {sum, adaptor.getBias()},
                         resultType);
    rewriter.replaceOp(
        op, createLastAxisLayerNorm(rewriter, loc, resultType, sum,
                                    adaptor.getGamma(), adaptor.getBeta(),
                                    epsilonAttr(rewriter, op.getEpsilon())));
    return success();
  }
};

struct BiasGeluLowering : OpConversionPattern<fused::BiasGeluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::BiasGeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getFloatResultType(op);
    if (!resultType || adaptor.getX().getType() != resultType)
      return op.emitError() << "expected X and the result of one float type";
    if (failed(
            checkBroadcastOperand(op, adaptor.getBias(), "bias", resultType)))
      return failure();
    Location loc = op.getLoc();
    Value sum = createOnnxOp(rewriter, loc, "onnx.Add",
                             {adaptor.getX(), adaptor.getBias()}, resultType);
    rewriter.replaceOp(
        op, createOnnxOp(rewriter, loc, "onnx.Gelu", sum, resultType,
                         {rewriter.getNamedAttr(
                             "approximate",
                             rewriter.getStringAttr(op.getApproximate()))}));
    return success();
  }
};

struct BiasSoftmaxLowering : OpConversionPattern<fused::BiasSoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::BiasSoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getFloatResultType(op);
    if (!resultType || adaptor.getData().getType() != resultType)
      return op.emitError() << "expected data and the result of one float "
                               "type";
    if (failed(
            checkBroadcastOperand(op, adaptor.getBias(), "bias", resultType)))
      return failure();
    Location loc = op.getLoc();
    Value sum =
        createOnnxOp(rewriter, loc, "onnx.Add",
                     {adaptor.getData(), adaptor.getBias()}, resultType);
    rewriter.replaceOp(
        op,
        createOnnxOp(rewriter, loc, "onnx.Softmax", sum, resultType,
                     {rewriter.getNamedAttr(
                         "axis", rewriter.getI64IntegerAttr(op.getAxis()))}));
    return success();
  }
};

/// The shape two broadcast index shapes give (dims aligned from the right;
/// a static dim other than 1 wins over a dynamic one, as shape inference
/// does), or failure when two static dims conflict.
FailureOr<SmallVector<int64_t>> broadcastIndexShapes(ArrayRef<int64_t> a,
                                                     ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x == 1 || x == y)
      shape[i] = y;
    else if (y == 1)
      shape[i] = x;
    else if (ShapedType::isDynamic(x))
      shape[i] = y;
    else if (ShapedType::isDynamic(y))
      shape[i] = x;
    else
      return failure();
  }
  return shape;
}

struct EmbedLayerNormLowering : OpConversionPattern<fused::EmbedLayerNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::EmbedLayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = getFloatResultType(op);
    if (!resultType)
      return op.emitError() << "expected a ranked float result";
    Location loc = op.getLoc();
    // table[ids] as onnx.Gather, summed with broadcasting.
    Value sum;
    SmallVector<int64_t> sumIds;
    auto addLookup = [&](Value table, Value ids, StringRef what) {
      auto tableType = llvm::dyn_cast<RankedTensorType>(table.getType());
      auto idsType = llvm::dyn_cast<RankedTensorType>(ids.getType());
      if (!tableType || !idsType || tableType.getRank() != 2 ||
          tableType.getElementType() != resultType.getElementType() ||
          tableType.getDimSize(1) != resultType.getShape().back())
        return LogicalResult(op.emitError()
                             << what << " lookup of " << table.getType()
                             << " by " << ids.getType()
                             << " does not give rows of " << resultType);
      SmallVector<int64_t> shape(idsType.getShape());
      shape.push_back(tableType.getDimSize(1));
      Value rows = createOnnxOp(
          rewriter, loc, "onnx.Gather", {table, ids},
          RankedTensorType::get(shape, resultType.getElementType()),
          {rewriter.getNamedAttr("axis", rewriter.getI64IntegerAttr(0))});
      if (!sum) {
        sum = rows;
        sumIds.assign(idsType.getShape().begin(), idsType.getShape().end());
        return success();
      }
      FailureOr<SmallVector<int64_t>> merged =
          broadcastIndexShapes(sumIds, idsType.getShape());
      if (failed(merged))
        return LogicalResult(op.emitError() << "index shapes do not broadcast");
      sumIds = *merged;
      SmallVector<int64_t> sumShape(sumIds);
      sumShape.push_back(tableType.getDimSize(1));
      sum = createOnnxOp(
          rewriter, loc, "onnx.Add", {sum, rows},
          RankedTensorType::get(sumShape, resultType.getElementType()));
      return success();
    };
    // (word + segment) + position, the order BERT adds them in.
    if (failed(addLookup(adaptor.getWordEmbedding(), adaptor.getInputIds(),
                         "word")) ||
        (isPresent(adaptor.getSegmentIds()) &&
         failed(addLookup(adaptor.getSegmentEmbedding(),
                          adaptor.getSegmentIds(), "segment"))) ||
        failed(addLookup(adaptor.getPositionEmbedding(),
                         adaptor.getPositionIds(), "position")))
      return failure();
    if (llvm::cast<RankedTensorType>(sum.getType()).getRank() !=
        resultType.getRank())
      return op.emitError()
             << "the summed lookups are not of rank " << resultType.getRank();
    rewriter.replaceOp(
        op, createLastAxisLayerNorm(rewriter, loc, resultType, sum,
                                    adaptor.getGamma(), adaptor.getBeta(),
                                    epsilonAttr(rewriter, op.getEpsilon())));
    return success();
  }
};

} // namespace

void populateFusedPatterns(const TypeConverter &typeConverter,
                           RewritePatternSet &patterns) {
  patterns.add<FusedConvLowering, FusedMatMulLowering, FusedGemmLowering,
               SkipLayerNormLowering, BiasGeluLowering, BiasSoftmaxLowering,
               EmbedLayerNormLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
