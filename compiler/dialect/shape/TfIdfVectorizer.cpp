//===- TfIdfVectorizer.cpp - Shape rule of TfIdfVectorizer ----------------===//
//
// TfIdfVectorizer(X [C] or [B, C]) -> f32 [O] or [B, O], where O, the number
// of output columns, is max(ngram_indexes) + 1.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

#include <algorithm>

using namespace mlir;

namespace onnxc::shape {
namespace {

LogicalResult inferTfIdfVectorizer(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  if (shape.size() != 1 && shape.size() != 2)
    return ctx.emitError() << "expects a 1-D or 2-D input, got "
                           << ctx.getInputType(0);
  std::optional<SmallVector<int64_t>> columns =
      ctx.getIntsAttr("ngram_indexes");
  if (!columns || columns->empty())
    return ctx.emitError() << "needs a non-empty ngram_indexes attribute";
  int64_t width = *std::max_element(columns->begin(), columns->end()) + 1;
  Type f32 = Float32Type::get(ctx.getOp()->getContext());
  if (shape.size() == 1)
    ctx.setResult(0, f32, {width});
  else
    ctx.setResult(0, f32, {shape[0], width});
  return success();
}

} // namespace

void addTfIdfVectorizerRules(RuleTable &rules) {
  rules.add("TfIdfVectorizer", inferTfIdfVectorizer);
}

} // namespace onnxc::shape
