//===- ShapeInference.h - Shape inference for onnx ops ----------*- C++ -*-===//

#ifndef ONNXC_DIALECT_SHAPEINFERENCE_H
#define ONNXC_DIALECT_SHAPEINFERENCE_H

#include "mlir/Support/LogicalResult.h"

#include <memory>

namespace mlir {
class Pass;
class Operation;
} // namespace mlir

namespace onnxc {

/// The `onnx-shape-inference` pass (on func.func).
std::unique_ptr<mlir::Pass> createShapeInferencePass();

/// Refines the result types of one onnx op from its operands. Returns failure
/// (after emitting an error at the op) when the op's inputs violate its shape
/// rule; leaves ops it has no rule for unchanged.
mlir::LogicalResult inferShapes(mlir::Operation *op);

/// Registers the pass for onnxc-opt.
void registerShapeInferencePasses();

} // namespace onnxc

#endif // ONNXC_DIALECT_SHAPEINFERENCE_H
