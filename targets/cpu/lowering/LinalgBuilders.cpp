//===- LinalgBuilders.cpp - Broadcasts, reductions, scalar casts ----------===//
//
// Implements LinalgBuilders.h: the linalg.generic builders and scalar casts
// that the elementwise, reduction, softmax and normalization lowerings share.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace onnxc::cpu {

/// The symbolic name of dim `d` of argument `arg` of `func`
/// (`onnxc.dim_params`), or "".
static StringRef dimParam(func::FuncOp func, unsigned arg, int64_t d) {
  auto params = func.getArgAttrOfType<ArrayAttr>(arg, "onnxc.dim_params");
  if (!params || d >= static_cast<int64_t>(params.size()))
    return "";
  auto name = llvm::dyn_cast<StringAttr>(params[d]);
  return name ? name.getValue() : "";
}

/// For dim `d` of a graph input: the first graph input dim with the same
/// symbolic name (the runtime refuses inputs where the two differ, see
/// runtime/cpu/Run.c), so that equal sizes are one SSA value and run-time
/// broadcast checks between them fold away. Null when there is none.
static OpFoldResult sameSymbolSize(OpBuilder &b, Location loc, Value value,
                                   int64_t d) {
  auto arg = llvm::dyn_cast<BlockArgument>(value);
  auto func =
      arg ? llvm::dyn_cast_or_null<func::FuncOp>(arg.getOwner()->getParentOp())
          : func::FuncOp();
  if (!func || arg.getOwner() != &func.getBody().front())
    return {};
  StringRef symbol = dimParam(func, arg.getArgNumber(), d);
  if (symbol.empty())
    return {};
  for (BlockArgument other : func.getArguments()) {
    auto type = llvm::dyn_cast<RankedTensorType>(other.getType());
    if (!type)
      continue;
    for (int64_t e = 0; e < type.getRank(); ++e) {
      if (dimParam(func, other.getArgNumber(), e) != symbol)
        continue;
      if (other == arg && e == d)
        return {};
      if (!type.isDynamicDim(e))
        return b.getIndexAttr(type.getDimSize(e));
      return b.create<tensor::DimOp>(loc, other, e).getResult();
    }
  }
  return {};
}

OpFoldResult tensorSize(OpBuilder &b, Location loc, Value value, int64_t d) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDimSize(d));
  if (auto expand = value.getDefiningOp<tensor::ExpandShapeOp>())
    return getMixedValues(expand.getStaticOutputShape(),
                          expand.getOutputShape(), b)[d];
  if (OpFoldResult same = sameSymbolSize(b, loc, value, d))
    return same;
  return b.create<tensor::DimOp>(loc, value, d).getResult();
}

SmallVector<OpFoldResult> tensorSizes(OpBuilder &b, Location loc, Value value) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0,
               e = llvm::cast<RankedTensorType>(value.getType()).getRank();
       d < e; ++d)
    sizes.push_back(tensorSize(b, loc, value, d));
  return sizes;
}

bool isHalfFloat(Type type) { return type.isF16() || type.isBF16(); }

Type computeType(Type type) {
  return isHalfFloat(type) ? Float32Type::get(type.getContext()) : type;
}

Value promoteHalf(OpBuilder &b, Location loc, Value value) {
  if (!isHalfFloat(value.getType()))
    return value;
  return b.create<arith::ExtFOp>(loc, b.getF32Type(), value);
}

Value demoteTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return b.create<arith::TruncFOp>(loc, type, value);
}

/// The signless form of an ONNX element type.
static Type signless(Type type) {
  if (auto intType = llvm::dyn_cast<IntegerType>(type))
    return IntegerType::get(type.getContext(), intType.getWidth());
  return type;
}

Value castScalar(OpBuilder &b, Location loc, Value value, Type from, Type to,
                 bool saturate) {
  if (from == to)
    return value;
  // float8 has no arithmetic here: decode to f32 / encode from f32.
  if (isFloat8(from)) {
    value = float8ToF32(b, loc, value, from);
    from = b.getF32Type();
    if (from == to)
      return value;
  }
  if (isFloat8(to)) {
    value = castScalar(b, loc, value, from, b.getF32Type());
    return f32ToFloat8(b, loc, value, to, saturate);
  }
  Type target = signless(to);
  auto fromFloat = llvm::dyn_cast<FloatType>(from);
  auto toFloat = llvm::dyn_cast<FloatType>(to);
  bool fromBool = from.isInteger(1);
  bool fromUnsigned = from.isUnsignedInteger() || fromBool;

  // Half floats convert through f32: f16 and bf16 do not extend each other,
  // and the bf16 expansion of arith-expand only converts from and to f32.
  if (fromFloat && isHalfFloat(from) && !to.isF32()) {
    value = promoteHalf(b, loc, value);
    from = b.getF32Type();
    fromFloat = llvm::cast<FloatType>(from);
  }
  if (toFloat && isHalfFloat(to) && !from.isF32()) {
    value = castScalar(b, loc, value, from, b.getF32Type());
    return b.create<arith::TruncFOp>(loc, toFloat, value);
  }
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return b.create<arith::ExtFOp>(loc, toFloat, value);
    return b.create<arith::TruncFOp>(loc, toFloat, value);
  }
  if (toFloat) {
    if (fromUnsigned)
      return b.create<arith::UIToFPOp>(loc, toFloat, value);
    return b.create<arith::SIToFPOp>(loc, toFloat, value);
  }
  if (to.isInteger(1)) {
    if (fromFloat)
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, value,
                                     scalarConst(b, loc, from, 0.0));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, value,
                                   scalarConst(b, loc, value.getType(), 0));
  }
  auto targetInt = llvm::cast<IntegerType>(target);
  if (fromFloat) {
    // Narrow targets convert through i64 and wrap, so an out-of-range value
    // gives numpy's (and x86's) answer instead of poison.
    if (targetInt.getWidth() == 64) {
      if (to.isUnsignedInteger())
        return b.create<arith::FPToUIOp>(loc, targetInt, value);
      return b.create<arith::FPToSIOp>(loc, targetInt, value);
    }
    Value wide = b.create<arith::FPToSIOp>(loc, b.getI64Type(), value);
    return b.create<arith::TruncIOp>(loc, targetInt, wide);
  }
  unsigned fromWidth = llvm::cast<IntegerType>(value.getType()).getWidth();
  if (fromWidth == targetInt.getWidth())
    return value;
  if (fromWidth > targetInt.getWidth())
    return b.create<arith::TruncIOp>(loc, targetInt, value);
  if (fromUnsigned)
    return b.create<arith::ExtUIOp>(loc, targetInt, value);
  return b.create<arith::ExtSIOp>(loc, targetInt, value);
}

AffineMap broadcastMap(RankedTensorType operandType,
                       RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  int64_t operandRank = operandType.getRank();
  if (operandRank > rank)
    return {};
  MLIRContext *ctx = resultType.getContext();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < operandRank; ++i) {
    int64_t resultDim = rank - operandRank + i;
    int64_t operandSize = operandType.getDimSize(i);
    int64_t resultSize = resultType.getDimSize(resultDim);
    if (operandSize == 1 && resultSize != 1) {
      exprs.push_back(getAffineConstantExpr(0, ctx));
      continue;
    }
    if (!ShapedType::isDynamic(operandSize) &&
        !ShapedType::isDynamic(resultSize) && operandSize != resultSize)
      return {};
    exprs.push_back(getAffineDimExpr(resultDim, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// Whether two sizes are the same: equal constants or the same SSA value.
static bool isSameSize(OpFoldResult a, OpFoldResult b) {
  std::optional<int64_t> ca = getConstantIntValue(a),
                         cb = getConstantIntValue(b);
  if (ca || cb)
    return ca && cb && *ca == *cb;
  return llvm::cast<Value>(a) == llvm::cast<Value>(b);
}

SmallVector<OpFoldResult>
broadcastShapes(OpBuilder &b, Location loc, ArrayRef<int64_t> resultShape,
                ArrayRef<SmallVector<OpFoldResult>> operandSizes) {
  int64_t rank = resultShape.size();
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!ShapedType::isDynamic(resultShape[d])) {
      sizes.push_back(b.getIndexAttr(resultShape[d]));
      continue;
    }
    // A static size other than 1 is the result's; else the last dynamic size
    // that is not 1 at run time (each is checked against it later).
    std::optional<int64_t> staticSize;
    Value dynamicSize;
    for (ArrayRef<OpFoldResult> operand : operandSizes) {
      int64_t i = d - (rank - static_cast<int64_t>(operand.size()));
      if (i < 0)
        continue;
      std::optional<int64_t> constant = getConstantIntValue(operand[i]);
      if (constant) {
        if (*constant != 1 && !staticSize)
          staticSize = *constant;
        continue;
      }
      Value size = llvm::cast<Value>(operand[i]);
      if (!dynamicSize || dynamicSize == size) {
        dynamicSize = size;
        continue;
      }
      Value isOne = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, size,
                                            indexConst(b, loc, 1));
      dynamicSize = b.create<arith::SelectOp>(loc, isOne, dynamicSize, size);
    }
    sizes.push_back(staticSize    ? OpFoldResult(b.getIndexAttr(*staticSize))
                    : dynamicSize ? OpFoldResult(dynamicSize)
                                  : OpFoldResult(b.getIndexAttr(1)));
  }
  return sizes;
}

SmallVector<OpFoldResult> broadcastSizes(OpBuilder &b, Location loc,
                                         RankedTensorType resultType,
                                         ValueRange operands) {
  SmallVector<SmallVector<OpFoldResult>> operandSizes;
  for (Value operand : operands)
    operandSizes.push_back(tensorSizes(b, loc, operand));
  return broadcastShapes(b, loc, resultType.getShape(), operandSizes);
}

Value buildParallelGeneric(OpBuilder &b, Location loc,
                           RankedTensorType resultType,
                           ArrayRef<OpFoldResult> resultSizes,
                           ValueRange operands, ArrayRef<AffineMap> maps,
                           ScalarBodyBuilder body) {
  int64_t rank = resultType.getRank();
  Value init = emptyTensor(b, loc, resultType, resultSizes);
  SmallVector<AffineMap> indexingMaps(maps);
  indexingMaps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{resultType}, operands, ValueRange{init}, indexingMaps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = body(nb, nloc, args.drop_back());
        nb.create<linalg::YieldOp>(nloc, result);
      });
  return generic.getResult(0);
}

Value broadcastOperandTo(OpBuilder &b, Location loc, Value operand,
                         ArrayRef<OpFoldResult> sizes,
                         ArrayRef<OpFoldResult> targets) {
  auto type = llvm::cast<RankedTensorType>(operand.getType());
  int64_t rank = type.getRank();
  // The dims to resolve: dynamic ones whose size is not already the target
  // (a single dynamic operand is its own target).
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<int64_t> affected;
  for (int64_t i = 0; i < rank; ++i) {
    if (!targets[i] || !type.isDynamicDim(i) ||
        isSameSize(sizes[i], targets[i]))
      continue;
    shape[i] = getConstantIntValue(targets[i]).value_or(ShapedType::kDynamic);
    affected.push_back(i);
  }
  if (affected.empty())
    return operand;

  auto refinedType = type.clone(shape);
  SmallVector<OpFoldResult> refinedSizes(sizes);
  SmallVector<Value> size(rank), target(rank);
  Value allFull, allValid;
  auto conjoin = [&](Value acc, Value cond) -> Value {
    return acc ? b.create<arith::AndIOp>(loc, acc, cond).getResult() : cond;
  };
  Value one = indexConst(b, loc, 1);
  for (int64_t i : affected) {
    refinedSizes[i] = targets[i];
    size[i] = toValue(b, loc, sizes[i]);
    target[i] = toValue(b, loc, targets[i]);
    Value isFull = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                           size[i], target[i]);
    Value isOne =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, size[i], one);
    allFull = conjoin(allFull, isFull);
    allValid = conjoin(allValid, b.create<arith::OrIOp>(loc, isFull, isOne));
  }

  // Fast path: the sizes already match, the operand is used as it is.
  OpBuilder::InsertionGuard guard(b);
  auto full = b.create<scf::IfOp>(loc, TypeRange{refinedType}, allFull,
                                  /*withElseRegion=*/true);
  b.setInsertionPointToStart(full.thenBlock());
  b.create<scf::YieldOp>(loc, castIfNeeded(b, loc, operand, refinedType));

  b.setInsertionPointToStart(full.elseBlock());
  auto valid = b.create<scf::IfOp>(loc, TypeRange{refinedType}, allValid,
                                   /*withElseRegion=*/true);
  b.create<scf::YieldOp>(loc, valid.getResult(0));

  // Size 1 facing the target: broadcast by copying.
  b.setInsertionPointToStart(valid.thenBlock());
  Value init = emptyTensor(b, loc, refinedType, refinedSizes);
  auto copy = b.create<linalg::GenericOp>(
      loc, TypeRange{refinedType}, ValueRange{}, ValueRange{init},
      SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t i = 0; i < rank; ++i)
          indices.push_back(nb.create<linalg::IndexOp>(nloc, i));
        for (int64_t i : affected) {
          // min(index, size - 1): 0 for a size-1 dim; the index itself when
          // the size is the target.
          Value last =
              nb.create<arith::SubIOp>(nloc, size[i], indexConst(nb, nloc, 1));
          indices[i] = nb.create<arith::MinUIOp>(nloc, indices[i], last);
        }
        Value element = nb.create<tensor::ExtractOp>(nloc, operand, indices);
        nb.create<linalg::YieldOp>(nloc, element);
      });
  b.create<scf::YieldOp>(loc, copy.getResult(0));

  // Neither 1 nor the target: report, and go on with zeros (in bounds; the
  // run's result is the error).
  b.setInsertionPointToStart(valid.elseBlock());
  for (int64_t i : affected) {
    Value isFull = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                           size[i], target[i]);
    Value notOne =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, size[i], one);
    emitShapeErrorIf(b, loc, b.create<arith::AndIOp>(loc, isFull, notOne),
                     ShapeErrorKind::Broadcast, size[i], target[i]);
  }
  Value zeros = zeroTensor(b, loc, refinedSizes, refinedType.getElementType());
  b.create<scf::YieldOp>(loc, castIfNeeded(b, loc, zeros, refinedType));
  return full.getResult(0);
}

Value buildBroadcastGeneric(OpBuilder &b, Location loc,
                            RankedTensorType resultType, ValueRange operands,
                            ScalarBodyBuilder body) {
  SmallVector<SmallVector<OpFoldResult>> operandSizes;
  for (Value operand : operands)
    operandSizes.push_back(tensorSizes(b, loc, operand));
  SmallVector<OpFoldResult> sizes =
      broadcastShapes(b, loc, resultType.getShape(), operandSizes);
  SmallVector<Value> resolved;
  SmallVector<AffineMap> maps;
  int64_t rank = resultType.getRank();
  for (auto [operand, operandSize] : llvm::zip(operands, operandSizes)) {
    ArrayRef<OpFoldResult> targets =
        ArrayRef<OpFoldResult>(sizes).drop_front(rank - operandSize.size());
    resolved.push_back(
        broadcastOperandTo(b, loc, operand, operandSize, targets));
    maps.push_back(broadcastMap(
        llvm::cast<RankedTensorType>(resolved.back().getType()), resultType));
  }
  return buildParallelGeneric(b, loc, resultType, sizes, resolved, maps, body);
}

AffineMap reducedMap(MLIRContext *ctx, ArrayRef<bool> reducedDims) {
  SmallVector<AffineExpr> exprs;
  for (auto [d, reduced] : llvm::enumerate(reducedDims))
    if (!reduced)
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(reducedDims.size(), 0, exprs, ctx);
}

Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ArrayRef<bool> reducedDims, Value init,
                     ValueRange extraInputs, ReductionCombiner combine) {
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    if (reducedDims[d]) {
      iterators.push_back(utils::IteratorType::reduction);
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    shape.push_back(inputType.getDimSize(d));
    sizes.push_back(tensorSize(b, loc, input, d));
  }
  auto resultType = RankedTensorType::get(shape, init.getType());
  Value empty = emptyTensor(b, loc, resultType, sizes);
  Value filled =
      b.create<linalg::FillOp>(loc, ValueRange{init}, ValueRange{empty})
          .getResult(0);

  AffineMap outputMap = reducedMap(b.getContext(), reducedDims);
  SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(rank)};
  SmallVector<Value> inputs{input};
  for (Value extra : extraInputs) {
    maps.push_back(outputMap);
    inputs.push_back(extra);
  }
  maps.push_back(outputMap);
  auto generic = b.create<linalg::GenericOp>(
      loc, TypeRange{resultType}, inputs, ValueRange{filled}, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = combine(nb, nloc, args.drop_back(), args.back());
        nb.create<linalg::YieldOp>(nloc, result);
      });
  return generic.getResult(0);
}

Value keepReducedDims(OpBuilder &b, Location loc, Value reduced, Value input,
                      ArrayRef<bool> reducedDims) {
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  auto reducedType = llvm::cast<RankedTensorType>(reduced.getType());
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < inputType.getRank(); ++d) {
    if (reducedDims[d]) {
      shape.push_back(1);
      sizes.push_back(b.getIndexAttr(1));
      continue;
    }
    shape.push_back(inputType.getDimSize(d));
    sizes.push_back(tensorSize(b, loc, input, d));
  }
  auto keptType = RankedTensorType::get(shape, reducedType.getElementType());
  if (keptType == reducedType)
    return reduced;
  return reshapeByUnitDims(b, loc, reduced, keptType, reducedDims, sizes);
}

Value reducedElementCount(OpBuilder &b, Location loc, Value input,
                          ArrayRef<bool> dims) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  int64_t staticCount = 1;
  Value count;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!dims[d])
      continue;
    if (!type.isDynamicDim(d)) {
      staticCount *= type.getDimSize(d);
      continue;
    }
    Value size = toValue(b, loc, tensorSize(b, loc, input, d));
    count =
        count ? b.create<arith::MulIOp>(loc, count, size).getResult() : size;
  }
  Value staticValue = indexConst(b, loc, staticCount);
  if (!count)
    return staticValue;
  if (staticCount == 1)
    return count;
  return b.create<arith::MulIOp>(loc, count, staticValue);
}

Value extremeScalar(OpBuilder &b, Location loc, Type type, bool largest,
                    bool isUnsigned) {
  if (auto floatType = llvm::dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        loc,
        b.getFloatAttr(floatType, APFloat::getInf(floatType.getFloatSemantics(),
                                                  /*Negative=*/!largest)));
  unsigned width = type.getIntOrFloatBitWidth();
  APInt value;
  if (width == 1 || isUnsigned)
    value = largest ? APInt::getMaxValue(width) : APInt::getMinValue(width);
  else
    value = largest ? APInt::getSignedMaxValue(width)
                    : APInt::getSignedMinValue(width);
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, value));
}

Value createOnnxOp(OpBuilder &b, Location loc, StringRef name,
                   ValueRange operands, TypeRange resultTypes,
                   ArrayRef<NamedAttribute> attrs) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(resultTypes);
  return b.create(state)->getResult(0);
}

} // namespace onnxc::cpu
