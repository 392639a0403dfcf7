//===- FusionUtils.h - Matching helpers of the fusion passes ----*- C++ -*-===//
//
// Small queries the fusion patterns share: constants seen through Identity,
// scalar constants, single-use intermediates, broadcast checks, and creating
// onnx.Constant / onnx.NoValue ops.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_PASSES_FUSION_FUSIONUTILS_H
#define ONNXC_PASSES_FUSION_FUSIONUTILS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LogicalResult.h"

#include <optional>

namespace onnxc::fusion {

/// `value` with any chain of onnx.Identity ops skipped.
mlir::Value skipIdentity(mlir::Value value);

/// The value of an onnx.Constant (through Identity) of any element type.
mlir::DenseElementsAttr getConstant(mlir::Value value);

/// The value of an onnx.Constant (through Identity) with float elements.
mlir::DenseFPElementsAttr getFloatConstant(mlir::Value value);

/// The value of a float constant all of whose elements are equal (a splat,
/// or a one-element tensor).
std::optional<double> getScalarConstant(mlir::Value value);

/// Whether `value` is a constant scalar within a relative 1e-4 of
/// `expected` (exporters write sqrt(2), 1/sqrt(2), ... rounded to f32).
bool isScalarConstant(mlir::Value value, double expected);

/// A ranked tensor of f16, bf16, f32 or f64: the fusions only rewrite float
/// arithmetic.
mlir::RankedTensorType getFloatTensorType(mlir::Value value);

/// Whether `value` has exactly one use (an intermediate a fusion removes).
bool hasSingleUse(mlir::Value value);

/// The operand of binary op `op` other than `value`, or null if `value` is
/// not an operand.
mlir::Value getOtherOperand(mlir::Operation *op, mlir::Value value);

/// Whether `op` is the onnx op `name` ("Add").
bool isOnnxOp(mlir::Operation *op, llvm::StringRef name);

/// The single user of `value` if it is the onnx op `name`, else null.
mlir::Operation *getSingleUserOp(mlir::Value value, llvm::StringRef name);

/// Whether an operand of type `operand` broadcasts onto `result` (numpy
/// rules, right-aligned) without growing it: rank <= result's and every dim
/// is 1 or equal to the result's static dim.
bool broadcastsInto(mlir::RankedTensorType operand,
                    mlir::RankedTensorType result);

/// Creates an onnx.Constant holding `value`.
mlir::Value createConstant(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::DenseElementsAttr value);

/// Creates an onnx.NoValue (an omitted optional input).
mlir::Value createNoValue(mlir::OpBuilder &b, mlir::Location loc);

/// A float elements attribute of `type` from doubles (rounded to the element
/// type), or null for an element type other than f32/f64.
mlir::DenseElementsAttr getFloatElements(mlir::RankedTensorType type,
                                         llvm::ArrayRef<double> values);

/// The elements of a float constant as doubles.
llvm::SmallVector<double> getDoubles(mlir::DenseFPElementsAttr attr);

/// Applies `patterns` greedily to `op` (a function) without region
/// simplification: the fusion passes only rewrite dataflow. Reports the
/// number of successful rewrites as `counter` of pass `passArgument` for
/// --print-pass-stats (passes/RewriteCounts.h).
mlir::LogicalResult applyFusionPatterns(mlir::Operation *op,
                                        mlir::RewritePatternSet &&patterns,
                                        llvm::StringRef passArgument,
                                        llvm::StringRef counter);

} // namespace onnxc::fusion

#endif // ONNXC_PASSES_FUSION_FUSIONUTILS_H
