//===- ApproximateMath.cpp - Vectorizable exp, erf and tanh ---------------===//
//
// math.exp, math.erf and math.tanh otherwise become calls to libm (expf,
// erff, tanhf), one element at a time: LLVM cannot vectorize a loop around a
// call it has no vector variant for, and the call costs tens of
// instructions. These three carry Softmax, Sigmoid, GELU and Tanh, so this
// pass rewrites their f32 forms into MLIR's polynomial approximations (range
// reduction plus a polynomial, in arith ops), which the loop vectorizer turns
// into AVX/NEON code. The approximations' error is a few ulp (measured
// against numpy in docs/internals.md), well inside what the ONNX tests and
// ONNX Runtime's own vectorized kernels allow. Other math functions, other
// float types, and -O0 keep libm.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

struct ApproximateMathPass : impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    // Only these ops are rewritten (ExistingOps below): the upstream pattern
    // set also approximates sin, cos, log, atan..., some of them only
    // accurate on a small range.
    SmallVector<Operation *> targets;
    getOperation().walk([&](Operation *op) {
      if (isa<math::ExpOp, math::ErfOp, math::TanhOp>(op) &&
          op->getResult(0).getType().isF32())
        targets.push_back(op);
    });
    if (targets.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingOps;
    (void)applyOpPatternsAndFold(targets, std::move(patterns), config);
  }
};

} // namespace
} // namespace onnxc::cpu
