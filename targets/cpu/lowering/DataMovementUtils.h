//===- DataMovementUtils.h - Index arithmetic for data movement -*- C++ -*-===//
//
// Helpers shared by the DataMovement*.cpp lowerings only: ONNX index rules
// (negative indices, clamping) on `index` values, folded when constant, and a
// linalg.generic whose body computes its element from the iteration indices
// (gathers, reversed slices, Pad's edge/reflect/wrap modes).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_DATAMOVEMENTUTILS_H
#define ONNXC_TARGETS_CPU_LOWERING_DATAMOVEMENTUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace onnxc::cpu {

/// `index < 0 ? index + size : index`: ONNX's negative indices count from
/// the end. Folds when both are constants.
mlir::Value wrapNegativeIndex(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value index, mlir::Value size);

/// min(max(value, lo), hi) on signed index values.
mlir::Value clampIndex(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, mlir::Value lo, mlir::Value hi);

/// An element index read at run time clamped into [0, size - 1], so a bad
/// index in the data never reads outside the buffer.
mlir::Value clampIntoBounds(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value index, mlir::Value size);

/// The remainder of `value` by `divisor` with the divisor's sign (Python's %),
/// for a positive divisor; a zero divisor gives 0 instead of trapping.
mlir::Value floorModIndex(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, mlir::Value divisor);

/// Builds the body of an indexed generic: gets the iteration indices and the
/// input elements, returns the element to store.
using IndexedBodyBuilder = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange ivs,
    mlir::ValueRange args)>;

/// An all-parallel linalg.generic over the iteration space of `init` (which
/// it overwrites), reading `inputs` through `inputMaps`.
mlir::Value buildIndexedGeneric(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value init, mlir::ValueRange inputs,
                                llvm::ArrayRef<mlir::AffineMap> inputMaps,
                                IndexedBodyBuilder body);

/// Normalizes the possibly negative `axes` against `rank`; emits an error on
/// `op` and fails when one is out of range or repeated.
mlir::LogicalResult normalizeAxes(mlir::Operation *op,
                                  llvm::SmallVectorImpl<int64_t> &axes,
                                  int64_t rank);

/// Run-time axis `i` of the 1-D integer input `axes`, a negative value
/// counted from `rank`, clamped into [0, rank) (an out-of-range axis is
/// invalid ONNX; it must only never index outside the dims).
mlir::Value runtimeAxis(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value axes, int64_t i, int64_t rank);

/// The scalar element of a 0-D or one-element 1-D tensor (a run-time scalar
/// input such as Range's start or Pad's constant_value).
mlir::Value extractScalar(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value tensor);

// Sub-families of populateDataMovementPatterns besides the two in
// IndexingUtils.h.
/// Trilu, OneHot (DataMovementMask.cpp).
void populateDataMovementMaskPatterns(const mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);
/// ScatterElements, ScatterND, TensorScatter (DataMovementScatter.cpp).
void populateDataMovementScatterPatterns(const mlir::TypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_DATAMOVEMENTUTILS_H
