//===- BlockedLayoutOps.cpp - Verifiers of the blocked-layout ops ---------===//
//
// ReorderToBlocked, ReorderFromBlocked and BlockedConv (OnnxcOps.td). The
// checks apply to what is ranked: an imported model's ops have unknown result
// types until shape inference, which checks the rest.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"

using namespace mlir;
using namespace onnxc::fused;

static RankedTensorType rankedOrNull(Type type) {
  return llvm::dyn_cast<RankedTensorType>(type);
}

static bool isNone(Value value) { return llvm::isa<NoneType>(value.getType()); }

/// Whether static `a` and `b` disagree (a dynamic dim agrees with anything).
static bool conflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

static int64_t ceilDivStatic(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) ? ShapedType::kDynamic : (a + b - 1) / b;
}

LogicalResult ReorderToBlockedOp::verify() {
  int64_t block = getBlockSize();
  if (block < 1)
    return emitOpError() << "block_size must be positive, got " << block;
  RankedTensorType x = rankedOrNull(getX().getType());
  RankedTensorType y = rankedOrNull(getY().getType());
  if (x && x.getRank() < 3)
    return emitOpError() << "expects X of rank >= 3, got " << x;
  if (y && (y.getRank() < 4 || conflict(y.getShape().back(), block)))
    return emitOpError() << "result " << y << " must end in the block size "
                         << block;
  if (x && y &&
      (y.getRank() != x.getRank() + 1 ||
       conflict(y.getDimSize(1), ceilDivStatic(x.getDimSize(1), block)) ||
       y.getElementType() != x.getElementType()))
    return emitOpError() << "result " << y << " is not the blocked form of "
                         << x;
  return success();
}

LogicalResult ReorderFromBlockedOp::verify() {
  int64_t channels = getChannels();
  if (channels < 1)
    return emitOpError() << "channels must be positive, got " << channels;
  RankedTensorType x = rankedOrNull(getX().getType());
  RankedTensorType y = rankedOrNull(getY().getType());
  if (x && (x.getRank() < 4 || x.isDynamicDim(x.getRank() - 1)))
    return emitOpError() << "expects a blocked X of rank >= 4 with a static "
                            "block size, got "
                         << x;
  if (x &&
      conflict(x.getDimSize(1), ceilDivStatic(channels, x.getShape().back())))
    return emitOpError() << "X " << x << " does not hold " << channels
                         << " channels";
  if (y && (y.getRank() < 3 || conflict(y.getDimSize(1), channels)))
    return emitOpError() << "result " << y << " must have " << channels
                         << " channels";
  if (x && y &&
      (y.getRank() + 1 != x.getRank() ||
       y.getElementType() != x.getElementType()))
    return emitOpError() << "result " << y << " is not the unblocked form of "
                         << x;
  return success();
}

LogicalResult BlockedConvOp::verify() {
  int64_t inChannels = getInChannels(), outChannels = getOutChannels();
  if (inChannels < 1 || outChannels < 1)
    return emitOpError() << "in_channels and out_channels must be positive, "
                            "got "
                         << inChannels << " and " << outChannels;
  if (getGroup() != 1 &&
      (inChannels != getGroup() || outChannels != getGroup()))
    return emitOpError() << "depthwise (group " << getGroup()
                         << ") needs in_channels = out_channels = group, got "
                         << inChannels << " and " << outChannels;
  RankedTensorType x = rankedOrNull(getX().getType());
  RankedTensorType w = rankedOrNull(getW().getType());
  if (!x || !w)
    return success();
  if (x.getRank() < 4 || x.isDynamicDim(x.getRank() - 1))
    return emitOpError() << "expects a blocked X of rank >= 4 with a static "
                            "block size, got "
                         << x;
  int64_t spatial = x.getRank() - 3;
  int64_t block = x.getShape().back();
  int64_t group = getGroup();
  bool depthwise = group != 1;
  if (group < 1)
    return emitOpError() << "group must be positive, got " << group;
  if (!w.hasStaticShape())
    return emitOpError() << "expects static pre-blocked weights, got " << w;
  if (depthwise) {
    if (w.getRank() != spatial + 2 || w.getShape().back() != block ||
        w.getDimSize(0) != ceilDivStatic(group, block) ||
        conflict(x.getDimSize(1), w.getDimSize(0)))
      return emitOpError() << "depthwise weights " << w
                           << " must be [ceil(group/b), K..., b] for X " << x;
  } else if (w.getRank() != spatial + 4 || w.getShape().back() != block ||
             w.getDimSize(w.getRank() - 2) != block ||
             conflict(x.getDimSize(1), w.getDimSize(1))) {
    return emitOpError() << "weights " << w
                         << " must be [Mb, Cb, K..., b, b] for X " << x;
  } else if (w.getDimSize(0) != ceilDivStatic(outChannels, block) ||
             w.getDimSize(1) != ceilDivStatic(inChannels, block)) {
    return emitOpError() << "weights " << w << " do not hold " << outChannels
                         << " x " << inChannels << " channels";
  }
  if (RankedTensorType y = rankedOrNull(getY().getType());
      y && (y.getRank() != x.getRank() ||
            conflict(y.getDimSize(1), ceilDivStatic(outChannels, block))))
    return emitOpError() << "result " << y << " does not hold " << outChannels
                         << " channels";
  if (x.getElementType() != w.getElementType() ||
      !llvm::isa<FloatType>(x.getElementType()))
    return emitOpError() << "expects X and W of one float type";
  if (!isNone(getB())) {
    RankedTensorType b = rankedOrNull(getB().getType());
    if (b && (b.getRank() != 2 || conflict(b.getDimSize(0), w.getDimSize(0)) ||
              conflict(b.getDimSize(1), block) ||
              b.getElementType() != x.getElementType()))
      return emitOpError() << "bias " << b << " must be [" << w.getDimSize(0)
                           << ", " << block << "]";
  }
  if (!isNone(getZ()) && rankedOrNull(getZ().getType()) &&
      rankedOrNull(getY().getType()) && getZ().getType() != getY().getType())
    return emitOpError() << "Z " << getZ().getType()
                         << " must have the result's type " << getY().getType();
  auto checkLength = [&](std::optional<ArrayAttr> attr, StringRef name,
                         int64_t expected) -> LogicalResult {
    if (attr && int64_t(attr->size()) != expected)
      return emitOpError() << "'" << name << "' has " << attr->size()
                           << " values, expected " << expected;
    return success();
  };
  if (failed(checkLength(getDilations(), "dilations", spatial)) ||
      failed(checkLength(getStrides(), "strides", spatial)) ||
      failed(checkLength(getPads(), "pads", 2 * spatial)) ||
      failed(checkLength(getKernelShape(), "kernel_shape", spatial)))
    return failure();
  int64_t kernelStart = depthwise ? 1 : 2;
  if (std::optional<ArrayAttr> kernel = getKernelShape())
    for (auto [i, k] : llvm::enumerate(kernel->getAsRange<IntegerAttr>()))
      if (k.getInt() != w.getDimSize(kernelStart + i))
        return emitOpError() << "kernel_shape disagrees with weights " << w;
  StringRef activation = getActivation();
  if (!llvm::is_contained(
          {"", "Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "HardSigmoid",
           "Gelu", "FastGelu", "Silu", "HardSwish"},
          activation))
    return emitOpError() << "unknown activation '" << activation << "'";
  return success();
}
