//===- Normalization.cpp - Shape rules of normalizations and softmax ------===//
//
// BatchNormalization, LayerNormalization, the other normalizations and the
// softmax family: the main output has the input's type; the statistics
// outputs have the reduced shapes.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

/// BatchNormalization: Y like X; the optional running mean/var (training
/// mode) are [C] of the mean's type.
LogicalResult inferBatchNorm(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  if (x.size() < 2)
    return ctx.emitError() << "expects an input of rank >= 2, got "
                           << ctx.getInputType(0);
  int64_t channels = x[1];
  for (unsigned i = 1; i < 5 && i < ctx.getNumInputs(); ++i) {
    if (!ctx.hasInput(i))
      continue;
    ArrayRef<int64_t> param = ctx.getInputShape(i);
    if (param.size() != 1 || (!ShapedType::isDynamic(param[0]) &&
                              !ShapedType::isDynamic(x[1]) && param[0] != x[1]))
      return ctx.emitError()
             << "input #" << i << " " << ctx.getInputType(i)
             << " must be 1-D with the " << x[1] << " channels of X";
    if (ShapedType::isDynamic(channels))
      channels = param[0];
  }
  ctx.setResult(0, ctx.getInputElementType(0), x);
  if (ctx.hasInput(3)) {
    ctx.setResult(1, ctx.getInputElementType(3), {channels});
    ctx.setResult(2, ctx.getInputElementType(3), {channels});
  }
  return success();
}

/// LayerNormalization: Y like X; Mean and InvStdDev keep the dims before
/// `axis` and have 1 for the normalized ones, in the stash type.
LogicalResult inferLayerNorm(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  FailureOr<int64_t> axis =
      ctx.normalizeAxis(ctx.getIntAttr("axis", -1), x.size());
  if (failed(axis))
    return failure();
  ctx.setResult(0, ctx.getInputElementType(0), x);
  SmallVector<int64_t> statShape(x);
  for (size_t i = *axis; i < x.size(); ++i)
    statShape[i] = 1;
  Type stash = getElementTypeFromOnnx(ctx.getOp()->getContext(),
                                      ctx.getIntAttr("stash_type", 1));
  if (!stash)
    stash = ctx.getInputElementType(0);
  ctx.setResult(1, stash, statShape);
  ctx.setResult(2, stash, statShape);
  return success();
}

/// Softmax, LogSoftmax, Hardmax: the input's type; the axis must exist.
LogicalResult inferSoftmax(RuleContext &ctx) {
  int64_t rank = ctx.getInputRank(0);
  // A 0-D input has nothing to normalize over but is still well defined.
  if (rank > 0 && failed(ctx.normalizeAxis(ctx.getIntAttr("axis", -1), rank)))
    return failure();
  ctx.setResult(0, ctx.getInputElementType(0), ctx.getInputShape(0));
  return success();
}

/// Normalizations whose single output has the input's type.
LogicalResult inferLikeInput(RuleContext &ctx) {
  ctx.setResult(0, ctx.getInputElementType(0), ctx.getInputShape(0));
  return success();
}

} // namespace

void addNormalizationRules(RuleTable &rules) {
  rules.add("BatchNormalization", inferBatchNorm);
  rules.add("LayerNormalization", inferLayerNorm, 2);
  rules.add("Softmax", inferSoftmax);
  rules.add("LogSoftmax", inferSoftmax);
  rules.add("Hardmax", inferSoftmax);
  for (StringRef name :
       {"InstanceNormalization", "GroupNormalization", "LpNormalization",
        "MeanVarianceNormalization", "RMSNormalization", "LRN"})
    rules.add(name, inferLikeInput);
}

} // namespace onnxc::shape
