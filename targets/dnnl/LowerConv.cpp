//===- LowerConv.cpp - Conv / FusedConv / QLinearConv as oneDNN calls -----===//
//
// f32 2-D NCHW onnx.Conv and onnxc.FusedConv with a static kernel become one
// call of onnxc_dnnl_conv2d_f32: the bias, FusedConv's residual Z (a sum
// post-op) and its activation (an eltwise post-op) run inside the
// primitive. 8-bit onnx.QLinearConv (what QDQ fusion and ONNX Runtime's
// QOperator quantizer write) becomes onnxc_dnnl_qlinear_conv2d: oneDNN's
// int8 convolution with the requantization as output scales and zero
// points; it takes int8 weights with zero points 0 only, so the claim
// checks that W's zero point is a constant of zeros. Constant weights are
// reordered to oneDNN's blocked layout once, by the call site's cache. The
// window is resolved as the cpu lowering resolves it (explicit begin pads);
// the runtime derives the end pads from Y's size.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/WindowUtils.h"
#include "targets/dnnl/DnnlCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace onnxc::dnnl {
namespace {

// Must match runtime/dnnl/DnnlRuntime.h.
enum : int32_t { kHasBias = 1, kHasResidual = 2, kConstantWeights = 4 };

/// The operands and attributes both conv ops share.
struct ConvView {
  Operation *op;
  Value x, w, bias, residual;
  std::optional<ArrayAttr> kernelShape, strides, dilations, pads;
  StringRef autoPad;
  int64_t group;
};

template <typename ConvOp>
ConvView viewConvOp(ConvOp conv, Value x, Value w, Value bias, Value z) {
  return ConvView{conv.getOperation(),
                  x,
                  w,
                  bias,
                  z,
                  conv.getKernelShape(),
                  conv.getStrides(),
                  conv.getDilations(),
                  conv.getPads(),
                  conv.getAutoPad(),
                  static_cast<int64_t>(conv.getGroup())};
}

std::optional<ConvView> viewConv(Operation *op) {
  if (auto conv = llvm::dyn_cast<onnx::QLinearConvOp>(op))
    return viewConvOp(conv, conv.getX(), conv.getW(), conv.getB(), Value());
  if (auto conv = llvm::dyn_cast<onnx::ConvOp>(op))
    return viewConvOp(conv, conv.getX(), conv.getW(), conv.getB(), Value());
  if (auto conv = llvm::dyn_cast<fused::FusedConvOp>(op))
    return viewConvOp(conv, conv.getX(), conv.getW(), conv.getB(), conv.getZ());
  return std::nullopt;
}

/// The resolved window, or failure (diagnostics silenced: the claim asks
/// too, and the cpu lowering reports bad attributes).
FailureOr<SmallVector<cpu::WindowDim>> resolve(OpBuilder &b,
                                               const ConvView &conv) {
  ScopedDiagnosticHandler silence(conv.op->getContext(),
                                  [](Diagnostic &) { return success(); });
  auto wType = llvm::cast<RankedTensorType>(conv.w.getType());
  FailureOr<SmallVector<int64_t>> kernel =
      cpu::resolveKernelShape(conv.op, wType, conv.kernelShape);
  if (failed(kernel) || llvm::any_of(*kernel, ShapedType::isDynamic))
    return failure();
  return cpu::resolveWindow(
      b, conv.op, conv.x, *kernel, conv.strides, conv.dilations, conv.pads,
      conv.autoPad, /*ceilMode=*/false, /*clampAutoPad=*/true,
      llvm::cast<RankedTensorType>(conv.op->getResult(0).getType()));
}

/// The window must resolve; the probe's index ops are erased with it.
bool windowResolves(const ConvView &conv) {
  OpBuilder b(conv.op->getContext());
  Block scratch;
  b.setInsertionPointToStart(&scratch);
  bool resolved = succeeded(resolve(b, conv));
  for (Operation &probe : llvm::make_early_inc_range(llvm::reverse(scratch)))
    probe.erase();
  return resolved;
}

/// The checks both forms share: a 2-D convolution whose groups and window
/// resolve.
Claim claimGeometry(const ConvView &conv, RankedTensorType x,
                    RankedTensorType w, RankedTensorType y) {
  if (x.getRank() != 4 || w.getRank() != 4 || y.getRank() != 4)
    return Claim::refuse("not a 2-D convolution");
  if (conv.group < 1 ||
      (conv.group > 1 &&
       (w.isDynamicDim(0) || w.isDynamicDim(1) || x.isDynamicDim(1))))
    return Claim::refuse("a grouped convolution with dynamic channels");
  if (!windowResolves(conv))
    return Claim::refuse("the kernel size is dynamic or the window "
                         "attributes do not resolve");
  return Claim::take();
}

RankedTensorType int8Tensor(Value value) {
  auto type = llvm::dyn_cast_if_present<RankedTensorType>(
      value ? value.getType() : Type());
  return type && type.getElementType().isInteger(8) ? type : RankedTensorType();
}

/// Whether `value` is an f32 tensor of a static shape with one element,
/// or `count` (0: one only) in at most one dim.
bool isF32Scale(Value value, int64_t count) {
  RankedTensorType type = f32Tensor(value);
  if (!type || !type.hasStaticShape() || type.getRank() > 1)
    return false;
  return type.getNumElements() == 1 ||
         (count > 0 && type.getNumElements() == count);
}

/// Whether `value` is a one-element tensor of `type`'s element type.
bool isZeroPointOf(Value value, RankedTensorType type) {
  auto zero = llvm::dyn_cast<RankedTensorType>(value.getType());
  return zero && zero.hasStaticShape() && zero.getNumElements() == 1 &&
         zero.getRank() <= 1 && zero.getElementType() == type.getElementType();
}

/// Whether W's zero point is absent or a constant of zeros.
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

Claim claimQLinearConv(onnx::QLinearConvOp op, const ConvView &conv) {
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
  return claimGeometry(conv, x, w, y);
}

} // namespace

std::optional<Claim> claimConv(Operation *op) {
  std::optional<ConvView> conv = viewConv(op);
  if (!conv)
    return std::nullopt;
  if (auto qconv = llvm::dyn_cast<onnx::QLinearConvOp>(op))
    return claimQLinearConv(qconv, *conv);
  RankedTensorType x = f32Tensor(conv->x), w = f32Tensor(conv->w),
                   y = f32Tensor(op->getResult(0));
  if (!x || !w || !y)
    return Claim::refuse("not f32 with ranked shapes");
  if (!isAbsent(conv->bias) &&
      (!f32Tensor(conv->bias) || f32Tensor(conv->bias).getRank() != 1))
    return Claim::refuse("the bias is not an f32 [M] tensor");
  if (!isAbsent(conv->residual) && conv->residual.getType() != y)
    return Claim::refuse("the residual does not have Y's type");
  if (!hasKnownActivation(op))
    return Claim::refuse("an activation the fused ops do not define");
  return claimGeometry(*conv, x, w, y);
}

namespace {

// Must match runtime/dnnl/DnnlRuntime.h.
enum : int32_t {
  kXSigned = 1,
  kYSigned = 2,
  kQuantizedBias = 4,
  kQuantizedConstantWeights = 8,
  kXZero = 16,
  kWZero = 32,
  kYZero = 64
};

/// The window arguments both calls end with.
void appendWindow(OpBuilder &b, Location loc, const ConvView &conv,
                  ArrayRef<cpu::WindowDim> window, SmallVector<Value> &args) {
  auto i64 = [&](OpFoldResult v) { return i64Argument(b, loc, v); };
  auto i64c = [&](int64_t v) { return i64(b.getIndexAttr(v)); };
  const cpu::WindowDim &h = window[0], &wd = window[1];
  args.append({i64(h.padBegin), i64(wd.padBegin), i64c(h.stride),
               i64c(wd.stride), i64c(h.dilation), i64c(wd.dilation),
               i64c(conv.group)});
}

/// The call's result buffer: [N, M, OH, OW].
Value allocConvResult(OpBuilder &b, Location loc, const ConvView &conv,
                      ArrayRef<cpu::WindowDim> window, DnnlCallBuilder &calls) {
  auto yType = llvm::cast<RankedTensorType>(conv.op->getResult(0).getType());
  SmallVector<OpFoldResult> sizes = {cpu::mixedDims(b, loc, conv.x)[0],
                                     cpu::mixedDims(b, loc, conv.w)[0],
                                     window[0].output, window[1].output};
  return calls.allocResult(b, loc, yType, sizes);
}

bool isConstant(Value value) {
  return static_cast<bool>(value.getDefiningOp<onnx::ConstantOp>());
}

/// One int32 zero standing for an absent bias.
Value absentBias(OpBuilder &b, Location loc, DnnlCallBuilder &calls) {
  auto type = RankedTensorType::get({1}, b.getI32Type());
  Value zero = b.create<arith::ConstantOp>(
      loc, DenseElementsAttr::get(type, b.getI32IntegerAttr(0).getValue()));
  return calls.tensorArgument(b, loc, zero);
}

LogicalResult lowerQLinearConv(onnx::QLinearConvOp op, const ConvView &conv,
                               ArrayRef<cpu::WindowDim> window,
                               DnnlCallBuilder &calls) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value buffer = allocConvResult(b, loc, conv, window, calls);
  Value x = calls.tensorArgument(b, loc, conv.x);
  auto optional = [&](Value v) {
    return isAbsent(v) ? x : calls.tensorArgument(b, loc, v);
  };
  auto isSigned = [](Value v) {
    return !llvm::cast<RankedTensorType>(v.getType())
                .getElementType()
                .isUnsignedInteger();
  };
  int32_t flags = (isSigned(op.getX()) ? kXSigned : 0) |
                  (isSigned(op.getY()) ? kYSigned : 0) |
                  (isAbsent(op.getB()) ? 0 : kQuantizedBias) |
                  (isConstant(op.getW()) ? kQuantizedConstantWeights : 0) |
                  (isAbsent(op.getXZeroPoint()) ? 0 : kXZero) |
                  (isAbsent(op.getWZeroPoint()) ? 0 : kWZero) |
                  (isAbsent(op.getYZeroPoint()) ? 0 : kYZero);
  // Absent operands: X again (an i32 placeholder for the bias: the callee
  // has one signature), never read (the flags say so).
  SmallVector<Value> args = {calls.slot(b, loc),
                             x,
                             calls.tensorArgument(b, loc, op.getXScale()),
                             optional(op.getXZeroPoint()),
                             calls.tensorArgument(b, loc, op.getW()),
                             calls.tensorArgument(b, loc, op.getWScale()),
                             optional(op.getWZeroPoint()),
                             calls.tensorArgument(b, loc, op.getYScale()),
                             optional(op.getYZeroPoint()),
                             isAbsent(op.getB()) ? absentBias(b, loc, calls)
                                                 : optional(op.getB()),
                             calls.resultArgument(b, loc, buffer),
                             b.create<arith::ConstantIntOp>(loc, flags, 32)};
  appendWindow(b, loc, conv, window, args);
  calls.callAndReplace(b, op, "onnxc_dnnl_qlinear_conv2d", args, buffer);
  return success();
}

} // namespace

LogicalResult lowerConv(Operation *op, DnnlCallBuilder &calls) {
  ConvView conv = *viewConv(op);
  OpBuilder b(op);
  Location loc = op->getLoc();
  if (llvm::isa<onnx::QLinearConvOp>(op)) { // dims of 8-bit tensors
    conv.x = signlessTensor(b, loc, conv.x);
    conv.w = signlessTensor(b, loc, conv.w);
  }
  FailureOr<SmallVector<cpu::WindowDim>> window = resolve(b, conv);
  if (failed(window))
    return op->emitError("the dnnl target claimed a Conv it cannot lower");
  if (auto qconv = llvm::dyn_cast<onnx::QLinearConvOp>(op))
    return lowerQLinearConv(qconv, conv, *window, calls);

  Value buffer = allocConvResult(b, loc, conv, *window, calls);
  Value x = calls.tensorArgument(b, loc, conv.x);
  bool hasBias = !isAbsent(conv.bias), hasResidual = !isAbsent(conv.residual);
  int32_t flags = (hasBias ? kHasBias : 0) | (hasResidual ? kHasResidual : 0) |
                  (isConstant(conv.w) ? kConstantWeights : 0);
  auto f32c = [&](float v) -> Value {
    return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
  };
  // Absent bias / Z: X again, never read (the flags say so).
  SmallVector<Value> args = {
      calls.slot(b, loc),
      x,
      calls.tensorArgument(b, loc, conv.w),
      hasBias ? calls.tensorArgument(b, loc, conv.bias) : x,
      hasResidual ? calls.tensorArgument(b, loc, conv.residual) : x,
      calls.resultArgument(b, loc, buffer),
      b.create<arith::ConstantIntOp>(loc, flags, 32)};
  appendWindow(b, loc, conv, *window, args);
  // No post-op activation (hasKnownActivation says why).
  args.append(
      {b.create<arith::ConstantIntOp>(loc, 0, 32), f32c(0.0f), f32c(0.0f)});
  calls.callAndReplace(b, op, "onnxc_dnnl_conv2d_f32", args, buffer);
  return success();
}

} // namespace onnxc::dnnl
