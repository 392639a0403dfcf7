//===- ConvPool.cpp - Shape rules of convolutions and pooling -------------===//
//
// Conv, ConvTranspose, DeformConv, CausalConvWithState, MaxPool, AveragePool,
// LpPool and the global pools. All take an [N, C, D1..Dk] input; the spatial
// output sizes follow the ONNX formulas for explicit pads or auto_pad
// (SAME_UPPER/SAME_LOWER/VALID).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

/// Strides, dilations, pads and auto_pad of a windowed op with `k` spatial
/// dims, defaulted and checked.
struct WindowAttrs {
  SmallVector<int64_t> strides, dilations, pads;
  StringRef autoPad;
};

FailureOr<WindowAttrs> getWindowAttrs(RuleContext &ctx, size_t k) {
  WindowAttrs attrs;
  auto read = [&](StringRef name, size_t size, int64_t dflt,
                  SmallVectorImpl<int64_t> &out) -> LogicalResult {
    std::optional<SmallVector<int64_t>> values = ctx.getIntsAttr(name);
    if (!values) {
      out.assign(size, dflt);
      return success();
    }
    if (values->size() != size)
      return ctx.emitError() << "'" << name << "' has " << values->size()
                             << " values, expected " << size;
    out.assign(values->begin(), values->end());
    return success();
  };
  if (failed(read("strides", k, 1, attrs.strides)) ||
      failed(read("dilations", k, 1, attrs.dilations)) ||
      failed(read("pads", 2 * k, 0, attrs.pads)))
    return failure();
  for (auto [s, d] : llvm::zip(attrs.strides, attrs.dilations))
    if (s < 1 || d < 1)
      return ctx.emitError() << "strides and dilations must be positive";
  attrs.autoPad = ctx.getStrAttr("auto_pad", "NOTSET");
  if (attrs.autoPad != "NOTSET" && attrs.autoPad != "VALID" &&
      attrs.autoPad != "SAME_UPPER" && attrs.autoPad != "SAME_LOWER")
    return ctx.emitError() << "unknown auto_pad '" << attrs.autoPad << "'";
  return attrs;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The output size of one spatial dim of a convolution or pooling window.
/// Returns failure (after an error) when the window does not fit.
FailureOr<int64_t> windowOutputSize(RuleContext &ctx, const WindowAttrs &attrs,
                                    size_t i, int64_t size, int64_t kernel,
                                    bool ceilMode) {
  if (ShapedType::isDynamic(size))
    return kDynamic;
  int64_t stride = attrs.strides[i];
  if (attrs.autoPad == "SAME_UPPER" || attrs.autoPad == "SAME_LOWER")
    return ceilDiv(size, stride);
  if (ShapedType::isDynamic(kernel))
    return kDynamic;
  int64_t window = attrs.dilations[i] * (kernel - 1) + 1;
  int64_t padBegin = 0, padded = size;
  if (attrs.autoPad == "NOTSET") {
    padBegin = attrs.pads[i];
    padded += attrs.pads[i] + attrs.pads[i + attrs.strides.size()];
  }
  if (padded < window) {
    ctx.emitError() << "the window of size " << window << " along spatial dim "
                    << i << " does not fit the padded input size " << padded;
    return failure();
  }
  int64_t out = ceilMode ? ceilDiv(padded - window, stride) + 1
                         : (padded - window) / stride + 1;
  // A window in ceil mode must start inside the input or its left padding.
  if (ceilMode && (out - 1) * stride >= size + padBegin)
    --out;
  return out;
}

/// Conv: X [N, C, D...], W [M, C/group, K...], optional B [M]. The quantized
/// convolutions have the same rule with other operand positions.
LogicalResult inferConvShape(RuleContext &ctx, unsigned xIndex, unsigned wIndex,
                             unsigned biasIndex, Type element) {
  ArrayRef<int64_t> x = ctx.getInputShape(xIndex),
                    w = ctx.getInputShape(wIndex);
  if (x.size() < 3 || w.size() != x.size())
    return ctx.emitError() << "expects X of rank >= 3 and W of the same rank, "
                              "got "
                           << ctx.getInputType(xIndex) << " and "
                           << ctx.getInputType(wIndex);
  size_t k = x.size() - 2;
  int64_t group = ctx.getIntAttr("group", 1);
  if (group < 1)
    return ctx.emitError() << "group must be positive, got " << group;
  if (!ShapedType::isDynamic(x[1]) && !ShapedType::isDynamic(w[1]) &&
      x[1] != w[1] * group)
    return ctx.emitError() << "X has " << x[1] << " channels but W expects "
                           << w[1] << " x group " << group;
  if (!ShapedType::isDynamic(w[0]) && w[0] % group != 0)
    return ctx.emitError() << "W's " << w[0]
                           << " output channels are not divisible by group "
                           << group;
  if (ctx.hasInput(biasIndex) &&
      (ctx.getInputRank(biasIndex) != 1 ||
       (!ShapedType::isDynamic(ctx.getInputShape(biasIndex)[0]) &&
        !ShapedType::isDynamic(w[0]) &&
        ctx.getInputShape(biasIndex)[0] != w[0])))
    return ctx.emitError() << "bias " << ctx.getInputType(biasIndex)
                           << " does not match the " << w[0]
                           << " output channels";
  SmallVector<int64_t> kernel(w.drop_front(2));
  if (std::optional<SmallVector<int64_t>> attr =
          ctx.getIntsAttr("kernel_shape")) {
    if (attr->size() != k)
      return ctx.emitError() << "'kernel_shape' has " << attr->size()
                             << " values, expected " << k;
    kernel = *attr;
  }
  FailureOr<WindowAttrs> attrs = getWindowAttrs(ctx, k);
  if (failed(attrs))
    return failure();
  SmallVector<int64_t> shape = {x[0], w[0]};
  for (size_t i = 0; i < k; ++i) {
    FailureOr<int64_t> out =
        windowOutputSize(ctx, *attrs, i, x[i + 2], kernel[i], false);
    if (failed(out))
      return failure();
    shape.push_back(*out);
  }
  ctx.setResult(0, element, shape);
  return success();
}

LogicalResult inferConv(RuleContext &ctx) {
  return inferConvShape(ctx, 0, 1, 2, ctx.getInputElementType(0));
}

/// ConvInteger(x, w, x_zero_point, w_zero_point): an i32 result.
LogicalResult inferConvInteger(RuleContext &ctx) {
  return inferConvShape(ctx, 0, 1, ~0u,
                        IntegerType::get(ctx.getOp()->getContext(), 32));
}

/// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B): the
/// result has y_zero_point's type.
LogicalResult inferQLinearConv(RuleContext &ctx) {
  return inferConvShape(ctx, 0, 3, 8, ctx.getInputElementType(7));
}

/// DeformConv(X, W, offset, B, mask): Conv's rule with the bias at 3 (the
/// sampling offsets move taps, not the output grid).
LogicalResult inferDeformConv(RuleContext &ctx) {
  return inferConvShape(ctx, 0, 1, 3, ctx.getInputElementType(0));
}

/// CausalConvWithState(input [B, C, L], weight [C, 1, K], bias, past_state):
/// the output has the input's shape, present_state keeps the last K - 1
/// positions [B, C, K - 1].
LogicalResult inferCausalConvWithState(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0), w = ctx.getInputShape(1);
  if (x.size() != 3 || w.size() != 3)
    return ctx.emitError() << "expects a rank-3 input and weight, got "
                           << ctx.getInputType(0) << " and "
                           << ctx.getInputType(1);
  int64_t carry = ShapedType::isDynamic(w[2]) ? kDynamic : w[2] - 1;
  if (carry < 0 && !ShapedType::isDynamic(carry))
    return ctx.emitError() << "the kernel must have at least one tap";
  if (ctx.hasInput(3)) {
    ArrayRef<int64_t> past = ctx.getInputShape(3);
    if (past.size() != 3)
      return ctx.emitError()
             << "past_state must be rank 3, got " << ctx.getInputType(3);
    if (!ShapedType::isDynamic(past[2]) && !ShapedType::isDynamic(carry) &&
        past[2] != carry)
      return ctx.emitError() << "past_state holds " << past[2]
                             << " positions, the kernel needs " << carry;
    if (ShapedType::isDynamic(carry))
      carry = past[2];
  }
  Type element = ctx.getInputElementType(0);
  ctx.setResult(0, element, x);
  ctx.setResult(1, element, {x[0], x[1], carry});
  return success();
}

/// ConvTranspose: X [N, C, D...], W [C, M/group, K...] -> [N, M, O...].
LogicalResult inferConvTranspose(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0), w = ctx.getInputShape(1);
  if (x.size() < 3 || w.size() != x.size())
    return ctx.emitError() << "expects X of rank >= 3 and W of the same rank, "
                              "got "
                           << ctx.getInputType(0) << " and "
                           << ctx.getInputType(1);
  size_t k = x.size() - 2;
  int64_t group = ctx.getIntAttr("group", 1);
  if (group < 1)
    return ctx.emitError() << "group must be positive, got " << group;
  if (!ShapedType::isDynamic(x[1]) && !ShapedType::isDynamic(w[0]) &&
      x[1] != w[0])
    return ctx.emitError() << "X has " << x[1] << " channels but W has "
                           << w[0];
  SmallVector<int64_t> kernel(w.drop_front(2));
  if (std::optional<SmallVector<int64_t>> attr =
          ctx.getIntsAttr("kernel_shape")) {
    if (attr->size() != k)
      return ctx.emitError() << "'kernel_shape' has " << attr->size()
                             << " values, expected " << k;
    kernel = *attr;
  }
  FailureOr<WindowAttrs> attrs = getWindowAttrs(ctx, k);
  if (failed(attrs))
    return failure();
  SmallVector<int64_t> outputPadding(k, 0);
  if (std::optional<SmallVector<int64_t>> attr =
          ctx.getIntsAttr("output_padding")) {
    if (attr->size() != k)
      return ctx.emitError() << "'output_padding' has " << attr->size()
                             << " values, expected " << k;
    outputPadding = *attr;
  }
  int64_t channels = ShapedType::isDynamic(w[1]) ? kDynamic : w[1] * group;
  SmallVector<int64_t> shape = {x[0], channels};
  if (std::optional<SmallVector<int64_t>> outShape =
          ctx.getIntsAttr("output_shape")) {
    // Either the spatial sizes or the whole output shape.
    if (outShape->size() != k && outShape->size() != k + 2)
      return ctx.emitError() << "'output_shape' has " << outShape->size()
                             << " values, expected " << k;
    shape.append(outShape->end() - k, outShape->end());
    ctx.setResult(0, ctx.getInputElementType(0), shape);
    return success();
  }
  for (size_t i = 0; i < k; ++i) {
    int64_t in = x[i + 2], stride = attrs->strides[i];
    if (ShapedType::isDynamic(in)) {
      shape.push_back(kDynamic);
      continue;
    }
    if (attrs->autoPad == "SAME_UPPER" || attrs->autoPad == "SAME_LOWER") {
      shape.push_back(in * stride);
      continue;
    }
    if (ShapedType::isDynamic(kernel[i])) {
      shape.push_back(kDynamic);
      continue;
    }
    int64_t pads =
        attrs->autoPad == "VALID" ? 0 : attrs->pads[i] + attrs->pads[i + k];
    int64_t out = stride * (in - 1) + outputPadding[i] +
                  (kernel[i] - 1) * attrs->dilations[i] + 1 - pads;
    if (out < 1)
      return ctx.emitError() << "output size " << out << " along spatial dim "
                             << i << " is not positive";
    shape.push_back(out);
  }
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

/// MaxPool (with its optional Indices output), AveragePool, LpPool.
LogicalResult inferPool(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  if (x.size() < 3)
    return ctx.emitError() << "expects an input of rank >= 3, got "
                           << ctx.getInputType(0);
  size_t k = x.size() - 2;
  std::optional<SmallVector<int64_t>> kernel = ctx.getIntsAttr("kernel_shape");
  if (!kernel || kernel->size() != k)
    return ctx.emitError() << "'kernel_shape' must have " << k << " values";
  for (int64_t size : *kernel)
    if (size < 1)
      return ctx.emitError() << "'kernel_shape' values must be positive";
  FailureOr<WindowAttrs> attrs = getWindowAttrs(ctx, k);
  if (failed(attrs))
    return failure();
  bool ceilMode = ctx.getIntAttr("ceil_mode", 0) != 0;
  SmallVector<int64_t> shape = {x[0], x[1]};
  for (size_t i = 0; i < k; ++i) {
    FailureOr<int64_t> out =
        windowOutputSize(ctx, *attrs, i, x[i + 2], (*kernel)[i], ceilMode);
    if (failed(out))
      return failure();
    shape.push_back(*out);
  }
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  ctx.setResult(1, IntegerType::get(ctx.getOp()->getContext(), 64), shape);
  return success();
}

/// MaxUnpool(X, I, output_shape): the given output shape, else the inverse
/// of the pooling: (in - 1) * stride + kernel - pads.
LogicalResult inferMaxUnpool(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  if (x.size() < 3)
    return ctx.emitError() << "expects an input of rank >= 3, got "
                           << ctx.getInputType(0);
  size_t k = x.size() - 2;
  if (ctx.hasInput(2)) {
    if (ctx.getInputRank(2) != 1)
      return ctx.emitError() << "output_shape must be 1-D";
    std::optional<int64_t> length = ctx.getStaticLength(2);
    if (length && *length != int64_t(x.size()))
      return ctx.emitError() << "output_shape has " << *length
                             << " elements for an input of rank " << x.size();
    if (!length)
      return success();
    const KnownInts *known = ctx.getKnown(2);
    if (known && int64_t(known->size()) != *length)
      known = nullptr;
    SmallVector<int64_t> shape;
    for (int64_t i = 0; i < *length; ++i) {
      std::optional<int64_t> dim = known ? (*known)[i].value : std::nullopt;
      shape.push_back(dim ? *dim : kDynamic);
    }
    ctx.setResult(0, ctx.getInputElementType(0), shape);
    return success();
  }
  std::optional<SmallVector<int64_t>> kernel = ctx.getIntsAttr("kernel_shape");
  if (!kernel || kernel->size() != k)
    return ctx.emitError() << "'kernel_shape' must have " << k << " values";
  FailureOr<WindowAttrs> attrs = getWindowAttrs(ctx, k);
  if (failed(attrs))
    return failure();
  SmallVector<int64_t> shape = {x[0], x[1]};
  for (size_t i = 0; i < k; ++i)
    shape.push_back(ShapedType::isDynamic(x[i + 2])
                        ? kDynamic
                        : (x[i + 2] - 1) * attrs->strides[i] + (*kernel)[i] -
                              attrs->pads[i] - attrs->pads[i + k]);
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

/// GlobalAveragePool, GlobalMaxPool, GlobalLpPool: [N, C, 1, ..., 1].
LogicalResult inferGlobalPool(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  if (x.size() < 3)
    return ctx.emitError() << "expects an input of rank >= 3, got "
                           << ctx.getInputType(0);
  SmallVector<int64_t> shape(x.size(), 1);
  shape[0] = x[0];
  shape[1] = x[1];
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

} // namespace

void addConvPoolRules(RuleTable &rules) {
  rules.add("Conv", inferConv, 2);
  rules.add("ConvInteger", inferConvInteger, 2);
  rules.add("QLinearConv", inferQLinearConv, 8);
  rules.add("ConvTranspose", inferConvTranspose, 2);
  rules.add("DeformConv", inferDeformConv, 3);
  rules.add("CausalConvWithState", inferCausalConvWithState, 2);
  rules.add("MaxPool", inferPool);
  rules.add("AveragePool", inferPool);
  rules.add("LpPool", inferPool);
  rules.add("MaxUnpool", inferMaxUnpool, 2);
  rules.add("GlobalAveragePool", inferGlobalPool);
  rules.add("GlobalMaxPool", inferGlobalPool);
  rules.add("GlobalLpPool", inferGlobalPool);
}

} // namespace onnxc::shape
