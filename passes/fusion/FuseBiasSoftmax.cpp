//===- FuseBiasSoftmax.cpp - Add(scores, mask) + Softmax -> BiasSoftmax ---===//
//
// Softmax over the last axis of Add(data, bias), where the Add's result has
// data's type (the bias broadcasts onto data without growing it: BERT's
// [batch, 1, 1, seq] additive mask onto [batch, heads, seq, seq] scores) and
// no other user, becomes onnxc.BiasSoftmax(data, bias). Runs after the
// attention fusion, which absorbs the masks of the attention blocks it
// recognizes.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_FUSEBIASSOFTMAX
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

/// Whether `bias` may broadcast onto `data` without growing it: no higher
/// rank, and each dim 1, equal, or dynamic facing dynamic (shape inference
/// assumes those equal; the Add's result type already says it is data's).
static bool broadcastsOnto(RankedTensorType bias, RankedTensorType data) {
  if (bias.getRank() > data.getRank())
    return false;
  int64_t offset = data.getRank() - bias.getRank();
  for (auto [i, dim] : llvm::enumerate(bias.getShape())) {
    int64_t target = data.getDimSize(offset + i);
    if (dim != 1 && dim != target)
      return false;
  }
  return true;
}

struct FuseBiasSoftmaxPattern : RewritePattern {
  FuseBiasSoftmaxPattern(MLIRContext *ctx)
      : RewritePattern("onnx.Softmax", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *softmax,
                                PatternRewriter &rewriter) const override {
    Value sum = softmax->getOperand(0);
    RankedTensorType type = getFloatTensorType(sum);
    Operation *add = sum.getDefiningOp();
    if (!type || type.getRank() < 1 || !isOnnxOp(add, "Add") ||
        !sum.hasOneUse() || softmax->getResult(0).getType() != type)
      return rewriter.notifyMatchFailure(softmax, "not Softmax(Add(..))");
    auto axis = softmax->getAttrOfType<IntegerAttr>("axis");
    int64_t a = axis ? axis.getInt() : -1;
    if (a != -1 && a != type.getRank() - 1)
      return rewriter.notifyMatchFailure(softmax, "not on the last axis");
    for (unsigned i = 0; i < 2; ++i) {
      Value data = add->getOperand(i), bias = add->getOperand(1 - i);
      auto biasType = llvm::dyn_cast<RankedTensorType>(bias.getType());
      if (data.getType() != type || !biasType ||
          biasType.getElementType() != type.getElementType() ||
          !broadcastsOnto(biasType, type))
        continue;
      Location loc = rewriter.getFusedLoc({add->getLoc(), softmax->getLoc()});
      auto fusedOp = rewriter.create<fused::BiasSoftmaxOp>(
          loc, type, data, bias, rewriter.getI64IntegerAttr(-1));
      rewriter.replaceOp(softmax, fusedOp->getResults());
      return success();
    }
    return rewriter.notifyMatchFailure(softmax, "the bias grows the data");
  }
};

struct FuseBiasSoftmaxPass : impl::FuseBiasSoftmaxBase<FuseBiasSoftmaxPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseBiasSoftmaxPattern>(&getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "bias-softmax")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseBiasSoftmaxPass() {
  return std::make_unique<FuseBiasSoftmaxPass>();
}

} // namespace onnxc
