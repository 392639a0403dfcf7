//===- Quantization.cpp - Quantized ops and BitCast -----------------------===//
//
// Linear (de)quantization as one linalg.generic each: the scale and zero
// point are read per tensor (a scalar or one-element vector), per axis (a
// vector along `axis`) or per block (x's rank, `axis` dim divided into blocks
// of `block_size`). Quantization to integers rounds half to even and
// saturates to the target's range; to float8 it converts (honouring
// `saturate`) and ignores the zero point, which ONNX requires to be zero.
// Values are computed in f32 (f64 when an input is f64), like the reference.
//
// QLinearMatMul is MatMulInteger followed by a requantization; ConvInteger
// and QLinearConv convolve the zero-point-corrected integers in f64 (exact)
// with the float Conv lowering. Requantization is ONNX Runtime's: multiplier
// and product in the scales' type (f32), as the runtime's int8 kernels.
// DynamicQuantizeLinear derives a uint8 scale and zero point from x's range.
// BitCast reinterprets each element's bits as a type of the same width.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

bool isFloatElement(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// Integer element types a quantized tensor may have (any signedness).
bool isQuantInt(Type type) {
  auto intType = llvm::dyn_cast<IntegerType>(type);
  return intType &&
         llvm::is_contained({2u, 4u, 8u, 16u, 32u}, intType.getWidth());
}

/// The map reading a scale (or zero point) of type `paramType` for data of
/// rank `rank`: per tensor, per axis or per block. Null when the parameter's
/// shape fits none of them.
AffineMap paramMap(MLIRContext *ctx, RankedTensorType dataType,
                   RankedTensorType paramType, int64_t axis, int64_t blockSize,
                   std::string &why) {
  int64_t rank = dataType.getRank();
  if (paramType.getRank() == 0)
    return AffineMap::get(rank, 0, {}, ctx);
  if (blockSize > 0) {
    if (paramType.getRank() != rank) {
      why = "a blocked scale must have the data's rank";
      return {};
    }
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      exprs.push_back(d == axis ? getAffineDimExpr(d, ctx).floorDiv(blockSize)
                                : getAffineDimExpr(d, ctx));
    return AffineMap::get(rank, 0, exprs, ctx);
  }
  if (paramType.getRank() != 1) {
    why = "the scale must be a scalar or a vector without block_size";
    return {};
  }
  int64_t size = paramType.getDimSize(0);
  if (size == 1 && (rank == 0 || dataType.getDimSize(axis) != 1))
    return AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx);
  if (rank == 0 || ShapedType::isDynamic(size)) {
    why = "a per-axis scale needs a static size and a ranked data input";
    return {};
  }
  return AffineMap::get(rank, 0, {getAffineDimExpr(axis, ctx)}, ctx);
}

/// The arithmetic type of a (de)quantization: f64 if any of `types` is f64,
/// else f32.
Type arithType(OpBuilder &b, ArrayRef<Type> types) {
  for (Type t : types)
    if (t.isF64())
      return b.getF64Type();
  return b.getF32Type();
}

/// Collects the operands and maps shared by both directions.
struct QuantOperands {
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  bool hasZeroPoint = false;
};

FailureOr<QuantOperands> collect(Operation *op, ConversionPatternRewriter &r,
                                 Value x, Value scale, Value zeroPoint,
                                 Value onnxZeroPoint, int64_t axis,
                                 int64_t blockSize) {
  auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
  auto scaleType = llvm::dyn_cast<RankedTensorType>(scale.getType());
  if (!xType || !scaleType)
    return r.notifyMatchFailure(op, "expected ranked tensors");
  int64_t rank = xType.getRank();
  // `axis` only matters for per-axis and blocked parameters.
  bool perTensor = scaleType.hasStaticShape() &&
                   scaleType.getNumElements() == 1 && blockSize == 0 &&
                   scaleType.getRank() <= 1;
  if (!perTensor) {
    if (axis < -rank || axis >= rank)
      return op->emitError("axis ")
             << axis << " is out of range for rank " << rank;
    axis = normalizeAxis(axis, rank);
  }
  std::string why;
  auto mapOf = [&](RankedTensorType type) {
    return paramMap(op->getContext(), xType, type, perTensor ? 0 : axis,
                    blockSize, why);
  };
  AffineMap scaleMap = mapOf(scaleType);
  if (!scaleMap)
    return op->emitError(why);
  QuantOperands result;
  result.operands = {x, scale};
  result.maps = {r.getMultiDimIdentityMap(rank), scaleMap};
  if (!isNoneValue(onnxZeroPoint)) {
    auto zpType = llvm::dyn_cast<RankedTensorType>(zeroPoint.getType());
    AffineMap zpMap = zpType ? mapOf(zpType) : AffineMap();
    if (!zpMap || !zpType.hasStaticShape() || !scaleType.hasStaticShape() ||
        zpType.getNumElements() != scaleType.getNumElements())
      return op->emitError("the zero point's shape does not match the "
                           "scale's");
    result.operands.push_back(zeroPoint);
    result.maps.push_back(zpMap);
    result.hasZeroPoint = true;
  }
  result.maps.push_back(r.getMultiDimIdentityMap(rank));
  return result;
}

/// round_half_even(quotient) + zeroPoint (null: 0) saturated to the range
/// of `yInt`, still in the float type `arith`: the integer QuantizeLinear
/// writes, before its conversion.
Value roundAndSaturate(OpBuilder &b, Location l, Value quotient,
                       Value zeroPoint, IntegerType yInt, Type arith) {
  Value rounded = b.create<math::RoundEvenOp>(l, quotient);
  if (zeroPoint)
    rounded = b.create<arith::AddFOp>(l, rounded, zeroPoint);
  unsigned w = yInt.getWidth();
  double lo = yInt.isUnsigned() ? 0 : -std::ldexp(1.0, w - 1);
  double hi =
      yInt.isUnsigned() ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  return b.create<arith::MinimumFOp>(
      l, b.create<arith::MaximumFOp>(l, rounded, scalarConst(b, l, arith, lo)),
      scalarConst(b, l, arith, hi));
}

/// QuantizeLinear(x, y_scale, y_zero_point?) -> y.
struct QuantizeLinearLowering : OpConversionPattern<onnx::QuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::QuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result is not ranked");
    Type xElement = onnxElementType(op.getX());
    Type scaleElement = onnxElementType(op.getYScale());
    Type yElement = onnxElementType(op.getY());
    bool toFloat8 = isFloat8(yElement);
    if (!isFloatElement(xElement) && !xElement.isInteger(32))
      return rewriter.notifyMatchFailure(op, "unsupported input type");
    if (!isFloatElement(scaleElement))
      return rewriter.notifyMatchFailure(op, "unsupported scale type");
    if (!toFloat8 && !isQuantInt(yElement))
      return rewriter.notifyMatchFailure(op, "unsupported output type");
    FailureOr<QuantOperands> q =
        collect(op, rewriter, adaptor.getX(), adaptor.getYScale(),
                adaptor.getYZeroPoint(), op.getYZeroPoint(), op.getAxis(),
                op.getBlockSize());
    if (failed(q))
      return failure();
    Type precision;
    if (op.getPrecision() != 0) {
      switch (op.getPrecision()) {
      case 1:
        precision = rewriter.getF32Type();
        break;
      case 10:
        precision = rewriter.getF16Type();
        break;
      case 11:
        precision = rewriter.getF64Type();
        break;
      case 16:
        precision = rewriter.getBF16Type();
        break;
      default:
        return rewriter.notifyMatchFailure(op, "unsupported precision");
      }
    }
    // numpy divides in x's type when x and the scale share it: half-float
    // quotients are rounded to that type before rounding to integers.
    Type roundTo = precision ? precision
                   : xElement == scaleElement && isHalfFloat(xElement)
                       ? xElement
                       : Type();
    Type arith = arithType(
        rewriter, {xElement, scaleElement, precision ? precision : xElement});
    bool saturate = op.getSaturate() != 0;
    auto yInt = llvm::dyn_cast<IntegerType>(yElement);
    Location loc = op.getLoc();
    Value init = emptyTensor(rewriter, loc, resultType,
                             tensorSizes(rewriter, loc, adaptor.getX()));
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, resultType, q->operands, init, q->maps,
        SmallVector<utils::IteratorType>(resultType.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = castScalar(b, l, args[0], xElement, arith);
          Value scale = castScalar(b, l, args[1], scaleElement, arith);
          Value quotient = b.create<arith::DivFOp>(l, x, scale);
          if (roundTo && roundTo != arith)
            quotient =
                castScalar(b, l, castScalar(b, l, quotient, arith, roundTo),
                           roundTo, arith);
          Value y;
          if (toFloat8) {
            y = castScalar(b, l, quotient, arith, yElement, saturate);
          } else {
            Value zeroPoint = q->hasZeroPoint
                                  ? castScalar(b, l, args[2], yElement, arith)
                                  : Value();
            Value clamped =
                roundAndSaturate(b, l, quotient, zeroPoint, yInt, arith);
            // The clamped value fits 32 bits for every width but 32.
            unsigned w = yInt.getWidth();
            Value wide = b.create<arith::FPToSIOp>(
                l, w < 32 ? b.getI32Type() : b.getI64Type(), clamped);
            y = b.create<arith::TruncIOp>(l, b.getIntegerType(w), wide);
          }
          b.create<linalg::YieldOp>(l, y);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// DequantizeLinear(x, x_scale, x_zero_point?) -> y = (x - zp) * scale.
struct DequantizeLinearLowering
    : OpConversionPattern<onnx::DequantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::DequantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result is not ranked");
    Type xElement = onnxElementType(op.getX());
    Type scaleElement = onnxElementType(op.getXScale());
    Type yElement = onnxElementType(op.getY());
    bool fromFloat8 = isFloat8(xElement);
    if (!fromFloat8 && !isQuantInt(xElement))
      return rewriter.notifyMatchFailure(op, "unsupported input type");
    if (!isFloatElement(scaleElement) || !isFloatElement(yElement))
      return rewriter.notifyMatchFailure(op, "unsupported scale type");
    FailureOr<QuantOperands> q =
        collect(op, rewriter, adaptor.getX(), adaptor.getXScale(),
                adaptor.getXZeroPoint(), op.getXZeroPoint(), op.getAxis(),
                op.getBlockSize());
    if (failed(q))
      return failure();
    Type arith = arithType(rewriter, {scaleElement, yElement});
    Location loc = op.getLoc();
    Value init = emptyTensor(rewriter, loc, resultType,
                             tensorSizes(rewriter, loc, adaptor.getX()));
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, resultType, q->operands, init, q->maps,
        SmallVector<utils::IteratorType>(resultType.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = castScalar(b, l, args[0], xElement, arith);
          // A float8 zero point must be zero: it is not read.
          if (q->hasZeroPoint && !fromFloat8)
            x = b.create<arith::SubFOp>(
                l, x, castScalar(b, l, args[2], xElement, arith));
          Value scale = castScalar(b, l, args[1], scaleElement, arith);
          Value y = b.create<arith::MulFOp>(l, x, scale);
          b.create<linalg::YieldOp>(l, castScalar(b, l, y, arith, yElement));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// DequantizeLinear(QuantizeLinear(x, s1, z1), s2, z2) on f32 with 8- or
/// 16-bit integers in between, the fake quantization a QDQ model writes
/// around every float op, as one loop in f32:
///   y = (saturate(round_half_even(x / s1) + z1) - z2) * s2.
/// The saturated value is an integer of at most 16 bits, exact in f32, so
/// this is the two ops' result without the conversions to and from the
/// integer type. The QuantizeLinear stays for its other users, if any.
struct QuantizeRoundTripLowering
    : OpConversionPattern<onnx::DequantizeLinearOp> {
  QuantizeRoundTripLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  static bool isF32(Value v) { return onnxElementType(v).isF32(); }

  LogicalResult
  matchAndRewrite(onnx::DequantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto quantize = op.getX().getDefiningOp<onnx::QuantizeLinearOp>();
    if (!quantize || quantize.getPrecision() != 0 || !isF32(quantize.getX()) ||
        !isF32(quantize.getYScale()) || !isF32(op.getXScale()) ||
        !isF32(op.getY()))
      return rewriter.notifyMatchFailure(op, "not an f32 round trip");
    auto yInt = llvm::dyn_cast<IntegerType>(onnxElementType(op.getX()));
    if (!yInt || (yInt.getWidth() != 8 && yInt.getWidth() != 16))
      return rewriter.notifyMatchFailure(op, "not 8- or 16-bit integers");
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result is not ranked");
    Value x = rewriter.getRemappedValue(quantize.getX());
    FailureOr<QuantOperands> q = collect(
        quantize, rewriter, x, rewriter.getRemappedValue(quantize.getYScale()),
        rewriter.getRemappedValue(quantize.getYZeroPoint()),
        quantize.getYZeroPoint(), quantize.getAxis(), quantize.getBlockSize());
    if (failed(q))
      return failure();
    FailureOr<QuantOperands> dq =
        collect(op, rewriter, adaptor.getX(), adaptor.getXScale(),
                adaptor.getXZeroPoint(), op.getXZeroPoint(), op.getAxis(),
                op.getBlockSize());
    if (failed(dq))
      return failure();
    // x, s1, [z1], s2, [z2]; the maps the same with the output's last.
    SmallVector<Value> operands(q->operands);
    operands.append(dq->operands.begin() + 1, dq->operands.end());
    SmallVector<AffineMap> maps(q->maps.begin(), q->maps.end() - 1);
    maps.append(dq->maps.begin() + 1, dq->maps.end());
    unsigned secondScale = q->operands.size();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, resultType, operands,
        emptyTensor(rewriter, loc, resultType, tensorSizes(rewriter, loc, x)),
        maps,
        SmallVector<utils::IteratorType>(resultType.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto zeroPoint = [&](bool given, unsigned index) {
            return given ? castScalar(b, l, args[index], yInt, f32) : Value();
          };
          Value quotient = b.create<arith::DivFOp>(l, args[0], args[1]);
          Value y = roundAndSaturate(b, l, quotient,
                                     zeroPoint(q->hasZeroPoint, 2), yInt, f32);
          if (Value z = zeroPoint(dq->hasZeroPoint, secondScale + 1))
            y = b.create<arith::SubFOp>(l, y, z);
          y = b.create<arith::MulFOp>(l, y, args[secondScale]);
          b.create<linalg::YieldOp>(l, y);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// DynamicQuantizeLinear(x: f32) -> (y: ui8, y_scale, y_zero_point): the
/// range [min(0, min x), max(0, max x)] mapped onto [0, 255].
struct DynamicQuantizeLinearLowering
    : OpConversionPattern<onnx::DynamicQuantizeLinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::DynamicQuantizeLinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    RankedTensorType yType =
        convertedResultType(*getTypeConverter(), op.getOperation(), 0);
    RankedTensorType scaleType =
        convertedResultType(*getTypeConverter(), op.getOperation(), 1);
    RankedTensorType zpType =
        convertedResultType(*getTypeConverter(), op.getOperation(), 2);
    if (!xType || !xType.getElementType().isF32() || !yType || !scaleType ||
        !zpType || scaleType.getRank() != 0 || zpType.getRank() != 0)
      return rewriter.notifyMatchFailure(op, "expected an f32 ranked input");
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    SmallVector<bool> all(xType.getRank(), true);
    Value zero = scalarConst(rewriter, loc, f32, 0.0);
    auto reduce = [&](bool largest) {
      Value reduced = buildReduction(
          rewriter, loc, x, all, zero, {},
          [&](OpBuilder &b, Location l, ValueRange in, Value acc) -> Value {
            if (largest)
              return b.create<arith::MaximumFOp>(l, in[0], acc);
            return b.create<arith::MinimumFOp>(l, in[0], acc);
          });
      return rewriter.create<tensor::ExtractOp>(loc, reduced, ValueRange{})
          .getResult();
    };
    Value minX = reduce(false);
    Value maxX = reduce(true);
    Value range = rewriter.create<arith::SubFOp>(loc, maxX, minX);
    Value empty = rewriter.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ,
                                                 maxX, minX);
    Value scale = rewriter.create<arith::DivFOp>(
        loc,
        rewriter.create<arith::SelectOp>(
            loc, empty, scalarConst(rewriter, loc, f32, 1.0), range),
        scalarConst(rewriter, loc, f32, 255.0));
    auto clampTo255 = [&](OpBuilder &b, Location l, Value v) -> Value {
      return b.create<arith::MinimumFOp>(
          l, b.create<arith::MaximumFOp>(l, v, scalarConst(b, l, f32, 0.0)),
          scalarConst(b, l, f32, 255.0));
    };
    Value zpFloat = rewriter.create<math::RoundEvenOp>(
        loc,
        clampTo255(rewriter, loc,
                   rewriter.create<arith::NegFOp>(
                       loc, rewriter.create<arith::DivFOp>(loc, minX, scale))));
    Type i8 = rewriter.getI8Type();
    auto toU8 = [&](OpBuilder &b, Location l, Value v) -> Value {
      return b.create<arith::FPToUIOp>(l, i8, v);
    };
    Value y = buildBroadcastGeneric(
        rewriter, loc, yType, x,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value q = b.create<math::RoundEvenOp>(
              l, b.create<arith::DivFOp>(l, args[0], scale));
          return toU8(b, l,
                      clampTo255(b, l, b.create<arith::AddFOp>(l, q, zpFloat)));
        });
    Value scaleTensor =
        rewriter.create<tensor::FromElementsOp>(loc, scaleType, scale);
    Value zpTensor = rewriter.create<tensor::FromElementsOp>(
        loc, zpType, toU8(rewriter, loc, zpFloat));
    rewriter.replaceOp(op, {y, scaleTensor, zpTensor});
    return success();
  }
};

/// ONNX Runtime's requantization of an integer sum `acc` (of type `arith`,
/// the scales' compute type): clamp(acc * multiplier, lo - zero, hi - zero)
/// rounded half to even, plus `zero` (of `arith`; null: 0), as the i8 of
/// `yInt`. For f32 scales this is MLAS's f32 arithmetic, which the
/// runtime's int8 kernels share (kernels/QGemm.h), so both paths give the
/// same bytes.
Value requantizeSum(OpBuilder &b, Location l, Value acc, Value multiplier,
                    Value zero, IntegerType yInt, Type arith) {
  double lo = yInt.isUnsigned() ? 0 : -128, hi = yInt.isUnsigned() ? 255 : 127;
  Value low = scalarConst(b, l, arith, lo), high = scalarConst(b, l, arith, hi);
  if (zero) {
    low = b.create<arith::SubFOp>(l, low, zero);
    high = b.create<arith::SubFOp>(l, high, zero);
  }
  Value r = b.create<arith::MulFOp>(l, acc, multiplier);
  r = b.create<arith::MinimumFOp>(l, b.create<arith::MaximumFOp>(l, r, low),
                                  high);
  r = b.create<math::RoundEvenOp>(l, r);
  if (zero)
    r = b.create<arith::AddFOp>(l, r, zero);
  Value wide = b.create<arith::FPToSIOp>(l, b.getI32Type(), r);
  return b.create<arith::TruncIOp>(l, b.getI8Type(), wide);
}

/// QLinearMatMul: MatMulInteger(a, b, a_zp, b_zp) (lowered by MatMul.cpp's
/// pattern), then y = saturate(rint(C * (a_scale * b_scale / y_scale)) +
/// y_zp). The multiplier and the product are computed in the scales' type
/// (requantizeSum). b_scale may be per column.
struct QLinearMatMulLowering : OpConversionPattern<onnx::QLinearMatMulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::QLinearMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result is not ranked");
    auto yInt = llvm::dyn_cast<IntegerType>(onnxElementType(op.getY()));
    Type scaleElement = onnxElementType(op.getAScale());
    if (!yInt || yInt.getWidth() != 8 || !isFloatElement(scaleElement) ||
        onnxElementType(op.getBScale()) != scaleElement ||
        onnxElementType(op.getYScale()) != scaleElement)
      return rewriter.notifyMatchFailure(op, "unsupported element types");
    int64_t rank = resultType.getRank();
    MLIRContext *ctx = getContext();
    auto mapOf = [&](Value v, bool perColumnAllowed) -> AffineMap {
      auto t = llvm::dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        return {};
      if (t.getRank() == 0)
        return AffineMap::get(rank, 0, {}, ctx);
      if (t.getRank() == 1 && t.getDimSize(0) == 1)
        return AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx);
      if (perColumnAllowed && rank >= 1 && t.getRank() == 1 &&
          t.getDimSize(0) == resultType.getDimSize(rank - 1))
        return AffineMap::get(rank, 0, {getAffineDimExpr(rank - 1, ctx)}, ctx);
      return {};
    };
    AffineMap aScaleMap = mapOf(adaptor.getAScale(), false);
    AffineMap bScaleMap = mapOf(adaptor.getBScale(), true);
    AffineMap yScaleMap = mapOf(adaptor.getYScale(), false);
    AffineMap yZeroMap = mapOf(adaptor.getYZeroPoint(), false);
    if (!aScaleMap || !bScaleMap || !yScaleMap || !yZeroMap ||
        isNoneValue(op.getYZeroPoint()))
      return rewriter.notifyMatchFailure(op, "unsupported scale shapes");
    Location loc = op.getLoc();
    auto productType =
        RankedTensorType::get(resultType.getShape(), rewriter.getI32Type());
    auto matMulInteger = rewriter.create<onnx::MatMulIntegerOp>(
        loc, productType, op.getA(), op.getB(), op.getAZeroPoint(),
        op.getBZeroPoint());
    // A constant B's cache slot goes to the product that reads it.
    if (Attribute slot = op->getAttr(kPackedBSlotAttr))
      matMulInteger->setAttr(kPackedBSlotAttr, slot);
    Value product = matMulInteger.getResult();
    Value init = emptyTensor(rewriter, loc, resultType,
                             tensorSizes(rewriter, loc, product));
    SmallVector<Value> inputs = {product, adaptor.getAScale(),
                                 adaptor.getBScale(), adaptor.getYScale(),
                                 adaptor.getYZeroPoint()};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank),
                                   aScaleMap,
                                   bScaleMap,
                                   yScaleMap,
                                   yZeroMap,
                                   rewriter.getMultiDimIdentityMap(rank)};
    Type f64 = rewriter.getF64Type();
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, resultType, inputs, init, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          // In the scales' own type (half floats rounded after each step).
          Type arith = computeType(scaleElement);
          auto inScaleType = [&](Value v) {
            return castScalar(b, l, castScalar(b, l, v, arith, scaleElement),
                              scaleElement, arith);
          };
          Value aScale = castScalar(b, l, args[1], scaleElement, arith);
          Value bScale = castScalar(b, l, args[2], scaleElement, arith);
          Value yScale = castScalar(b, l, args[3], scaleElement, arith);
          Value multiplier = inScaleType(b.create<arith::DivFOp>(
              l, inScaleType(b.create<arith::MulFOp>(l, aScale, bScale)),
              yScale));
          Value acc = castScalar(b, l, args[0], b.getI32Type(), arith);
          Value zero = castScalar(b, l, args[4], yInt, arith);
          b.create<linalg::YieldOp>(
              l, requantizeSum(b, l, acc, multiplier, zero, yInt, arith));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// `x - zeroPoint` as f64 (exact for 8-bit data), zeroPoint read per tensor
/// or, for a 1-D zero point of size x.shape[0], per dim-0 index.
Value widenToF64(OpBuilder &b, Location loc, Value x, Type xElement,
                 Value zeroPoint, Type zpElement) {
  auto type = llvm::cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  Type f64 = b.getF64Type();
  SmallVector<Value> inputs = {x};
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
  if (zeroPoint) {
    auto zpType = llvm::cast<RankedTensorType>(zeroPoint.getType());
    inputs.push_back(zeroPoint);
    if (zpType.getRank() == 0)
      maps.push_back(AffineMap::get(rank, 0, {}, ctx));
    else if (zpType.getDimSize(0) == 1)
      maps.push_back(
          AffineMap::get(rank, 0, getAffineConstantExpr(0, ctx), ctx));
    else
      maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(0, ctx), ctx));
  }
  return buildParallelGeneric(
      b, loc, RankedTensorType::get(type.getShape(), f64),
      tensorSizes(b, loc, x), inputs, maps,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        Value v = castScalar(nb, l, args[0], xElement, f64);
        if (args.size() > 1)
          v = nb.create<arith::SubFOp>(
              l, v, castScalar(nb, l, args[1], zpElement, f64));
        return v;
      });
}

/// Whether a zero point (or scale) of `type` is per tensor, or per channel
/// with `channels` entries.
bool isScalarOrVector(Value value, int64_t channels) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return false;
  if (type.getRank() == 0 || (type.getRank() == 1 && type.getDimSize(0) == 1))
    return true;
  return type.getRank() == 1 && type.getDimSize(0) == channels &&
         !ShapedType::isDynamic(channels);
}

/// The integer convolution of ConvInteger and QLinearConv, as an f64 tensor
/// of exact integer values: widened, zero-point-corrected operands through an
/// f64 onnx.Conv (lowered by Conv.cpp) with `op`'s attributes.
FailureOr<Value> integerConv(ConversionPatternRewriter &rewriter, Operation *op,
                             RankedTensorType resultType, Value x, Value onnxX,
                             Value xZero, Value onnxXZero, Value w, Value onnxW,
                             Value wZero, Value onnxWZero) {
  auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
  auto wType = llvm::dyn_cast<RankedTensorType>(w.getType());
  if (!xType || !wType || !isQuantInt(onnxElementType(onnxX)) ||
      !isQuantInt(onnxElementType(onnxW)) || wType.getRank() < 1)
    return rewriter.notifyMatchFailure(op, "expects integer x and w");
  bool hasXZero = !isNoneValue(onnxXZero), hasWZero = !isNoneValue(onnxWZero);
  if (hasXZero && !isScalarOrVector(xZero, 1))
    return op->emitError("x_zero_point must be a scalar");
  if (hasWZero && !isScalarOrVector(wZero, wType.getDimSize(0)))
    return op->emitError("w_zero_point must be a scalar or have one value per "
                         "output channel");
  Location loc = op->getLoc();
  Value xf = widenToF64(rewriter, loc, x, onnxElementType(onnxX),
                        hasXZero ? xZero : Value(),
                        hasXZero ? onnxElementType(onnxXZero) : Type());
  Value wf = widenToF64(rewriter, loc, w, onnxElementType(onnxW),
                        hasWZero ? wZero : Value(),
                        hasWZero ? onnxElementType(onnxWZero) : Type());
  Value none = rewriter.create<onnx::NoValueOp>(loc, rewriter.getNoneType());
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs())
    if (llvm::is_contained({"auto_pad", "dilations", "group", "kernel_shape",
                            "pads", "strides", "onnxc.target"},
                           attr.getName().strref()))
      attrs.push_back(attr);
  auto convType =
      RankedTensorType::get(resultType.getShape(), rewriter.getF64Type());
  return rewriter
      .create<onnx::ConvOp>(loc, TypeRange{convType}, ValueRange{xf, wf, none},
                            attrs)
      .getResult();
}

/// ConvInteger: the integer convolution, converted to i32.
struct ConvIntegerLowering : OpConversionPattern<onnx::ConvIntegerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::ConvIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!resultType || !resultType.getElementType().isInteger(32))
      return rewriter.notifyMatchFailure(op, "expects an i32 result");
    FailureOr<Value> conv =
        integerConv(rewriter, op, resultType, adaptor.getX(), op.getX(),
                    adaptor.getXZeroPoint(), op.getXZeroPoint(), adaptor.getW(),
                    op.getW(), adaptor.getWZeroPoint(), op.getWZeroPoint());
    if (failed(conv))
      return failure();
    Value result = buildBroadcastGeneric(
        rewriter, op.getLoc(), resultType, *conv,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return b.create<arith::FPToSIOp>(l, b.getI32Type(), args[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// QLinearConv: the integer convolution plus the i32 bias, scaled by
/// x_scale * w_scale / y_scale (w_scale per tensor or per output channel),
/// plus y_zero_point, saturated and rounded half to even.
struct QLinearConvLowering : OpConversionPattern<onnx::QLinearConvOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::QLinearConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op.getOperation());
    auto yInt = llvm::dyn_cast<IntegerType>(onnxElementType(op.getY()));
    Type scaleElement = onnxElementType(op.getXScale());
    if (!resultType || !yInt || yInt.getWidth() != 8 ||
        !isFloatElement(scaleElement) || resultType.getRank() < 3)
      return rewriter.notifyMatchFailure(op, "unsupported types");
    int64_t channels = resultType.getDimSize(1);
    if (!isScalarOrVector(adaptor.getXScale(), 1) ||
        !isScalarOrVector(adaptor.getYScale(), 1) ||
        !isScalarOrVector(adaptor.getWScale(), channels) ||
        (!isNoneValue(op.getYZeroPoint()) &&
         !isScalarOrVector(adaptor.getYZeroPoint(), 1)))
      return op.emitError("scales and y_zero_point must be scalars (w_scale "
                          "may have one value per output channel)");
    FailureOr<Value> conv =
        integerConv(rewriter, op, resultType, adaptor.getX(), op.getX(),
                    adaptor.getXZeroPoint(), op.getXZeroPoint(), adaptor.getW(),
                    op.getW(), adaptor.getWZeroPoint(), op.getWZeroPoint());
    if (failed(conv))
      return failure();
    int64_t rank = resultType.getRank();
    MLIRContext *ctx = getContext();
    auto mapOf = [&](Value v) {
      auto t = llvm::cast<RankedTensorType>(v.getType());
      if (t.getRank() == 0)
        return AffineMap::get(rank, 0, {}, ctx);
      if (t.getDimSize(0) == 1 && channels != 1)
        return AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx);
      return AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx);
    };
    SmallVector<Value> inputs = {*conv, adaptor.getXScale(),
                                 adaptor.getWScale(), adaptor.getYScale()};
    SmallVector<AffineMap> maps = {
        rewriter.getMultiDimIdentityMap(rank), mapOf(adaptor.getXScale()),
        mapOf(adaptor.getWScale()), mapOf(adaptor.getYScale())};
    bool hasZero = !isNoneValue(op.getYZeroPoint());
    bool hasBias = !isNoneValue(op.getB());
    if (hasZero) {
      inputs.push_back(adaptor.getYZeroPoint());
      maps.push_back(mapOf(adaptor.getYZeroPoint()));
    }
    if (hasBias) {
      auto biasType =
          llvm::dyn_cast<RankedTensorType>(adaptor.getB().getType());
      if (!biasType || biasType.getRank() != 1 ||
          !biasType.getElementType().isInteger(32))
        return op.emitError("B must be a 1-D int32 tensor");
      inputs.push_back(adaptor.getB());
      maps.push_back(AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx));
    }
    Type f64 = rewriter.getF64Type();
    Location loc = op.getLoc();
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, tensorSizes(rewriter, loc, *conv), inputs,
        maps, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Type arith = computeType(scaleElement);
          auto inScaleType = [&](Value v) {
            return castScalar(b, l, castScalar(b, l, v, arith, scaleElement),
                              scaleElement, arith);
          };
          Value xScale = castScalar(b, l, args[1], scaleElement, arith);
          Value wScale = castScalar(b, l, args[2], scaleElement, arith);
          Value yScale = castScalar(b, l, args[3], scaleElement, arith);
          Value multiplier = inScaleType(b.create<arith::DivFOp>(
              l, inScaleType(b.create<arith::MulFOp>(l, xScale, wScale)),
              yScale));
          // The sum (exact in f64) plus the bias, then rounded once to
          // the scales' type, as ONNX Runtime converts its int32 sum.
          Value acc = args[0];
          unsigned next = 4;
          Value zero;
          if (hasZero)
            zero = castScalar(b, l, args[next++], yInt, arith);
          if (hasBias)
            acc = b.create<arith::AddFOp>(
                l, acc, castScalar(b, l, args[next++], b.getI32Type(), f64));
          acc = castScalar(b, l, acc, f64, arith);
          return requantizeSum(b, l, acc, multiplier, zero, yInt, arith);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// BitCast: each element's bits read as the result's element type, which has
/// the same width (after type conversion, float8 and unsigned types are
/// already signless integers of their width). A bool is the byte 0 or 1.
struct BitCastLowering : OpConversionPattern<onnx::BitCastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::BitCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op.getOperation());
    auto inputType =
        llvm::dyn_cast<RankedTensorType>(adaptor.getInput().getType());
    if (!resultType || !inputType)
      return rewriter.notifyMatchFailure(op, "expected ranked tensors");
    Type from = inputType.getElementType();
    Type to = resultType.getElementType();
    auto bits = [](Type t) {
      return t.isInteger(1) ? 8u : t.getIntOrFloatBitWidth();
    };
    if (!from.isIntOrFloat() || !to.isIntOrFloat() || bits(from) != bits(to))
      return rewriter.notifyMatchFailure(op, "element widths differ");
    if (from == to) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Value result = buildBroadcastGeneric(
        rewriter, op.getLoc(), resultType, adaptor.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          if (from.isInteger(1))
            return b.create<arith::ExtUIOp>(loc, to, args[0]);
          if (to.isInteger(1))
            return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                           args[0],
                                           scalarConst(b, loc, from, 0));
          return b.create<arith::BitcastOp>(loc, to, args[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateQuantizationPatterns(const TypeConverter &typeConverter,
                                  RewritePatternSet &patterns) {
  patterns.add<QuantizeLinearLowering, DequantizeLinearLowering,
               QuantizeRoundTripLowering, DynamicQuantizeLinearLowering,
               QLinearMatMulLowering, ConvIntegerLowering, QLinearConvLowering,
               BitCastLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
