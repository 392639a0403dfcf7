//===- Reduction.cpp - ReduceX, ArgMax/ArgMin, global pooling -------------===//
//
// The ONNX reductions: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/
// SumSquare (constant or absent `axes`, keepdims, noop_with_empty_axes),
// ArgMax/ArgMin and GlobalAveragePool/GlobalMaxPool. Each becomes a
// linalg.generic reducing into a filled accumulator, followed (when the
// reduction needs it) by an elementwise generic for the final step (divide
// by the count, sqrt, log, rounding to a half float) and a tensor.expand_shape
// for keepdims.
//
// Half floats accumulate in f32.
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
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

enum class ReduceKind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  LogSum,
  LogSumExp,
  SumSquare
};

bool isFloat(Value v) { return llvm::isa<FloatType>(v.getType()); }

/// The element types each reduction takes.
unsigned reduceKinds(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::Max:
  case ReduceKind::Min:
    return kAnyElement;
  case ReduceKind::LogSum:
  case ReduceKind::LogSumExp:
    return kFloat;
  default:
    return kNumeric;
  }
}

/// The accumulator's initial value.
Value reduceInit(OpBuilder &b, Location loc, ReduceKind kind, Type accType,
                 bool isUnsigned) {
  switch (kind) {
  case ReduceKind::Max:
    return extremeScalar(b, loc, accType, /*largest=*/false, isUnsigned);
  case ReduceKind::Min:
    return extremeScalar(b, loc, accType, /*largest=*/true, isUnsigned);
  case ReduceKind::Prod:
    return scalarConst(b, loc, accType, 1);
  default:
    return scalarConst(b, loc, accType, 0);
  }
}

/// max/min of two values of any element kind (bool: or/and).
Value maxOrMin(OpBuilder &b, Location loc, Value lhs, Value rhs, bool isMax,
               bool isUnsigned) {
  if (isFloat(lhs))
    return isMax ? b.create<arith::MaximumFOp>(loc, lhs, rhs).getResult()
                 : b.create<arith::MinimumFOp>(loc, lhs, rhs).getResult();
  if (lhs.getType().isInteger(1))
    return isMax ? b.create<arith::OrIOp>(loc, lhs, rhs).getResult()
                 : b.create<arith::AndIOp>(loc, lhs, rhs).getResult();
  if (isUnsigned)
    return isMax ? b.create<arith::MaxUIOp>(loc, lhs, rhs).getResult()
                 : b.create<arith::MinUIOp>(loc, lhs, rhs).getResult();
  return isMax ? b.create<arith::MaxSIOp>(loc, lhs, rhs).getResult()
               : b.create<arith::MinSIOp>(loc, lhs, rhs).getResult();
}

Value add(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isFloat(lhs))
    return b.create<arith::AddFOp>(loc, lhs, rhs);
  return b.create<arith::AddIOp>(loc, lhs, rhs);
}

Value mul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isFloat(lhs))
    return b.create<arith::MulFOp>(loc, lhs, rhs);
  return b.create<arith::MulIOp>(loc, lhs, rhs);
}

/// For ReduceLogSumExp: the shift subtracted before exp. The max of the
/// elements with +inf treated as -inf (as the reference does), and 0 when
/// that is -inf, so all -inf inputs give log(0) = -inf rather than NaN.
Value logSumExpShift(OpBuilder &b, Location loc, Value data,
                     ArrayRef<bool> reducedDims, Type accType) {
  Value negInf = extremeScalar(b, loc, accType, false, false);
  Value max = buildReduction(
      b, loc, data, reducedDims, negInf, {},
      [&](OpBuilder &nb, Location nloc, ValueRange in, Value acc) -> Value {
        Value x = promoteHalf(nb, nloc, in[0]);
        Value posInf = extremeScalar(nb, nloc, accType, true, false);
        Value isPosInf = nb.create<arith::CmpFOp>(
            nloc, arith::CmpFPredicate::OEQ, x, posInf);
        Value lowInf = extremeScalar(nb, nloc, accType, false, false);
        x = nb.create<arith::SelectOp>(nloc, isPosInf, lowInf, x);
        return nb.create<arith::MaximumFOp>(nloc, acc, x);
      });
  auto maxType = llvm::cast<RankedTensorType>(max.getType());
  SmallVector<OpFoldResult> sizes = tensorSizes(b, loc, max);
  AffineMap identity = b.getMultiDimIdentityMap(maxType.getRank());
  return buildParallelGeneric(
      b, loc, maxType, sizes, max, identity,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Value m = args[0];
        Value isNegInf = nb.create<arith::CmpFOp>(
            nloc, arith::CmpFPredicate::OEQ, m,
            extremeScalar(nb, nloc, accType, false, false));
        return nb.create<arith::SelectOp>(
            nloc, isNegInf, scalarConst(nb, nloc, accType, 0.0), m);
      });
}

/// Reduces `data` over `reducedDims` as `kind` says and returns a tensor of
/// `resultType` (keepdims applied). The caller has checked element types.
Value lowerReduction(OpBuilder &b, Location loc, Value data, Type dataElement,
                     ArrayRef<bool> reducedDims, bool keepDims, ReduceKind kind,
                     RankedTensorType resultType) {
  Type element = getElementTypeOrSelf(data);
  Type accType = computeType(element);
  bool isUnsigned = dataElement.isUnsignedInteger();

  SmallVector<Value> extra;
  if (kind == ReduceKind::LogSumExp)
    extra.push_back(logSumExpShift(b, loc, data, reducedDims, accType));

  Value init = reduceInit(b, loc, kind, accType, isUnsigned);
  Value reduced = buildReduction(
      b, loc, data, reducedDims, init, extra,
      [&](OpBuilder &nb, Location nloc, ValueRange in, Value acc) -> Value {
        Value x = promoteHalf(nb, nloc, in[0]);
        switch (kind) {
        case ReduceKind::Sum:
        case ReduceKind::Mean:
        case ReduceKind::LogSum:
          return add(nb, nloc, acc, x);
        case ReduceKind::Max:
        case ReduceKind::Min:
          return maxOrMin(nb, nloc, acc, x, kind == ReduceKind::Max,
                          isUnsigned);
        case ReduceKind::Prod:
          return mul(nb, nloc, acc, x);
        case ReduceKind::L1: {
          Value abs = x;
          if (isFloat(x))
            abs = nb.create<math::AbsFOp>(nloc, x);
          else if (!isUnsigned)
            abs = nb.create<math::AbsIOp>(nloc, x);
          return add(nb, nloc, acc, abs);
        }
        case ReduceKind::L2:
        case ReduceKind::SumSquare:
          return add(nb, nloc, acc, mul(nb, nloc, x, x));
        case ReduceKind::LogSumExp: {
          Value shifted = nb.create<arith::SubFOp>(nloc, x, in[1]);
          return add(nb, nloc, acc, nb.create<math::ExpOp>(nloc, shifted));
        }
        }
        llvm_unreachable("unknown reduction");
      });

  // The final elementwise step, if any.
  bool needsFinish = accType != element || kind == ReduceKind::Mean ||
                     kind == ReduceKind::L2 || kind == ReduceKind::LogSum ||
                     kind == ReduceKind::LogSumExp;
  if (needsFinish) {
    auto reducedType = llvm::cast<RankedTensorType>(reduced.getType());
    // The element count of a Mean, in the accumulator's type (at least 1
    // for integers, so an empty reduction does not trap).
    Value count;
    if (kind == ReduceKind::Mean) {
      Value n = reducedElementCount(b, loc, data, reducedDims);
      if (llvm::isa<FloatType>(accType)) {
        count = b.create<arith::UIToFPOp>(
            loc, accType,
            b.create<arith::IndexCastUIOp>(loc, b.getI64Type(), n));
      } else {
        n = b.create<arith::MaxUIOp>(loc, n, indexConst(b, loc, 1));
        count = b.create<arith::IndexCastUIOp>(loc, accType, n);
      }
    }
    SmallVector<Value> operands{reduced};
    operands.append(extra);
    SmallVector<AffineMap> maps(
        operands.size(), b.getMultiDimIdentityMap(reducedType.getRank()));
    reduced = buildParallelGeneric(
        b, loc, reducedType.clone(element), tensorSizes(b, loc, reduced),
        operands, maps,
        [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          Value v = args[0];
          switch (kind) {
          case ReduceKind::Mean:
            if (isFloat(v))
              v = nb.create<arith::DivFOp>(nloc, v, count);
            else if (isUnsigned)
              v = nb.create<arith::DivUIOp>(nloc, v, count);
            else
              v = nb.create<arith::DivSIOp>(nloc, v, count);
            break;
          case ReduceKind::L2:
            if (isFloat(v)) {
              v = nb.create<math::SqrtOp>(nloc, v);
            } else {
              Value wide =
                  castScalar(nb, nloc, v, dataElement, nb.getF64Type());
              v = castScalar(nb, nloc, nb.create<math::SqrtOp>(nloc, wide),
                             nb.getF64Type(), dataElement);
            }
            break;
          case ReduceKind::LogSum:
            v = nb.create<math::LogOp>(nloc, v);
            break;
          case ReduceKind::LogSumExp:
            v = nb.create<arith::AddFOp>(nloc, nb.create<math::LogOp>(nloc, v),
                                         args[1]);
            break;
          default:
            break;
          }
          return isFloat(v) ? demoteTo(nb, nloc, v, element) : v;
        });
  }
  if (keepDims)
    reduced = keepReducedDims(b, loc, reduced, data, reducedDims);
  return castIfNeeded(b, loc, reduced, resultType);
}

/// Whether a reduced tensor of `data` (keepdims or not) can have type
/// `resultType`.
bool reducedTypeMatches(RankedTensorType dataType, ArrayRef<bool> reducedDims,
                        bool keepDims, RankedTensorType resultType) {
  SmallVector<int64_t> shape;
  for (auto [d, reduced] : llvm::enumerate(reducedDims)) {
    if (!reduced)
      shape.push_back(dataType.getDimSize(d));
    else if (keepDims)
      shape.push_back(1);
  }
  auto expected = RankedTensorType::get(shape, dataType.getElementType());
  return resultType.getElementType() == dataType.getElementType() &&
         succeeded(verifyCompatibleShape(expected, resultType));
}

/// ReduceSum, ReduceMean, ... with an `axes` input that is absent or a
/// compile-time constant.
template <typename OpTy, ReduceKind kind>
struct ReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    Value data = adaptor.getData();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    if (!resultType || !dataType)
      return rewriter.notifyMatchFailure(op, "expected ranked tensors");
    Type dataElement = onnxElementType(op.getData());
    if (!isElementKind(dataElement, reduceKinds(kind)))
      return rewriter.notifyMatchFailure(op, "unsupported element type");

    int64_t rank = dataType.getRank();
    SmallVector<int64_t> axes;
    if (!isNoneValue(op.getAxes())) {
      std::optional<SmallVector<int64_t>> constant =
          getConstantInts(op.getAxes());
      if (!constant)
        return rewriter.notifyMatchFailure(op, "axes is not a constant");
      axes = *constant;
    }
    SmallVector<bool> reducedDims(rank, axes.empty() &&
                                            op.getNoopWithEmptyAxes() == 0);
    for (int64_t axis : axes) {
      if (axis < -rank || axis >= rank)
        return op.emitError()
               << "axis " << axis << " is out of range for a rank-" << rank
               << " input";
      reducedDims[normalizeAxis(axis, rank)] = true;
    }
    bool keepDims = op.getKeepdims() != 0;
    if (!reducedTypeMatches(dataType, reducedDims, keepDims, resultType))
      return rewriter.notifyMatchFailure(op, "unexpected result type");

    rewriter.replaceOp(op,
                       lowerReduction(rewriter, op.getLoc(), data, dataElement,
                                      reducedDims, keepDims, kind, resultType));
    return success();
  }
};

/// GlobalAveragePool and GlobalMaxPool: a keepdims reduction over every
/// spatial dim (2 and up) of an (N, C, D1, ...) float tensor.
template <typename OpTy, ReduceKind kind>
struct GlobalPoolLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    Value data = adaptor.getX();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    if (!resultType || !dataType || dataType.getRank() < 2 ||
        !isElementKind(onnxElementType(op.getX()), kFloat))
      return rewriter.notifyMatchFailure(op, "expected a float (N, C, ...) "
                                             "tensor");
    SmallVector<bool> reducedDims(dataType.getRank(), true);
    reducedDims[0] = reducedDims[1] = false;
    if (!reducedTypeMatches(dataType, reducedDims, true, resultType))
      return rewriter.notifyMatchFailure(op, "unexpected result type");
    rewriter.replaceOp(op, lowerReduction(rewriter, op.getLoc(), data,
                                          onnxElementType(op.getX()),
                                          reducedDims, true, kind, resultType));
    return success();
  }
};

/// ArgMax and ArgMin: one generic carrying (best value, its index) along
/// `axis`. Ties keep the first index, or the last with select_last_index;
/// NaN counts as larger than (ArgMax) or smaller than (ArgMin) everything,
/// so the first NaN wins, as in numpy.
template <typename OpTy, bool isMax>
struct ArgReduceLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        this->getTypeConverter()->convertType(op.getType()));
    Value data = adaptor.getData();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    Type dataElement = onnxElementType(op.getData());
    if (!resultType || !dataType ||
        !resultType.getElementType().isInteger(64) ||
        !isElementKind(dataElement, kNumeric))
      return rewriter.notifyMatchFailure(op, "unsupported ArgMax/ArgMin types");
    int64_t rank = dataType.getRank();
    int64_t axis = op.getAxis();
    if (rank == 0 || axis < -rank || axis >= rank)
      return op.emitError() << "axis " << axis << " is out of range for a rank-"
                            << rank << " input";
    axis = normalizeAxis(axis, rank);
    SmallVector<bool> reducedDims(rank, false);
    reducedDims[axis] = true;
    bool keepDims = op.getKeepdims() != 0;
    if (!reducedTypeMatches(dataType.clone(resultType.getElementType()),
                            reducedDims, keepDims, resultType))
      return rewriter.notifyMatchFailure(op, "unexpected result type");
    SmallVector<OpFoldResult> dataSizes = tensorSizes(rewriter, loc, data);
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      shape.push_back(dataType.getDimSize(d));
      sizes.push_back(dataSizes[d]);
    }

    Type element = dataType.getElementType();
    Type accType = computeType(element);
    bool isUnsigned = dataElement.isUnsignedInteger();
    bool selectLast = op.getSelectLastIndex() != 0;
    auto valueType = RankedTensorType::get(shape, accType);
    auto indexType = RankedTensorType::get(shape, rewriter.getI64Type());
    Value initValue =
        extremeScalar(rewriter, loc, accType, /*largest=*/!isMax, isUnsigned);
    Value values =
        rewriter
            .create<linalg::FillOp>(
                loc, initValue, emptyTensor(rewriter, loc, valueType, sizes))
            .getResult(0);
    Value indices =
        rewriter
            .create<linalg::FillOp>(
                loc, scalarConst(rewriter, loc, rewriter.getI64Type(), 0),
                emptyTensor(rewriter, loc, indexType, sizes))
            .getResult(0);
    AffineMap outMap = reducedMap(rewriter.getContext(), reducedDims);
    SmallVector<AffineMap> maps{rewriter.getMultiDimIdentityMap(rank), outMap,
                                outMap};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators[axis] = utils::IteratorType::reduction;
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{valueType, indexType}, data, ValueRange{values, indices},
        maps, iterators, [&](OpBuilder &b, Location nloc, ValueRange args) {
          Value x = promoteHalf(b, nloc, args[0]);
          Value best = args[1];
          Value better;
          if (isFloat(x)) {
            using P = arith::CmpFPredicate;
            P pred = isMax ? (selectLast ? P::OGE : P::OGT)
                           : (selectLast ? P::OLE : P::OLT);
            better = b.create<arith::CmpFOp>(nloc, pred, x, best);
            Value xNaN = b.create<arith::CmpFOp>(nloc, P::UNO, x, x);
            Value bestOrdered =
                b.create<arith::CmpFOp>(nloc, P::ORD, best, best);
            better = b.create<arith::OrIOp>(
                nloc, better, b.create<arith::AndIOp>(nloc, xNaN, bestOrdered));
          } else {
            using P = arith::CmpIPredicate;
            P pred = isUnsigned ? (isMax ? (selectLast ? P::uge : P::ugt)
                                         : (selectLast ? P::ule : P::ult))
                                : (isMax ? (selectLast ? P::sge : P::sgt)
                                         : (selectLast ? P::sle : P::slt));
            better = b.create<arith::CmpIOp>(nloc, pred, x, best);
          }
          Value index = b.create<arith::IndexCastOp>(
              nloc, b.getI64Type(), b.create<linalg::IndexOp>(nloc, axis));
          b.create<linalg::YieldOp>(
              nloc, ValueRange{b.create<arith::SelectOp>(nloc, better, x, best),
                               b.create<arith::SelectOp>(nloc, better, index,
                                                         args[2])});
        });
    Value result = generic.getResult(1);
    if (keepDims)
      result = keepReducedDims(rewriter, loc, result, data, reducedDims);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, resultType));
    return success();
  }
};

} // namespace

void populateReductionPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ReduceLowering<onnx::ReduceSumOp, ReduceKind::Sum>,
               ReduceLowering<onnx::ReduceMeanOp, ReduceKind::Mean>,
               ReduceLowering<onnx::ReduceMaxOp, ReduceKind::Max>,
               ReduceLowering<onnx::ReduceMinOp, ReduceKind::Min>,
               ReduceLowering<onnx::ReduceProdOp, ReduceKind::Prod>,
               ReduceLowering<onnx::ReduceL1Op, ReduceKind::L1>,
               ReduceLowering<onnx::ReduceL2Op, ReduceKind::L2>,
               ReduceLowering<onnx::ReduceLogSumOp, ReduceKind::LogSum>,
               ReduceLowering<onnx::ReduceLogSumExpOp, ReduceKind::LogSumExp>,
               ReduceLowering<onnx::ReduceSumSquareOp, ReduceKind::SumSquare>,
               GlobalPoolLowering<onnx::GlobalAveragePoolOp, ReduceKind::Mean>,
               GlobalPoolLowering<onnx::GlobalMaxPoolOp, ReduceKind::Max>,
               ArgReduceLowering<onnx::ArgMaxOp, true>,
               ArgReduceLowering<onnx::ArgMinOp, false>>(typeConverter, ctx);
}

} // namespace onnxc::cpu
