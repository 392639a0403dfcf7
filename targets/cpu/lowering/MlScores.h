//===- MlScores.h - post_transform and attributes of ai.onnx.ml scorers ---===//
//
// What the ai.onnx.ml scoring ops (the tree ensembles, the SVMs) share: their
// string attributes, and post_transform computed as ONNX Runtime computes it
// (its logistic, softmax and SOFTMAX_ZERO, in f32), since the spec leaves
// the exact formulas open.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_MLSCORES_H
#define ONNXC_TARGETS_CPU_LOWERING_MLSCORES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace onnxc::cpu::ml {

enum class Transform { kNone, kLogistic, kSoftmax, kSoftmaxZero, kProbit };

/// A STRING attribute, `fallback` when absent.
llvm::StringRef stringAttr(mlir::Operation *op, llvm::StringRef name,
                           llvm::StringRef fallback);

/// The first attribute of `names` that is present (FLOATS or a float
/// TENSOR), as doubles; empty when none is.
llvm::SmallVector<double>
firstDoubles(mlir::Operation *op, std::initializer_list<llvm::StringRef> names);

/// post_transform, or an error naming the node for an unknown one or for
/// PROBIT (not supported).
mlir::FailureOr<Transform> readTransform(mlir::Operation *op);

/// ONNX Runtime's logistic of an f32: 1 / (1 + exp(-|x|)), mirrored for
/// x < 0.
mlir::Value logistic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// `transform` of the f32 score `x` of a row of `count` scores that `at(j)`
/// reads: per element, or a softmax over the row (SOFTMAX_ZERO leaves scores
/// within 1e-7 of 0 out of the sum, scaled by exp(-max)).
mlir::Value
transformElement(mlir::OpBuilder &b, mlir::Location loc, Transform transform,
                 mlir::Value x, int64_t count,
                 llvm::function_ref<mlir::Value(mlir::OpBuilder &,
                                                mlir::Location, mlir::Value)>
                     at);

/// `scores` [N, C] (any float type) as f32 `resultType` after `transform`
/// over each row.
mlir::Value transformRows(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value scores, mlir::RankedTensorType resultType,
                          llvm::ArrayRef<mlir::OpFoldResult> sizes,
                          Transform transform);

} // namespace onnxc::cpu::ml

#endif // ONNXC_TARGETS_CPU_LOWERING_MLSCORES_H
