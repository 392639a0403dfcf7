//===- Loss.cpp - Shape rules of the loss ops -----------------------------===//
//
// NegativeLogLikelihoodLoss(input [N, C, d...], target [N, d...], weight [C])
// and SoftmaxCrossEntropyLoss (same operands, plus log_prob of the scores'
// shape). The loss has the target's shape with reduction "none" and is a
// scalar otherwise.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

LogicalResult inferLoss(RuleContext &ctx) {
  ArrayRef<int64_t> input = ctx.getInputShape(0), target = ctx.getInputShape(1);
  if (input.size() < 2 || target.size() + 1 != input.size())
    return ctx.emitError() << "expects an input [N, C, d...] and a target "
                           << "[N, d...], got " << ctx.getInputType(0)
                           << " and " << ctx.getInputType(1);
  if (!llvm::isa<IntegerType>(ctx.getInputElementType(1)))
    return ctx.emitError() << "expects an integer target, got "
                           << ctx.getInputType(1);
  SmallVector<int64_t> lossShape;
  for (auto [i, dim] : llvm::enumerate(target)) {
    int64_t inputDim = input[i == 0 ? 0 : i + 1];
    if (!ShapedType::isDynamic(dim) && !ShapedType::isDynamic(inputDim) &&
        dim != inputDim)
      return ctx.emitError() << "target " << formatShape(target)
                             << " does not match input " << formatShape(input);
    lossShape.push_back(ShapedType::isDynamic(dim) ? inputDim : dim);
  }
  if (ctx.hasInput(2)) {
    ArrayRef<int64_t> weight = ctx.getInputShape(2);
    if (weight.size() != 1 ||
        (!ShapedType::isDynamic(weight[0]) &&
         !ShapedType::isDynamic(input[1]) && weight[0] != input[1]))
      return ctx.emitError() << "expects a weight of shape [C] = [" << input[1]
                             << "], got " << ctx.getInputType(2);
  }
  StringRef reduction = ctx.getStrAttr("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return ctx.emitError() << "unknown reduction '" << reduction << "'";
  Type element = ctx.getInputElementType(0);
  if (reduction == "none")
    ctx.setResult(0, element, lossShape);
  else
    ctx.setResult(0, element, {});
  if (ctx.getNumResults() > 1)
    ctx.setResult(1, element, input);
  return success();
}

} // namespace

void addLossRules(RuleTable &rules) {
  rules.add("NegativeLogLikelihoodLoss", inferLoss, 2);
  rules.add("SoftmaxCrossEntropyLoss", inferLoss, 2);
}

} // namespace onnxc::shape
