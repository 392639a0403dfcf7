//===- LowerQuantizedConv.cpp - 8-bit convolutions as oneDNN int8 calls ---===//
//
// onnx.QLinearConv on NCHW (what QDQ fusion and ONNX Runtime's QOperator
// quantizer write) and onnxc.BlockedQLinearConv on [N, 1, H, W, C] (NHWC
// with a unit dim: onnxc-quantized-channels-last's chains, which then need
// no reorders around the call) become onnxc_dnnl_qlinear_conv2d: oneDNN's
// int8 convolution with the requantization as output scales and zero
// points. It takes int8 weights with zero points 0 only, so the claim
// checks that W's zero point is a constant of zeros. The NCHW window is
// resolved as for f32 convolutions (ConvWindow.h); the blocked op's comes
// from its explicit attributes, and the claim asks for static image sizes.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/dnnl/ConvWindow.h"
#include "targets/dnnl/QuantizedOperands.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace onnxc::dnnl {
namespace {

// Must match runtime/dnnl/DnnlRuntime.h.
enum : int32_t {
  kXSigned = 1,
  kYSigned = 2,
  kBias = 4,
  kConstantWeights = 8,
  kXZero = 16,
  kWZero = 32,
  kYZero = 64,
  kChannelsLast = 128
};

/// The checks of the operands both ops share.
template <typename QConvOp> Claim claimQuantizedOperands(QConvOp op) {
  RankedTensorType x = int8Tensor(op.getX()), w = int8Tensor(op.getW()),
                   y = int8Tensor(op.getY());
  if (!x || !w || !y)
    return Claim::refuse("not 8-bit with ranked shapes");
  if (w.getElementType().isUnsignedInteger() ||
      !hasZeroWeightPoints(op.getWZeroPoint()))
    return Claim::refuse("oneDNN's int8 convolution takes int8 weights with "
                         "a constant zero point of 0 only");
  int64_t filters = w.isDynamicDim(0) ? 0 : w.getDimSize(0);
  if (!isF32Scale(op.getXScale(), 0) || !isF32Scale(op.getYScale(), 0) ||
      !isF32Scale(op.getWScale(), filters))
    return Claim::refuse("the scales are not f32 of one element (one per "
                         "filter for W's)");
  if (!isZeroPointOf(op.getXZeroPoint(), x) ||
      (!isAbsent(op.getYZeroPoint()) && !isZeroPointOf(op.getYZeroPoint(), y)))
    return Claim::refuse("a zero point of X or Y is not one element of its "
                         "type");
  auto bias = llvm::dyn_cast<RankedTensorType>(op.getB().getType());
  if (!isAbsent(op.getB()) &&
      (!bias || bias.getRank() != 1 || !bias.getElementType().isInteger(32)))
    return Claim::refuse("the bias is not an int32 [M] tensor");
  return Claim::take();
}

/// X and Y [N, 1, H, W, C] with static images, a constant 4-D W.
Claim claimBlockedGeometry(fused::BlockedQLinearConvOp op) {
  auto x = llvm::cast<RankedTensorType>(op.getX().getType());
  auto y = llvm::cast<RankedTensorType>(op.getY().getType());
  auto w = llvm::cast<RankedTensorType>(op.getW().getType());
  if (x.getRank() != 5 || y.getRank() != 5 || w.getRank() != 4 ||
      x.getDimSize(1) != 1 || y.getDimSize(1) != 1 || !w.hasStaticShape())
    return Claim::refuse("not a 2-D convolution on [N, 1, H, W, C]");
  for (RankedTensorType type : {x, y})
    for (int64_t d = 2; d < 5; ++d)
      if (type.isDynamicDim(d))
        return Claim::refuse("a channels-last convolution with dynamic "
                             "image sizes");
  if (!isConstantTensor(op.getW()))
    return Claim::refuse("a channels-last convolution whose W is not "
                         "constant");
  return Claim::take();
}

/// The blocked op's window: its explicit attributes, the static output
/// sizes of Y.
SmallVector<cpu::WindowDim> blockedWindow(OpBuilder &b,
                                          fused::BlockedQLinearConvOp op) {
  auto ints = [](ArrayAttr a) {
    return llvm::to_vector(llvm::map_range(
        a, [](Attribute v) { return llvm::cast<IntegerAttr>(v).getInt(); }));
  };
  SmallVector<int64_t> pads = ints(op.getPads()),
                       strides = ints(op.getStrides()),
                       dilations = ints(op.getDilations());
  auto y = llvm::cast<RankedTensorType>(op.getY().getType());
  SmallVector<cpu::WindowDim> window(2);
  for (int64_t i = 0; i < 2; ++i) {
    window[i].stride = strides[i];
    window[i].dilation = dilations[i];
    window[i].padBegin = b.getIndexAttr(pads[i]);
    window[i].output = b.getIndexAttr(y.getDimSize(2 + i));
  }
  return window;
}

/// One int32 zero standing for an absent bias (the callee has one
/// signature for every call site).
Value absentBias(OpBuilder &b, Location loc, DnnlCallBuilder &calls) {
  auto type = RankedTensorType::get({1}, b.getI32Type());
  Value zero = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(type, b.getI32IntegerAttr(0).getValue()));
  return calls.tensorArgument(b, loc, zero);
}

/// The call on `x` (signless) into `buffer`, replacing `op`.
template <typename QConvOp>
void emitQuantizedCall(OpBuilder &b, QConvOp op, Value x, Value buffer,
                       ArrayRef<cpu::WindowDim> window, int64_t group,
                       int32_t layoutFlags, DnnlCallBuilder &calls) {
  Location loc = op.getLoc();
  Value xArg = calls.tensorArgument(b, loc, x);
  auto optional = [&](Value v) {
    return isAbsent(v) ? xArg : calls.tensorArgument(b, loc, v);
  };
  auto isSigned = [](Value v) {
    return !llvm::cast<RankedTensorType>(v.getType())
                .getElementType()
                .isUnsignedInteger();
  };
  int32_t flags = layoutFlags | (isSigned(op.getX()) ? kXSigned : 0) |
                  (isSigned(op.getY()) ? kYSigned : 0) |
                  (isAbsent(op.getB()) ? 0 : kBias) |
                  (isConstantTensor(op.getW()) ? kConstantWeights : 0) |
                  (isAbsent(op.getXZeroPoint()) ? 0 : kXZero) |
                  (isAbsent(op.getWZeroPoint()) ? 0 : kWZero) |
                  (isAbsent(op.getYZeroPoint()) ? 0 : kYZero);
  // Absent zero points: X again, never read (the flags say so).
  SmallVector<Value> args = {calls.slot(b, loc),
                             xArg,
                             calls.tensorArgument(b, loc, op.getXScale()),
                             optional(op.getXZeroPoint()),
                             calls.tensorArgument(b, loc, op.getW()),
                             calls.tensorArgument(b, loc, op.getWScale()),
                             optional(op.getWZeroPoint()),
                             calls.tensorArgument(b, loc, op.getYScale()),
                             optional(op.getYZeroPoint()),
                             isAbsent(op.getB())
                                 ? absentBias(b, loc, calls)
                                 : calls.tensorArgument(b, loc, op.getB()),
                             calls.resultArgument(b, loc, buffer),
                             b.create<arith::ConstantIntOp>(loc, flags, 32)};
  appendConvWindow(b, loc, group, window, args);
  calls.callAndReplace(b, op, "onnxc_dnnl_qlinear_conv2d", args, buffer);
}

LogicalResult lowerNchw(onnx::QLinearConvOp op, DnnlCallBuilder &calls) {
  ConvView conv = *viewConv(op);
  OpBuilder b(op);
  Location loc = op.getLoc();
  // Index ops (dims) must read the signless values.
  conv.x = signlessTensor(b, loc, conv.x);
  conv.w = signlessTensor(b, loc, conv.w);
  FailureOr<SmallVector<cpu::WindowDim>> window = resolveConvWindow(b, conv);
  if (failed(window))
    return op.emitError("the dnnl target claimed a QLinearConv it cannot "
                        "lower");
  Value buffer = allocConvResult(b, loc, conv, *window, calls);
  emitQuantizedCall(b, op, conv.x, buffer, *window, conv.group, 0, calls);
  return success();
}

LogicalResult lowerChannelsLast(fused::BlockedQLinearConvOp op,
                                DnnlCallBuilder &calls) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = signlessTensor(b, loc, op.getX());
  auto yType = llvm::cast<RankedTensorType>(op.getY().getType());
  SmallVector<OpFoldResult> sizes = cpu::mixedDims(b, loc, x);
  sizes[4] = b.getIndexAttr(yType.getDimSize(4));
  sizes[2] = b.getIndexAttr(yType.getDimSize(2));
  sizes[3] = b.getIndexAttr(yType.getDimSize(3));
  Value buffer = calls.allocResult(b, loc, yType, sizes);
  emitQuantizedCall(b, op, x, buffer, blockedWindow(b, op), op.getGroup(),
                    kChannelsLast, calls);
  return success();
}

} // namespace

RankedTensorType int8Tensor(Value value) {
  auto type = llvm::dyn_cast_if_present<RankedTensorType>(
      value ? value.getType() : Type());
  return type && type.getElementType().isInteger(8) ? type : RankedTensorType();
}

bool isF32Scale(Value value, int64_t count) {
  RankedTensorType type = f32Tensor(value);
  if (!type || !type.hasStaticShape() || type.getRank() > 1)
    return false;
  return type.getNumElements() == 1 ||
         (count > 0 && type.getNumElements() == count);
}

bool isZeroPointOf(Value value, RankedTensorType type) {
  auto zero = llvm::dyn_cast<RankedTensorType>(value.getType());
  return zero && zero.hasStaticShape() && zero.getNumElements() == 1 &&
         zero.getRank() <= 1 && zero.getElementType() == type.getElementType();
}

bool hasZeroWeightPoints(Value zero) {
  if (isAbsent(zero))
    return true;
  auto constant = zero.getDefiningOp<onnx::ConstantOp>();
  auto value = constant ? llvm::dyn_cast_if_present<DenseIntElementsAttr>(
                              constant.getValueAttr())
                        : DenseIntElementsAttr();
  return value && llvm::all_of(value.getValues<APInt>(),
                               [](const APInt &v) { return v.isZero(); });
}

std::optional<Claim> claimQuantizedConv(Operation *op) {
  if (auto conv = llvm::dyn_cast<onnx::QLinearConvOp>(op)) {
    Claim operands = claimQuantizedOperands(conv);
    if (!operands.taken)
      return operands;
    ConvView view = *viewConv(op);
    return claimConvGeometry(view, int8Tensor(conv.getX()),
                             int8Tensor(conv.getW()), int8Tensor(conv.getY()));
  }
  if (auto conv = llvm::dyn_cast<fused::BlockedQLinearConvOp>(op)) {
    Claim operands = claimQuantizedOperands(conv);
    return operands.taken ? claimBlockedGeometry(conv) : operands;
  }
  return std::nullopt;
}

LogicalResult lowerQuantizedConv(Operation *op, DnnlCallBuilder &calls) {
  if (auto conv = llvm::dyn_cast<onnx::QLinearConvOp>(op))
    return lowerNchw(conv, calls);
  return lowerChannelsLast(llvm::cast<fused::BlockedQLinearConvOp>(op), calls);
}

} // namespace onnxc::dnnl
