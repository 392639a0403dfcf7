//===- FuseLayerNorm.cpp - Decomposed layer norm -> LayerNormalization ----===//
//
// The PyTorch and TensorFlow exporters write layer normalization over the
// trailing k axes of x as
//   mean = ReduceMean(x, axes)          d = Sub(x, mean)
//   var  = ReduceMean(Pow(d, 2) | Mul(d, d), axes)
//   n    = Div(d, Sqrt(Add(var, eps)))  or  Mul(d, Reciprocal(Sqrt(..)))
//   y    = [Mul(n, gamma)] [Add(.., beta)]
// which is LayerNormalization(x, gamma, beta, axis = rank - k, epsilon = eps)
// (opset 17). Both ReduceMeans must keep dims and reduce the same trailing
// axes, eps must be a scalar constant, gamma and beta must broadcast over the
// normalized dims only, and every intermediate but d (read by the square and
// the division) must have no other user. The match is rooted at the division.
//
//===----------------------------------------------------------------------===//

#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_FUSELAYERNORM
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

/// The number of trailing axes a keepdims ReduceMean over `input` reduces,
/// or 0 when it reduces anything else.
static int64_t getTrailingReducedAxes(Operation *reduce, Value input) {
  if (!isOnnxOp(reduce, "ReduceMean") || reduce->getOperand(0) != input)
    return 0;
  auto keepdims = reduce->getAttrOfType<IntegerAttr>("keepdims");
  if (keepdims && keepdims.getInt() != 1)
    return 0;
  auto type = llvm::dyn_cast<RankedTensorType>(input.getType());
  if (!type || type.getRank() == 0)
    return 0;
  int64_t rank = type.getRank();
  Value axesValue = reduce->getOperand(1);
  if (llvm::isa<NoneType>(axesValue.getType()))
    return rank; // no axes: all of them
  Operation *def = skipIdentity(axesValue).getDefiningOp();
  auto axes = isOnnxOp(def, "Constant")
                  ? def->getAttrOfType<DenseIntElementsAttr>("value")
                  : DenseIntElementsAttr();
  if (!axes || axes.getNumElements() == 0 || axes.getNumElements() > rank)
    return 0;
  SmallVector<bool> reduced(rank, false);
  for (const APInt &axis : axes.getValues<APInt>()) {
    int64_t a = axis.getSExtValue();
    if (a < -rank || a >= rank)
      return 0;
    reduced[a < 0 ? a + rank : a] = true;
  }
  int64_t k = axes.getNumElements();
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d] != (d >= rank - k))
      return 0;
  return k;
}

/// If `value`'s only user is `name`(value, c) with a constant c that
/// broadcasts over the last `k` dims of `type` only, returns that op.
static Operation *matchAffineUser(Value value, StringRef name,
                                  RankedTensorType type, int64_t k) {
  Operation *user = getSingleUserOp(value, name);
  if (!user)
    return nullptr;
  Value other = getOtherOperand(user, value);
  auto otherType =
      other ? llvm::dyn_cast<RankedTensorType>(other.getType()) : nullptr;
  if (!otherType || !getFloatConstant(other) || otherType.getRank() > k ||
      !broadcastsInto(otherType, type) || user->getResult(0).getType() != type)
    return nullptr;
  return user;
}

struct FuseLayerNormPattern : RewritePattern {
  FuseLayerNormPattern(StringRef rootName, MLIRContext *ctx)
      : RewritePattern(rootName, 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    // n = Div(d, std) or Mul(d, Reciprocal(std)) (either order).
    Value d, stddev;
    if (isOnnxOp(root, "Div")) {
      d = root->getOperand(0);
      stddev = root->getOperand(1);
    } else {
      for (unsigned i = 0; i < 2 && !stddev; ++i) {
        Operation *recip = root->getOperand(1 - i).getDefiningOp();
        if (isOnnxOp(recip, "Reciprocal") && recip->getResult(0).hasOneUse()) {
          d = root->getOperand(i);
          stddev = recip->getOperand(0);
        }
      }
    }
    Operation *sub = d ? d.getDefiningOp() : nullptr;
    Operation *sqrt = stddev ? stddev.getDefiningOp() : nullptr;
    if (!isOnnxOp(sub, "Sub") || !isOnnxOp(sqrt, "Sqrt") || !stddev.hasOneUse())
      return rewriter.notifyMatchFailure(root, "not (x - mean) / sqrt(..)");
    Value x = sub->getOperand(0);
    RankedTensorType type = getFloatTensorType(x);
    Operation *mean = sub->getOperand(1).getDefiningOp();
    if (!type || d.getType() != type || root->getResult(0).getType() != type ||
        !sub->getOperand(1).hasOneUse())
      return rewriter.notifyMatchFailure(root, "unexpected types");
    int64_t k = getTrailingReducedAxes(mean, x);
    if (k == 0)
      return rewriter.notifyMatchFailure(root,
                                         "mean is not over trailing axes");

    // std = Sqrt(Add(ReduceMean(d^2), eps)).
    Operation *addEps = sqrt->getOperand(0).getDefiningOp();
    if (!isOnnxOp(addEps, "Add") || !addEps->getResult(0).hasOneUse())
      return rewriter.notifyMatchFailure(root, "no + epsilon");
    std::optional<double> epsilon;
    Value variance;
    for (unsigned i = 0; i < 2 && !epsilon; ++i) {
      auto epsType =
          llvm::dyn_cast<RankedTensorType>(addEps->getOperand(1 - i).getType());
      if (epsType && epsType.getNumElements() == 1 &&
          epsType.getRank() <= type.getRank())
        if ((epsilon = getScalarConstant(addEps->getOperand(1 - i))))
          variance = addEps->getOperand(i);
    }
    if (!epsilon)
      return rewriter.notifyMatchFailure(root, "epsilon is not a constant");
    Operation *varMean = variance.getDefiningOp();
    if (!varMean || !variance.hasOneUse() || varMean->getNumOperands() < 1)
      return rewriter.notifyMatchFailure(root, "no variance");
    Value square = varMean->getOperand(0);
    if (getTrailingReducedAxes(varMean, square) != k || !square.hasOneUse())
      return rewriter.notifyMatchFailure(root, "variance axes differ");
    Operation *squareOp = square.getDefiningOp();
    bool isSquare =
        (isOnnxOp(squareOp, "Pow") && squareOp->getOperand(0) == d &&
         isScalarConstant(squareOp->getOperand(1), 2.0)) ||
        (isOnnxOp(squareOp, "Mul") && squareOp->getOperand(0) == d &&
         squareOp->getOperand(1) == d);
    if (!isSquare)
      return rewriter.notifyMatchFailure(root, "variance of something else");
    // d feeds only the square and the normalization.
    for (Operation *user : d.getUsers())
      if (user != squareOp && user != root)
        return rewriter.notifyMatchFailure(root, "x - mean has another user");

    // Optional affine part.
    Value result = root->getResult(0);
    Operation *last = root;
    Value gamma, beta;
    if (Operation *mul = matchAffineUser(result, "Mul", type, k)) {
      gamma = getOtherOperand(mul, result);
      last = mul;
      result = mul->getResult(0);
    }
    if (Operation *add = matchAffineUser(result, "Add", type, k)) {
      beta = getOtherOperand(add, result);
      last = add;
    }

    Location loc = rewriter.getFusedLoc({mean->getLoc(), last->getLoc()});
    rewriter.setInsertionPoint(last);
    if (!gamma) {
      auto oneType = RankedTensorType::get({1}, type.getElementType());
      DenseElementsAttr one = getFloatElements(oneType, {1.0});
      if (!one)
        return rewriter.notifyMatchFailure(root, "no gamma for this type");
      gamma = createConstant(rewriter, loc, one);
    }
    if (!beta)
      beta = createNoValue(rewriter, loc);
    OperationState state(loc, "onnx.LayerNormalization");
    state.addOperands({x, gamma, beta});
    state.addAttribute("axis", rewriter.getI64IntegerAttr(type.getRank() - k));
    state.addAttribute("epsilon", rewriter.getF32FloatAttr(float(*epsilon)));
    state.addAttribute(
        "stash_type",
        rewriter.getI64IntegerAttr(type.getElementType().isF64() ? 11 : 1));
    NoneType none = rewriter.getNoneType();
    state.addTypes({type, none, none});
    Operation *layerNorm = rewriter.create(state);
    rewriter.replaceAllUsesWith(last->getResult(0), layerNorm->getResult(0));
    rewriter.eraseOp(last);
    return success();
  }
};

struct FuseLayerNormPass : impl::FuseLayerNormBase<FuseLayerNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseLayerNormPattern>("onnx.Div", &getContext());
    patterns.add<FuseLayerNormPattern>("onnx.Mul", &getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "layernorm")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseLayerNormPass() {
  return std::make_unique<FuseLayerNormPass>();
}

} // namespace onnxc
