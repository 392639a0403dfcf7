//===- FuseMatMulScale.cpp - MatMul * scalar -> FusedMatMul alpha ---------===//
//
// (A x B) * c and (A x B) / c for a scalar constant c are alpha * (A x B):
// the factor moves into the GEMM's epilogue. Only when the scalar does not
// broadcast the product to a larger shape, the product has no other user,
// and the MatMul has no bias or activation yet (those come after alpha).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_FUSEMATMULSCALE
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

struct FuseScalarScale : RewritePattern {
  FuseScalarScale(StringRef opName, MLIRContext *ctx)
      : RewritePattern(opName, 1, ctx), isDiv(opName == "onnx.Div") {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // Div only scales its dividend.
    for (unsigned i = 0; i < (isDiv ? 1u : 2u); ++i) {
      Value product = op->getOperand(i);
      Operation *matmul = product.getDefiningOp();
      auto fused = llvm::dyn_cast_or_null<fused::FusedMatMulOp>(matmul);
      if (fused && (!llvm::isa<NoneType>(fused.getBias().getType()) ||
                    !fused.getActivation().empty()))
        continue;
      if ((!fused && !isOnnxOp(matmul, "MatMul")) || !product.hasOneUse() ||
          !getFloatTensorType(product) ||
          op->getResult(0).getType() != product.getType())
        continue;
      std::optional<double> factor = getScalarConstant(op->getOperand(1 - i));
      if (!factor || (isDiv && *factor == 0.0))
        continue;
      double alpha = fused ? fused.getAlpha().convertToDouble() : 1.0;
      alpha = isDiv ? alpha / *factor : alpha * *factor;
      Location loc = rewriter.getFusedLoc({matmul->getLoc(), op->getLoc()});
      Value none = createNoValue(rewriter, loc);
      rewriter.replaceOpWithNewOp<fused::FusedMatMulOp>(
          op, product.getType(), matmul->getOperand(0), matmul->getOperand(1),
          none, rewriter.getF32FloatAttr(float(alpha)),
          rewriter.getStringAttr(""), ArrayAttr());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not MatMul scaled by a constant");
  }

  bool isDiv;
};

struct FuseMatMulScalePass : impl::FuseMatMulScaleBase<FuseMatMulScalePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseScalarScale>("onnx.Mul", &getContext());
    patterns.add<FuseScalarScale>("onnx.Div", &getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "fused-scales")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseMatMulScalePass() {
  return std::make_unique<FuseMatMulScalePass>();
}

} // namespace onnxc
