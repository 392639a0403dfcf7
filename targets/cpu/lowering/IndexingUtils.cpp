//===- IndexingUtils.cpp - Helpers for the shape-moving lowerings ---------===//

#include "targets/cpu/lowering/IndexingUtils.h"

#include "compiler/dialect/OnnxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace onnxc::cpu {

bool isNoneValue(Value value) {
  return !value || llvm::isa<NoneType>(value.getType());
}

SmallVector<int64_t> getI64Array(std::optional<ArrayAttr> attr, size_t size,
                                 int64_t defaultValue) {
  if (!attr || !*attr)
    return SmallVector<int64_t>(size, defaultValue);
  SmallVector<int64_t> values;
  for (Attribute a : *attr)
    values.push_back(llvm::cast<IntegerAttr>(a).getInt());
  return values;
}

/// Looks through conversion casts (the type converter's materializations).
static Value stripCasts(Value value) {
  while (auto cast = value.getDefiningOp<UnrealizedConversionCastOp>()) {
    if (cast.getInputs().size() != 1)
      break;
    value = cast.getInputs()[0];
  }
  return value;
}

std::optional<SmallVector<int64_t>> getConstantInts(Value value) {
  value = stripCasts(value);
  if (!value)
    return std::nullopt;
  Attribute attr;
  if (auto constant = value.getDefiningOp<onnx::ConstantOp>())
    attr = constant.getValueAttr();
  else if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    attr = constant.getValue();
  auto dense = llvm::dyn_cast_or_null<DenseIntElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  bool isUnsigned = dense.getElementType().isUnsignedInteger();
  SmallVector<int64_t> values;
  for (const APInt &v : dense.getValues<APInt>())
    values.push_back(isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                                : v.getSExtValue());
  return values;
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

Value dimValue(OpBuilder &b, Location loc, Value tensor, int64_t dim) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return indexConst(b, loc, type.getDimSize(dim));
  return b.create<tensor::DimOp>(loc, tensor, dim);
}

SmallVector<OpFoldResult> mixedDims(OpBuilder &b, Location loc, Value tensor) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  SmallVector<OpFoldResult> dims;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (type.isDynamicDim(d))
      dims.push_back(b.create<tensor::DimOp>(loc, tensor, d).getResult());
    else
      dims.push_back(b.getIndexAttr(type.getDimSize(d)));
  }
  return dims;
}

Value extractAsIndex(OpBuilder &b, Location loc, Value tensor, int64_t i) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> indices;
  if (type.getRank() > 0)
    indices.push_back(indexConst(b, loc, i));
  Value element = b.create<tensor::ExtractOp>(loc, tensor, indices);
  return b.create<arith::IndexCastOp>(loc, b.getIndexType(), element);
}

SmallVector<OpFoldResult> readIntsAsIndex(OpBuilder &b, Location loc,
                                          Value tensor, int64_t count) {
  SmallVector<OpFoldResult> values;
  if (std::optional<SmallVector<int64_t>> constant = getConstantInts(tensor)) {
    for (int64_t v : *constant)
      values.push_back(b.getIndexAttr(v));
    return values;
  }
  for (int64_t i = 0; i < count; ++i)
    values.push_back(extractAsIndex(b, loc, tensor, i));
  return values;
}

Value toValue(OpBuilder &b, Location loc, OpFoldResult ofr) {
  return getValueOrCreateConstantIndexOp(b, loc, ofr);
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                  ArrayRef<OpFoldResult> sizes) {
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamicSizes.push_back(toValue(b, loc, sizes[d]));
  return b.create<tensor::EmptyOp>(loc, type.getShape(), type.getElementType(),
                                   dynamicSizes);
}

SmallVector<int64_t> staticShapeOf(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return shape;
}

Value zeroTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                 Type element) {
  Value empty = emptyTensor(
      b, loc, RankedTensorType::get(staticShapeOf(sizes), element), sizes);
  return b.create<linalg::FillOp>(loc, zeroScalar(b, loc, element), empty)
      .getResult(0);
}

Value zeroScalar(OpBuilder &b, Location loc, Type type) {
  return b.create<arith::ConstantOp>(loc, type, b.getZeroAttr(type));
}

Value scalarConst(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = llvm::dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(loc, type,
                                       b.getFloatAttr(floatType, value));
  if (type.isIndex())
    return indexConst(b, loc, static_cast<int64_t>(value));
  return b.create<arith::ConstantOp>(
      loc, type, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value castIfNeeded(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return b.create<tensor::CastOp>(loc, type, value);
}

Value reshapeByUnitDims(OpBuilder &b, Location loc, Value source,
                        RankedTensorType resultType, ArrayRef<bool> unitDims,
                        ArrayRef<OpFoldResult> resultSizes) {
  auto sourceType = llvm::cast<RankedTensorType>(source.getType());
  bool expanding = resultType.getRank() > sourceType.getRank();
  // Group each kept dim with the unit dims that precede it; trailing unit
  // dims join the last group. A rank-0 side has no groups.
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  int64_t highRank = unitDims.size();
  for (int64_t d = 0; d < highRank; ++d) {
    pending.push_back(d);
    if (!unitDims[d]) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!pending.empty() && !groups.empty())
    groups.back().append(pending.begin(), pending.end());
  if (expanding)
    return b.create<tensor::ExpandShapeOp>(loc, resultType, source, groups,
                                           resultSizes);
  return b.create<tensor::CollapseShapeOp>(loc, resultType, source, groups);
}

Value reshapeTo(OpBuilder &b, Location loc, Value source,
                RankedTensorType resultType,
                ArrayRef<OpFoldResult> resultSizes) {
  auto sourceType = llvm::cast<RankedTensorType>(source.getType());
  // Equal types are the same shape only when static (?x? may be reshaped to
  // another ?x?).
  if (sourceType == resultType && sourceType.hasStaticShape())
    return source;
  // Static shapes: a collapse/expand when one exists (no copy after
  // bufferization), computed by MLIR's reassociation helper.
  if (sourceType.hasStaticShape() && resultType.hasStaticShape()) {
    if (sourceType.getRank() > resultType.getRank()) {
      if (auto groups = getReassociationIndicesForCollapse(
              sourceType.getShape(), resultType.getShape()))
        return b.create<tensor::CollapseShapeOp>(loc, resultType, source,
                                                 *groups);
    } else if (sourceType.getRank() < resultType.getRank()) {
      if (auto groups = getReassociationIndicesForCollapse(
              resultType.getShape(), sourceType.getShape()))
        return b.create<tensor::ExpandShapeOp>(loc, resultType, source,
                                               *groups);
    }
  }
  // Otherwise tensor.reshape with a shape tensor built from the sizes.
  SmallVector<Value> sizes;
  for (OpFoldResult size : resultSizes)
    sizes.push_back(b.create<arith::IndexCastOp>(loc, b.getI64Type(),
                                                 toValue(b, loc, size)));
  auto shapeType =
      RankedTensorType::get({resultType.getRank()}, b.getI64Type());
  Value shape = b.create<tensor::FromElementsOp>(loc, shapeType, sizes);
  return b.create<tensor::ReshapeOp>(loc, resultType, source, shape);
}

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

RankedTensorType convertedResultType(const TypeConverter &converter,
                                     Operation *op, unsigned i) {
  auto type = llvm::dyn_cast_or_null<RankedTensorType>(
      converter.convertType(op->getResult(i).getType()));
  if (!type)
    op->emitError() << "result " << i
                    << " has no ranked tensor type after shape inference";
  return type;
}

bool isUnsignedElement(Value value) {
  auto shaped = llvm::dyn_cast<ShapedType>(value.getType());
  Type element = shaped ? shaped.getElementType() : value.getType();
  return element.isUnsignedInteger();
}

} // namespace onnxc::cpu
