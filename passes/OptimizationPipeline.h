//===- OptimizationPipeline.h - The graph optimizer by -O level -*- C++ -*-===//

#ifndef ONNXC_PASSES_OPTIMIZATIONPIPELINE_H
#define ONNXC_PASSES_OPTIMIZATIONPIPELINE_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace onnxc {

/// The default optimization level of `onnxc compile` and `onnxc optimize`.
constexpr int kDefaultOptLevel = 2;

/// Adds the graph optimizations of `level` (0 none, 1 basic, 2 extended,
/// 3 layout) to `pm`, a pass manager on the module, for a graph after shape
/// inference. The graph leaves it shape-inferred again.
void buildGraphOptimizationPipeline(mlir::OpPassManager &pm, int level);

/// Registers the `onnxc-optimize` pipeline (option `level`) for onnxc-opt.
void registerGraphOptimizationPipeline();

} // namespace onnxc

#endif // ONNXC_PASSES_OPTIMIZATIONPIPELINE_H
