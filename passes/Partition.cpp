//===- Partition.cpp - Assign onnx ops to targets -------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "passes/Passes.h"
#include "targets/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringExtras.h"

namespace onnxc {
#define GEN_PASS_DECL_PARTITION
#define GEN_PASS_DEF_PARTITION
#include "passes/Passes.h.inc"
} // namespace onnxc

using namespace mlir;

namespace onnxc {
namespace {

struct PartitionPass : impl::PartitionBase<PartitionPass> {
  using PartitionBase::PartitionBase;

  void runOnOperation() override {
    std::vector<std::string> names(targets.begin(), targets.end());
    if (names.empty())
      names.push_back("cpu");
    std::vector<const Target *> order;
    for (const std::string &name : names) {
      const Target *target = lookupTarget(name);
      if (!target) {
        getOperation().emitError() << "unknown target '" << name << "'";
        return signalPassFailure();
      }
      order.push_back(target);
    }

    Builder builder(&getContext());
    WalkResult result = getOperation().walk([&](Operation *op) {
      // onnx ops and the graph optimizer's fused ops (dialect `onnxc`).
      if (!llvm::isa<onnx::ONNXDialect>(op->getDialect()) &&
          op->getName().getDialectNamespace() != "onnxc")
        return WalkResult::advance();
      for (const Target *target : order) {
        if (target->supports(op)) {
          op->setAttr("onnxc.target", builder.getStringAttr(target->name()));
          return WalkResult::advance();
        }
      }
      op->emitError() << "no target supports this '"
                      << op->getName().stripDialect()
                      << "' node (targets asked: "
                      << llvm::join(names, ", ") << ")";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createPartitionPass() {
  return std::make_unique<PartitionPass>();
}

std::unique_ptr<Pass>
createPartitionPass(const std::vector<std::string> &targets) {
  PartitionOptions options;
  options.targets = targets;
  return std::make_unique<PartitionPass>(options);
}

namespace {
#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"
} // namespace

void registerGraphPasses() { registerOnnxcGraphPasses(); }

} // namespace onnxc
