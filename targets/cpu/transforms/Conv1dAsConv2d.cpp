//===- Conv1dAsConv2d.cpp - 1-D convolutions on the 2-D kernels -----------===//
//
// The runtime's convolution kernels (runtime/cpu/Conv.c: 1x1 as GEMM,
// im2col tiles + GEMM, depthwise) take 2-D NCHW operands; a 1-D Conv or
// FusedConv otherwise lowers to linalg loops, which audio front ends (an
// STFT as a Conv with a 512-tap kernel, wav2vec-style feature encoders)
// spend most of their time in. A 1-D convolution over [N, C, L] is the 2-D
// one over [N, C, 1, L] with a [M, C/g, 1, k] kernel, window 1 along the
// new dim: this pass inserts the Unsqueeze ops (X, W and FusedConv's
// residual Z, at axis 2), moves the window attributes to two dims
// (kernel_shape [1, k], strides [1, s], dilations [1, d], pads [0, b, 0, e];
// auto_pad keeps its meaning, the new dim needing no padding), and
// squeezes the result back.
//
// Legal: the same products and sums in the same order. Matches f32 only.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace onnxc::cpu {
#define GEN_PASS_DECL_CONV1DASCONV2D
#define GEN_PASS_DEF_CONV1DASCONV2D
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// `type` with a unit dim inserted at 2.
RankedTensorType withUnitDim(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + 2, 1);
  return RankedTensorType::get(shape, type.getElementType());
}

/// The window attribute `attr` of one spatial dim for two: `first` before
/// its value (pads: before each of its two values).
Attribute twoDims(Builder &b, Attribute attr, int64_t first, bool pads) {
  auto list = llvm::dyn_cast<ArrayAttr>(attr);
  if (!list)
    return attr;
  SmallVector<int64_t> values;
  for (Attribute a : list) {
    if (pads || values.empty())
      values.push_back(first);
    values.push_back(llvm::cast<IntegerAttr>(a).getInt());
  }
  return b.getI64ArrayAttr(values);
}

struct Conv1dAsConv2d : RewritePattern {
  Conv1dAsConv2d(MLIRContext *ctx, StringRef name)
      : RewritePattern(name, /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto x = llvm::dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto w = llvm::dyn_cast<RankedTensorType>(op->getOperand(1).getType());
    auto y = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!x || !w || !y || x.getRank() != 3 || w.getRank() != 3 ||
        y.getRank() != 3 || !x.getElementType().isF32() ||
        !w.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "not an f32 1-D convolution");
    for (StringRef name : {"kernel_shape", "strides", "dilations"})
      if (auto list = op->getAttrOfType<ArrayAttr>(name))
        if (list.size() != 1)
          return rewriter.notifyMatchFailure(op, "window of another rank");
    if (auto pads = op->getAttrOfType<ArrayAttr>("pads"))
      if (pads.size() != 2)
        return rewriter.notifyMatchFailure(op, "pads of another rank");

    Location loc = op->getLoc();
    OperationState axisState(loc, "onnx.Constant");
    auto axisType = RankedTensorType::get({1}, rewriter.getI64Type());
    axisState.addTypes(axisType);
    axisState.addAttribute("value",
                           DenseElementsAttr::get(axisType, int64_t{2}));
    Value axis = rewriter.create(axisState)->getResult(0);
    auto unsqueeze = [&](Value value) -> Value {
      auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
      if (!type || type.getRank() != 3)
        return value; // the bias [M], an absent operand
      OperationState state(loc, "onnx.Unsqueeze");
      state.addOperands({value, axis});
      state.addTypes(withUnitDim(type));
      return rewriter.create(state)->getResult(0);
    };

    OperationState conv(loc, op->getName());
    for (Value operand : op->getOperands())
      conv.addOperands(unsqueeze(operand));
    for (NamedAttribute attr : op->getAttrs()) {
      StringRef name = attr.getName().getValue();
      Attribute value = attr.getValue();
      if (name == "kernel_shape" || name == "strides" || name == "dilations")
        value = twoDims(rewriter, value, 1, /*pads=*/false);
      else if (name == "pads")
        value = twoDims(rewriter, value, 0, /*pads=*/true);
      conv.addAttribute(name, value);
    }
    conv.addTypes(withUnitDim(y));
    Operation *conv2d = rewriter.create(conv);

    OperationState squeeze(loc, "onnx.Squeeze");
    squeeze.addOperands({conv2d->getResult(0), axis});
    squeeze.addTypes(y);
    rewriter.replaceOp(op, rewriter.create(squeeze)->getResults());
    return success();
  }
};

struct Conv1dAsConv2dPass : impl::Conv1dAsConv2dBase<Conv1dAsConv2dPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    for (StringRef name : {"onnx.Conv", "onnxc.FusedConv"})
      patterns.add<Conv1dAsConv2d>(&getContext(), name);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createConv1dAsConv2dPass() {
  return std::make_unique<Conv1dAsConv2dPass>();
}

} // namespace onnxc::cpu
