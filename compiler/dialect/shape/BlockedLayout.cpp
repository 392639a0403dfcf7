//===- BlockedLayout.cpp - Shape rules of the blocked-layout ops ----------===//
//
// onnxc.ReorderToBlocked, ReorderFromBlocked and BlockedConv (OnnxcOps.td):
// a blocked tensor is [N, ceil(C/B), D..., B]. BlockedConv's spatial output
// sizes follow Conv's formula with explicit pads.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

int64_t ceilDivDim(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) ? kDynamic : (a + b - 1) / b;
}

LogicalResult inferReorderToBlocked(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  int64_t block = ctx.getIntAttr("block_size", 0);
  if (x.size() < 3 || block < 1)
    return ctx.emitError() << "expects X of rank >= 3 and a positive "
                              "block_size";
  SmallVector<int64_t> shape(x);
  shape[1] = ceilDivDim(x[1], block);
  shape.push_back(block);
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

LogicalResult inferReorderFromBlocked(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  int64_t channels = ctx.getIntAttr("channels", 0);
  if (x.size() < 4 || ShapedType::isDynamic(x.back()) || channels < 1)
    return ctx.emitError() << "expects a blocked X of rank >= 4 with a static "
                              "block size, and positive channels";
  if (!ShapedType::isDynamic(x[1]) && x[1] != ceilDivDim(channels, x.back()))
    return ctx.emitError() << "X " << formatShape(x) << " does not hold "
                           << channels << " channels";
  SmallVector<int64_t> shape(x.drop_back());
  shape[1] = channels;
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

LogicalResult inferBlockedConv(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0), w = ctx.getInputShape(1);
  if (x.size() < 4)
    return ctx.emitError() << "expects a blocked X of rank >= 4";
  size_t spatial = x.size() - 3;
  bool depthwise = ctx.getIntAttr("group", 1) != 1;
  size_t kernelStart = depthwise ? 1 : 2;
  if (w.size() != spatial + kernelStart + (depthwise ? 1 : 2))
    return ctx.emitError() << "weights " << formatShape(w) << " do not match X "
                           << formatShape(x);
  auto ints = [&](StringRef name, size_t size, int64_t dflt) {
    std::optional<SmallVector<int64_t>> values = ctx.getIntsAttr(name);
    return values && values->size() == size ? *values
                                            : SmallVector<int64_t>(size, dflt);
  };
  SmallVector<int64_t> strides = ints("strides", spatial, 1),
                       dilations = ints("dilations", spatial, 1),
                       pads = ints("pads", 2 * spatial, 0);
  SmallVector<int64_t> shape{x[0], w[0]};
  for (size_t i = 0; i < spatial; ++i) {
    int64_t in = x[2 + i], kernel = w[kernelStart + i];
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel)) {
      shape.push_back(kDynamic);
      continue;
    }
    int64_t extent = dilations[i] * (kernel - 1) + 1;
    int64_t padded = in + pads[i] + pads[spatial + i];
    if (strides[i] < 1 || padded < extent)
      return ctx.emitError()
             << "the window of size " << extent << " along spatial dim " << i
             << " does not fit the padded input size " << padded;
    shape.push_back((padded - extent) / strides[i] + 1);
  }
  shape.push_back(x.back());
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

} // namespace

void addBlockedLayoutRules(RuleTable &rules) {
  rules.addWithFullName("onnxc.ReorderToBlocked", inferReorderToBlocked,
                        RuleTable::kAllRequired);
  rules.addWithFullName("onnxc.ReorderFromBlocked", inferReorderFromBlocked,
                        RuleTable::kAllRequired);
  rules.addWithFullName("onnxc.BlockedConv", inferBlockedConv, 2);
}

} // namespace onnxc::shape
