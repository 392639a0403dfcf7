//===- PartitionPlan.h - Nodes, their targets, and the partitions -*- C++
//-*-===//
//
// What onnxc-partition decides before it rewrites anything: each node of
// main_graph with the target that takes it (and why earlier targets did not),
// and the runs of nodes that become partitions. PartitionReport.cpp prints
// it (--print-partitions, --partition-graph); Partition.cpp makes and
// outlines it.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_PASSES_PARTITION_PARTITIONPLAN_H
#define ONNXC_PASSES_PARTITION_PARTITIONPLAN_H

#include "targets/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace onnxc::partition {

struct Refusal {
  const Target *target;
  std::string reason;
};

struct PlannedNode {
  mlir::Operation *op;
  const Target *target = nullptr;
  /// The targets before `target` in the priority order, each with its
  /// reason (a refusal, or why its claim was given up).
  std::vector<Refusal> refusals;
};

struct PlannedPartition {
  const Target *target;
  std::vector<mlir::Operation *> ops; // in schedule order
  /// Values made outside and read inside (cloned constants excluded), and
  /// values made inside and read outside, in first-use order.
  std::vector<mlir::Value> inputs, outputs;
};

struct PartitionPlan {
  std::vector<const Target *> order; // priority order, host last
  std::vector<PlannedNode> nodes;    // schedule order
  llvm::DenseMap<mlir::Operation *, size_t> nodeIndex;
  std::vector<PlannedPartition> partitions;
};

/// The ONNX node name of `op` (its first NameLoc), else its op name.
std::string nodeName(mlir::Operation *op);

/// A value as the model names it: a graph input's name, else its node's
/// name (with ":<result>" when the node has several results).
std::string valueName(mlir::Value value);

/// "<target>: <n> nodes (<op> <count>, ...)", ops by count.
std::string summarizePartition(const PlannedPartition &partition);

/// --print-partitions: every partition with its boundary values, then the
/// refusals grouped by target, op and reason.
void printPlan(const PartitionPlan &plan, llvm::StringRef graphName,
               llvm::raw_ostream &os);

/// --partition-graph: Graphviz, a cluster per partition, coloured by target.
void writePlanGraph(const PartitionPlan &plan, llvm::raw_ostream &os);

} // namespace onnxc::partition

#endif // ONNXC_PASSES_PARTITION_PARTITIONPLAN_H
