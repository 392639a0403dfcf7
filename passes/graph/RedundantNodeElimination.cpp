//===- RedundantNodeElimination.cpp - onnxc-eliminate-redundant-nodes -----===//
//
// Patterns that remove ops which give back their input (Identity, Dropout at
// inference, Cast to the same type, no-op Slice/Expand/Reshape/Transpose) and
// that collapse pairs of data-movement ops into one or none. Every
// replacement keeps the replaced value's type (so no user sees a less
// precise one) and never turns a graph output into a graph input, a constant
// or another output (replacementChangesInterface).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "passes/Passes.h"
#include "passes/RewriteCounts.h"
#include "passes/graph/GraphUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace onnxc {
#define GEN_PASS_DECL_REDUNDANTNODEELIMINATION
#define GEN_PASS_DEF_REDUNDANTNODEELIMINATION
#include "passes/Passes.h.inc"
} // namespace onnxc

using namespace mlir;

namespace onnxc {
namespace {

using Counter = int64_t;

/// The integer elements of a constant 0-D/1-D operand.
std::optional<SmallVector<int64_t>> getConstantInts(Value v) {
  auto constant = v.getDefiningOp<onnx::ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto attr =
      llvm::dyn_cast_if_present<DenseIntElementsAttr>(constant.getValueAttr());
  if (!attr || attr.getType().getRank() > 1)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

bool hasStaticType(Value v) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape();
}

/// Replaces `op`'s only used result by `replacement` when that keeps the
/// value's type and the graph's interface.
LogicalResult forwardTo(PatternRewriter &rewriter, Operation *op,
                        Value replacement, Counter &counter) {
  Value result = op->getResult(0);
  if (result.getType() != replacement.getType() ||
      replacementChangesInterface(result, replacement))
    return rewriter.notifyMatchFailure(op, "would change a type or an output");
  for (Value other : op->getResults().drop_front())
    if (!other.use_empty())
      return failure();
  rewriter.replaceAllUsesWith(result, replacement);
  rewriter.eraseOp(op);
  ++counter;
  return success();
}

/// Identity(x) -> x.
struct EraseIdentity : OpRewritePattern<onnx::IdentityOp> {
  EraseIdentity(MLIRContext *ctx, Counter &counter)
      : OpRewritePattern(ctx), counter(counter) {}
  LogicalResult matchAndRewrite(onnx::IdentityOp op,
                                PatternRewriter &rewriter) const override {
    return forwardTo(rewriter, op, op->getOperand(0), counter);
  }
  Counter &counter;
};

/// Dropout(x) -> x when not training (training_mode omitted or a constant
/// false: the ratio only matters in training) and the mask is unused.
struct EraseInferenceDropout : OpRewritePattern<onnx::DropoutOp> {
  EraseInferenceDropout(MLIRContext *ctx, Counter &counter)
      : OpRewritePattern(ctx), counter(counter) {}
  LogicalResult matchAndRewrite(onnx::DropoutOp op,
                                PatternRewriter &rewriter) const override {
    Value training = op->getOperand(2);
    if (!onnx::isNoValue(training)) {
      std::optional<SmallVector<int64_t>> mode = getConstantInts(training);
      if (!mode || llvm::any_of(*mode, [](int64_t v) { return v != 0; }))
        return rewriter.notifyMatchFailure(op, "may be in training mode");
    }
    return forwardTo(rewriter, op, op->getOperand(0), counter);
  }
  Counter &counter;
};

/// Cast(x) / CastLike(x, y) -> x when x already has the target type.
template <typename CastOp> struct EraseSameTypeCast : OpRewritePattern<CastOp> {
  EraseSameTypeCast(MLIRContext *ctx, Counter &counter)
      : OpRewritePattern<CastOp>(ctx), counter(counter) {}
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    // forwardTo checks that the types (element type included) are equal.
    if (!llvm::isa<RankedTensorType>(op->getOperand(0).getType()))
      return failure();
    return forwardTo(rewriter, op, op->getOperand(0), counter);
  }
  Counter &counter;
};

/// Slice/Expand/Reshape whose static result type is its input's: nothing
/// moves. A Slice must also step forward on every axis (a negative step of
/// the same size reverses the data).
template <typename DataOp>
struct EraseNoOpDataMovement : OpRewritePattern<DataOp> {
  EraseNoOpDataMovement(MLIRContext *ctx, Counter &counter)
      : OpRewritePattern<DataOp>(ctx), counter(counter) {}
  LogicalResult matchAndRewrite(DataOp op,
                                PatternRewriter &rewriter) const override {
    Value input = op->getOperand(0);
    if (!hasStaticType(input) || input.getType() != op->getResult(0).getType())
      return failure();
    if (std::is_same_v<DataOp, onnx::SliceOp> &&
        !onnx::isNoValue(op->getOperand(4))) {
      std::optional<SmallVector<int64_t>> steps =
          getConstantInts(op->getOperand(4));
      if (!steps || llvm::any_of(*steps, [](int64_t s) { return s <= 0; }))
        return rewriter.notifyMatchFailure(op, "steps may be negative");
    }
    return forwardTo(rewriter, op, input, counter);
  }
  Counter &counter;
};

/// The permutation of a Transpose (its default reverses the dims).
std::optional<SmallVector<int64_t>> getPermutation(onnx::TransposeOp op) {
  if (std::optional<ArrayAttr> perm = op.getPerm()) {
    SmallVector<int64_t> values;
    for (Attribute a : *perm)
      values.push_back(llvm::cast<IntegerAttr>(a).getInt());
    return values;
  }
  auto type = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!type)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (int64_t d = type.getRank() - 1; d >= 0; --d)
    values.push_back(d);
  return values;
}

bool isIdentityPermutation(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != int64_t(i))
      return false;
  return true;
}

/// Transpose with the identity permutation -> its input;
/// Transpose(Transpose(x, p1), p2) -> Transpose(x, p1[p2[i]]), or x when
/// that is the identity. A composed (non-identity) Transpose is only made
/// when the inner one has no other user: otherwise nothing is saved.
struct SimplifyTranspose : OpRewritePattern<onnx::TransposeOp> {
  SimplifyTranspose(MLIRContext *ctx, Counter &noOps, Counter &pairs)
      : OpRewritePattern(ctx), noOps(noOps), pairs(pairs) {}
  LogicalResult matchAndRewrite(onnx::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> perm = getPermutation(op);
    if (!perm)
      return failure();
    if (isIdentityPermutation(*perm))
      return forwardTo(rewriter, op, op->getOperand(0), noOps);
    auto inner = op->getOperand(0).getDefiningOp<onnx::TransposeOp>();
    if (!inner)
      return failure();
    std::optional<SmallVector<int64_t>> innerPerm = getPermutation(inner);
    if (!innerPerm || innerPerm->size() != perm->size())
      return failure();
    SmallVector<int64_t> composed;
    for (int64_t p : *perm)
      composed.push_back((*innerPerm)[p]);
    Value source = inner->getOperand(0);
    if (isIdentityPermutation(composed))
      return forwardTo(rewriter, op, source, pairs);
    if (!inner->hasOneUse())
      return rewriter.notifyMatchFailure(op, "the inner Transpose is shared");
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperand(0, source);
      op.setPermAttr(rewriter.getI64ArrayAttr(composed));
    });
    ++pairs;
    return success();
  }
  Counter &noOps;
  Counter &pairs;
};

/// The axes a Squeeze removes, normalized and sorted.
std::optional<SmallVector<int64_t>> getSqueezeAxes(onnx::SqueezeOp op) {
  auto type = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!type)
    return std::nullopt;
  SmallVector<int64_t> axes;
  if (onnx::isNoValue(op->getOperand(1))) {
    // Without axes every dim of size 1 goes: all dims must be known.
    if (!type.hasStaticShape())
      return std::nullopt;
    for (auto [i, d] : llvm::enumerate(type.getShape()))
      if (d == 1)
        axes.push_back(int64_t(i));
    return axes;
  }
  std::optional<SmallVector<int64_t>> given =
      getConstantInts(op->getOperand(1));
  if (!given)
    return std::nullopt;
  for (int64_t a : *given)
    axes.push_back(a < 0 ? a + type.getRank() : a);
  llvm::sort(axes);
  return axes;
}

/// The axes an Unsqueeze inserts, normalized to its result rank and sorted.
std::optional<SmallVector<int64_t>> getUnsqueezeAxes(onnx::UnsqueezeOp op) {
  auto type = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<SmallVector<int64_t>> given =
      getConstantInts(op->getOperand(1));
  if (!type || !given)
    return std::nullopt;
  SmallVector<int64_t> axes;
  for (int64_t a : *given)
    axes.push_back(a < 0 ? a + type.getRank() : a);
  llvm::sort(axes);
  return axes;
}

/// Squeeze(Unsqueeze(x, a), a) -> x and Unsqueeze(Squeeze(x, a), a) -> x:
/// the same axes are inserted and removed (Squeeze only removes dims of 1).
struct EraseSqueezeUnsqueezePair : RewritePattern {
  EraseSqueezeUnsqueezePair(MLIRContext *ctx, Counter &counter)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        counter(counter) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> outerAxes, innerAxes;
    Value source;
    if (auto squeeze = llvm::dyn_cast<onnx::SqueezeOp>(op)) {
      auto unsqueeze = op->getOperand(0).getDefiningOp<onnx::UnsqueezeOp>();
      if (!unsqueeze)
        return failure();
      outerAxes = getSqueezeAxes(squeeze);
      innerAxes = getUnsqueezeAxes(unsqueeze);
      source = unsqueeze->getOperand(0);
    } else if (auto unsqueeze = llvm::dyn_cast<onnx::UnsqueezeOp>(op)) {
      auto squeeze = op->getOperand(0).getDefiningOp<onnx::SqueezeOp>();
      if (!squeeze)
        return failure();
      outerAxes = getUnsqueezeAxes(unsqueeze);
      innerAxes = getSqueezeAxes(squeeze);
      source = squeeze->getOperand(0);
    } else {
      return failure();
    }
    if (!outerAxes || !innerAxes || *outerAxes != *innerAxes)
      return rewriter.notifyMatchFailure(op, "different or unknown axes");
    return forwardTo(rewriter, op, source, counter);
  }
  Counter &counter;
};

/// Unsqueeze(Unsqueeze(x, a), b) -> Unsqueeze(x, c), c the positions of
/// both inserted sets of dims in the final result: b as it is, and each
/// axis of a at the place its dim of the intermediate ends up (the dims of
/// the final result not in b, in order). Only when the inner Unsqueeze has no
/// other user.
struct CollapseUnsqueezes : OpRewritePattern<onnx::UnsqueezeOp> {
  CollapseUnsqueezes(MLIRContext *ctx, Counter &counter)
      : OpRewritePattern(ctx), counter(counter) {}
  LogicalResult matchAndRewrite(onnx::UnsqueezeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op->getOperand(0).getDefiningOp<onnx::UnsqueezeOp>();
    if (!inner || !inner->hasOneUse())
      return failure();
    auto type = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<SmallVector<int64_t>> outer = getUnsqueezeAxes(op);
    std::optional<SmallVector<int64_t>> first = getUnsqueezeAxes(inner);
    if (!type || !outer || !first)
      return failure();
    int64_t rank = type.getRank();
    SmallVector<bool> fromOuter(rank, false);
    for (int64_t a : *outer) {
      if (a < 0 || a >= rank)
        return failure();
      fromOuter[a] = true;
    }
    SmallVector<int64_t> combined;
    int64_t intermediateDim = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (fromOuter[d]) {
        combined.push_back(d);
        continue;
      }
      if (llvm::is_contained(*first, intermediateDim))
        combined.push_back(d);
      ++intermediateDim;
    }
    auto axesType = RankedTensorType::get({int64_t(combined.size())},
                                          rewriter.getIntegerType(64));
    rewriter.setInsertionPoint(op);
    Value axes =
        rewriter
            .create<onnx::ConstantOp>(
                op->getLoc(), TypeRange{axesType}, ValueRange{},
                ArrayRef<NamedAttribute>{rewriter.getNamedAttr(
                    "value", DenseElementsAttr::get(
                                 axesType, ArrayRef<int64_t>(combined)))})
            ->getResult(0);
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperand(0, inner->getOperand(0));
      op->setOperand(1, axes);
    });
    ++counter;
    return success();
  }
  Counter &counter;
};

/// Reshape(Reshape(x, s1), s2) -> Reshape(x, s2) when s2 does not copy dims
/// from the intermediate (no 0 entries, or allowzero), and the inner Reshape
/// has no other user. When s2 copies dims but the outer result's shape is
/// static, that static shape becomes the new target.
struct CollapseReshapes : OpRewritePattern<onnx::ReshapeOp> {
  CollapseReshapes(MLIRContext *ctx, Counter &counter)
      : OpRewritePattern(ctx), counter(counter) {}
  LogicalResult matchAndRewrite(onnx::ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op->getOperand(0).getDefiningOp<onnx::ReshapeOp>();
    if (!inner || !inner->hasOneUse())
      return failure();
    Value shape = op->getOperand(1);
    std::optional<SmallVector<int64_t>> target = getConstantInts(shape);
    bool copiesDims =
        !target || (op.getAllowzero() == 0 && llvm::is_contained(*target, 0));
    if (copiesDims) {
      auto type = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
      if (!type || !type.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "target depends on the inner");
      auto shapeType =
          RankedTensorType::get({type.getRank()}, rewriter.getIntegerType(64));
      auto value = DenseElementsAttr::get(shapeType, type.getShape());
      rewriter.setInsertionPoint(op);
      shape = rewriter
                  .create<onnx::ConstantOp>(
                      op->getLoc(), TypeRange{shapeType}, ValueRange{},
                      ArrayRef<NamedAttribute>{
                          rewriter.getNamedAttr("value", value)})
                  ->getResult(0);
    }
    rewriter.modifyOpInPlace(op, [&] {
      op->setOperand(0, inner->getOperand(0));
      op->setOperand(1, shape);
      if (copiesDims)
        op.setAllowzeroAttr(rewriter.getI64IntegerAttr(0));
    });
    ++counter;
    return success();
  }
  Counter &counter;
};

struct RedundantNodeEliminationPass
    : impl::RedundantNodeEliminationBase<RedundantNodeEliminationPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    int64_t numIdentity = 0, numDropout = 0, numCast = 0, numNoOpShape = 0,
            numPairs = 0;
    RewritePatternSet patterns(ctx);
    patterns.add<EraseIdentity>(ctx, numIdentity);
    patterns.add<EraseInferenceDropout>(ctx, numDropout);
    patterns.add<EraseSameTypeCast<onnx::CastOp>,
                 EraseSameTypeCast<onnx::CastLikeOp>>(ctx, numCast);
    patterns.add<EraseNoOpDataMovement<onnx::SliceOp>,
                 EraseNoOpDataMovement<onnx::ExpandOp>,
                 EraseNoOpDataMovement<onnx::ReshapeOp>>(ctx, numNoOpShape);
    patterns.add<SimplifyTranspose>(ctx, numNoOpShape, numPairs);
    patterns
        .add<EraseSqueezeUnsqueezePair, CollapseUnsqueezes, CollapseReshapes>(
            ctx, numPairs);
    GreedyRewriteConfig config;
    // If/Loop/Scan bodies are graphs with fixed signatures: no block or
    // argument simplification.
    config.enableRegionSimplification = GreedySimplifyRegionLevel::Disabled;
    // Not converging within the iteration limit leaves a valid graph.
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                       config);
    eraseDeadOps(getOperation());
    syncFunctionResultTypes(getOperation());
    addRewriteCount(getArgument(), "identity", numIdentity);
    addRewriteCount(getArgument(), "dropout", numDropout);
    addRewriteCount(getArgument(), "cast", numCast);
    addRewriteCount(getArgument(), "no-op-data-movement", numNoOpShape);
    addRewriteCount(getArgument(), "collapsed-pairs", numPairs);
  }
};

} // namespace

std::unique_ptr<Pass> createRedundantNodeEliminationPass() {
  return std::make_unique<RedundantNodeEliminationPass>();
}

} // namespace onnxc
