//===- Reduction.cpp - ReduceX, ArgMax/ArgMin, global pooling -------------===//
//
// The ONNX reductions: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/
// SumSquare (constant, absent or run-time `axes`, keepdims,
// noop_with_empty_axes),
// ArgMax/ArgMin, Hardmax and GlobalAveragePool/GlobalMaxPool. Each becomes a
// linalg.generic reducing into a filled accumulator, followed (when the
// reduction needs it) by an elementwise generic for the final step (divide
// by the count, sqrt, log, rounding to a half float) and a tensor.expand_shape
// for keepdims. Axes only known at run time make the reduction a loop nest
// whose accumulator index is computed at run time.
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
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// The dims a reduction covers: known at compile time (`known`), or, when
/// `axes` is a run-time input, one i1 value per dim (`runtime`). A run-time
/// reduction keeps the reduced dims as unit dims until the end.
struct ReducedDims {
  SmallVector<bool> known;
  SmallVector<Value> runtime;
  bool isRuntime() const { return !runtime.empty(); }
};

/// The run-time mask of the dims named by the 1-D integer tensor `axes` of a
/// rank-`rank` input: negative axes count from the end; an empty `axes`
/// reduces every dim, or none with noop_with_empty_axes. Out-of-range axes
/// (invalid in ONNX) select no dim.
SmallVector<Value> runtimeReducedMask(OpBuilder &b, Location loc, Value axes,
                                      int64_t rank, bool noopWithEmptyAxes) {
  Value zero = indexConst(b, loc, 0);
  Value one = indexConst(b, loc, 1);
  Value count = dimValue(b, loc, axes, 0);
  Value falseValue = b.create<arith::ConstantIntOp>(loc, 0, 1);
  SmallVector<Value> none(rank, falseValue);
  auto loop = b.create<scf::ForOp>(
      loc, zero, count, one, none,
      [&](OpBuilder &nb, Location nloc, Value iv, ValueRange mask) {
        Value axis = nb.create<arith::IndexCastOp>(
            nloc, nb.getIndexType(),
            nb.create<tensor::ExtractOp>(nloc, axes, iv));
        Value isNegative = nb.create<arith::CmpIOp>(
            nloc, arith::CmpIPredicate::slt, axis, indexConst(nb, nloc, 0));
        axis = nb.create<arith::SelectOp>(
            nloc, isNegative,
            nb.create<arith::AddIOp>(nloc, axis, indexConst(nb, nloc, rank)),
            axis);
        SmallVector<Value> next;
        for (int64_t d = 0; d < rank; ++d) {
          Value hit = nb.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::eq,
                                               axis, indexConst(nb, nloc, d));
          next.push_back(nb.create<arith::OrIOp>(nloc, mask[d], hit));
        }
        nb.create<scf::YieldOp>(nloc, next);
      });
  Value isEmpty =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, count, zero);
  Value whenEmpty = b.create<arith::ConstantIntOp>(loc, !noopWithEmptyAxes, 1);
  SmallVector<Value> mask;
  for (int64_t d = 0; d < rank; ++d)
    mask.push_back(
        b.create<arith::SelectOp>(loc, isEmpty, whenEmpty, loop.getResult(d)));
  return mask;
}

/// Reduces `input` over the run-time `mask` into a tensor of the input's
/// rank whose masked dims are 1 (filled first with `init`). The indexing is
/// only known at run time, so this is a loop nest over the input that reads,
/// combines and writes back the accumulator element each input element maps
/// to. `extraInputs` have the result's shape and are read at that element.
Value buildRuntimeReduction(OpBuilder &b, Location loc, Value input,
                            ArrayRef<Value> mask, Value init,
                            ValueRange extraInputs, ReductionCombiner combine) {
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  Value zero = indexConst(b, loc, 0);
  Value one = indexConst(b, loc, 1);
  SmallVector<Value> lbs(rank, zero), steps(rank, one), ubs;
  SmallVector<OpFoldResult> sizes;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    Value size = dimValue(b, loc, input, d);
    ubs.push_back(size);
    sizes.push_back(
        b.create<arith::SelectOp>(loc, mask[d], one, size).getResult());
    shape.push_back(inputType.getDimSize(d) == 1 ? 1 : ShapedType::kDynamic);
  }
  auto accType = RankedTensorType::get(shape, init.getType());
  Value acc =
      b.create<linalg::FillOp>(loc, ValueRange{init},
                               ValueRange{emptyTensor(b, loc, accType, sizes)})
          .getResult(0);
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, acc,
      [&](OpBuilder &nb, Location nloc, ValueRange ivs,
          ValueRange iterArgs) -> scf::ValueVector {
        SmallVector<Value> coords;
        for (int64_t d = 0; d < rank; ++d)
          coords.push_back(nb.create<arith::SelectOp>(
              nloc, mask[d], indexConst(nb, nloc, 0), ivs[d]));
        SmallVector<Value> elements{
            nb.create<tensor::ExtractOp>(nloc, input, ivs)};
        for (Value extra : extraInputs)
          elements.push_back(nb.create<tensor::ExtractOp>(nloc, extra, coords));
        Value current = nb.create<tensor::ExtractOp>(nloc, iterArgs[0], coords);
        Value next = combine(nb, nloc, elements, current);
        return {nb.create<tensor::InsertOp>(nloc, next, iterArgs[0], coords)
                    .getResult()};
      });
  return nest.results.front();
}

/// buildReduction or buildRuntimeReduction, as `dims` says.
Value reduceOver(OpBuilder &b, Location loc, Value input,
                 const ReducedDims &dims, Value init, ValueRange extraInputs,
                 ReductionCombiner combine) {
  if (dims.isRuntime())
    return buildRuntimeReduction(b, loc, input, dims.runtime, init, extraInputs,
                                 combine);
  return buildReduction(b, loc, input, dims.known, init, extraInputs, combine);
}

/// The number of elements of `input` each result element reduces.
Value elementCount(OpBuilder &b, Location loc, Value input,
                   const ReducedDims &dims) {
  if (!dims.isRuntime())
    return reducedElementCount(b, loc, input, dims.known);
  Value count = indexConst(b, loc, 1);
  for (auto [d, reduced] : llvm::enumerate(dims.runtime)) {
    Value size = b.create<arith::SelectOp>(
        loc, reduced, dimValue(b, loc, input, d), indexConst(b, loc, 1));
    count = b.create<arith::MulIOp>(loc, count, size);
  }
  return count;
}

/// Gives a reduced tensor its final form: the reduced dims as unit dims
/// (keepdims) or dropped. A run-time reduction has unit dims already; without
/// keepdims its result dims (the unmasked input dims in order) are picked at
/// run time and the tensor is reshaped to `resultType`.
Value shapeReduced(OpBuilder &b, Location loc, Value reduced, Value input,
                   const ReducedDims &dims, bool keepDims,
                   RankedTensorType resultType) {
  if (!dims.isRuntime())
    return keepDims ? keepReducedDims(b, loc, reduced, input, dims.known)
                    : reduced;
  if (keepDims)
    return reduced;
  Value zero = indexConst(b, loc, 0);
  Value one = indexConst(b, loc, 1);
  SmallVector<Value> sizes(resultType.getRank(), one);
  Value position = zero; // How many dims before `d` are kept.
  for (auto [d, reducedDim] : llvm::enumerate(dims.runtime)) {
    Value kept = b.create<arith::XOrIOp>(
        loc, reducedDim, b.create<arith::ConstantIntOp>(loc, 1, 1));
    Value size = dimValue(b, loc, input, d);
    for (int64_t j = 0, e = sizes.size(); j < e; ++j) {
      Value here = b.create<arith::AndIOp>(
          loc, kept,
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, position,
                                  indexConst(b, loc, j)));
      sizes[j] = b.create<arith::SelectOp>(loc, here, size, sizes[j]);
    }
    position = b.create<arith::AddIOp>(
        loc, position, b.create<arith::SelectOp>(loc, kept, one, zero));
  }
  SmallVector<OpFoldResult> sizeResults(sizes.begin(), sizes.end());
  auto reducedType = llvm::cast<RankedTensorType>(reduced.getType());
  return reshapeTo(b, loc, reduced,
                   resultType.clone(reducedType.getElementType()), sizeResults);
}

/// For ReduceLogSumExp: the shift subtracted before exp. The max of the
/// elements with +inf treated as -inf (as the reference does), and 0 when
/// that is -inf, so all -inf inputs give log(0) = -inf rather than NaN.
Value logSumExpShift(OpBuilder &b, Location loc, Value data,
                     const ReducedDims &dims, Type accType) {
  Value negInf = extremeScalar(b, loc, accType, false, false);
  Value max = reduceOver(
      b, loc, data, dims, negInf, {},
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

/// Reduces `data` over `dims` as `kind` says and returns a tensor of
/// `resultType` (keepdims applied). The caller has checked element types.
Value lowerReduction(OpBuilder &b, Location loc, Value data, Type dataElement,
                     const ReducedDims &dims, bool keepDims, ReduceKind kind,
                     RankedTensorType resultType) {
  Type element = getElementTypeOrSelf(data);
  Type accType = computeType(element);
  bool isUnsigned = dataElement.isUnsignedInteger();

  SmallVector<Value> extra;
  if (kind == ReduceKind::LogSumExp)
    extra.push_back(logSumExpShift(b, loc, data, dims, accType));

  Value init = reduceInit(b, loc, kind, accType, isUnsigned);
  Value reduced = reduceOver(
      b, loc, data, dims, init, extra,
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
      Value n = elementCount(b, loc, data, dims);
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
  reduced = shapeReduced(b, loc, reduced, data, dims, keepDims, resultType);
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

/// ReduceSum, ReduceMean, ... with an `axes` input that is absent, a
/// compile-time constant, or a 1-D tensor only known at run time (then the
/// result rank is still static: the input's with keepdims, else the input's
/// minus the static number of axes).
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
    bool keepDims = op.getKeepdims() != 0;
    bool noopWithEmptyAxes = op.getNoopWithEmptyAxes() != 0;
    SmallVector<int64_t> axes;
    if (!isNoneValue(op.getAxes())) {
      auto axesType =
          llvm::dyn_cast<RankedTensorType>(adaptor.getAxes().getType());
      if (!axesType || axesType.getRank() != 1 ||
          !axesType.getElementType().isInteger(64))
        return op.emitError() << "axes must be a 1-D int64 tensor";
      if (std::optional<SmallVector<int64_t>> constant =
              getConstantInts(op.getAxes())) {
        axes = *constant;
      } else if (axesType.getDimSize(0) != 0 && rank > 0) {
        // Which dims are reduced is known at run time only.
        int64_t axisCount = axesType.getDimSize(0);
        if (!keepDims && ShapedType::isDynamic(axisCount))
          return rewriter.notifyMatchFailure(
              op, "without keepdims the number of axes must be static");
        int64_t expectedRank = keepDims ? rank : rank - axisCount;
        if (resultType.getRank() != expectedRank ||
            resultType.getElementType() != dataType.getElementType())
          return rewriter.notifyMatchFailure(op, "unexpected result type");
        ReducedDims dims;
        dims.runtime = runtimeReducedMask(
            rewriter, op.getLoc(), adaptor.getAxes(), rank, noopWithEmptyAxes);
        rewriter.replaceOp(op, lowerReduction(rewriter, op.getLoc(), data,
                                              dataElement, dims, keepDims, kind,
                                              resultType));
        return success();
      }
    }
    ReducedDims dims;
    dims.known.assign(rank, axes.empty() && !noopWithEmptyAxes);
    for (int64_t axis : axes) {
      if (axis < -rank || axis >= rank)
        return op.emitError()
               << "axis " << axis << " is out of range for a rank-" << rank
               << " input";
      dims.known[normalizeAxis(axis, rank)] = true;
    }
    if (!reducedTypeMatches(dataType, dims.known, keepDims, resultType))
      return rewriter.notifyMatchFailure(op, "unexpected result type");

    rewriter.replaceOp(op,
                       lowerReduction(rewriter, op.getLoc(), data, dataElement,
                                      dims, keepDims, kind, resultType));
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
    ReducedDims dims;
    dims.known.assign(dataType.getRank(), true);
    dims.known[0] = dims.known[1] = false;
    if (!reducedTypeMatches(dataType, dims.known, true, resultType))
      return rewriter.notifyMatchFailure(op, "unexpected result type");
    rewriter.replaceOp(op, lowerReduction(rewriter, op.getLoc(), data,
                                          onnxElementType(op.getX()), dims,
                                          true, kind, resultType));
    return success();
  }
};

/// The index of the largest (`isMax`) or smallest element of `data` along
/// `axis`, as an i64 tensor without that dim: one generic carrying (best
/// value, its index). Ties keep the first index, or the last with
/// `selectLast`; NaN counts as larger than (max) or smaller than (min)
/// everything, so the first NaN wins, as in numpy.
Value buildArgReduction(OpBuilder &b, Location loc, Value data, int64_t axis,
                        bool isMax, bool selectLast, bool isUnsigned) {
  auto dataType = llvm::cast<RankedTensorType>(data.getType());
  int64_t rank = dataType.getRank();
  SmallVector<bool> reducedDims(rank, false);
  reducedDims[axis] = true;
  SmallVector<OpFoldResult> dataSizes = tensorSizes(b, loc, data);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis)
      continue;
    shape.push_back(dataType.getDimSize(d));
    sizes.push_back(dataSizes[d]);
  }

  Type accType = computeType(dataType.getElementType());
  auto valueType = RankedTensorType::get(shape, accType);
  auto indexType = RankedTensorType::get(shape, b.getI64Type());
  Value initValue =
      extremeScalar(b, loc, accType, /*largest=*/!isMax, isUnsigned);
  Value values = b.create<linalg::FillOp>(loc, initValue,
                                          emptyTensor(b, loc, valueType, sizes))
                     .getResult(0);
  Value indices =
      b.create<linalg::FillOp>(loc, scalarConst(b, loc, b.getI64Type(), 0),
                               emptyTensor(b, loc, indexType, sizes))
          .getResult(0);
  AffineMap outMap = reducedMap(b.getContext(), reducedDims);
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank), outMap, outMap};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[axis] = utils::IteratorType::reduction;
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{valueType, indexType}, data, ValueRange{values, indices},
      maps, iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value x = promoteHalf(nb, nloc, args[0]);
        Value best = args[1];
        Value better;
        if (isFloat(x)) {
          using P = arith::CmpFPredicate;
          P pred = isMax ? (selectLast ? P::OGE : P::OGT)
                         : (selectLast ? P::OLE : P::OLT);
          better = nb.create<arith::CmpFOp>(nloc, pred, x, best);
          Value xNaN = nb.create<arith::CmpFOp>(nloc, P::UNO, x, x);
          Value bestOrdered =
              nb.create<arith::CmpFOp>(nloc, P::ORD, best, best);
          better = nb.create<arith::OrIOp>(
              nloc, better, nb.create<arith::AndIOp>(nloc, xNaN, bestOrdered));
        } else {
          using P = arith::CmpIPredicate;
          P pred = isUnsigned ? (isMax ? (selectLast ? P::uge : P::ugt)
                                       : (selectLast ? P::ule : P::ult))
                              : (isMax ? (selectLast ? P::sge : P::sgt)
                                       : (selectLast ? P::sle : P::slt));
          better = nb.create<arith::CmpIOp>(nloc, pred, x, best);
        }
        Value index = nb.create<arith::IndexCastOp>(
            nloc, nb.getI64Type(), nb.create<linalg::IndexOp>(nloc, axis));
        nb.create<linalg::YieldOp>(
            nloc, ValueRange{nb.create<arith::SelectOp>(nloc, better, x, best),
                             nb.create<arith::SelectOp>(nloc, better, index,
                                                        args[2])});
      });
  return generic.getResult(1);
}

/// ArgMax and ArgMin (see buildArgReduction), with keepdims.
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
    Value result = buildArgReduction(rewriter, loc, data, axis, isMax,
                                     op.getSelectLastIndex() != 0,
                                     dataElement.isUnsignedInteger());
    if (keepDims)
      result = keepReducedDims(rewriter, loc, result, data, reducedDims);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, resultType));
    return success();
  }
};

/// Hardmax: 1 where an element is the first largest along `axis`, 0
/// elsewhere (an ArgMax, then one elementwise generic comparing indices).
struct HardmaxLowering : OpConversionPattern<onnx::HardmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::HardmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = llvm::dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    Value input = adaptor.getInput();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    if (!resultType || !inputType ||
        !isElementKind(onnxElementType(op.getInput()), kFloat) ||
        resultType.getElementType() != inputType.getElementType() ||
        failed(verifyCompatibleShape(resultType, inputType)))
      return rewriter.notifyMatchFailure(op, "expected a float tensor");
    int64_t rank = inputType.getRank();
    int64_t axis = op.getAxis();
    if (rank == 0 || axis < -rank || axis >= rank)
      return op.emitError() << "axis " << axis << " is out of range for a rank-"
                            << rank << " input";
    axis = normalizeAxis(axis, rank);
    Value best = buildArgReduction(rewriter, loc, input, axis, /*isMax=*/true,
                                   /*selectLast=*/false, false);
    SmallVector<bool> reducedDims(rank, false);
    reducedDims[axis] = true;
    Type element = inputType.getElementType();
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, tensorSizes(rewriter, loc, input), best,
        reducedMap(rewriter.getContext(), reducedDims),
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value index = b.create<arith::IndexCastOp>(
              nloc, b.getI64Type(), b.create<linalg::IndexOp>(nloc, axis));
          Value isBest = b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::eq,
                                                 index, args[0]);
          return b.create<arith::SelectOp>(nloc, isBest,
                                           scalarConst(b, nloc, element, 1),
                                           scalarConst(b, nloc, element, 0));
        });
    rewriter.replaceOp(op, result);
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
               ArgReduceLowering<onnx::ArgMinOp, false>, HardmaxLowering>(
      typeConverter, ctx);
}

} // namespace onnxc::cpu
