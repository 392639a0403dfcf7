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

/// Declares the runtime functions lowerings call (see Passes.td and
/// lowering/RuntimeHelpers.h); runs before convert-onnx-to-linalg.
std::unique_ptr<mlir::Pass> createDeclareRuntimeHelpersPass();

/// tensor.expand_shape with dynamic dims -> tensor.reshape (see
/// transforms/DynamicExpandShapeToReshape.cpp); defined by the generated
/// pass base.
std::unique_ptr<mlir::Pass> createDynamicExpandShapeToReshape();

/// Constant memref.globals of rank > 1 -> 1-D globals plus expand_shape views
/// (see transforms/FlattenConstantGlobals.cpp).
std::unique_ptr<mlir::Pass> createFlattenConstantGlobals();

/// Shape-error reports get their node names, on the LLVM dialect (see
/// transforms/NameShapeErrors.cpp); defined by the generated pass base.
std::unique_ptr<mlir::Pass> createNameShapeErrors();

/// Everything after convert-onnx-to-linalg: bufferization, deallocation,
/// loops, and the conversion to the LLVM dialect (CpuPipeline.cpp).
void buildCpuLoweringPipeline(mlir::OpPassManager &pm, int optLevel);

/// Registers the passes above for onnxc-opt.
void registerCpuPasses();

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_PASSES_H
