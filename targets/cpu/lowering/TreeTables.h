//===- TreeTables.h - Tree ensembles as constant tables walked by linalg --===//
//
// Both forms of ai.onnx.ml tree ensembles (TreeEnsemble-5, and the older
// TreeEnsembleRegressor / TreeEnsembleClassifier every tree converter
// writes) are read into one TreeTables: the branch nodes as rows of an
// integer table, and the leaves, each with a range of (target, weight)
// entries (one for TreeEnsemble-5, any number for the older ops). The walk
// from the roots to the leaves and the aggregation of the leaves' entries
// are shared; each op adds its own final step.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_TREETABLES_H
#define ONNXC_TARGETS_CPU_LOWERING_TREETABLES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

namespace onnxc::cpu::trees {

enum NodeMode : int64_t {
  kLeq = 0,
  kLt = 1,
  kGte = 2,
  kGt = 3,
  kEq = 4,
  kNeq = 5,
  kMember = 6
};

/// Columns of the per-node integer table.
enum NodeColumn : int64_t {
  kFeature,
  kMode,
  kTrueId,
  kFalseId,
  kTrueIsLeaf,
  kFalseIsLeaf,
  kMissingTrue,
  kMemberBegin,
  kMemberEnd,
  kNumColumns
};

enum class Aggregate { kSum, kMin, kMax };

/// The ensemble's attributes, checked and flattened into tables.
struct TreeTables {
  int64_t numNodes = 0, numLeaves = 0, numTargets = 0;
  llvm::SmallVector<int64_t> nodeTable; // numNodes x kNumColumns
  llvm::SmallVector<double> splits, members;
  /// Leaf l owns entries [leafBegin[l], leafBegin[l + 1]).
  llvm::SmallVector<int64_t> leafBegin, entryTargets;
  llvm::SmallVector<double> entryWeights;
  /// Per tree: where the walk starts and whether that is already a leaf.
  llvm::SmallVector<int64_t> startIds, startIsLeaf;
  /// The most comparisons on any root-to-leaf path (finishTables; the walk
  /// needs no bound, since finishTables rejects cycles).
  int64_t maxDepth = 0;

  int64_t numTrees() const { return static_cast<int64_t>(startIds.size()); }
};

/// Checks every tree that does not start at a leaf (ids in range, features
/// below `numFeatures` when static, no cycles, entry targets in range) and
/// sets maxDepth; emits an error naming `op` and fails otherwise.
mlir::LogicalResult finishTables(mlir::Operation *op, TreeTables &tables,
                                 int64_t numFeatures);

/// The leaf (an i64 id) each sample of `features` [N, F] reaches in each
/// tree: [N, trees]. A loop per (sample, tree) that ends at a leaf.
mlir::Value buildLeafWalk(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value features, const TreeTables &tables);

/// Per (sample, target): the entries of the leaves `leaves` [N, trees]
/// reached that name the target, combined tree by tree in order in
/// `accElement` (a sum, or the min or max starting from the largest or
/// lowest finite value). Each weight is divided by `weightDivisor` first
/// when it is not 1. With `trackReached`, also an i8 [N, targets] that is 1
/// where some entry named the target.
struct LeafScores {
  mlir::Value scores, reached;
};
LeafScores buildLeafAggregate(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value leaves, const TreeTables &tables,
                              mlir::FloatType accElement, Aggregate aggregate,
                              double weightDivisor, bool trackReached);

/// An INTS attribute (none when absent or not integers).
std::optional<llvm::SmallVector<int64_t>> intsAttr(mlir::Operation *op,
                                                   llvm::StringRef name);
/// A FLOATS attribute or a float TENSOR attribute as doubles (none when
/// absent or of another kind).
std::optional<llvm::SmallVector<double>> doublesAttr(mlir::Operation *op,
                                                     llvm::StringRef name);
/// An integer TENSOR attribute (none when absent or of another kind).
std::optional<llvm::SmallVector<int64_t>> intsTensorAttr(mlir::Operation *op,
                                                         llvm::StringRef name);

/// A constant 1-D or 2-D tensor of `values`.
mlir::Value i64Table(mlir::OpBuilder &b, mlir::Location loc,
                     llvm::ArrayRef<int64_t> values,
                     llvm::ArrayRef<int64_t> shape);
/// A constant 1-D tensor of `values` rounded to `element`.
mlir::Value floatTable(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::ArrayRef<double> values, mlir::FloatType element);

} // namespace onnxc::cpu::trees

#endif // ONNXC_TARGETS_CPU_LOWERING_TREETABLES_H
