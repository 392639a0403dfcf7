//===- FoldConvAffine.cpp - Fold per-channel affine ops into Conv ---------===//
//
// An inference-mode BatchNormalization, or a Mul/Add by a per-channel
// constant, applied to the output of a Conv with constant weights is an
// affine map per output channel m: y = s[m] * conv + t[m]. Since the
// convolution is linear in W and B, the same result comes from one Conv with
// W'[m] = s[m] * W[m] and B'[m] = s[m] * B[m] + t[m]. The Conv's result must
// have no other user, or both forms would be computed.
//
//===----------------------------------------------------------------------===//

#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <cmath>

namespace onnxc {
#define GEN_PASS_DEF_FOLDCONVAFFINE
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

/// A Conv whose weights (and bias, if any) are float constants, with the
/// per-channel scale and shift to fold into it.
struct ConvWeights {
  Operation *conv;
  RankedTensorType weightType;
  SmallVector<double> weights;
  SmallVector<double> bias; // empty when the Conv has none
  int64_t channels;
};

/// The Conv producing `value` (its only use) when its weights are constant.
static std::optional<ConvWeights> matchConstantConv(Value value) {
  Operation *conv = value.getDefiningOp();
  if (!isOnnxOp(conv, "Conv") || !value.hasOneUse() ||
      !getFloatTensorType(value))
    return std::nullopt;
  DenseFPElementsAttr w = getFloatConstant(conv->getOperand(1));
  if (!w)
    return std::nullopt;
  auto wType = llvm::cast<RankedTensorType>(w.getType());
  if (wType.getRank() < 3 || !wType.hasStaticShape() ||
      !(wType.getElementType().isF32() || wType.getElementType().isF64()))
    return std::nullopt;
  ConvWeights result{conv, wType, getDoubles(w), {}, wType.getDimSize(0)};
  Value b = conv->getOperand(2);
  if (!llvm::isa<NoneType>(b.getType())) {
    DenseFPElementsAttr bias = getFloatConstant(b);
    if (!bias || bias.getNumElements() != result.channels)
      return std::nullopt;
    result.bias = getDoubles(bias);
  }
  return result;
}

/// Replaces `root` (whose result 0 is the affine map of `cw.conv`'s output)
/// with a Conv of rescaled weights: y[m] = scale[m] * conv[m] + shift[m].
static void replaceWithScaledConv(PatternRewriter &rewriter, Operation *root,
                                  const ConvWeights &cw, ArrayRef<double> scale,
                                  ArrayRef<double> shift) {
  int64_t perChannel = cw.weights.size() / cw.channels;
  SmallVector<double> weights(cw.weights);
  for (int64_t m = 0; m < cw.channels; ++m)
    for (int64_t i = 0; i < perChannel; ++i)
      weights[m * perChannel + i] *= scale[m];
  SmallVector<double> bias(cw.channels);
  for (int64_t m = 0; m < cw.channels; ++m)
    bias[m] = (cw.bias.empty() ? 0.0 : cw.bias[m]) * scale[m] + shift[m];

  Location loc = rewriter.getFusedLoc({cw.conv->getLoc(), root->getLoc()});
  Value w =
      createConstant(rewriter, loc, getFloatElements(cw.weightType, weights));
  auto biasType =
      RankedTensorType::get({cw.channels}, cw.weightType.getElementType());
  Value b = createConstant(rewriter, loc, getFloatElements(biasType, bias));
  OperationState state(loc, "onnx.Conv");
  state.addOperands({cw.conv->getOperand(0), w, b});
  state.addAttributes(cw.conv->getAttrs());
  state.addTypes(root->getResult(0).getType());
  Operation *fused = rewriter.create(state);
  rewriter.replaceAllUsesWith(root->getResult(0), fused->getResult(0));
  rewriter.eraseOp(root);
}

/// Conv -> BatchNormalization (inference mode, constant parameters):
/// scale s = gamma / sqrt(var + epsilon), shift beta - mean * s.
struct FoldBatchNorm : RewritePattern {
  FoldBatchNorm(MLIRContext *ctx)
      : RewritePattern("onnx.BatchNormalization", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *bn,
                                PatternRewriter &rewriter) const override {
    if (auto training = bn->getAttrOfType<IntegerAttr>("training_mode"))
      if (training.getInt() != 0)
        return rewriter.notifyMatchFailure(bn, "training mode");
    for (unsigned i = 1; i < bn->getNumResults(); ++i)
      if (!bn->getResult(i).use_empty())
        return rewriter.notifyMatchFailure(bn, "running stats are used");
    std::optional<ConvWeights> cw = matchConstantConv(bn->getOperand(0));
    if (!cw)
      return rewriter.notifyMatchFailure(bn, "not a constant-weight Conv");
    SmallVector<SmallVector<double>> params;
    for (unsigned i = 1; i <= 4; ++i) {
      DenseFPElementsAttr attr = getFloatConstant(bn->getOperand(i));
      if (!attr || attr.getNumElements() != cw->channels)
        return rewriter.notifyMatchFailure(bn, "non-constant parameters");
      params.push_back(getDoubles(attr));
    }
    double epsilon = 1e-5;
    if (auto attr = bn->getAttrOfType<FloatAttr>("epsilon"))
      epsilon = attr.getValueAsDouble();
    SmallVector<double> scale(cw->channels), shift(cw->channels);
    for (int64_t m = 0; m < cw->channels; ++m) {
      scale[m] = params[0][m] / std::sqrt(params[3][m] + epsilon);
      shift[m] = params[1][m] - params[2][m] * scale[m];
    }
    replaceWithScaledConv(rewriter, bn, *cw, scale, shift);
    return success();
  }
};

/// The per-channel values of constant `value` applied to a Conv output of
/// type `convType` (channel dim 1) without changing its shape: a scalar or a
/// tensor whose dims are all 1 but the channel dim. Empty when it is not.
static SmallVector<double> getPerChannelConstant(Value value,
                                                 RankedTensorType convType,
                                                 int64_t channels) {
  DenseFPElementsAttr attr = getFloatConstant(value);
  if (!attr)
    return {};
  auto type = llvm::cast<RankedTensorType>(attr.getType());
  int64_t rank = convType.getRank();
  if (type.getRank() > rank)
    return {};
  int64_t offset = rank - type.getRank();
  for (auto [i, dim] : llvm::enumerate(type.getShape())) {
    int64_t d = offset + i;
    if (dim != 1 && !(d == 1 && dim == channels))
      return {};
  }
  SmallVector<double> values = getDoubles(attr);
  if (values.size() == 1)
    values.assign(channels, values.front());
  return values;
}

/// Conv -> Mul/Add by a per-channel (or scalar) constant.
struct FoldPerChannelArith : RewritePattern {
  FoldPerChannelArith(StringRef opName, MLIRContext *ctx)
      : RewritePattern(opName, 1, ctx), isMul(opName == "onnx.Mul") {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      std::optional<ConvWeights> cw = matchConstantConv(op->getOperand(i));
      if (!cw)
        continue;
      auto convType = llvm::cast<RankedTensorType>(op->getOperand(i).getType());
      if (op->getResult(0).getType() != convType)
        return rewriter.notifyMatchFailure(op, "broadcast grows the result");
      SmallVector<double> values =
          getPerChannelConstant(op->getOperand(1 - i), convType, cw->channels);
      if (values.empty())
        return rewriter.notifyMatchFailure(op, "not a per-channel constant");
      SmallVector<double> ones(cw->channels, 1.0), zeros(cw->channels, 0.0);
      replaceWithScaledConv(rewriter, op, *cw, isMul ? values : ones,
                            isMul ? zeros : values);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no constant-weight Conv operand");
  }

  bool isMul;
};

struct FoldConvAffinePass : impl::FoldConvAffineBase<FoldConvAffinePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchNorm>(&getContext());
    patterns.add<FoldPerChannelArith>("onnx.Mul", &getContext());
    patterns.add<FoldPerChannelArith>("onnx.Add", &getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "folded-into-conv")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFoldConvAffinePass() {
  return std::make_unique<FoldConvAffinePass>();
}

} // namespace onnxc
