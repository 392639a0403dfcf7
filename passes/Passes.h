//===- Passes.h - Graph passes ----------------------------------*- C++ -*-===//

#ifndef ONNXC_PASSES_PASSES_H
#define ONNXC_PASSES_PASSES_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class Pass;
} // namespace mlir

namespace onnxc {

/// What onnxc-partition does besides partitioning (see Passes.td).
struct PartitionReportOptions {
  bool print = false;     // --print-partitions
  std::string graphFile;  // --partition-graph FILE.dot
};

/// onnxc-partition with the given targets, in priority order.
std::unique_ptr<mlir::Pass>
createPartitionPass(const std::vector<std::string> &targets,
                    const PartitionReportOptions &report = {});

/// onnxc-inline-host-partitions.
std::unique_ptr<mlir::Pass> createInlineHostPartitionsPass();

/// The module attribute onnxc-partition leaves: one string per partition,
/// "<target>: <n> nodes (<op> <count>, ...)", for the artifact's metadata.
inline constexpr const char *kPartitionsAttr = "onnxc.partitions";

/// The default bound of onnxc-constant-folding: no folded constant gets more
/// than 4M elements (the evaluator holds 8 bytes per element while it works,
/// so at most 32 MiB per folded value).
constexpr int64_t kDefaultMaxFoldedElements = int64_t(1) << 22;

/// onnxc-constant-folding with the default bound.
std::unique_ptr<mlir::Pass> createConstantFoldingPass();
/// onnxc-constant-folding creating constants of at most `maxElements`.
std::unique_ptr<mlir::Pass> createConstantFoldingPass(int64_t maxElements);
/// onnxc-constant-folding that also folds DequantizeLinear of constants.
std::unique_ptr<mlir::Pass> createDequantizeFoldingPass();
/// onnxc-eliminate-redundant-nodes.
std::unique_ptr<mlir::Pass> createRedundantNodeEliminationPass();
/// onnxc-cse.
std::unique_ptr<mlir::Pass> createCommonSubexpressionEliminationPass();

/// onnxc-nchwc-layout with the default block size (16) and region size.
std::unique_ptr<mlir::Pass> createNchwcLayoutPass();
/// onnxc-quantized-channels-last: 8-bit convolution chains onto NHWC
/// tensors; defined by the generated pass base.
std::unique_ptr<mlir::Pass> createQuantizedChannelsLast();

/// Registers the graph passes for onnxc-opt.
void registerGraphPasses();

} // namespace onnxc

#endif // ONNXC_PASSES_PASSES_H
