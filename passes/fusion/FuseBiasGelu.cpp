//===- FuseBiasGelu.cpp - Bias + Gelu -> fused epilogue / BiasGelu --------===//
//
// ONNX Runtime's BiasGelu and FastGelu fusions. A Gelu whose input is
//   - the only use of a MatMul, Gemm or Conv (or of their onnxc fused forms
//     without an activation; FusedMatMul carries the Linear layer's bias
//     after FuseMatMulBias), directly or through a Reshape of a MatMul or
//     Gemm result (GPT-2), becomes that op's activation epilogue: "Gelu"
//     for the erf form, "FastGelu" for approximate = "tanh" (what FuseGelu
//     makes of the tanh approximation, and ONNX Runtime calls FastGelu);
//   - the only use of Add(x, bias) with a constant bias that broadcasts onto
//     x without growing it becomes onnxc.BiasGelu(x, bias, approximate).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_FUSEBIASGELU
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

struct FuseBiasGeluPattern : RewritePattern {
  FuseBiasGeluPattern(MLIRContext *ctx) : RewritePattern("onnx.Gelu", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *gelu,
                                PatternRewriter &rewriter) const override {
    Value input = gelu->getOperand(0);
    Operation *producer = input.getDefiningOp();
    RankedTensorType type = getFloatTensorType(input);
    if (!producer || !type || !input.hasOneUse() ||
        gelu->getResult(0).getType() != type)
      return rewriter.notifyMatchFailure(gelu, "not a single-use float input");
    auto approximateAttr = gelu->getAttrOfType<StringAttr>("approximate");
    StringRef approximate = approximateAttr ? approximateAttr.getValue() : "";
    if (approximate.empty())
      approximate = "none";
    if (approximate != "none" && approximate != "tanh")
      return rewriter.notifyMatchFailure(gelu, "unknown approximation");
    StringAttr activation =
        rewriter.getStringAttr(approximate == "tanh" ? "FastGelu" : "Gelu");

    // Gelu(Reshape(y)) is Reshape(Gelu(y)): GPT-2's Conv1D is a 2-D Gemm
    // reshaped to [batch, seq, n] before the Gelu. The activation then goes
    // into y's producer and the Reshape reshapes the activated result.
    Operation *reshape = nullptr;
    if (isOnnxOp(producer, "Reshape")) {
      Value inner = producer->getOperand(0);
      Operation *innerProducer = inner.getDefiningOp();
      if (innerProducer && inner.hasOneUse() && getFloatTensorType(inner) &&
          getFloatTensorType(inner).getElementType() == type.getElementType() &&
          (isOnnxOp(innerProducer, "MatMul") ||
           isOnnxOp(innerProducer, "Gemm") ||
           llvm::isa<fused::FusedMatMulOp, fused::FusedGemmOp>(
               innerProducer))) {
        reshape = producer;
        producer = innerProducer;
        // A new fused op must come before the Reshape that will use it.
        rewriter.setInsertionPoint(reshape);
      }
    }
    Location loc = rewriter.getFusedLoc({producer->getLoc(), gelu->getLoc()});
    // Replaces the Gelu by `fusedResult` (through the Reshape, if any).
    auto finish = [&](Value fusedResult) {
      if (!reshape) {
        rewriter.replaceOp(gelu, fusedResult);
        return;
      }
      rewriter.modifyOpInPlace(reshape,
                               [&] { reshape->setOperand(0, fusedResult); });
      rewriter.replaceOp(gelu, reshape->getResults());
    };

    // An onnxc fused op without an activation takes this one.
    if (llvm::isa<fused::FusedConvOp, fused::FusedMatMulOp, fused::FusedGemmOp>(
            producer)) {
      auto current = producer->getAttrOfType<StringAttr>("activation");
      if (current && !current.getValue().empty())
        return rewriter.notifyMatchFailure(gelu, "already has an activation");
      rewriter.modifyOpInPlace(producer, [&] {
        producer->setAttr("activation", activation);
        producer->removeAttr("activation_params");
        producer->setLoc(loc);
      });
      finish(producer->getResult(0));
      return success();
    }

    StringRef fusedName;
    SmallVector<Value> operands(producer->getOperands());
    if (isOnnxOp(producer, "MatMul")) {
      fusedName = fused::FusedMatMulOp::getOperationName();
      operands.push_back(createNoValue(rewriter, loc));
    } else if (isOnnxOp(producer, "Gemm")) {
      fusedName = fused::FusedGemmOp::getOperationName();
    } else if (isOnnxOp(producer, "Conv")) {
      fusedName = fused::FusedConvOp::getOperationName();
      operands.push_back(createNoValue(rewriter, loc));
    }
    if (!fusedName.empty()) {
      OperationState state(loc, fusedName);
      state.addOperands(operands);
      state.addAttributes(producer->getAttrs());
      state.addAttribute("activation", activation);
      state.addTypes(producer->getResult(0).getType());
      finish(rewriter.create(state)->getResult(0));
      return success();
    }

    // Gelu(Add(x, bias)).
    if (!isOnnxOp(producer, "Add"))
      return rewriter.notifyMatchFailure(gelu, "not a GEMM, Conv or Add");
    for (unsigned i = 0; i < 2; ++i) {
      Value x = producer->getOperand(i), bias = producer->getOperand(1 - i);
      auto biasType = llvm::dyn_cast<RankedTensorType>(bias.getType());
      if (x.getType() != type || !biasType || !getFloatConstant(bias) ||
          !broadcastsInto(biasType, type))
        continue;
      rewriter.replaceOpWithNewOp<fused::BiasGeluOp>(
          gelu, type, x, bias, rewriter.getStringAttr(approximate));
      return success();
    }
    return rewriter.notifyMatchFailure(gelu, "not Add(x, constant bias)");
  }
};

struct FuseBiasGeluPass : impl::FuseBiasGeluBase<FuseBiasGeluPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseBiasGeluPattern>(&getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "bias-gelu")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseBiasGeluPass() {
  return std::make_unique<FuseBiasGeluPass>();
}

} // namespace onnxc
