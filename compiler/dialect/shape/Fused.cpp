//===- Fused.cpp - Shape rules of the onnxc fused ops ---------------------===//
//
// A fused op's result is its core op's result: FusedConv(X, W, B, Z) has
// Conv(X, W, B)'s shape (Z and the activation do not change it), and so on.
// The fused ops keep their core op's leading operands and attribute names,
// so the core op's rule applies as is. The transformer fusions
// (SkipLayerNorm, BiasGelu, BiasSoftmax) have their first operand's shape,
// which their core op's rule gives; EmbedLayerNorm has its own rule.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

/// EmbedLayerNorm: the broadcast shape of the index tensors, then the
/// tables' hidden size, in the tables' element type.
LogicalResult inferEmbedLayerNorm(RuleContext &ctx) {
  // Operands: input_ids, segment_ids, position_ids, word_embedding,
  // position_embedding, segment_embedding, gamma, beta.
  for (unsigned i : {2u, 3u, 4u, 6u})
    if (!ctx.hasInput(i))
      return ctx.emitError() << "required input #" << i << " is missing";
  SmallVector<int64_t> shape(ctx.getInputShape(0));
  for (unsigned i : {1u, 2u}) {
    if (!ctx.hasInput(i))
      continue;
    SmallVector<int64_t> merged;
    if (!broadcastShapes(shape, ctx.getInputShape(i), merged))
      return ctx.emitError()
             << "index shapes " << ctx.getInputType(0) << " and "
             << ctx.getInputType(i) << " do not broadcast";
    shape = std::move(merged);
  }
  if (ctx.getInputRank(3) != 2)
    return ctx.emitError() << "word_embedding must be 2-D, got "
                           << ctx.getInputType(3);
  shape.push_back(ctx.getInputShape(3)[1]);
  ctx.setResult(0, ctx.getInputElementType(3), shape);
  return success();
}

} // namespace

void addFusedRules(RuleTable &rules) {
  rules.addAlias("onnxc.FusedConv", "onnx.Conv", 2);
  rules.addAlias("onnxc.FusedMatMul", "onnx.MatMul", 2);
  rules.addAlias("onnxc.FusedGemm", "onnx.Gemm", 2);
  rules.addAlias("onnxc.SkipLayerNorm", "onnx.LayerNormalization", 3);
  rules.addAlias("onnxc.BiasGelu", "onnx.Gelu", 2);
  rules.addAlias("onnxc.BiasSoftmax", "onnx.Softmax", 2);
  // input_ids, position_ids, word and position tables, gamma are required.
  rules.addWithFullName("onnxc.EmbedLayerNorm", inferEmbedLayerNorm, 1);
}

} // namespace onnxc::shape
