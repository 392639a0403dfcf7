//===- DataMovementReshape.cpp - Reshape, Transpose, Expand, Tile ---------===//
//
// populateDataMovementReshapePatterns: the ops that rearrange a whole tensor
// without choosing elements: Reshape, Flatten, Squeeze and Unsqueeze become
// views (tensor.collapse_shape/expand_shape, tensor.reshape when no grouping
// of dims exists), Transpose a linalg.transpose, Expand a broadcasting
// linalg.generic and Tile a linalg.broadcast plus a collapse.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Reshapes `source` to `type`, whose sizes are `sizes`: a collapse or expand
/// when the static dims determine how dims group (both shapes static, or one
/// dynamic dim on each side, which the element count then makes equal unless
/// a static dim is 0), a tensor.reshape with a run-time shape otherwise.
static Value reshapeToSizes(OpBuilder &b, Location loc, Value source,
                            RankedTensorType type,
                            ArrayRef<OpFoldResult> sizes) {
  auto sourceType = llvm::cast<RankedTensorType>(source.getType());
  bool countDecides = type.getNumDynamicDims() == 0 ||
                      (!llvm::is_contained(sourceType.getShape(), 0) &&
                       !llvm::is_contained(type.getShape(), 0));
  if (sourceType.getNumDynamicDims() == type.getNumDynamicDims() &&
      type.getNumDynamicDims() <= 1 && countDecides) {
    // Same shape (with at most one `?`, equal by element count): no-op.
    if (sourceType == type)
      return source;
    if (sourceType.getRank() > type.getRank()) {
      if (auto groups = getReassociationIndicesForCollapse(
              sourceType.getShape(), type.getShape()))
        return b.create<tensor::CollapseShapeOp>(loc, type, source, *groups);
    } else if (sourceType.getRank() < type.getRank()) {
      if (auto groups = getReassociationIndicesForCollapse(
              type.getShape(), sourceType.getShape()))
        return b.create<tensor::ExpandShapeOp>(loc, type, source, *groups,
                                               sizes);
    }
  }
  // tensor.reshape with the sizes as a shape tensor. (Not reshapeTo: equal
  // dynamic types may still need a reshape.)
  SmallVector<Value> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(b.create<arith::IndexCastOp>(loc, b.getI64Type(),
                                                 toValue(b, loc, size)));
  Value shapeTensor = b.create<tensor::FromElementsOp>(
      loc, RankedTensorType::get({type.getRank()}, b.getI64Type()), shape);
  return b.create<tensor::ReshapeOp>(loc, type, source, shapeTensor);
}

/// The number of elements of `tensor` as an index value.
static Value elementCount(OpBuilder &b, Location loc, Value tensor) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  Value count = indexConst(b, loc, 1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    count =
        b.createOrFold<arith::MulIOp>(loc, dimValue(b, loc, tensor, d), count);
  return count;
}

/// onnx.Reshape. The target shape is a constant or a run-time tensor; a 0
/// copies the input's dim (unless allowzero) and one -1 takes the remaining
/// elements, at run time too. Static result dims (from shape inference) win
/// over computed ones.
struct ReshapeLowering : OpConversionPattern<onnx::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !type)
      return failure();
    if (dataType.hasStaticShape() && type.hasStaticShape() &&
        dataType.getNumElements() != type.getNumElements())
      return op.emitError()
             << "cannot reshape " << dataType << " into " << type;

    int64_t rank = type.getRank();
    int64_t dataRank = dataType.getRank();
    bool allowZero = op.getAllowzero() != 0;
    SmallVector<OpFoldResult> sizes;
    if (type.hasStaticShape()) {
      for (int64_t size : type.getShape())
        sizes.push_back(rewriter.getIndexAttr(size));
    } else if (std::optional<SmallVector<int64_t>> shape =
                   getConstantInts(adaptor.getShape())) {
      if (failed(
              constantShapeSizes(rewriter, op, data, *shape, allowZero, sizes)))
        return failure();
    } else {
      auto shapeType =
          llvm::dyn_cast<RankedTensorType>(adaptor.getShape().getType());
      if (!shapeType || shapeType.getRank() != 1 ||
          (!shapeType.isDynamicDim(0) && shapeType.getDimSize(0) != rank))
        return rewriter.notifyMatchFailure(op, "shape does not match rank");
      // The same rules at run time: 0 -> the input's dim, -1 -> inferred.
      Value zero = indexConst(rewriter, loc, 0);
      Value one = indexConst(rewriter, loc, 1);
      Value minusOne = indexConst(rewriter, loc, -1);
      SmallVector<Value> values, inferred;
      Value known = one;
      for (int64_t i = 0; i < rank; ++i) {
        Value v = extractAsIndex(rewriter, loc, adaptor.getShape(), i);
        if (!allowZero && i < dataRank) {
          Value isZero = rewriter.create<arith::CmpIOp>(
              loc, arith::CmpIPredicate::eq, v, zero);
          v = rewriter.create<arith::SelectOp>(
              loc, isZero, dimValue(rewriter, loc, data, i), v);
        }
        Value isInferred = rewriter.create<arith::CmpIOp>(
            loc, arith::CmpIPredicate::eq, v, minusOne);
        Value factor =
            rewriter.create<arith::SelectOp>(loc, isInferred, one, v);
        known = rewriter.createOrFold<arith::MulIOp>(loc, factor, known);
        values.push_back(v);
        inferred.push_back(isInferred);
      }
      Value remaining = inferredSize(rewriter, loc, data, known);
      for (int64_t i = 0; i < rank; ++i)
        sizes.push_back(
            rewriter
                .create<arith::SelectOp>(loc, inferred[i], remaining, values[i])
                .getResult());
    }
    for (int64_t d = 0; d < rank; ++d)
      if (!type.isDynamicDim(d))
        sizes[d] = rewriter.getIndexAttr(type.getDimSize(d));
    rewriter.replaceOp(op, reshapeToSizes(rewriter, loc, data, type, sizes));
    return success();
  }

  /// numel(data) / known, or 0 when `known` is 0 (no division trap).
  static Value inferredSize(OpBuilder &b, Location loc, Value data,
                            Value known) {
    Value zero = indexConst(b, loc, 0);
    Value one = indexConst(b, loc, 1);
    Value isZero = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                 known, zero);
    Value divisor = b.createOrFold<arith::SelectOp>(loc, isZero, one, known);
    Value quotient = b.createOrFold<arith::DivUIOp>(
        loc, elementCount(b, loc, data), divisor);
    return b.createOrFold<arith::SelectOp>(loc, isZero, zero, quotient);
  }

  /// The sizes for a constant target shape.
  static LogicalResult
  constantShapeSizes(OpBuilder &b, onnx::ReshapeOp op, Value data,
                     ArrayRef<int64_t> shape, bool allowZero,
                     SmallVectorImpl<OpFoldResult> &sizes) {
    Location loc = op.getLoc();
    auto dataType = llvm::cast<RankedTensorType>(data.getType());
    int64_t rank = llvm::cast<RankedTensorType>(op.getType()).getRank();
    if (static_cast<int64_t>(shape.size()) != rank)
      return op.emitError() << "the shape has " << shape.size()
                            << " values but the result has rank " << rank;
    Value known = indexConst(b, loc, 1);
    std::optional<size_t> inferredAt;
    for (auto [i, v] : llvm::enumerate(shape)) {
      Value size;
      if (v == 0 && !allowZero) {
        if (static_cast<int64_t>(i) >= dataType.getRank())
          return op.emitError() << "shape value 0 at index " << i
                                << " has no input dim to copy";
        size = dimValue(b, loc, data, i);
      } else if (v == -1) {
        if (inferredAt)
          return op.emitError() << "the shape has more than one -1";
        inferredAt = i;
        sizes.push_back(OpFoldResult());
        continue;
      } else if (v < 0) {
        return op.emitError() << "invalid shape value " << v;
      } else {
        size = indexConst(b, loc, v);
      }
      known = b.createOrFold<arith::MulIOp>(loc, size, known);
      sizes.push_back(getAsOpFoldResult(size));
    }
    if (inferredAt)
      sizes[*inferredAt] = getAsOpFoldResult(inferredSize(b, loc, data, known));
    return success();
  }
};

/// onnx.Flatten -> the dims before `axis` and from `axis` on collapsed into
/// two (an empty side becomes a unit dim).
struct FlattenLowering : OpConversionPattern<onnx::FlattenOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::FlattenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!inputType || !type)
      return failure();
    int64_t rank = inputType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis > rank)
      return op.emitError()
             << "axis " << op.getAxis() << " is out of range for rank " << rank;

    Value flat;
    if (axis > 0 && axis < rank) {
      SmallVector<ReassociationIndices> groups(2);
      for (int64_t d = 0; d < rank; ++d)
        groups[d < axis ? 0 : 1].push_back(d);
      flat = rewriter.create<tensor::CollapseShapeOp>(loc, input, groups);
    } else {
      // One side is empty: collapse everything to 1-D, then add the unit dim.
      Value vector = input;
      if (rank > 1) {
        SmallVector<ReassociationIndices> all(1);
        for (int64_t d = 0; d < rank; ++d)
          all[0].push_back(d);
        vector = rewriter.create<tensor::CollapseShapeOp>(loc, input, all);
      }
      auto vectorType = llvm::cast<RankedTensorType>(vector.getType());
      SmallVector<bool> unitDims = {axis == 0, axis == rank};
      SmallVector<int64_t> shape;
      SmallVector<OpFoldResult> sizes;
      for (bool unit : unitDims) {
        if (unit || rank == 0) {
          shape.push_back(1);
          sizes.push_back(rewriter.getIndexAttr(1));
        } else {
          shape.push_back(vectorType.getDimSize(0));
          sizes.push_back(
              getAsOpFoldResult(dimValue(rewriter, loc, vector, 0)));
        }
      }
      if (rank == 0)
        unitDims = {true, true};
      auto flatType = RankedTensorType::get(shape, type.getElementType());
      flat =
          reshapeByUnitDims(rewriter, loc, vector, flatType, unitDims, sizes);
    }
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, flat, type));
    return success();
  }
};

/// For each of `rank` dims, whether one of the `count` run-time `axes`
/// (negative counted from `rank`) names it.
static SmallVector<Value> runtimeAxisMask(OpBuilder &b, Location loc,
                                          Value axes, int64_t count,
                                          int64_t rank) {
  SmallVector<Value> mask(
      rank, b.create<arith::ConstantOp>(loc, b.getBoolAttr(false)));
  for (int64_t j = 0; j < count; ++j) {
    Value axis = runtimeAxis(b, loc, axes, j, rank);
    for (int64_t d = 0; d < rank; ++d)
      mask[d] = b.create<arith::OrIOp>(
          loc, mask[d],
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, axis,
                                  indexConst(b, loc, d)));
  }
  return mask;
}

/// onnx.Squeeze -> tensor.collapse_shape of the unit dims. Without axes, the
/// static unit dims are removed (a dynamic dim is assumed not to be 1, which
/// the result type from shape inference must agree with).
struct SqueezeLowering : OpConversionPattern<onnx::SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !type)
      return failure();
    int64_t rank = dataType.getRank();
    SmallVector<bool> unitDims(rank, false);
    if (isNoneValue(op.getAxes())) {
      for (int64_t d = 0; d < rank; ++d)
        unitDims[d] = dataType.getDimSize(d) == 1;
    } else {
      std::optional<SmallVector<int64_t>> axes =
          getConstantInts(adaptor.getAxes());
      if (!axes)
        return squeezeRuntimeAxes(op, adaptor.getAxes(), data, type, rewriter);
      if (failed(normalizeAxes(op, *axes, rank)))
        return failure();
      for (int64_t axis : *axes) {
        if (!dataType.isDynamicDim(axis) && dataType.getDimSize(axis) != 1)
          return op.emitError() << "cannot squeeze axis " << axis << " of size "
                                << dataType.getDimSize(axis);
        unitDims[axis] = true;
      }
    }
    // A squeezed dynamic dim is 1: make that static so the collapsed groups
    // keep the other dims' sizes.
    SmallVector<int64_t> unitShape(dataType.getShape());
    SmallVector<int64_t> squeezedShape;
    for (int64_t d = 0; d < rank; ++d) {
      if (unitDims[d])
        unitShape[d] = 1;
      else
        squeezedShape.push_back(dataType.getDimSize(d));
    }
    if (static_cast<int64_t>(squeezedShape.size()) != type.getRank())
      return op.emitError() << "squeezing " << dataType
                            << " does not give the rank of " << type;
    Value source = castIfNeeded(rewriter, loc, data, dataType.clone(unitShape));
    auto squeezedType =
        RankedTensorType::get(squeezedShape, dataType.getElementType());
    Value squeezed = source;
    if (squeezedType.getRank() != rank)
      squeezed =
          reshapeByUnitDims(rewriter, loc, source, squeezedType, unitDims, {});
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, squeezed, type));
    return success();
  }

  /// Run-time axes: the result keeps, in order, the dims that no axis names;
  /// its sizes are computed at run time and the data is reshaped to them.
  static LogicalResult squeezeRuntimeAxes(onnx::SqueezeOp op, Value axesInput,
                                          Value data, RankedTensorType type,
                                          ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    auto axesType = llvm::dyn_cast<RankedTensorType>(axesInput.getType());
    int64_t rank = llvm::cast<RankedTensorType>(data.getType()).getRank();
    if (!axesType || axesType.getRank() != 1 || axesType.isDynamicDim(0) ||
        rank - axesType.getDimSize(0) != type.getRank())
      return rewriter.notifyMatchFailure(
          op, "run-time axes must have a static count matching the result");
    SmallVector<Value> isAxis =
        runtimeAxisMask(rewriter, loc, axesInput, axesType.getDimSize(0), rank);
    // position[i]: how many kept dims precede dim i.
    Value zero = indexConst(rewriter, loc, 0);
    SmallVector<Value> sizes(type.getRank(), zero);
    Value position = zero;
    for (int64_t i = 0; i < rank; ++i) {
      Value dim = dimValue(rewriter, loc, data, i);
      Value kept = rewriter.create<arith::XOrIOp>(
          loc, isAxis[i],
          rewriter.create<arith::ConstantOp>(loc, rewriter.getBoolAttr(true)));
      for (int64_t o = 0; o < type.getRank(); ++o) {
        Value here = rewriter.create<arith::AndIOp>(
            loc, kept,
            rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                           position,
                                           indexConst(rewriter, loc, o)));
        sizes[o] = rewriter.create<arith::SelectOp>(loc, here, dim, sizes[o]);
      }
      position = rewriter.create<arith::AddIOp>(
          loc, position,
          rewriter.create<arith::SelectOp>(loc, kept,
                                           indexConst(rewriter, loc, 1), zero));
    }
    rewriter.replaceOp(
        op, reshapeTo(rewriter, loc, data, type, getAsOpFoldResult(sizes)));
    return success();
  }
};

/// onnx.Unsqueeze -> tensor.expand_shape inserting unit dims at `axes`
/// (normalized against the output rank).
struct UnsqueezeLowering : OpConversionPattern<onnx::UnsqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::UnsqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !type)
      return failure();
    std::optional<SmallVector<int64_t>> axes =
        getConstantInts(adaptor.getAxes());
    if (!axes)
      return unsqueezeRuntimeAxes(op, adaptor.getAxes(), data, type, rewriter);
    int64_t rank = dataType.getRank() + axes->size();
    if (failed(normalizeAxes(op, *axes, rank)))
      return failure();
    if (type.getRank() != rank)
      return op.emitError() << "unsqueezing " << dataType << " gives rank "
                            << rank << ", not the rank of " << type;
    SmallVector<bool> unitDims(rank, false);
    for (int64_t axis : *axes)
      unitDims[axis] = true;
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> sizes;
    SmallVector<OpFoldResult> dataSizes = mixedDims(rewriter, loc, data);
    for (int64_t d = 0, next = 0; d < rank; ++d) {
      if (unitDims[d]) {
        shape.push_back(1);
        sizes.push_back(rewriter.getIndexAttr(1));
      } else {
        shape.push_back(dataType.getDimSize(next));
        sizes.push_back(dataSizes[next++]);
      }
    }
    auto expandedType = RankedTensorType::get(shape, dataType.getElementType());
    Value expanded =
        reshapeByUnitDims(rewriter, loc, data, expandedType, unitDims, sizes);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, expanded, type));
    return success();
  }

  /// Run-time axes: result dim o is 1 where an axis names it, else the next
  /// data dim; the sizes are computed at run time and the data is reshaped.
  static LogicalResult
  unsqueezeRuntimeAxes(onnx::UnsqueezeOp op, Value axesInput, Value data,
                       RankedTensorType type,
                       ConversionPatternRewriter &rewriter) {
    Location loc = op.getLoc();
    auto axesType = llvm::dyn_cast<RankedTensorType>(axesInput.getType());
    int64_t dataRank = llvm::cast<RankedTensorType>(data.getType()).getRank();
    if (!axesType || axesType.getRank() != 1 || axesType.isDynamicDim(0) ||
        dataRank + axesType.getDimSize(0) != type.getRank())
      return rewriter.notifyMatchFailure(
          op, "run-time axes must have a static count matching the result");
    int64_t rank = type.getRank();
    SmallVector<Value> isAxis =
        runtimeAxisMask(rewriter, loc, axesInput, axesType.getDimSize(0), rank);
    Value zero = indexConst(rewriter, loc, 0);
    Value one = indexConst(rewriter, loc, 1);
    SmallVector<Value> dataDims;
    for (int64_t i = 0; i < dataRank; ++i)
      dataDims.push_back(dimValue(rewriter, loc, data, i));
    SmallVector<OpFoldResult> sizes;
    Value next = zero; // the data dim the next non-axis result dim takes
    for (int64_t o = 0; o < rank; ++o) {
      Value size = one;
      for (int64_t i = 0; i < dataRank; ++i) {
        Value isNext = rewriter.create<arith::CmpIOp>(
            loc, arith::CmpIPredicate::eq, next, indexConst(rewriter, loc, i));
        size = rewriter.create<arith::SelectOp>(loc, isNext, dataDims[i], size);
      }
      sizes.push_back(
          rewriter.create<arith::SelectOp>(loc, isAxis[o], one, size)
              .getResult());
      next = rewriter.create<arith::AddIOp>(
          loc, next,
          rewriter.create<arith::SelectOp>(loc, isAxis[o], zero, one));
    }
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, data, type, sizes));
    return success();
  }
};

/// onnx.Transpose -> linalg.transpose (perm defaults to reversing the dims).
struct TransposeLowering : OpConversionPattern<onnx::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value data = adaptor.getData();
    auto dataType = llvm::dyn_cast<RankedTensorType>(data.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!dataType || !type)
      return failure();
    int64_t rank = dataType.getRank();
    SmallVector<int64_t> perm;
    if (std::optional<ArrayAttr> permAttr = op.getPerm()) {
      perm = getI64Array(permAttr, rank, 0);
    } else {
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    }
    SmallVector<bool> used(rank, false);
    bool valid = static_cast<int64_t>(perm.size()) == rank;
    for (int64_t p : perm) {
      valid = valid && p >= 0 && p < rank && !used[p];
      if (valid)
        used[p] = true;
    }
    if (!valid)
      return op.emitError()
             << "perm is not a permutation of the " << rank << " dims";
    if (llvm::equal(perm, llvm::seq<int64_t>(0, rank))) {
      rewriter.replaceOp(op, castIfNeeded(rewriter, loc, data, type));
      return success();
    }
    SmallVector<OpFoldResult> dataSizes = mixedDims(rewriter, loc, data);
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> sizes;
    for (int64_t p : perm) {
      shape.push_back(dataType.getDimSize(p));
      sizes.push_back(dataSizes[p]);
    }
    auto transposedType = dataType.clone(shape);
    Value init = emptyTensor(rewriter, loc, transposedType, sizes);
    Value transposed =
        rewriter.create<linalg::TransposeOp>(loc, data, init, perm)
            ->getResult(0);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, transposed, type));
    return success();
  }
};

/// onnx.Expand -> a linalg.generic broadcasting the input to
/// broadcast(input shape, shape). A dim is read with a constant 0 index when
/// it is statically 1; a dynamic input dim that may or may not broadcast
/// (the target is not known to be 1) is resolved at run time in the body.
struct ExpandLowering : OpConversionPattern<onnx::ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    auto shapeType =
        llvm::dyn_cast<RankedTensorType>(adaptor.getShape().getType());
    if (!inputType || !type || !shapeType || shapeType.getRank() != 1)
      return failure();
    std::optional<SmallVector<int64_t>> constShape =
        getConstantInts(adaptor.getShape());
    int64_t shapeLength =
        constShape ? constShape->size() : shapeType.getDimSize(0);
    if (ShapedType::isDynamic(shapeLength))
      return rewriter.notifyMatchFailure(op, "shape length must be static");
    int64_t rank = type.getRank();
    int64_t inputRank = inputType.getRank();
    if (rank != std::max(inputRank, shapeLength))
      return op.emitError() << "expanding " << inputType << " by a shape of "
                            << shapeLength << " values cannot give " << type;

    SmallVector<OpFoldResult> sizes;
    SmallVector<AffineExpr> inputExprs;
    SmallVector<std::optional<Value>> maybeBroadcast(inputRank);
    bool needsRuntimeBroadcast = false;
    // Sizes only checked at run time: (size, expected size, whether a size
    // of 1 also passes).
    SmallVector<std::tuple<Value, Value, bool>> checks;
    SmallVector<Value> inSizes(inputRank);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t inDim = d - (rank - inputRank);
      int64_t shapeIndex = d - (rank - shapeLength);
      std::optional<int64_t> target;
      Value targetValue;
      if (shapeIndex >= 0) {
        if (constShape) {
          target = (*constShape)[shapeIndex];
          targetValue = indexConst(rewriter, loc, *target);
        } else {
          targetValue =
              extractAsIndex(rewriter, loc, adaptor.getShape(), shapeIndex);
        }
      }
      // The output size: the target unless it is 1 (then the input's).
      Value size;
      if (inDim < 0) {
        size = targetValue;
      } else {
        Value inSize = dimValue(rewriter, loc, input, inDim);
        inSizes[inDim] = inSize;
        if (!targetValue) {
          size = inSize;
        } else {
          Value isOne = rewriter.createOrFold<arith::CmpIOp>(
              loc, arith::CmpIPredicate::eq, targetValue,
              indexConst(rewriter, loc, 1));
          size = rewriter.createOrFold<arith::SelectOp>(loc, isOne, inSize,
                                                        targetValue);
        }
        if (target && *target != 1 && !inputType.isDynamicDim(inDim) &&
            inputType.getDimSize(inDim) != 1 &&
            inputType.getDimSize(inDim) != *target)
          return op.emitError()
                 << "cannot expand dim " << inDim << " of size "
                 << inputType.getDimSize(inDim) << " to " << *target;
        // How the input dim is read.
        if (!inputType.isDynamicDim(inDim)) {
          inputExprs.push_back(inputType.getDimSize(inDim) == 1
                                   ? rewriter.getAffineConstantExpr(0)
                                   : rewriter.getAffineDimExpr(d));
        } else if (!targetValue || (target && *target == 1)) {
          inputExprs.push_back(rewriter.getAffineDimExpr(d));
        } else {
          inputExprs.push_back(rewriter.getAffineDimExpr(d));
          maybeBroadcast[inDim] = rewriter.createOrFold<arith::CmpIOp>(
              loc, arith::CmpIPredicate::eq, inSize,
              indexConst(rewriter, loc, 1));
          needsRuntimeBroadcast = true;
        }
      }
      sizes.push_back(type.isDynamicDim(d) ? getAsOpFoldResult(size)
                                           : OpFoldResult(rewriter.getIndexAttr(
                                                 type.getDimSize(d))));
      // The input dim must be 1 or the run-time size, and that size must be
      // the result type's where it is static: known at compile time unless
      // the input dim or the shape value is dynamic (a static 1 always is).
      if (inDim >= 0 && inputType.getDimSize(inDim) != 1 &&
          (inputType.isDynamicDim(inDim) || !target || type.isDynamicDim(d))) {
        if (size != inSizes[inDim])
          checks.emplace_back(inSizes[inDim], size, true);
        if (!type.isDynamicDim(d))
          checks.emplace_back(
              size, indexConst(rewriter, loc, type.getDimSize(d)), false);
      }
    }

    // numpy's rule at run time: report a mismatch (naming the node) and
    // produce zeros instead of reading out of bounds.
    Value allValid;
    Value one = indexConst(rewriter, loc, 1);
    for (auto [inSize, outSize, oneBroadcasts] : checks) {
      Value valid = rewriter.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::eq, inSize, outSize);
      if (oneBroadcasts)
        valid = rewriter.createOrFold<arith::OrIOp>(
            loc, valid,
            rewriter.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                                 inSize, one));
      if (matchPattern(valid, m_One()))
        continue;
      emitShapeErrorIf(
          rewriter, loc,
          rewriter.create<arith::XOrIOp>(loc, valid,
                                         rewriter.create<arith::ConstantIntOp>(
                                             loc, 1, rewriter.getI1Type())),
          ShapeErrorKind::Broadcast, inSize, outSize);
      allValid = allValid ? rewriter.create<arith::AndIOp>(loc, allValid, valid)
                          : valid;
    }
    OpBuilder::InsertionGuard guard(rewriter);
    scf::IfOp guarded;
    if (allValid) {
      guarded = rewriter.create<scf::IfOp>(loc, TypeRange{type}, allValid,
                                           /*withElseRegion=*/true);
      rewriter.setInsertionPointToStart(guarded.elseBlock());
      Value zeros = zeroTensor(rewriter, loc, sizes, type.getElementType());
      rewriter.create<scf::YieldOp>(loc,
                                    castIfNeeded(rewriter, loc, zeros, type));
      rewriter.setInsertionPointToStart(guarded.thenBlock());
    }

    Value init = emptyTensor(rewriter, loc, type, sizes);
    Value result;
    if (!needsRuntimeBroadcast) {
      auto map = AffineMap::get(rank, 0, inputExprs, rewriter.getContext());
      result = buildIndexedGeneric(rewriter, loc, init, input, map,
                                   [](OpBuilder &, Location, ValueRange,
                                      ValueRange args) { return args[0]; });
    } else {
      Value zero = indexConst(rewriter, loc, 0);
      result = buildIndexedGeneric(
          rewriter, loc, init, {}, {},
          [&](OpBuilder &b, Location nestedLoc, ValueRange ivs, ValueRange) {
            SmallVector<Value> indices;
            for (int64_t i = 0; i < inputRank; ++i) {
              int64_t d = i + (rank - inputRank);
              Value index = ivs[d];
              if (maybeBroadcast[i])
                index = b.create<arith::SelectOp>(nestedLoc, *maybeBroadcast[i],
                                                  zero, index);
              else if (!inputType.isDynamicDim(i) &&
                       inputType.getDimSize(i) == 1)
                index = zero;
              indices.push_back(index);
            }
            return b.create<tensor::ExtractOp>(nestedLoc, input, indices)
                .getResult();
          });
    }
    if (guarded) {
      rewriter.create<scf::YieldOp>(loc, result);
      result = guarded.getResult(0);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// onnx.Tile -> linalg.broadcast of the input into (r0, d0, r1, d1, ...)
/// (repeat r_i before each dim d_i), collapsed pairwise into (r0*d0, ...).
struct TileLowering : OpConversionPattern<onnx::TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!inputType || !type)
      return failure();
    int64_t rank = inputType.getRank();
    if (type.getRank() != rank)
      return op.emitError() << "Tile changes the rank";
    std::optional<SmallVector<int64_t>> constRepeats =
        getConstantInts(adaptor.getRepeats());
    if (constRepeats) {
      if (static_cast<int64_t>(constRepeats->size()) != rank)
        return op.emitError() << "repeats has " << constRepeats->size()
                              << " values for rank " << rank;
      if (llvm::any_of(*constRepeats, [](int64_t r) { return r < 0; }))
        return op.emitError() << "repeats must not be negative";
    }
    if (rank == 0 ||
        (constRepeats &&
         llvm::all_of(*constRepeats, [](int64_t r) { return r == 1; }))) {
      rewriter.replaceOp(op, castIfNeeded(rewriter, loc, input, type));
      return success();
    }
    SmallVector<OpFoldResult> repeats =
        readIntsAsIndex(rewriter, loc, adaptor.getRepeats(), rank);
    // A negative run-time repeat would size a buffer negatively.
    for (OpFoldResult &repeat : repeats)
      if (auto value = llvm::dyn_cast<Value>(repeat))
        repeat = rewriter.createOrFold<arith::MaxSIOp>(
            loc, value, indexConst(rewriter, loc, 0));
    SmallVector<OpFoldResult> inputSizes = mixedDims(rewriter, loc, input);
    SmallVector<int64_t> shape;
    SmallVector<OpFoldResult> sizes;
    SmallVector<int64_t> repeatDims;
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < rank; ++d) {
      std::optional<int64_t> repeat = getConstantIntValue(repeats[d]);
      repeatDims.push_back(2 * d);
      groups.push_back({2 * d, 2 * d + 1});
      shape.push_back(repeat ? *repeat : ShapedType::kDynamic);
      shape.push_back(inputType.getDimSize(d));
      sizes.push_back(repeats[d]);
      sizes.push_back(inputSizes[d]);
    }
    Value init = emptyTensor(rewriter, loc, inputType.clone(shape), sizes);
    Value tiled =
        rewriter.create<linalg::BroadcastOp>(loc, input, init, repeatDims)
            ->getResult(0);
    Value collapsed =
        rewriter.create<tensor::CollapseShapeOp>(loc, tiled, groups);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, collapsed, type));
    return success();
  }
};

/// Moves blocks between the channel and the spatial dims of an NCHW tensor:
/// an expand_shape splitting two or one dims by the block size, a
/// transposing copy, and a collapse_shape merging them back. `expandGroups`
/// and `expandedSizes` describe the 6-D view, `perm` the transpose and
/// `collapseGroups` the 4-D result. The copy's loops run over the expanded
/// dims in `loopOrder`, outermost first, or in the result's order when it
/// is empty: the order whose innermost loop is long (a row of W), not a
/// block dim of b (2) iterations.
static Value blockShuffle(OpBuilder &b, Location loc, Value input,
                          ArrayRef<ReassociationIndices> expandGroups,
                          ArrayRef<OpFoldResult> expandedSizes,
                          ArrayRef<int64_t> perm,
                          ArrayRef<ReassociationIndices> collapseGroups,
                          ArrayRef<int64_t> loopOrder = {}) {
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  auto expandedType = inputType.clone(
      llvm::to_vector(llvm::map_range(expandedSizes, [](OpFoldResult size) {
        return getConstantIntValue(size).value_or(ShapedType::kDynamic);
      })));
  Value expanded = b.create<tensor::ExpandShapeOp>(loc, expandedType, input,
                                                   expandGroups, expandedSizes);
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  for (int64_t p : perm) {
    shape.push_back(expandedType.getDimSize(p));
    sizes.push_back(expandedSizes[p]);
  }
  Value init = emptyTensor(b, loc, inputType.clone(shape), sizes);
  Value transposed;
  if (loopOrder.empty()) {
    transposed =
        b.create<linalg::TransposeOp>(loc, expanded, init, perm)->getResult(0);
  } else {
    // Loop k runs over expanded dim loopOrder[k].
    unsigned rank = perm.size();
    SmallVector<unsigned> loopOf(rank);
    for (auto [k, dim] : llvm::enumerate(loopOrder))
      loopOf[dim] = k;
    SmallVector<AffineExpr> in, out;
    for (unsigned dim = 0; dim < rank; ++dim)
      in.push_back(b.getAffineDimExpr(loopOf[dim]));
    for (int64_t p : perm)
      out.push_back(b.getAffineDimExpr(loopOf[p]));
    transposed =
        b.create<linalg::GenericOp>(
             loc, init.getType(), expanded, init,
             ArrayRef<AffineMap>{AffineMap::get(rank, 0, in, b.getContext()),
                                 AffineMap::get(rank, 0, out, b.getContext())},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [](OpBuilder &nb, Location nloc, ValueRange args) {
               nb.create<linalg::YieldOp>(nloc, args[0]);
             })
            .getResult(0);
  }
  return b.create<tensor::CollapseShapeOp>(loc, transposed, collapseGroups);
}

/// Reads the NCHW dims of DepthToSpace/SpaceToDepth's input; fails with an
/// error on the node unless it is 4-D and each static dim is a multiple of
/// its `factors` entry.
static LogicalResult readBlockDims(Operation *op, OpBuilder &b, Value input,
                                   int64_t blockSize, ArrayRef<int64_t> factors,
                                   SmallVectorImpl<OpFoldResult> &dims) {
  auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
  if (!inputType || inputType.getRank() != 4)
    return op->emitError() << "the input must be 4-D (NCHW)";
  if (blockSize < 1)
    return op->emitError() << "blocksize must be positive";
  for (int64_t d = 0; d < 4; ++d)
    if (!inputType.isDynamicDim(d) && inputType.getDimSize(d) % factors[d] != 0)
      return op->emitError()
             << "dim " << d << " of size " << inputType.getDimSize(d)
             << " is not a multiple of " << factors[d];
  dims = mixedDims(b, op->getLoc(), input);
  return success();
}

/// `size` / `divisor` as an OpFoldResult (folded when static).
static OpFoldResult divideSize(OpBuilder &b, Location loc, OpFoldResult size,
                               int64_t divisor) {
  return getAsOpFoldResult(b.createOrFold<arith::DivUIOp>(
      loc, toValue(b, loc, size), indexConst(b, loc, divisor)));
}

/// onnx.DepthToSpace: (N, C, H, W) -> (N, C/b^2, H*b, W*b). DCR splits C as
/// (b, b, C/b^2), CRD as (C/b^2, b, b).
struct DepthToSpaceLowering : OpConversionPattern<onnx::DepthToSpaceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::DepthToSpaceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!type)
      return failure();
    bool dcr = op.getMode() == "DCR";
    if (!dcr && op.getMode() != "CRD")
      return op.emitError() << "unknown mode '" << op.getMode() << "'";
    int64_t block = op.getBlocksize();
    SmallVector<OpFoldResult> dims;
    if (failed(readBlockDims(op, rewriter, input, block,
                             {1, block * block, 1, 1}, dims)))
      return failure();
    OpFoldResult blockSize = rewriter.getIndexAttr(block);
    OpFoldResult depth = divideSize(rewriter, loc, dims[1], block * block);
    SmallVector<OpFoldResult> expanded = {dims[0]};
    if (dcr)
      expanded.append({blockSize, blockSize, depth});
    else
      expanded.append({depth, blockSize, blockSize});
    expanded.append({dims[2], dims[3]});
    SmallVector<int64_t> perm = dcr ? SmallVector<int64_t>{0, 3, 4, 1, 5, 2}
                                    : SmallVector<int64_t>{0, 1, 4, 2, 5, 3};
    // Loops (n, d, h, i, j, w): W, a row of one input plane, innermost.
    SmallVector<int64_t> loops = dcr ? SmallVector<int64_t>{0, 3, 4, 1, 2, 5}
                                     : SmallVector<int64_t>{0, 1, 4, 2, 3, 5};
    Value result =
        blockShuffle(rewriter, loc, input, {{0}, {1, 2, 3}, {4}, {5}}, expanded,
                     perm, {{0}, {1}, {2, 3}, {4, 5}}, loops);
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, type));
    return success();
  }
};

/// onnx.SpaceToDepth: (N, C, H, W) -> (N, C*b^2, H/b, W/b), the inverse
/// shuffle (DCR puts the block offsets before C, CRD after).
struct SpaceToDepthLowering : OpConversionPattern<onnx::SpaceToDepthOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::SpaceToDepthOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!type)
      return failure();
    bool dcr = op.getMode() == "DCR";
    if (!dcr && op.getMode() != "CRD")
      return op.emitError() << "unknown mode '" << op.getMode() << "'";
    int64_t block = op.getBlocksize();
    SmallVector<OpFoldResult> dims;
    if (failed(readBlockDims(op, rewriter, input, block, {1, 1, block, block},
                             dims)))
      return failure();
    OpFoldResult blockSize = rewriter.getIndexAttr(block);
    SmallVector<OpFoldResult> expanded = {
        dims[0],
        dims[1],
        divideSize(rewriter, loc, dims[2], block),
        blockSize,
        divideSize(rewriter, loc, dims[3], block),
        blockSize};
    SmallVector<int64_t> perm = dcr ? SmallVector<int64_t>{0, 3, 5, 1, 2, 4}
                                    : SmallVector<int64_t>{0, 1, 3, 5, 2, 4};
    Value result =
        blockShuffle(rewriter, loc, input, {{0}, {1}, {2, 3}, {4, 5}}, expanded,
                     perm, {{0}, {1, 2, 3}, {4}, {5}});
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, result, type));
    return success();
  }
};

} // namespace

void populateDataMovementReshapePatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<ReshapeLowering, FlattenLowering, SqueezeLowering,
               UnsqueezeLowering, TransposeLowering, ExpandLowering,
               TileLowering, DepthToSpaceLowering, SpaceToDepthLowering>(
      converter, patterns.getContext());
}

} // namespace onnxc::cpu
