//===- FuseActivation.cpp - Conv/MatMul/Gemm + activation -> fused op -----===//
//
// An elementwise activation applied to the only use of a Conv, MatMul or
// Gemm result is the epilogue of that op's kernel. The activations are those
// the onnxc fused ops define (OnnxcOps.td); Clip only with constant scalar
// bounds (or none). SiLU, Mul(x, Sigmoid(x)), counts as one activation when
// the Sigmoid and the Mul are x's only users.
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

/// Makes `activation` (with `params`, may be null) the epilogue of
/// `producer`, a Conv, MatMul or Gemm (or its onnxc fused form without an
/// activation), and replaces `root`, the last op of the activation, with the
/// result. The caller has checked that the activation is the producer's
/// only consumer.
static LogicalResult fuseIntoProducer(PatternRewriter &rewriter,
                                      Operation *root, Operation *producer,
                                      StringAttr activation, ArrayAttr params) {
  Location loc = rewriter.getFusedLoc({producer->getLoc(), root->getLoc()});
  Type type = producer->getResult(0).getType();

  // An onnxc fused op without an activation takes this one.
  if (llvm::isa<fused::FusedConvOp, fused::FusedMatMulOp, fused::FusedGemmOp>(
          producer)) {
    auto current = producer->getAttrOfType<StringAttr>("activation");
    if (current && !current.getValue().empty())
      return rewriter.notifyMatchFailure(root, "already has an activation");
    rewriter.modifyOpInPlace(producer, [&] {
      producer->setAttr("activation", activation);
      if (params)
        producer->setAttr("activation_params", params);
      else
        producer->removeAttr("activation_params");
      producer->setLoc(loc);
    });
    rewriter.replaceOp(root, producer->getResults());
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
    return rewriter.notifyMatchFailure(root, "not Conv, MatMul or Gemm");
  }
  OperationState state(loc, fusedName);
  state.addOperands(operands);
  state.addAttributes(producer->getAttrs());
  state.addAttribute("activation", activation);
  if (params)
    state.addAttribute("activation_params", params);
  state.addTypes(type);
  rewriter.replaceOp(root, rewriter.create(state)->getResults());
  return success();
}

/// A unary activation op on the only use of a Conv/MatMul/Gemm result.
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
    return fuseIntoProducer(
        rewriter, act, producer,
        rewriter.getStringAttr(act->getName().stripDialect()),
        params->empty() ? ArrayAttr() : rewriter.getF32ArrayAttr(*params));
  }
};

/// SiLU written as Mul(x, Sigmoid(x)) (either operand order) where x is a
/// Conv/MatMul/Gemm result that the Sigmoid and the Mul alone use: x is
/// then needed only inside the epilogue, which computes x * sigmoid(x) as
/// the activation "Silu".
struct FuseSiluPattern : RewritePattern {
  FuseSiluPattern(MLIRContext *ctx) : RewritePattern("onnx.Mul", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *mul,
                                PatternRewriter &rewriter) const override {
    if (mul->getNumOperands() != 2)
      return rewriter.notifyMatchFailure(mul, "not a binary Mul");
    for (unsigned i = 0; i < 2; ++i) {
      Value x = mul->getOperand(i), gate = mul->getOperand(1 - i);
      Operation *sigmoid = gate.getDefiningOp();
      if (!sigmoid || !isOnnxOp(sigmoid, "Sigmoid") ||
          sigmoid->getOperand(0) != x || !gate.hasOneUse())
        continue;
      Operation *producer = x.getDefiningOp();
      if (!producer || !getFloatTensorType(x) ||
          std::distance(x.use_begin(), x.use_end()) != 2 ||
          gate.getType() != x.getType() ||
          mul->getResult(0).getType() != x.getType())
        return rewriter.notifyMatchFailure(mul, "x has other users or types "
                                                "differ");
      // The Sigmoid, used only by the replaced Mul, goes too.
      if (failed(fuseIntoProducer(rewriter, mul, producer,
                                  rewriter.getStringAttr("Silu"), ArrayAttr())))
        return failure();
      rewriter.eraseOp(sigmoid);
      return success();
    }
    return rewriter.notifyMatchFailure(mul, "not Mul(x, Sigmoid(x))");
  }
};

struct FuseActivationPass : impl::FuseActivationBase<FuseActivationPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    for (StringRef name :
         {"onnx.Relu", "onnx.LeakyRelu", "onnx.Clip", "onnx.Sigmoid",
          "onnx.Tanh", "onnx.HardSigmoid", "onnx.HardSwish"})
      patterns.add<FuseActivationPattern>(name, &getContext());
    patterns.add<FuseSiluPattern>(&getContext());
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
