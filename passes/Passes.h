//===- Passes.h - Graph passes ----------------------------------*- C++ -*-===//

#ifndef ONNXC_PASSES_PASSES_H
#define ONNXC_PASSES_PASSES_H

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class Pass;
} // namespace mlir

namespace onnxc {

/// onnxc-partition with the default target list (`cpu`).
std::unique_ptr<mlir::Pass> createPartitionPass();
/// onnxc-partition with the given targets, in priority order.
std::unique_ptr<mlir::Pass>
createPartitionPass(const std::vector<std::string> &targets);

/// Registers the graph passes for onnxc-opt.
void registerGraphPasses();

} // namespace onnxc

#endif // ONNXC_PASSES_PASSES_H
