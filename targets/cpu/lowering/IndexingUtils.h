//===- IndexingUtils.h - Helpers for the shape-moving lowerings -*- C++ -*-===//
//
// Small builders shared by the MatMul, Conv, Pooling and data-movement
// lowerings: reading dims as index values, reading constant or run-time
// integer inputs (axes, pads, shapes), making initialized output tensors and
// reshaping by unit dims. Everything builds arith/tensor/linalg ops only.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_INDEXINGUTILS_H
#define ONNXC_TARGETS_CPU_LOWERING_INDEXINGUTILS_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Transforms/DialectConversion.h"

#include <optional>

namespace onnxc::cpu {

/// True when `value` is absent: null or of type `none` (an omitted optional
/// ONNX input).
bool isNoneValue(mlir::Value value);

/// Reads an optional I64 array attribute; `defaultValue` repeated `size` times
/// when absent.
llvm::SmallVector<int64_t> getI64Array(std::optional<mlir::ArrayAttr> attr,
                                       size_t size, int64_t defaultValue);

/// The integer values of `value` when it is a compile-time constant (an
/// onnx.Constant or arith.constant, possibly behind a conversion cast).
std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::Value value);

/// An `index` constant.
mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// The size of dim `dim` of a ranked tensor as an `index` value (a constant
/// when static).
mlir::Value dimValue(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor,
                     int64_t dim);

/// All dims of a ranked tensor as OpFoldResults (attributes when static).
llvm::SmallVector<mlir::OpFoldResult> mixedDims(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::Value tensor);

/// Element `i` of a 1-D (or 0-D when i == 0) integer tensor, cast to index.
mlir::Value extractAsIndex(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value tensor, int64_t i);

/// Values `i` of a 1-D integer input as OpFoldResults: attributes when it is
/// a constant, run-time tensor.extract values otherwise.
llvm::SmallVector<mlir::OpFoldResult>
readIntsAsIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value tensor,
                int64_t count);

/// Converts an OpFoldResult to an index Value (materializing constants).
mlir::Value toValue(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::OpFoldResult ofr);

/// tensor.empty of `type`, whose dynamic sizes are taken from `sizes` (one
/// per dim; static dims of `type` win).
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type,
                        llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// The static shape `sizes` describe: each constant size, kDynamic for the
/// others.
llvm::SmallVector<int64_t> staticShapeOf(llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// A tensor of `sizes` and `element` type filled with zeros (tensor.empty +
/// linalg.fill).
mlir::Value zeroTensor(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::ArrayRef<mlir::OpFoldResult> sizes,
                       mlir::Type element);

/// A zero (or, for floats, +0.0) of `type`.
mlir::Value zeroScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type);

/// An arith constant of scalar `type` holding `value` (converted: float or
/// integer).
mlir::Value scalarConst(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Type type, double value);

/// tensor.cast to `type` when `value` has a different (compatible) type.
mlir::Value castIfNeeded(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value value, mlir::Type type);

/// Reshapes `source` to `resultType` when the two differ only by unit dims:
/// `unitDims` marks, in the higher-rank shape, the dims that are absent in
/// the lower-rank one. Emits tensor.collapse_shape or tensor.expand_shape.
mlir::Value reshapeByUnitDims(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value source,
                              mlir::RankedTensorType resultType,
                              llvm::ArrayRef<bool> unitDims,
                              llvm::ArrayRef<mlir::OpFoldResult> resultSizes);

/// Reshapes `source` to `resultType` whose sizes are `resultSizes`: a
/// collapse/expand when the static shapes allow it, otherwise tensor.reshape
/// with a run-time shape tensor.
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value source,
                      mlir::RankedTensorType resultType,
                      llvm::ArrayRef<mlir::OpFoldResult> resultSizes);

/// Normalizes a possibly negative axis into [0, rank).
int64_t normalizeAxis(int64_t axis, int64_t rank);

/// The converted result type of `op`'s result `i` as a ranked tensor type, or
/// null (with an error naming the node) when it is not one.
mlir::RankedTensorType
convertedResultType(const mlir::TypeConverter &converter, mlir::Operation *op,
                    unsigned i = 0);

/// Whether the ONNX element type of `value` (before conversion) is unsigned.
bool isUnsignedElement(mlir::Value value);

// Sub-families of populateDataMovementPatterns (DataMovement*.cpp).
void populateDataMovementReshapePatterns(const mlir::TypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);
void populateDataMovementSlicePatterns(const mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_INDEXINGUTILS_H
