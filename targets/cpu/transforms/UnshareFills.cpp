//===- UnshareFills.cpp - One filled init tensor per consumer -------------===//
//
// Reductions and matmuls start from a filled tensor (zeros, -inf). CSE
// merges identical `linalg.fill`s of identical `tensor.empty`s, so several
// consumers end up with one shared init tensor; each consumer writes its
// init in place, so one-shot bufferization gives every consumer but one a
// fresh buffer plus a `memref.copy` of the filled one (17 such copies of
// activation-sized buffers in bert_small). Filling a fresh buffer writes
// the same memory the copy would, without reading the shared one, so this
// pass, run after CSE, gives each further use its own tensor.empty + fill.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_UNSHAREFILLS
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

struct UnshareFillsPass : impl::UnshareFillsBase<UnshareFillsPass> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> sharedFills;
    getOperation().walk([&](linalg::FillOp fill) {
      if (fill.hasPureTensorSemantics() && !fill->hasOneUse() &&
          fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
        sharedFills.push_back(fill);
    });
    for (linalg::FillOp fill : sharedFills) {
      auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
      // Only uses that write their init in place (destination operands) need
      // a buffer of their own. The original keeps its reads, or, with none,
      // its first in-place use.
      SmallVector<OpOperand *> inits;
      unsigned useCount = 0;
      for (OpOperand &use : fill->getResult(0).getUses()) {
        ++useCount;
        auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
        if (dps && dps.isDpsInit(&use))
          inits.push_back(&use);
      }
      bool originalHasReads = inits.size() < useCount;
      for (OpOperand *use : llvm::drop_begin(inits, originalHasReads ? 0 : 1)) {
        OpBuilder builder(use->getOwner());
        IRMapping mapping;
        mapping.map(empty.getResult(), builder.clone(*empty)->getResult(0));
        use->set(builder.clone(*fill, mapping)->getResult(0));
      }
    }
  }
};

} // namespace
} // namespace onnxc::cpu
