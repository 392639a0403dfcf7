//===- Elementwise.cpp - Unary elementwise ops and Cast -------------------===//
//
// Owns the elementwise pattern (ElementwisePattern.h: one broadcasting
// linalg.generic per op) and the unary operators: math functions,
// activations, Sign/Not/IsNaN/IsInf, Cast and CastLike. (Identity is a
// data-movement op: DataMovement.cpp.)
// Binary, variadic and selection ops are in ElementwiseBinary.cpp.
//
// Half floats (f16, bf16) are computed in f32 and rounded once, like ONNX
// Runtime's CPU kernels.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;

namespace onnxc::cpu {

bool isElementKind(Type type, unsigned kinds) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return kinds & kFloat;
  auto intType = llvm::dyn_cast<IntegerType>(type);
  if (!intType)
    return false;
  if (intType.getWidth() == 1)
    return kinds & kBool;
  if (!llvm::is_contained({8u, 16u, 32u, 64u}, intType.getWidth()))
    return false;
  return kinds & (intType.isUnsigned() ? kUnsignedInt : kSignedInt);
}

Type onnxElementType(Value value) { return getElementTypeOrSelf(value); }

namespace {

/// Lowers one elementwise ONNX op (ElementwiseSpec) to a broadcasting
/// linalg.generic. Legal whenever the operands are ranked tensors that
/// broadcast to the ranked result and the element types are the spec's.
class ElementwiseLowering : public ConversionPattern {
public:
  ElementwiseLowering(const TypeConverter &typeConverter, MLIRContext *ctx,
                      ElementwiseSpec spec)
      : ConversionPattern(typeConverter, spec.opName, /*benefit=*/1, ctx),
        spec(std::move(spec)) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1 || operands.size() <= spec.kindsOperand)
      return rewriter.notifyMatchFailure(op, "unexpected operand count");
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op->getResult(0).getType()));
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result is not a ranked tensor");
    if (!isElementKind(onnxElementType(op->getOperand(spec.kindsOperand)),
                       spec.kinds))
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    unsigned typedOperand = spec.sameTypeFrom < operands.size()
                                ? spec.sameTypeFrom
                                : spec.kindsOperand;
    for (unsigned i = spec.sameTypeFrom; i < operands.size(); ++i)
      if (onnxElementType(op->getOperand(i)) !=
          onnxElementType(op->getOperand(typedOperand)))
        return rewriter.notifyMatchFailure(op, "operand element types differ");
    Type expected = spec.boolResult
                        ? rewriter.getI1Type()
                        : getElementTypeOrSelf(operands[typedOperand]);
    if (resultType.getElementType() != expected)
      return rewriter.notifyMatchFailure(op, "unexpected result element type");
    for (Value operand : operands) {
      auto type = llvm::dyn_cast<RankedTensorType>(operand.getType());
      if (!type || !broadcastMap(type, resultType))
        return rewriter.notifyMatchFailure(
            op, "operand is not a ranked tensor that broadcasts to the result");
    }
    std::string why;
    if (spec.check && failed(spec.check(op, why)))
      return rewriter.notifyMatchFailure(op, why);

    Type resultElement = resultType.getElementType();
    Value result = buildBroadcastGeneric(
        rewriter, op->getLoc(), resultType, operands,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> inputs;
          for (Value arg : args)
            inputs.push_back(spec.promoteHalf ? promoteHalf(b, loc, arg) : arg);
          Value value = spec.body(op, b, loc, inputs);
          if (llvm::isa<FloatType>(resultElement))
            value = demoteTo(b, loc, value, resultElement);
          return value;
        });
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  ElementwiseSpec spec;
};

/// Cast and CastLike: the result's element type (set by shape inference from
/// `to` or from the second operand) is the target. Casts between float
/// (float8 included, honouring `saturate`), integer (int4/int2 included) and
/// bool types; string types fail to match.
template <typename CastOp> struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern<CastOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CastOp op, typename CastOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    Value input = adaptor.getInput();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType ||
        inputType.getRank() != resultType.getRank())
      return rewriter.notifyMatchFailure(op, "expected ranked tensors");
    Type from = onnxElementType(op.getInput());
    Type to = onnxElementType(op.getResult());
    auto castable = [](Type type) {
      return isElementKind(type, kAnyElement) || isFloat8(type) ||
             type.isInteger(4) || type.isInteger(2);
    };
    if (!castable(from) || !castable(to))
      return rewriter.notifyMatchFailure(op, "unsupported cast types");
    auto saturateAttr = op->template getAttrOfType<IntegerAttr>("saturate");
    bool saturate = !saturateAttr || saturateAttr.getInt() != 0;
    Value result = buildBroadcastGeneric(
        rewriter, op.getLoc(), resultType, input,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return castScalar(b, loc, args[0], from, to, saturate);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

Value constLike(OpBuilder &b, Location loc, Value like, double value) {
  return scalarConst(b, loc, like.getType(), value);
}

Value cmpF(OpBuilder &b, Location loc, arith::CmpFPredicate pred, Value lhs,
           Value rhs) {
  return b.create<arith::CmpFOp>(loc, pred, lhs, rhs);
}

Value select(OpBuilder &b, Location loc, Value cond, Value t, Value f) {
  return b.create<arith::SelectOp>(loc, cond, t, f);
}

float floatAttr(Operation *op, StringRef name, float defaultValue) {
  if (auto attr = op->getAttrOfType<FloatAttr>(name))
    return attr.getValueAsDouble();
  return defaultValue;
}

int64_t intAttr(Operation *op, StringRef name, int64_t defaultValue) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return defaultValue;
}

/// log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|)).
Value softplus(OpBuilder &b, Location loc, Value x) {
  Value zero = constLike(b, loc, x, 0.0);
  Value negAbs = b.create<arith::NegFOp>(loc, b.create<math::AbsFOp>(loc, x));
  Value tail = b.create<math::Log1pOp>(loc, b.create<math::ExpOp>(loc, negAbs));
  return b.create<arith::AddFOp>(loc, b.create<arith::MaximumFOp>(loc, x, zero),
                                 tail);
}

/// max(0, min(1, alpha * x + beta)).
Value hardSigmoid(OpBuilder &b, Location loc, Value x, double alpha,
                  double beta) {
  Value scaled = b.create<arith::MulFOp>(loc, x, constLike(b, loc, x, alpha));
  Value linear =
      b.create<arith::AddFOp>(loc, scaled, constLike(b, loc, x, beta));
  Value upper =
      b.create<arith::MinimumFOp>(loc, linear, constLike(b, loc, x, 1.0));
  return b.create<arith::MaximumFOp>(loc, upper, constLike(b, loc, x, 0.0));
}

ElementwiseSpec makeSpec(StringRef name, unsigned kinds, ElementwiseBody body) {
  ElementwiseSpec spec;
  spec.opName = name;
  spec.kinds = kinds;
  spec.body = std::move(body);
  return spec;
}

template <typename MathOp> ElementwiseSpec floatUnary(StringRef name) {
  return makeSpec(name, kFloat,
                  [](Operation *, OpBuilder &b, Location loc, ValueRange a) {
                    return b.create<MathOp>(loc, a[0]).getResult();
                  });
}

/// Scalar bodies of the unary ops that take attributes or are compositions.
void addUnaryActivations(const TypeConverter &converter,
                         RewritePatternSet &patterns) {
  auto add = [&](ElementwiseSpec spec) {
    addElementwisePattern(converter, patterns, std::move(spec));
  };
  using Args = ValueRange;

  add(makeSpec("onnx.Abs", kNumeric,
               [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
                 if (llvm::isa<FloatType>(a[0].getType()))
                   return b.create<math::AbsFOp>(loc, a[0]);
                 if (onnxElementType(op->getOperand(0)).isUnsignedInteger())
                   return a[0];
                 return b.create<math::AbsIOp>(loc, a[0]);
               }));
  add(makeSpec("onnx.Neg", kSignedNumeric,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 if (llvm::isa<FloatType>(a[0].getType()))
                   return b.create<arith::NegFOp>(loc, a[0]);
                 return b.create<arith::SubIOp>(loc, constLike(b, loc, a[0], 0),
                                                a[0]);
               }));
  add(makeSpec("onnx.Reciprocal", kFloat,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 return b.create<arith::DivFOp>(
                     loc, constLike(b, loc, a[0], 1.0), a[0]);
               }));
  add(makeSpec("onnx.Sigmoid", kFloat,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 Value one = constLike(b, loc, a[0], 1.0);
                 Value e = b.create<math::ExpOp>(
                     loc, b.create<arith::NegFOp>(loc, a[0]));
                 return b.create<arith::DivFOp>(
                     loc, one, b.create<arith::AddFOp>(loc, one, e));
               }));
  add(makeSpec("onnx.Relu", kSignedNumeric,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 Value zero = constLike(b, loc, a[0], 0);
                 if (llvm::isa<FloatType>(a[0].getType()))
                   return b.create<arith::MaximumFOp>(loc, a[0], zero);
                 return b.create<arith::MaxSIOp>(loc, a[0], zero);
               }));
  add(makeSpec("onnx.LeakyRelu", kFloat,
               [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
                 Value x = a[0];
                 Value scaled = b.create<arith::MulFOp>(
                     loc, x,
                     constLike(b, loc, x, floatAttr(op, "alpha", 0.01f)));
                 return select(b, loc,
                               cmpF(b, loc, arith::CmpFPredicate::OLT, x,
                                    constLike(b, loc, x, 0.0)),
                               scaled, x);
               }));
  add(makeSpec("onnx.Elu", kFloat,
               [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
                 Value x = a[0];
                 Value e = b.create<math::ExpOp>(loc, x);
                 Value em1 =
                     b.create<arith::SubFOp>(loc, e, constLike(b, loc, x, 1.0));
                 Value neg = b.create<arith::MulFOp>(
                     loc, em1,
                     constLike(b, loc, x, floatAttr(op, "alpha", 1.0f)));
                 return select(b, loc,
                               cmpF(b, loc, arith::CmpFPredicate::OLT, x,
                                    constLike(b, loc, x, 0.0)),
                               neg, x);
               }));
  add(makeSpec(
      "onnx.Selu", kFloat,
      [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
        Value x = a[0];
        Value alpha = constLike(
            b, loc, x, floatAttr(op, "alpha", 1.67326319217681884765625f));
        Value gamma = constLike(
            b, loc, x, floatAttr(op, "gamma", 1.05070102214813232421875f));
        Value neg = b.create<arith::SubFOp>(
            loc,
            b.create<arith::MulFOp>(loc, alpha, b.create<math::ExpOp>(loc, x)),
            alpha);
        Value inner = select(b, loc,
                             cmpF(b, loc, arith::CmpFPredicate::OLE, x,
                                  constLike(b, loc, x, 0.0)),
                             neg, x);
        return b.create<arith::MulFOp>(loc, gamma, inner);
      }));
  add(makeSpec(
      "onnx.Celu", kFloat,
      [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
        Value x = a[0];
        Value alpha = constLike(b, loc, x, floatAttr(op, "alpha", 1.0f));
        Value zero = constLike(b, loc, x, 0.0);
        Value e =
            b.create<math::ExpOp>(loc, b.create<arith::DivFOp>(loc, x, alpha));
        Value em1 = b.create<arith::SubFOp>(loc, e, constLike(b, loc, x, 1.0));
        Value neg = b.create<arith::MinimumFOp>(
            loc, zero, b.create<arith::MulFOp>(loc, alpha, em1));
        return b.create<arith::AddFOp>(
            loc, b.create<arith::MaximumFOp>(loc, zero, x), neg);
      }));
  add(makeSpec("onnx.ThresholdedRelu", kFloat,
               [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
                 Value x = a[0];
                 Value alpha =
                     constLike(b, loc, x, floatAttr(op, "alpha", 1.0f));
                 Value above =
                     cmpF(b, loc, arith::CmpFPredicate::OGT, x, alpha);
                 return select(b, loc, above, x, constLike(b, loc, x, 0.0));
               }));
  add(makeSpec("onnx.HardSigmoid", kFloat,
               [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
                 return hardSigmoid(b, loc, a[0], floatAttr(op, "alpha", 0.2f),
                                    floatAttr(op, "beta", 0.5f));
               }));
  add(makeSpec("onnx.HardSwish", kFloat,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 return b.create<arith::MulFOp>(
                     loc, a[0], hardSigmoid(b, loc, a[0], 1.0 / 6.0, 0.5));
               }));
  add(makeSpec("onnx.Softplus", kFloat,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 return softplus(b, loc, a[0]);
               }));
  add(makeSpec("onnx.Softsign", kFloat,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 Value x = a[0];
                 Value abs = b.create<math::AbsFOp>(loc, x);
                 Value denom = b.create<arith::AddFOp>(
                     loc, constLike(b, loc, x, 1.0), abs);
                 return b.create<arith::DivFOp>(loc, x, denom);
               }));
  add(makeSpec("onnx.Mish", kFloat,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 Value x = a[0];
                 return b.create<arith::MulFOp>(
                     loc, x, b.create<math::TanhOp>(loc, softplus(b, loc, x)));
               }));

  ElementwiseSpec gelu = makeSpec(
      "onnx.Gelu", kFloat,
      [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
        Value x = a[0];
        Value half = constLike(b, loc, x, 0.5);
        Value one = constLike(b, loc, x, 1.0);
        Value inner;
        if (llvm::cast<onnx::GeluOp>(op).getApproximate() == "tanh") {
          // tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))
          Value x3 = b.create<arith::MulFOp>(
              loc, x, b.create<arith::MulFOp>(loc, x, x));
          Value sum = b.create<arith::AddFOp>(
              loc, x,
              b.create<arith::MulFOp>(loc, constLike(b, loc, x, 0.044715), x3));
          inner = b.create<math::TanhOp>(
              loc, b.create<arith::MulFOp>(
                       loc, constLike(b, loc, x, std::sqrt(2.0 / M_PI)), sum));
        } else {
          inner = b.create<math::ErfOp>(
              loc,
              b.create<arith::MulFOp>(loc, x, constLike(b, loc, x, M_SQRT1_2)));
        }
        Value halfX = b.create<arith::MulFOp>(loc, half, x);
        return b.create<arith::MulFOp>(
            loc, halfX, b.create<arith::AddFOp>(loc, one, inner));
      });
  gelu.check = [](Operation *op, std::string &why) {
    StringRef approximate = llvm::cast<onnx::GeluOp>(op).getApproximate();
    if (approximate == "none" || approximate == "tanh")
      return success();
    why = "unknown Gelu approximation";
    return failure();
  };
  add(std::move(gelu));

  add(makeSpec(
      "onnx.Sign", kNumeric,
      [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
        Value x = a[0];
        Value one = constLike(b, loc, x, 1),
              minusOne = constLike(b, loc, x, -1);
        Value zero = constLike(b, loc, x, 0);
        if (llvm::isa<FloatType>(x.getType())) {
          // NaN and signed zeros map to themselves.
          Value negative =
              select(b, loc, cmpF(b, loc, arith::CmpFPredicate::OLT, x, zero),
                     minusOne, x);
          return select(b, loc,
                        cmpF(b, loc, arith::CmpFPredicate::OGT, x, zero), one,
                        negative);
        }
        if (onnxElementType(op->getOperand(0)).isUnsignedInteger())
          return b.create<arith::ExtUIOp>(
              loc, x.getType(),
              b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x, zero));
        Value negative = select(
            b, loc,
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, zero),
            minusOne, zero);
        return select(
            b, loc,
            b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, x, zero),
            one, negative);
      }));
  add(makeSpec("onnx.Not", kBool,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 return b.create<arith::XOrIOp>(loc, a[0],
                                                constLike(b, loc, a[0], 1));
               }));

  ElementwiseSpec isNaN =
      makeSpec("onnx.IsNaN", kFloat,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 return cmpF(b, loc, arith::CmpFPredicate::UNO, a[0], a[0]);
               });
  isNaN.boolResult = true;
  add(std::move(isNaN));

  ElementwiseSpec isInf = makeSpec(
      "onnx.IsInf", kFloat,
      [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
        Value x = a[0];
        auto type = llvm::cast<FloatType>(x.getType());
        Value result = b.create<arith::ConstantOp>(loc, b.getBoolAttr(false));
        for (bool negative : {false, true}) {
          if (!intAttr(op, negative ? "detect_negative" : "detect_positive", 1))
            continue;
          Value inf = b.create<arith::ConstantOp>(
              loc,
              b.getFloatAttr(
                  type, APFloat::getInf(type.getFloatSemantics(), negative)));
          result = b.create<arith::OrIOp>(
              loc, result, cmpF(b, loc, arith::CmpFPredicate::OEQ, x, inf));
        }
        return result;
      });
  isInf.boolResult = true;
  add(std::move(isInf));
}

} // namespace

void addElementwisePattern(const TypeConverter &typeConverter,
                           RewritePatternSet &patterns, ElementwiseSpec spec) {
  patterns.add<ElementwiseLowering>(typeConverter, patterns.getContext(),
                                    std::move(spec));
}

void populateElementwisePatterns(const TypeConverter &typeConverter,
                                 RewritePatternSet &patterns) {
  auto add = [&](ElementwiseSpec spec) {
    addElementwisePattern(typeConverter, patterns, std::move(spec));
  };
  add(floatUnary<math::ExpOp>("onnx.Exp"));
  add(floatUnary<math::LogOp>("onnx.Log"));
  add(floatUnary<math::SqrtOp>("onnx.Sqrt"));
  add(floatUnary<math::FloorOp>("onnx.Floor"));
  add(floatUnary<math::CeilOp>("onnx.Ceil"));
  add(floatUnary<math::RoundEvenOp>("onnx.Round"));
  add(floatUnary<math::SinOp>("onnx.Sin"));
  add(floatUnary<math::CosOp>("onnx.Cos"));
  add(floatUnary<math::TanOp>("onnx.Tan"));
  add(floatUnary<math::AsinOp>("onnx.Asin"));
  add(floatUnary<math::AcosOp>("onnx.Acos"));
  add(floatUnary<math::AtanOp>("onnx.Atan"));
  add(floatUnary<math::SinhOp>("onnx.Sinh"));
  add(floatUnary<math::CoshOp>("onnx.Cosh"));
  add(floatUnary<math::TanhOp>("onnx.Tanh"));
  add(floatUnary<math::ErfOp>("onnx.Erf"));
  addUnaryActivations(typeConverter, patterns);
  patterns.add<CastLowering<onnx::CastOp>, CastLowering<onnx::CastLikeOp>>(
      typeConverter, patterns.getContext());
  populateElementwiseBinaryPatterns(typeConverter, patterns);
}

} // namespace onnxc::cpu
