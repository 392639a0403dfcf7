//===- FuseMatMulBias.cpp - MatMul + Add(bias) -> Gemm / FusedMatMul ------===//
//
// A MatMul followed by the addition of a constant bias is one GEMM with a
// bias epilogue. The bias must broadcast onto the product without growing it
// (else the Add also broadcasts the product, which a bias epilogue cannot
// express), and the product must have no other user.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_FUSEMATMULBIAS
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

/// Add(MatMul(A, B), bias) with a constant bias; also
/// Add(FusedMatMul(A, B) without bias or activation, bias).
struct FuseMatMulAddBias : RewritePattern {
  FuseMatMulAddBias(MLIRContext *ctx) : RewritePattern("onnx.Add", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *add,
                                PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      Value product = add->getOperand(i);
      Value bias = add->getOperand(1 - i);
      Operation *matmul = product.getDefiningOp();
      bool isMatMul = isOnnxOp(matmul, "MatMul");
      auto fused = llvm::dyn_cast_or_null<fused::FusedMatMulOp>(matmul);
      if (fused && (!llvm::isa<NoneType>(fused.getBias().getType()) ||
                    !fused.getActivation().empty()))
        continue;
      if ((!isMatMul && !fused) || !product.hasOneUse())
        continue;
      RankedTensorType productType = getFloatTensorType(product);
      auto biasType = llvm::dyn_cast<RankedTensorType>(bias.getType());
      if (!productType || !biasType || !getFloatConstant(bias) ||
          add->getResult(0).getType() != productType ||
          !broadcastsInto(biasType, productType))
        continue;

      Value a = matmul->getOperand(0), b = matmul->getOperand(1);
      auto aType = llvm::dyn_cast<RankedTensorType>(a.getType());
      auto bType = llvm::dyn_cast<RankedTensorType>(b.getType());
      Location loc = rewriter.getFusedLoc({matmul->getLoc(), add->getLoc()});
      Operation *replacement;
      if (isMatMul && aType && bType && aType.getRank() == 2 &&
          bType.getRank() == 2 && biasType.getRank() <= 2) {
        OperationState state(loc, "onnx.Gemm");
        state.addOperands({a, b, bias});
        state.addTypes(productType);
        replacement = rewriter.create(state);
      } else {
        FloatAttr alpha =
            fused ? fused.getAlphaAttr() : rewriter.getF32FloatAttr(1.0f);
        replacement = rewriter.create<fused::FusedMatMulOp>(
            loc, productType, a, b, bias, alpha, rewriter.getStringAttr(""),
            ArrayAttr());
      }
      rewriter.replaceOp(add, replacement->getResults());
      return success();
    }
    return rewriter.notifyMatchFailure(add, "not MatMul + constant bias");
  }
};

struct FuseMatMulBiasPass : impl::FuseMatMulBiasBase<FuseMatMulBiasPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseMatMulAddBias>(&getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "fused-biases")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseMatMulBiasPass() {
  return std::make_unique<FuseMatMulBiasPass>();
}

} // namespace onnxc
