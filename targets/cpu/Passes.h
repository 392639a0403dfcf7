//===- Passes.h - CPU target passes -----------------------------*- C++ -*-===//

#ifndef ONNXC_TARGETS_CPU_PASSES_H
#define ONNXC_TARGETS_CPU_PASSES_H

#include <memory>

namespace mlir {
class Pass;
class OpPassManager;
class RewritePatternSet;
} // namespace mlir

namespace onnxc::cpu {

/// onnx -> linalg/tensor/arith/math on tensors (see Passes.td).
std::unique_ptr<mlir::Pass> createConvertOnnxToLinalgPass();

/// tensor.expand_shape with dynamic dims -> tensor.reshape (see
/// transforms/DynamicExpandShapeToReshape.cpp); defined by the generated
/// pass base.
std::unique_ptr<mlir::Pass> createDynamicExpandShapeToReshape();

/// Constant memref.globals of rank > 1 -> 1-D globals plus expand_shape views
/// (see transforms/FlattenConstantGlobals.cpp).
std::unique_ptr<mlir::Pass> createFlattenConstantGlobals();

/// Everything after convert-onnx-to-linalg: bufferization, deallocation,
/// loops, and the conversion to the LLVM dialect (CpuPipeline.cpp).
void buildCpuLoweringPipeline(mlir::OpPassManager &pm, int optLevel);

/// Registers the passes above for onnxc-opt.
void registerCpuPasses();

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_PASSES_H
