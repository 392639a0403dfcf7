//===- FuseSkipLayerNorm.cpp - Add(x, skip) + LayerNorm -> SkipLayerNorm --===//
//
// A transformer's residual connection followed by its layer normalization,
//   LayerNormalization(Add(input, skip) [+ bias], gamma, beta, axis = -1)
// becomes onnxc.SkipLayerNorm(input, skip, gamma, beta, bias). input and skip
// must have the sum's type (a residual add never broadcasts; one that does
// is left alone), the optional bias is a constant 1-D over the last dim
// added to either operand or to the sum, gamma and beta are 1-D over the
// last dim, and the sum (and the biased operand) must have no other user:
// the fused op does not expose the sum, so a sum that is also read
// elsewhere (ONNX Runtime's optional fourth output) keeps the graph as is.
// The LayerNormalization must normalize the last axis only, compute in f32
// (stash_type 1) and not return its Mean / InvStdDev.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_FUSESKIPLAYERNORM
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

/// Whether `v` is a 1-D tensor of exactly `hidden` (static) elements.
static bool isHiddenVector(Value v, int64_t hidden) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  return type && type.getRank() == 1 && !ShapedType::isDynamic(hidden) &&
         type.getDimSize(0) == hidden;
}

/// If `v` is Add(x, bias) (either order) with a constant 1-D bias of
/// `hidden` elements, `v` of x's type and no other user, returns x and sets
/// `bias`.
static Value stripBias(Value v, int64_t hidden, Value &bias) {
  Operation *add = v.getDefiningOp();
  if (!isOnnxOp(add, "Add") || !v.hasOneUse())
    return {};
  for (unsigned i = 0; i < 2; ++i) {
    Value c = add->getOperand(1 - i);
    if (getFloatConstant(c) && isHiddenVector(c, hidden) &&
        add->getOperand(i).getType() == v.getType()) {
      bias = c;
      return add->getOperand(i);
    }
  }
  return {};
}

/// Whether the LayerNormalization `ln` normalizes only the last axis of a
/// rank-`rank` input, in f32, without returning its statistics.
static bool isLastAxisLayerNorm(Operation *ln, int64_t rank) {
  auto axis = ln->getAttrOfType<IntegerAttr>("axis");
  int64_t a = axis ? axis.getInt() : -1;
  auto stash = ln->getAttrOfType<IntegerAttr>("stash_type");
  if ((a != -1 && a != rank - 1) || (stash && stash.getInt() != 1))
    return false;
  for (unsigned i = 1; i < ln->getNumResults(); ++i)
    if (!ln->getResult(i).use_empty())
      return false;
  return true;
}

struct FuseSkipLayerNormPattern : RewritePattern {
  FuseSkipLayerNormPattern(MLIRContext *ctx)
      : RewritePattern("onnx.LayerNormalization", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *ln,
                                PatternRewriter &rewriter) const override {
    Value sum = ln->getOperand(0);
    RankedTensorType type = getFloatTensorType(sum);
    Operation *add = sum.getDefiningOp();
    if (!type || type.getRank() < 1 || !isOnnxOp(add, "Add") ||
        !sum.hasOneUse() || ln->getResult(0).getType() != type)
      return rewriter.notifyMatchFailure(ln, "not LayerNorm(Add(..))");
    if (!isLastAxisLayerNorm(ln, type.getRank()))
      return rewriter.notifyMatchFailure(ln, "not over the last axis in f32");
    int64_t hidden = type.getShape().back();
    Value gamma = ln->getOperand(1), beta = ln->getOperand(2);
    bool hasBeta = !llvm::isa<NoneType>(beta.getType());
    if (!isHiddenVector(gamma, hidden) ||
        (hasBeta && !isHiddenVector(beta, hidden)))
      return rewriter.notifyMatchFailure(ln, "gamma/beta are not [hidden]");

    // Add(Add(x, bias), skip), Add(x, skip) + bias, or Add(x, skip).
    Value bias, input, skip;
    if (Value unbiased = stripBias(sum, hidden, bias)) {
      add = unbiased.getDefiningOp();
      if (!isOnnxOp(add, "Add") || !unbiased.hasOneUse())
        return rewriter.notifyMatchFailure(ln, "bias on a non-residual add");
    }
    input = add->getOperand(0);
    skip = add->getOperand(1);
    if (!bias) {
      for (unsigned i = 0; i < 2 && !bias; ++i) {
        if (Value x = stripBias(add->getOperand(i), hidden, bias)) {
          input = x;
          skip = add->getOperand(1 - i);
        }
      }
    }
    if (input.getType() != type || skip.getType() != type)
      return rewriter.notifyMatchFailure(ln, "the residual add broadcasts");

    Location loc = rewriter.getFusedLoc({add->getLoc(), ln->getLoc()});
    auto epsilon = ln->getAttrOfType<FloatAttr>("epsilon");
    if (!epsilon)
      epsilon = rewriter.getF32FloatAttr(1e-5f);
    Value none = createNoValue(rewriter, loc);
    auto fusedOp = rewriter.create<fused::SkipLayerNormOp>(
        loc, type, input, skip, gamma, hasBeta ? beta : none,
        bias ? bias : none, epsilon);
    rewriter.replaceAllUsesWith(ln->getResult(0), fusedOp.getResult());
    rewriter.eraseOp(ln);
    return success();
  }
};

struct FuseSkipLayerNormPass
    : impl::FuseSkipLayerNormBase<FuseSkipLayerNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseSkipLayerNormPattern>(&getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "skip-layernorm")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseSkipLayerNormPass() {
  return std::make_unique<FuseSkipLayerNormPass>();
}

} // namespace onnxc
