//===- FuseConvResidual.cpp - Conv + Add(residual) -> FusedConv -----------===//
//
// The residual connection of ResNet-style blocks adds a tensor of the Conv
// result's exact type to it; FusedConv adds it in the convolution's epilogue
// (its `Z` operand). Exact type equality rules out a broadcast in either
// direction. The Conv must have no other user and no activation yet (Z is
// added before the activation).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_FUSECONVRESIDUAL
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

struct FuseResidualAdd : RewritePattern {
  FuseResidualAdd(MLIRContext *ctx) : RewritePattern("onnx.Add", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *add,
                                PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      Value convResult = add->getOperand(i);
      Value residual = add->getOperand(1 - i);
      Operation *conv = convResult.getDefiningOp();
      auto fusedConv = llvm::dyn_cast_or_null<fused::FusedConvOp>(conv);
      if (fusedConv && (!llvm::isa<NoneType>(fusedConv.getZ().getType()) ||
                        !fusedConv.getActivation().empty()))
        continue;
      if ((!fusedConv && !isOnnxOp(conv, "Conv")) || !convResult.hasOneUse() ||
          !getFloatTensorType(convResult) ||
          residual.getType() != convResult.getType() ||
          add->getResult(0).getType() != convResult.getType())
        continue;
      Location loc = rewriter.getFusedLoc({conv->getLoc(), add->getLoc()});
      OperationState state(loc, fused::FusedConvOp::getOperationName());
      state.addOperands({conv->getOperand(0), conv->getOperand(1),
                         conv->getOperand(2), residual});
      state.addAttributes(conv->getAttrs());
      state.addTypes(convResult.getType());
      rewriter.replaceOp(add, rewriter.create(state)->getResults());
      return success();
    }
    return rewriter.notifyMatchFailure(add, "not Conv + same-shape tensor");
  }
};

struct FuseConvResidualPass : impl::FuseConvResidualBase<FuseConvResidualPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseResidualAdd>(&getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "fused-residual-adds")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseConvResidualPass() {
  return std::make_unique<FuseConvResidualPass>();
}

} // namespace onnxc
