//===- BatchSplit.h - Whether a graph runs image by image -------*- C++ -*-===//
//
// A model compiled for a batch of N whose every node treats the images of
// the batch independently computes, for each image, what it computes for
// that image alone. The driver then compiles it for a batch of 1 and the
// runtime runs it once per image (runtime/cpu/Run.c): each image's
// intermediates are a batch's Nth, so they stay in cache between nodes
// (measured in docs/benchmarks.md's notes), and the workspace shrinks N
// times.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_PASSES_GRAPH_BATCHSPLIT_H
#define ONNXC_PASSES_GRAPH_BATCHSPLIT_H

#include <cstdint>
#include <string>

namespace mlir {
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace onnxc {

/// The batch N > 1 that `graph` (shapes inferred, not yet optimized) may
/// run as N runs of one image, or 0 with `whyNot` saying which node or
/// interface keeps the images together, or why splitting would not pay.
/// Legal when every input and output has a static shape leading with N and
/// every node that reads a value derived from an input keeps dim 0 as the
/// batch, each image's slice computed from that image's slices only (a
/// list of known ops and attributes; anything else is refused). Taken when
/// the graph has a convolution and one image's activations are at least
/// twice the weights, which every image reads again.
///
/// With `openBatch`, N is a stand-in for a batch the model leaves open
/// until run time. The split is then taken whenever it is legal and the
/// graph has a convolution: the alternative is a graph compiled with a
/// dynamic dim 0, whose convolutions take the generic path (MobileNetV2
/// 2.6x and ResNet-50 1.4x slower than compiled for one image).
int64_t batchSplitCount(mlir::func::FuncOp graph, bool openBatch,
                        std::string &whyNot);

/// A cheap test that batchSplitCount may split `graph` at all (it has a
/// convolution); else false with `whyNot`. Spares the driver importing the
/// model again for the check.
bool mayBatchSplit(mlir::func::FuncOp graph, std::string &whyNot);

} // namespace onnxc

#endif // ONNXC_PASSES_GRAPH_BATCHSPLIT_H
