//===- ElementwiseBinary.cpp - Binary, variadic and selection ops ---------===//
//
// Multidirectionally broadcasting binary and variadic ONNX ops (arithmetic,
// Pow, Mod, Min/Max/Sum/Mean, logic, BitShift, comparisons), PRelu, Where and
// Clip. Each becomes one linalg.generic through the elementwise pattern of
// Elementwise.cpp; Clip reads its optional scalar bounds outside the loop.
//
// Integer division and remainder never trap: a zero divisor gives the
// dividend (Div) or 0 (Mod), and INT_MIN / -1 wraps.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

using Args = ValueRange;

bool isFloat(Value v) { return llvm::isa<FloatType>(v.getType()); }

bool isUnsignedOperand(Operation *op, unsigned i = 0) {
  return onnxElementType(op->getOperand(i)).isUnsignedInteger();
}

Value constLike(OpBuilder &b, Location loc, Value like, double value) {
  return scalarConst(b, loc, like.getType(), value);
}

Value cmpI(OpBuilder &b, Location loc, arith::CmpIPredicate pred, Value lhs,
           Value rhs) {
  return b.create<arith::CmpIOp>(loc, pred, lhs, rhs);
}

Value cmpF(OpBuilder &b, Location loc, arith::CmpFPredicate pred, Value lhs,
           Value rhs) {
  return b.create<arith::CmpFOp>(loc, pred, lhs, rhs);
}

Value select(OpBuilder &b, Location loc, Value cond, Value t, Value f) {
  return b.create<arith::SelectOp>(loc, cond, t, f);
}

/// One of three ops by operand kind: float, signed integer, unsigned integer.
template <typename FloatOp, typename SignedOp, typename UnsignedOp>
Value byKind(OpBuilder &b, Location loc, bool isUnsigned, Value lhs,
             Value rhs) {
  if (isFloat(lhs))
    return b.create<FloatOp>(loc, lhs, rhs);
  if (isUnsigned)
    return b.create<UnsignedOp>(loc, lhs, rhs);
  return b.create<SignedOp>(loc, lhs, rhs);
}

/// An integer divisor that cannot trap: 1 where `y` is 0 (or, for signed
/// division, -1, whose quotient the caller fixes up).
Value safeDivisor(OpBuilder &b, Location loc, Value y, bool isUnsigned) {
  Value one = constLike(b, loc, y, 1);
  Value trap =
      cmpI(b, loc, arith::CmpIPredicate::eq, y, constLike(b, loc, y, 0));
  if (!isUnsigned)
    trap = b.create<arith::OrIOp>(
        loc, trap,
        cmpI(b, loc, arith::CmpIPredicate::eq, y, constLike(b, loc, y, -1)));
  return select(b, loc, trap, one, y);
}

/// Integer division truncating toward zero (C semantics, as ONNX specifies).
Value intDiv(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned) {
  Value divisor = safeDivisor(b, loc, y, isUnsigned);
  if (isUnsigned)
    return b.create<arith::DivUIOp>(loc, x, divisor);
  Value quotient = b.create<arith::DivSIOp>(loc, x, divisor);
  Value negated = b.create<arith::SubIOp>(loc, constLike(b, loc, x, 0), x);
  return select(
      b, loc,
      cmpI(b, loc, arith::CmpIPredicate::eq, y, constLike(b, loc, y, -1)),
      negated, quotient);
}

/// ONNX Mod: fmod=1 is C's fmod/% (sign of the dividend); fmod=0 is Python's
/// % (sign of the divisor).
Value modulo(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned,
             bool cStyle) {
  if (isFloat(x)) {
    Value r = b.create<arith::RemFOp>(loc, x, y);
    if (cStyle)
      return r;
    Value zero = constLike(b, loc, x, 0.0);
    Value rNegative = cmpF(b, loc, arith::CmpFPredicate::OLT, r, zero);
    Value yNegative = cmpF(b, loc, arith::CmpFPredicate::OLT, y, zero);
    Value signsDiffer = b.create<arith::XOrIOp>(loc, rNegative, yNegative);
    Value adjust = b.create<arith::AndIOp>(
        loc, cmpF(b, loc, arith::CmpFPredicate::UNE, r, zero), signsDiffer);
    r = select(b, loc, adjust, b.create<arith::AddFOp>(loc, r, y), r);
    // A zero result takes the divisor's sign.
    Value isZero = cmpF(b, loc, arith::CmpFPredicate::OEQ, r, zero);
    return select(b, loc, isZero, b.create<math::CopySignOp>(loc, zero, y), r);
  }
  Value divisor = safeDivisor(b, loc, y, isUnsigned);
  if (isUnsigned)
    return b.create<arith::RemUIOp>(loc, x, divisor);
  Value r = b.create<arith::RemSIOp>(loc, x, divisor);
  if (cStyle)
    return r;
  Value zero = constLike(b, loc, x, 0);
  Value rNegative = cmpI(b, loc, arith::CmpIPredicate::slt, r, zero);
  Value yNegative = cmpI(b, loc, arith::CmpIPredicate::slt, y, zero);
  Value signsDiffer = b.create<arith::XOrIOp>(loc, rNegative, yNegative);
  Value adjust = b.create<arith::AndIOp>(
      loc, cmpI(b, loc, arith::CmpIPredicate::ne, r, zero), signsDiffer);
  return select(b, loc, adjust, b.create<arith::AddIOp>(loc, r, y), r);
}

/// The value of a splat float or integer constant (onnx.Constant or
/// arith.constant, possibly behind a conversion cast).
std::optional<double> splatConstant(Value value) {
  while (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>())
    value = cast.getOperand(0);
  Attribute attr;
  if (auto constant = value.getDefiningOp<onnx::ConstantOp>()) {
    if (std::optional<ElementsAttr> v = constant.getValue())
      attr = *v;
  } else {
    matchPattern(value, m_Constant(&attr));
  }
  auto dense = llvm::dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return std::nullopt;
  if (llvm::isa<FloatType>(dense.getElementType()))
    return dense.getSplatValue<APFloat>().convertToDouble();
  if (dense.getElementType().isSignlessInteger(64) ||
      dense.getElementType().isSignlessInteger(32))
    return static_cast<double>(dense.getSplatValue<APInt>().getSExtValue());
  return std::nullopt;
}

/// Pow: float bases use powf (x * x for a constant exponent 2); integer
/// bases compute in f64 and truncate, as ONNX Runtime does.
Value power(Operation *op, OpBuilder &b, Location loc, Args a) {
  Type baseType = onnxElementType(op->getOperand(0));
  Type exponentType = onnxElementType(op->getOperand(1));
  Value x = a[0], y = a[1];
  if (isFloat(x) && splatConstant(op->getOperand(1)) == 2.0)
    return b.create<arith::MulFOp>(loc, x, x);
  Type compute = isFloat(x) ? x.getType() : b.getF64Type();
  Type yType = isFloat(y) ? y.getType() : exponentType;
  Value base = isFloat(x) ? x : castScalar(b, loc, x, baseType, compute);
  Value exponent = castScalar(b, loc, y, yType, compute);
  Value result = b.create<math::PowFOp>(loc, base, exponent);
  if (isFloat(x))
    return result;
  return castScalar(b, loc, result, compute, baseType);
}

/// Folds the variadic operands of Min/Max/Sum/Mean left to right.
template <typename FloatOp, typename SignedOp, typename UnsignedOp>
Value foldOperands(Operation *op, OpBuilder &b, Location loc, Args a) {
  bool isUnsigned = isUnsignedOperand(op);
  Value acc = a[0];
  for (Value v : a.drop_front())
    acc = byKind<FloatOp, SignedOp, UnsignedOp>(b, loc, isUnsigned, acc, v);
  return acc;
}

ElementwiseSpec makeSpec(StringRef name, unsigned kinds, ElementwiseBody body) {
  ElementwiseSpec spec;
  spec.opName = name;
  spec.kinds = kinds;
  spec.body = std::move(body);
  return spec;
}

template <typename FloatOp, typename SignedOp, typename UnsignedOp>
ElementwiseSpec arithmetic(StringRef name) {
  return makeSpec(name, kNumeric,
                  [](Operation *op, OpBuilder &b, Location loc, Args a) {
                    return byKind<FloatOp, SignedOp, UnsignedOp>(
                        b, loc, isUnsignedOperand(op), a[0], a[1]);
                  });
}

ElementwiseSpec comparison(StringRef name, unsigned kinds,
                           arith::CmpFPredicate floatPred,
                           arith::CmpIPredicate signedPred,
                           arith::CmpIPredicate unsignedPred) {
  ElementwiseSpec spec = makeSpec(
      name, kinds,
      [=](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
        if (isFloat(a[0]))
          return cmpF(b, loc, floatPred, a[0], a[1]);
        bool isUnsigned = isUnsignedOperand(op) || a[0].getType().isInteger(1);
        return cmpI(b, loc, isUnsigned ? unsignedPred : signedPred, a[0], a[1]);
      });
  spec.boolResult = true;
  return spec;
}

/// Clip: `min` and `max` are optional scalar (one-element) tensors, read once
/// outside the loop; the element is max(min(x, max), ...) in numpy's order:
/// min(max(x, lo), hi), NaN propagating for floats.
struct ClipLowering : OpConversionPattern<onnx::ClipOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::ClipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    auto inputType =
        llvm::dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    Type element = onnxElementType(op.getInput());
    if (!resultType || !inputType || !isElementKind(element, kNumeric) ||
        !broadcastMap(inputType, resultType) ||
        resultType.getElementType() != inputType.getElementType())
      return rewriter.notifyMatchFailure(op, "unsupported Clip operands");
    auto readBound = [&](Value original, Value converted,
                         Value &bound) -> LogicalResult {
      if (isNoneValue(original))
        return success();
      auto type = llvm::dyn_cast<RankedTensorType>(converted.getType());
      if (!type || onnxElementType(original) != element ||
          llvm::any_of(type.getShape(), [](int64_t d) { return d > 1; }))
        return failure();
      SmallVector<Value> zeros(type.getRank(), indexConst(rewriter, loc, 0));
      bound = rewriter.create<tensor::ExtractOp>(loc, converted, zeros);
      return success();
    };
    Value lo, hi;
    if (failed(readBound(op.getMin(), adaptor.getMin(), lo)) ||
        failed(readBound(op.getMax(), adaptor.getMax(), hi)))
      return rewriter.notifyMatchFailure(op, "min/max must be scalars");
    bool isUnsigned = element.isUnsignedInteger();
    Type resultElement = resultType.getElementType();
    Value result = buildBroadcastGeneric(
        rewriter, loc, resultType, adaptor.getInput(),
        [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value x = promoteHalf(b, nloc, args[0]);
          if (lo)
            x = byKind<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>(
                b, nloc, isUnsigned, x, promoteHalf(b, nloc, lo));
          if (hi)
            x = byKind<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>(
                b, nloc, isUnsigned, x, promoteHalf(b, nloc, hi));
          return isFloat(x) ? demoteTo(b, nloc, x, resultElement) : x;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateElementwiseBinaryPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns) {
  auto add = [&](ElementwiseSpec spec) {
    addElementwisePattern(converter, patterns, std::move(spec));
  };
  add(arithmetic<arith::AddFOp, arith::AddIOp, arith::AddIOp>("onnx.Add"));
  add(arithmetic<arith::SubFOp, arith::SubIOp, arith::SubIOp>("onnx.Sub"));
  add(arithmetic<arith::MulFOp, arith::MulIOp, arith::MulIOp>("onnx.Mul"));
  add(makeSpec("onnx.Div", kNumeric,
               [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
                 if (isFloat(a[0]))
                   return b.create<arith::DivFOp>(loc, a[0], a[1]);
                 return intDiv(b, loc, a[0], a[1], isUnsignedOperand(op));
               }));

  ElementwiseSpec pow = makeSpec("onnx.Pow", kSignedNumeric, power);
  pow.sameTypeFrom = ~0u;
  pow.check = [](Operation *op, std::string &why) {
    if (isElementKind(onnxElementType(op->getOperand(1)), kNumeric))
      return success();
    why = "unsupported exponent type";
    return failure();
  };
  add(std::move(pow));

  add(makeSpec("onnx.Mod", kNumeric,
               [](Operation *op, OpBuilder &b, Location loc, Args a) {
                 auto fmod = op->getAttrOfType<IntegerAttr>("fmod");
                 return modulo(b, loc, a[0], a[1], isUnsignedOperand(op),
                               fmod && fmod.getInt() != 0);
               }));

  add(makeSpec(
      "onnx.Max", kNumeric,
      foldOperands<arith::MaximumFOp, arith::MaxSIOp, arith::MaxUIOp>));
  add(makeSpec(
      "onnx.Min", kNumeric,
      foldOperands<arith::MinimumFOp, arith::MinSIOp, arith::MinUIOp>));
  add(makeSpec("onnx.Sum", kNumeric,
               foldOperands<arith::AddFOp, arith::AddIOp, arith::AddIOp>));
  add(makeSpec("onnx.Mean", kFloat,
               [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
                 Value sum =
                     foldOperands<arith::AddFOp, arith::AddIOp, arith::AddIOp>(
                         op, b, loc, a);
                 return b.create<arith::DivFOp>(
                     loc, sum, constLike(b, loc, sum, a.size()));
               }));

  add(makeSpec("onnx.And", kBool,
               [](Operation *, OpBuilder &b, Location loc, Args a) {
                 return b.create<arith::AndIOp>(loc, a[0], a[1]).getResult();
               }));
  add(makeSpec("onnx.Or", kBool,
               [](Operation *, OpBuilder &b, Location loc, Args a) {
                 return b.create<arith::OrIOp>(loc, a[0], a[1]).getResult();
               }));
  add(makeSpec("onnx.Xor", kBool,
               [](Operation *, OpBuilder &b, Location loc, Args a) {
                 return b.create<arith::XOrIOp>(loc, a[0], a[1]).getResult();
               }));

  // Shift amounts outside [0, bits) shift everything out: 0, or -1 for an
  // arithmetic right shift of a negative value.
  ElementwiseSpec shift = makeSpec(
      "onnx.BitShift", kInt,
      [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
        Value x = a[0], y = a[1];
        unsigned bits = x.getType().getIntOrFloatBitWidth();
        Value outOfRange = cmpI(b, loc, arith::CmpIPredicate::uge, y,
                                constLike(b, loc, y, bits));
        if (llvm::cast<onnx::BitShiftOp>(op).getDirection() == "LEFT") {
          Value shifted = b.create<arith::ShLIOp>(loc, x, y);
          return select(b, loc, outOfRange, constLike(b, loc, x, 0), shifted);
        }
        if (isUnsignedOperand(op)) {
          Value shifted = b.create<arith::ShRUIOp>(loc, x, y);
          return select(b, loc, outOfRange, constLike(b, loc, x, 0), shifted);
        }
        Value amount =
            select(b, loc, outOfRange, constLike(b, loc, y, bits - 1), y);
        return b.create<arith::ShRSIOp>(loc, x, amount);
      });
  shift.check = [](Operation *op, std::string &why) {
    StringRef direction = llvm::cast<onnx::BitShiftOp>(op).getDirection();
    if (direction == "LEFT" || direction == "RIGHT")
      return success();
    why = "BitShift direction must be LEFT or RIGHT";
    return failure();
  };
  add(std::move(shift));

  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  add(comparison("onnx.Equal", kAnyElement, FP::OEQ, IP::eq, IP::eq));
  add(comparison("onnx.Less", kNumeric, FP::OLT, IP::slt, IP::ult));
  add(comparison("onnx.LessOrEqual", kNumeric, FP::OLE, IP::sle, IP::ule));
  add(comparison("onnx.Greater", kNumeric, FP::OGT, IP::sgt, IP::ugt));
  add(comparison("onnx.GreaterOrEqual", kNumeric, FP::OGE, IP::sge, IP::uge));

  add(makeSpec("onnx.PRelu", kNumeric,
               [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
                 Value x = a[0], slope = a[1];
                 if (isFloat(x)) {
                   Value negative =
                       cmpF(b, loc, FP::OLT, x, constLike(b, loc, x, 0.0));
                   return select(b, loc, negative,
                                 b.create<arith::MulFOp>(loc, x, slope), x);
                 }
                 if (isUnsignedOperand(op))
                   return x;
                 Value negative =
                     cmpI(b, loc, IP::slt, x, constLike(b, loc, x, 0));
                 return select(b, loc, negative,
                               b.create<arith::MulIOp>(loc, x, slope), x);
               }));

  ElementwiseSpec where = makeSpec(
      "onnx.Where", kBool, [](Operation *, OpBuilder &b, Location loc, Args a) {
        return select(b, loc, a[0], a[1], a[2]);
      });
  where.sameTypeFrom = 1;
  where.promoteHalf = false;
  add(std::move(where));

  patterns.add<ClipLowering>(converter, patterns.getContext());
}

} // namespace onnxc::cpu
