//===- CommonSubexpressionElimination.cpp - The onnxc-cse pass ------------===//
//
// Walks each block in order with a scoped table of the ops seen so far in it
// and in the blocks that enclose it (values of an enclosing graph are
// visible in If/Loop/Scan bodies, not the other way round). An op equal to
// one in the table (name, attributes, operands, result types; locations do
// not matter) is replaced by it. MLIR's generic `cse` would also merge
// Dropout in training mode, which is marked Pure but draws random numbers,
// and knows nothing of graph outputs; hence this pass.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "passes/Passes.h"
#include "passes/RewriteCounts.h"
#include "passes/graph/GraphUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/ScopedHashTable.h"

namespace onnxc {
#define GEN_PASS_DECL_COMMONSUBEXPRESSIONELIMINATION
#define GEN_PASS_DEF_COMMONSUBEXPRESSIONELIMINATION
#include "passes/Passes.h.inc"
} // namespace onnxc

using namespace mlir;

namespace onnxc {
namespace {

/// Hashing and equality of ops by what they compute.
struct ComputationInfo : llvm::DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    return OperationEquivalence::computeHash(
        const_cast<Operation *>(op), OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue,
        OperationEquivalence::IgnoreLocations);
  }
  static bool isEqual(const Operation *a, const Operation *b) {
    if (a == b)
      return true;
    if (a == getEmptyKey() || a == getTombstoneKey() || b == getEmptyKey() ||
        b == getTombstoneKey())
      return false;
    return OperationEquivalence::isEquivalentTo(
        const_cast<Operation *>(a), const_cast<Operation *>(b),
        OperationEquivalence::IgnoreLocations);
  }
};

using ScopedOpTable =
    llvm::ScopedHashTable<Operation *, Operation *, ComputationInfo>;

/// True for Dropout that may run in training mode (random masks).
bool isTrainingDropout(Operation *op) {
  if (!llvm::isa<onnx::DropoutOp>(op))
    return false;
  Value training = op->getOperand(2);
  if (onnx::isNoValue(training))
    return false;
  auto constant = training.getDefiningOp<onnx::ConstantOp>();
  auto value = constant ? llvm::dyn_cast_if_present<DenseIntElementsAttr>(
                              constant.getValueAttr())
                        : DenseIntElementsAttr();
  return !value || llvm::any_of(value.getValues<APInt>(),
                                [](const APInt &v) { return !v.isZero(); });
}

/// Ops that compute the same value whenever their operands are the same.
bool isMergeable(Operation *op) {
  Dialect *dialect = op->getDialect();
  if (!dialect || !(llvm::isa<onnx::ONNXDialect>(dialect) ||
                    dialect->getNamespace() == "onnxc"))
    return false;
  // Random ops carry no Pure trait, so isMemoryEffectFree rejects them.
  return op->getNumRegions() == 0 && !op->hasTrait<OpTrait::IsTerminator>() &&
         isMemoryEffectFree(op) && !isTrainingDropout(op);
}

struct CommonSubexpressionEliminationPass
    : impl::CommonSubexpressionEliminationBase<
          CommonSubexpressionEliminationPass> {
  void runOnOperation() override {
    ScopedOpTable table;
    SmallVector<Operation *> merged;
    for (Block &block : getOperation().getBody())
      processBlock(block, table, merged);
    for (Operation *op : merged)
      op->erase();
    addRewriteCount(getArgument(), "merged-ops", int64_t(merged.size()));
  }

  void processBlock(Block &block, ScopedOpTable &table,
                    SmallVectorImpl<Operation *> &merged) {
    ScopedOpTable::ScopeTy scope(table);
    for (Operation &op : block) {
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          processBlock(nested, table, merged);
      if (!isMergeable(&op))
        continue;
      if (Operation *existing = table.lookup(&op)) {
        if (tryReplace(&op, existing)) {
          merged.push_back(&op);
          continue;
        }
      }
      table.insert(&op, &op);
    }
  }

  /// Replaces `op`'s results by `existing`'s unless that would merge two
  /// graph outputs into one value.
  static bool tryReplace(Operation *op, Operation *existing) {
    for (auto [from, to] : llvm::zip(op->getResults(), existing->getResults()))
      if (replacementChangesInterface(from, to))
        return false;
    op->replaceAllUsesWith(existing);
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createCommonSubexpressionEliminationPass() {
  return std::make_unique<CommonSubexpressionEliminationPass>();
}

} // namespace onnxc
