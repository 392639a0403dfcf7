//===- InlineHostPartitions.cpp - Host-memory partitions back in place ----===//
//
// A partition whose target keeps values in host memory has been lowered to
// code the host can run where it is called (calls into its runtime, linalg
// on tensors). Inlined into main_graph, its buffers join the one workspace
// plan of the host pipeline, and the host code sees one graph as before
// partitioning. Device partitions stay functions: their host code is a
// launch, which their target emits.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "targets/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DECL_INLINEHOSTPARTITIONS
#define GEN_PASS_DEF_INLINEHOSTPARTITIONS
#include "passes/Passes.h.inc"
} // namespace onnxc

using namespace mlir;

namespace onnxc {
namespace {

/// Replaces `call` by the body of `callee` (one block ending in
/// func.return).
void inlineCall(func::CallOp call, func::FuncOp callee) {
  IRMapping mapping;
  Block &body = callee.front();
  for (auto [arg, operand] : llvm::zip(body.getArguments(), call.getOperands()))
    mapping.map(arg, operand);
  OpBuilder b(call);
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  for (auto [result, returned] :
       llvm::zip(call.getResults(), body.getTerminator()->getOperands()))
    result.replaceAllUsesWith(mapping.lookupOrDefault(returned));
  call.erase();
}

struct InlineHostPartitionsPass
    : impl::InlineHostPartitionsBase<InlineHostPartitionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> inlined;
    for (func::FuncOp func : module.getOps<func::FuncOp>()) {
      auto target = func->getAttrOfType<StringAttr>(kTargetAttr);
      if (!target || func.isExternal())
        continue;
      const Target *t = lookupTarget(target.getValue());
      if (!t) {
        func.emitError() << "partition of unknown target '" << target.getValue()
                         << "'";
        return signalPassFailure();
      }
      if (t->memorySpace() != MemorySpace::Host)
        continue;
      if (func.getBlocks().size() != 1) {
        func.emitError() << "a lowered partition must be one block";
        return signalPassFailure();
      }
      std::optional<SymbolTable::UseRange> uses = func.getSymbolUses(module);
      for (const SymbolTable::SymbolUse &use : *uses)
        if (auto call = llvm::dyn_cast<func::CallOp>(use.getUser()))
          inlineCall(call, func);
      inlined.push_back(func);
    }
    for (func::FuncOp func : inlined)
      if (func.symbolKnownUseEmpty(module))
        func.erase();
  }
};

} // namespace

std::unique_ptr<Pass> createInlineHostPartitionsPass() {
  return std::make_unique<InlineHostPartitionsPass>();
}

} // namespace onnxc
