//===- ElementwisePattern.h - One pattern for elementwise ops ---*- C++ -*-===//
//
// The conversion pattern behind Elementwise.cpp and ElementwiseBinary.cpp:
// an ONNX op whose result is a function of the (broadcast) elements of its
// operands becomes one linalg.generic. Each op registers the element types
// it takes and a scalar body builder.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_ELEMENTWISEPATTERN_H
#define ONNXC_TARGETS_CPU_LOWERING_ELEMENTWISEPATTERN_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

#include <functional>

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace onnxc::cpu {

/// Element type classes an elementwise lowering accepts, as a bit set.
enum ElementKinds : unsigned {
  kFloat = 1,
  kSignedInt = 2,
  kUnsignedInt = 4,
  kBool = 8,
  kInt = kSignedInt | kUnsignedInt,
  kSignedNumeric = kFloat | kSignedInt,
  kNumeric = kFloat | kInt,
  kAnyElement = kNumeric | kBool,
};

/// Whether ONNX element type `type` is in `kinds`.
bool isElementKind(mlir::Type type, unsigned kinds);

/// The ONNX element type of `value` (before type conversion).
mlir::Type onnxElementType(mlir::Value value);

/// Builds the scalar result of `op` from its operands' elements. Half-float
/// operands arrive extended to f32 (unless the spec says otherwise) and a
/// float result is rounded back to the result's element type afterwards.
using ElementwiseBody = std::function<mlir::Value(
    mlir::Operation *op, mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// Extra match condition on attributes; fails to match with a reason.
using ElementwiseCheck =
    std::function<mlir::LogicalResult(mlir::Operation *op, std::string &why)>;

/// How one ONNX op lowers elementwise.
struct ElementwiseSpec {
  /// The ONNX op name, e.g. "onnx.Add".
  llvm::StringRef opName;
  /// Accepted element types of the operand `kindsOperand`.
  unsigned kinds = kAnyElement;
  unsigned kindsOperand = 0;
  /// Operands from this index on must share one element type (none when
  /// past the end).
  unsigned sameTypeFrom = 0;
  /// Whether the result is bool (comparisons), else it has the element type
  /// of operand `sameTypeFrom`.
  bool boolResult = false;
  /// Whether half-float operands are extended to f32 for the body.
  bool promoteHalf = true;
  ElementwiseBody body;
  ElementwiseCheck check = nullptr;
};

/// Adds the pattern lowering `spec.opName` as described.
void addElementwisePattern(const mlir::TypeConverter &typeConverter,
                           mlir::RewritePatternSet &patterns,
                           ElementwiseSpec spec);

/// Binary, variadic and selection ops (ElementwiseBinary.cpp).
void populateElementwiseBinaryPatterns(const mlir::TypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_ELEMENTWISEPATTERN_H
