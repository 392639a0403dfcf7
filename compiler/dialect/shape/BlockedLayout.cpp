//===- BlockedLayout.cpp - Shape rules of the blocked-layout ops ----------===//
//
// onnxc.ReorderToBlocked, ReorderFromBlocked, BlockedConv and
// BlockedQLinearConv (OnnxcOps.td): a blocked tensor is [N, ceil(C/B), D...,
// B]. The convolutions' spatial output sizes follow Conv's formula with
// explicit pads.
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

/// [N, 1, H, W, C] and W [M, C/group, kH, kW] -> [N, 1, OH, OW, M].
LogicalResult inferBlockedQLinearConv(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0), w = ctx.getInputShape(3);
  if (x.size() != 5 || w.size() != 4)
    return ctx.emitError() << "expects X [N, 1, H, W, C] and W [M, C/group, "
                              "kH, kW], got "
                           << formatShape(x) << " and " << formatShape(w);
  std::optional<SmallVector<int64_t>> strides = ctx.getIntsAttr("strides"),
                                      dilations = ctx.getIntsAttr("dilations"),
                                      pads = ctx.getIntsAttr("pads");
  if (!strides || strides->size() != 2 || !dilations ||
      dilations->size() != 2 || !pads || pads->size() != 4)
    return ctx.emitError() << "expects 2 strides, 2 dilations and 4 pads";
  SmallVector<int64_t> shape{x[0], 1};
  for (size_t i = 0; i < 2; ++i) {
    int64_t in = x[2 + i], kernel = w[2 + i];
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel)) {
      shape.push_back(kDynamic);
      continue;
    }
    int64_t extent = (*dilations)[i] * (kernel - 1) + 1;
    int64_t padded = in + (*pads)[i] + (*pads)[2 + i];
    if ((*strides)[i] < 1 || padded < extent)
      return ctx.emitError()
             << "the window of size " << extent << " along spatial dim " << i
             << " does not fit the padded input size " << padded;
    shape.push_back((padded - extent) / (*strides)[i] + 1);
  }
  shape.push_back(w[0]);
  ctx.setResult(0, ctx.getInputElementType(7), shape);
  return success();
}

} // namespace

void addBlockedLayoutRules(RuleTable &rules) {
  rules.addWithFullName("onnxc.ReorderToBlocked", inferReorderToBlocked,
                        RuleTable::kAllRequired);
  rules.addWithFullName("onnxc.ReorderFromBlocked", inferReorderFromBlocked,
                        RuleTable::kAllRequired);
  rules.addWithFullName("onnxc.BlockedConv", inferBlockedConv, 2);
  rules.addWithFullName("onnxc.BlockedQLinearConv", inferBlockedQLinearConv, 8);
}

} // namespace onnxc::shape
