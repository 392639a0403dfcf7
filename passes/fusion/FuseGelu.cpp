//===- FuseGelu.cpp - Decomposed GELU -> onnx.Gelu ------------------------===//
//
// Exporters write GELU as elementwise arithmetic:
//   erf form   x * 0.5 * (1 + erf(x / sqrt(2)))          (x / sqrt(2) may be
//              x * (1 / sqrt(2)))
//   tanh form  0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
//              (x^3 as Pow(x, 3) or x * x * x)
// with the final products in any of the orders
//   (x * t) * 0.5,   (x * 0.5) * t,   x * (t * 0.5)   where t = 1 + erf(..).
// Each intermediate must have no other user; constants are compared with a
// relative tolerance of 1e-4 (they are f32-rounded). The match is rooted at
// the Erf / Tanh and replaces the last product.
//
//===----------------------------------------------------------------------===//

#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <cmath>

namespace onnxc {
#define GEN_PASS_DEF_FUSEGELU
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

/// If `op` is the binary onnx op `name` with `value` as one operand and a
/// scalar constant close to `constant` as the other, returns true.
static bool isOpWithConstant(Operation *op, StringRef name, Value value,
                             double constant) {
  if (!isOnnxOp(op, name))
    return false;
  Value other = getOtherOperand(op, value);
  return other && isScalarConstant(other, constant);
}

/// The value `v` is scaled from, if `v` is Mul(x, factor) (either order) or
/// Div(x, divisor) with constants close to those given (Div only when
/// `divisor` is not 0).
static Value matchScaled(Value v, double factor, double divisor) {
  Operation *def = v.getDefiningOp();
  if (!def || !v.hasOneUse() || def->getNumOperands() != 2)
    return {};
  if (isOnnxOp(def, "Mul")) {
    for (unsigned i = 0; i < 2; ++i)
      if (isScalarConstant(def->getOperand(1 - i), factor))
        return def->getOperand(i);
    return {};
  }
  if (divisor != 0.0 && isOnnxOp(def, "Div") &&
      isScalarConstant(def->getOperand(1), divisor))
    return def->getOperand(0);
  return {};
}

/// Matches the products that finish GELU from t = 1 + erf(...) (or tanh):
/// returns the op that computes 0.5 * x * t, or null.
static Operation *matchGeluTail(Value x, Value t) {
  if (!t.hasOneUse())
    return nullptr;
  Operation *m1 = *t.getUsers().begin();
  if (!isOnnxOp(m1, "Mul"))
    return nullptr;
  Value other = getOtherOperand(m1, t);
  if (!other)
    return nullptr;
  Value m1Result = m1->getResult(0);
  // (x * t) * 0.5
  if (other == x) {
    Operation *m2 = getSingleUserOp(m1Result, "Mul");
    return m2 && isOpWithConstant(m2, "Mul", m1Result, 0.5) ? m2 : nullptr;
  }
  // (x * 0.5) * t
  if (matchScaled(other, 0.5, 2.0) == x)
    return m1;
  // x * (t * 0.5)
  if (isScalarConstant(other, 0.5)) {
    Operation *m2 = getSingleUserOp(m1Result, "Mul");
    return m2 && getOtherOperand(m2, m1Result) == x ? m2 : nullptr;
  }
  return nullptr;
}

/// The 1 + f(..) that follows `fn` (an Erf or Tanh result), or null.
static Value matchAddOne(Value fn) {
  Operation *add = getSingleUserOp(fn, "Add");
  if (!add || !isOpWithConstant(add, "Add", fn, 1.0))
    return {};
  return add->getResult(0);
}

static void replaceWithGelu(PatternRewriter &rewriter, Operation *root, Value x,
                            StringRef approximate) {
  OperationState state(root->getLoc(), "onnx.Gelu");
  state.addOperands(x);
  state.addAttribute("approximate", rewriter.getStringAttr(approximate));
  state.addTypes(x.getType());
  rewriter.replaceOp(root, rewriter.create(state)->getResults());
}

/// x * 0.5 * (1 + erf(x / sqrt(2))).
struct FuseErfGelu : RewritePattern {
  FuseErfGelu(MLIRContext *ctx) : RewritePattern("onnx.Erf", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *erf,
                                PatternRewriter &rewriter) const override {
    Value x = matchScaled(erf->getOperand(0), M_SQRT1_2, M_SQRT2);
    if (!x || !getFloatTensorType(x))
      return rewriter.notifyMatchFailure(erf, "input is not x / sqrt(2)");
    Value t = matchAddOne(erf->getResult(0));
    Operation *root = t ? matchGeluTail(x, t) : nullptr;
    if (!root || root->getResult(0).getType() != x.getType())
      return rewriter.notifyMatchFailure(erf, "not a GELU");
    replaceWithGelu(rewriter, root, x, "none");
    return success();
  }
};

/// x * x * x (or Pow(x, 3)) with no other user: returns x.
static Value matchCube(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || !v.hasOneUse())
    return {};
  if (isOnnxOp(def, "Pow"))
    return isScalarConstant(def->getOperand(1), 3.0) ? def->getOperand(0)
                                                     : Value();
  if (!isOnnxOp(def, "Mul"))
    return {};
  for (unsigned i = 0; i < 2; ++i) {
    Value x = def->getOperand(i);
    Operation *square = def->getOperand(1 - i).getDefiningOp();
    if (isOnnxOp(square, "Mul") && square->getResult(0).hasOneUse() &&
        square->getOperand(0) == x && square->getOperand(1) == x)
      return x;
  }
  return {};
}

/// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
struct FuseTanhGelu : RewritePattern {
  FuseTanhGelu(MLIRContext *ctx) : RewritePattern("onnx.Tanh", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *tanh,
                                PatternRewriter &rewriter) const override {
    Value inner = matchScaled(tanh->getOperand(0), std::sqrt(2.0 / M_PI), 0.0);
    Operation *add = inner ? inner.getDefiningOp() : nullptr;
    if (!isOnnxOp(add, "Add") || !inner.hasOneUse())
      return rewriter.notifyMatchFailure(tanh, "not tanh(c * (x + ...))");
    Value x;
    for (unsigned i = 0; i < 2 && !x; ++i) {
      Value cube = matchScaled(add->getOperand(1 - i), 0.044715, 0.0);
      if (cube && matchCube(cube) == add->getOperand(i))
        x = add->getOperand(i);
    }
    if (!x || !getFloatTensorType(x))
      return rewriter.notifyMatchFailure(tanh, "not x + 0.044715 * x^3");
    Value t = matchAddOne(tanh->getResult(0));
    Operation *root = t ? matchGeluTail(x, t) : nullptr;
    if (!root || root->getResult(0).getType() != x.getType())
      return rewriter.notifyMatchFailure(tanh, "not a GELU");
    replaceWithGelu(rewriter, root, x, "tanh");
    return success();
  }
};

struct FuseGeluPass : impl::FuseGeluBase<FuseGeluPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseErfGelu, FuseTanhGelu>(&getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "gelu")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseGeluPass() {
  return std::make_unique<FuseGeluPass>();
}

} // namespace onnxc
