//===- FuseActivation.cpp - Conv/MatMul/Gemm + activation -> fused op -----===//
//
// An elementwise activation applied to the only use of a Conv, MatMul or
// Gemm result is the epilogue of that op's kernel. The activations are those
// the onnxc fused ops define (OnnxcOps.td); Clip only with constant scalar
// bounds (or none).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <limits>

namespace onnxc {
#define GEN_PASS_DEF_FUSEACTIVATION
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

/// The parameters of activation op `op` as FusedConv's activation_params, or
/// failure when it cannot be fused (a non-constant Clip bound).
static FailureOr<SmallVector<float>> getActivationParams(Operation *op) {
  StringRef name = op->getName().stripDialect();
  auto floatAttr = [&](StringRef attr, float defaultValue) {
    if (auto value = op->getAttrOfType<FloatAttr>(attr))
      return float(value.getValueAsDouble());
    return defaultValue;
  };
  if (name == "LeakyRelu")
    return SmallVector<float>{floatAttr("alpha", 0.01f)};
  if (name == "HardSigmoid")
    return SmallVector<float>{floatAttr("alpha", 0.2f),
                              floatAttr("beta", 0.5f)};
  if (name == "Clip") {
    SmallVector<float> bounds{-std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::infinity()};
    for (unsigned i = 1; i < op->getNumOperands(); ++i) {
      Value bound = op->getOperand(i);
      if (llvm::isa<NoneType>(bound.getType()))
        continue;
      std::optional<double> value = getScalarConstant(bound);
      auto type = llvm::dyn_cast<RankedTensorType>(bound.getType());
      if (!value || !type || type.getNumElements() != 1)
        return failure();
      bounds[i - 1] = float(*value);
    }
    return bounds;
  }
  return SmallVector<float>();
}

struct FuseActivationPattern : RewritePattern {
  FuseActivationPattern(StringRef opName, MLIRContext *ctx)
      : RewritePattern(opName, 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *act,
                                PatternRewriter &rewriter) const override {
    Value input = act->getOperand(0);
    Operation *producer = input.getDefiningOp();
    if (!producer || !input.hasOneUse() || !getFloatTensorType(input) ||
        act->getResult(0).getType() != input.getType())
      return rewriter.notifyMatchFailure(act, "not a single-use float input");
    FailureOr<SmallVector<float>> params = getActivationParams(act);
    if (failed(params))
      return rewriter.notifyMatchFailure(act, "non-constant Clip bounds");
    StringAttr activation =
        rewriter.getStringAttr(act->getName().stripDialect());
    ArrayAttr paramsAttr =
        params->empty() ? ArrayAttr() : rewriter.getF32ArrayAttr(*params);
    Location loc = rewriter.getFusedLoc({producer->getLoc(), act->getLoc()});

    // An onnxc fused op without an activation takes this one.
    if (llvm::isa<fused::FusedConvOp, fused::FusedMatMulOp, fused::FusedGemmOp>(
            producer)) {
      auto current = producer->getAttrOfType<StringAttr>("activation");
      if (current && !current.getValue().empty())
        return rewriter.notifyMatchFailure(act, "already has an activation");
      rewriter.modifyOpInPlace(producer, [&] {
        producer->setAttr("activation", activation);
        if (paramsAttr)
          producer->setAttr("activation_params", paramsAttr);
        producer->setLoc(loc);
      });
      rewriter.replaceOp(act, producer->getResults());
      return success();
    }

    StringRef fusedName;
    SmallVector<Value> operands(producer->getOperands());
    if (isOnnxOp(producer, "Conv")) {
      fusedName = fused::FusedConvOp::getOperationName();
      operands.push_back(createNoValue(rewriter, loc));
    } else if (isOnnxOp(producer, "MatMul")) {
      fusedName = fused::FusedMatMulOp::getOperationName();
      operands.push_back(createNoValue(rewriter, loc));
    } else if (isOnnxOp(producer, "Gemm")) {
      fusedName = fused::FusedGemmOp::getOperationName();
    } else {
      return rewriter.notifyMatchFailure(act, "not Conv, MatMul or Gemm");
    }
    OperationState state(loc, fusedName);
    state.addOperands(operands);
    state.addAttributes(producer->getAttrs());
    state.addAttribute("activation", activation);
    if (paramsAttr)
      state.addAttribute("activation_params", paramsAttr);
    state.addTypes(input.getType());
    rewriter.replaceOp(act, rewriter.create(state)->getResults());
    return success();
  }
};

struct FuseActivationPass : impl::FuseActivationBase<FuseActivationPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    for (StringRef name : {"onnx.Relu", "onnx.LeakyRelu", "onnx.Clip",
                           "onnx.Sigmoid", "onnx.Tanh", "onnx.HardSigmoid"})
      patterns.add<FuseActivationPattern>(name, &getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "fused-activations")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseActivationPass() {
  return std::make_unique<FuseActivationPass>();
}

} // namespace onnxc
