//===- Recurrent.cpp - Shape rules of LSTM, GRU and RNN -------------------===//
//
// X is [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1);
// W is [directions, gates * hidden, input]. Y is [seq, directions, batch,
// hidden] (layout 1: [batch, seq, directions, hidden]); Y_h and Y_c are
// [directions, batch, hidden] (layout 1: [batch, directions, hidden]).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

template <int64_t gates> LogicalResult inferRecurrent(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0), w = ctx.getInputShape(1);
  if (x.size() != 3 || w.size() != 3)
    return ctx.emitError() << "expects a 3-D X and W, got "
                           << ctx.getInputType(0) << " and "
                           << ctx.getInputType(1);
  StringRef direction = ctx.getStrAttr("direction", "forward");
  int64_t directions = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && directions != 2)
    return ctx.emitError() << "unknown direction '" << direction << "'";
  if (!ShapedType::isDynamic(w[0]) && w[0] != directions)
    return ctx.emitError() << "W has " << w[0] << " directions, expected "
                           << directions;
  int64_t hidden = ctx.getIntAttr("hidden_size", kDynamic);
  if (ShapedType::isDynamic(hidden) && !ShapedType::isDynamic(w[1])) {
    if (w[1] % gates != 0)
      return ctx.emitError()
             << "W's dim 1 (" << w[1] << ") is not a multiple of " << gates;
    hidden = w[1] / gates;
  }
  // R is [directions, gates * hidden, hidden].
  if (ShapedType::isDynamic(hidden) && ctx.getInputRank(2) == 3)
    hidden = ctx.getInputShape(2)[2];
  bool batchFirst = ctx.getIntAttr("layout", 0) != 0;
  int64_t seq = batchFirst ? x[1] : x[0], batch = batchFirst ? x[0] : x[1];
  Type element = ctx.getInputElementType(0);
  if (batchFirst) {
    ctx.setResult(0, element, {batch, seq, directions, hidden});
    ctx.setResult(1, element, {batch, directions, hidden});
    ctx.setResult(2, element, {batch, directions, hidden});
  } else {
    ctx.setResult(0, element, {seq, directions, batch, hidden});
    ctx.setResult(1, element, {directions, batch, hidden});
    ctx.setResult(2, element, {directions, batch, hidden});
  }
  return success();
}

} // namespace

void addRecurrentRules(RuleTable &rules) {
  rules.add("LSTM", inferRecurrent<4>, 3);
  rules.add("GRU", inferRecurrent<3>, 3);
  rules.add("RNN", inferRecurrent<1>, 3);
}

} // namespace onnxc::shape
