//===- LowerConv.cpp - Conv / FusedConv as oneDNN convolutions ------------===//
//
// f32 2-D NCHW onnx.Conv and onnxc.FusedConv with a static kernel become one
// call of onnxc_dnnl_conv2d_f32: the bias and FusedConv's residual Z (a sum
// post-op) run inside the primitive, the activation on the host
// (hasKnownActivation says why). Constant weights are reordered to oneDNN's
// blocked layout once, by the call site's cache. Also the window helpers
// the int8 convolutions share (ConvWindow.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/dnnl/ConvWindow.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace onnxc::dnnl {
namespace {

// Must match runtime/dnnl/DnnlRuntime.h.
enum : int32_t { kHasBias = 1, kHasResidual = 2, kConstantWeights = 4 };

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

/// Whether the window resolves; the probe's index ops are erased with it.
bool windowResolves(const ConvView &conv) {
  OpBuilder b(conv.op->getContext());
  Block scratch;
  b.setInsertionPointToStart(&scratch);
  bool resolved = succeeded(resolveConvWindow(b, conv));
  for (Operation &probe : llvm::make_early_inc_range(llvm::reverse(scratch)))
    probe.erase();
  return resolved;
}

} // namespace

std::optional<ConvView> viewConv(Operation *op) {
  if (auto conv = llvm::dyn_cast<onnx::QLinearConvOp>(op))
    return viewConvOp(conv, conv.getX(), conv.getW(), conv.getB(), Value());
  if (auto conv = llvm::dyn_cast<onnx::ConvOp>(op))
    return viewConvOp(conv, conv.getX(), conv.getW(), conv.getB(), Value());
  if (auto conv = llvm::dyn_cast<fused::FusedConvOp>(op))
    return viewConvOp(conv, conv.getX(), conv.getW(), conv.getB(), conv.getZ());
  return std::nullopt;
}

FailureOr<SmallVector<cpu::WindowDim>> resolveConvWindow(OpBuilder &b,
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

Claim claimConvGeometry(const ConvView &conv, RankedTensorType x,
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

void appendConvWindow(OpBuilder &b, Location loc, int64_t group,
                      ArrayRef<cpu::WindowDim> window,
                      SmallVectorImpl<Value> &args) {
  auto i64 = [&](OpFoldResult v) { return i64Argument(b, loc, v); };
  auto i64c = [&](int64_t v) { return i64(b.getIndexAttr(v)); };
  const cpu::WindowDim &h = window[0], &wd = window[1];
  args.append({i64(h.padBegin), i64(wd.padBegin), i64c(h.stride),
               i64c(wd.stride), i64c(h.dilation), i64c(wd.dilation),
               i64c(group)});
}

Value allocConvResult(OpBuilder &b, Location loc, const ConvView &conv,
                      ArrayRef<cpu::WindowDim> window, DnnlCallBuilder &calls) {
  auto yType = llvm::cast<RankedTensorType>(conv.op->getResult(0).getType());
  SmallVector<OpFoldResult> sizes = {cpu::mixedDims(b, loc, conv.x)[0],
                                     cpu::mixedDims(b, loc, conv.w)[0],
                                     window[0].output, window[1].output};
  return calls.allocResult(b, loc, yType, sizes);
}

bool isConstantTensor(Value value) {
  return static_cast<bool>(value.getDefiningOp<onnx::ConstantOp>());
}

std::optional<Claim> claimConv(Operation *op) {
  if (!llvm::isa<onnx::ConvOp, fused::FusedConvOp>(op))
    return std::nullopt;
  ConvView conv = *viewConv(op);
  RankedTensorType x = f32Tensor(conv.x), w = f32Tensor(conv.w),
                   y = f32Tensor(op->getResult(0));
  if (!x || !w || !y)
    return Claim::refuse("not f32 with ranked shapes");
  if (!isAbsent(conv.bias) &&
      (!f32Tensor(conv.bias) || f32Tensor(conv.bias).getRank() != 1))
    return Claim::refuse("the bias is not an f32 [M] tensor");
  if (!isAbsent(conv.residual) && conv.residual.getType() != y)
    return Claim::refuse("the residual does not have Y's type");
  if (!hasKnownActivation(op))
    return Claim::refuse("an activation the fused ops do not define");
  return claimConvGeometry(conv, x, w, y);
}

LogicalResult lowerConv(Operation *op, DnnlCallBuilder &calls) {
  ConvView conv = *viewConv(op);
  OpBuilder b(op);
  Location loc = op->getLoc();
  FailureOr<SmallVector<cpu::WindowDim>> window = resolveConvWindow(b, conv);
  if (failed(window))
    return op->emitError("the dnnl target claimed a Conv it cannot lower");

  Value buffer = allocConvResult(b, loc, conv, *window, calls);
  Value x = calls.tensorArgument(b, loc, conv.x);
  bool hasBias = !isAbsent(conv.bias), hasResidual = !isAbsent(conv.residual);
  int32_t flags = (hasBias ? kHasBias : 0) | (hasResidual ? kHasResidual : 0) |
                  (isConstantTensor(conv.w) ? kConstantWeights : 0);
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
  appendConvWindow(b, loc, conv.group, *window, args);
  // No post-op activation (hasKnownActivation says why).
  args.append(
      {b.create<arith::ConstantIntOp>(loc, 0, 32), f32c(0.0f), f32c(0.0f)});
  calls.callAndReplace(b, op, "onnxc_dnnl_conv2d_f32", args, buffer);
  return success();
}

} // namespace onnxc::dnnl
