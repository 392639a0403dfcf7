//===- LowerConv.cpp - Conv / FusedConv as oneDNN convolutions ------------===//
//
// f32 2-D NCHW onnx.Conv and onnxc.FusedConv with a static kernel become one
// call of onnxc_dnnl_conv2d_f32: the bias, FusedConv's residual Z (a sum
// post-op) and its activation (an eltwise post-op) run inside the
// primitive. Constant weights are reordered to oneDNN's blocked layout once,
// by the call site's cache. The window is resolved as the cpu lowering
// resolves it (explicit begin pads); the runtime derives the end pads from
// Y's size.
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

} // namespace

std::optional<Claim> claimConv(Operation *op) {
  std::optional<ConvView> conv = viewConv(op);
  if (!conv)
    return std::nullopt;
  RankedTensorType x = f32Tensor(conv->x), w = f32Tensor(conv->w),
                   y = f32Tensor(op->getResult(0));
  if (!x || !w || !y)
    return Claim::refuse("not f32 with ranked shapes");
  if (x.getRank() != 4 || w.getRank() != 4 || y.getRank() != 4)
    return Claim::refuse("not a 2-D convolution");
  if (!isAbsent(conv->bias) &&
      (!f32Tensor(conv->bias) || f32Tensor(conv->bias).getRank() != 1))
    return Claim::refuse("the bias is not an f32 [M] tensor");
  if (!isAbsent(conv->residual) && conv->residual.getType() != y)
    return Claim::refuse("the residual does not have Y's type");
  if (conv->group < 1 ||
      (conv->group > 1 &&
       (w.isDynamicDim(0) || w.isDynamicDim(1) || x.isDynamicDim(1))))
    return Claim::refuse("a grouped convolution with dynamic channels");
  if (!hasKnownActivation(op))
    return Claim::refuse("an activation the fused ops do not define");
  // The window must resolve; the probe's index ops are erased with it.
  OpBuilder b(op->getContext());
  Block scratch;
  b.setInsertionPointToStart(&scratch);
  bool resolved = succeeded(resolve(b, *conv));
  for (Operation &probe : llvm::make_early_inc_range(llvm::reverse(scratch)))
    probe.erase();
  if (!resolved)
    return Claim::refuse("the kernel size is dynamic or the window "
                         "attributes do not resolve");
  return Claim::take();
}

LogicalResult lowerConv(Operation *op, DnnlCallBuilder &calls) {
  ConvView conv = *viewConv(op);
  OpBuilder b(op);
  Location loc = op->getLoc();
  FailureOr<SmallVector<cpu::WindowDim>> window = resolve(b, conv);
  if (failed(window))
    return op->emitError("the dnnl target claimed a Conv it cannot lower");

  auto yType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<OpFoldResult> sizes = {cpu::mixedDims(b, loc, conv.x)[0],
                                     cpu::mixedDims(b, loc, conv.w)[0],
                                     (*window)[0].output, (*window)[1].output};
  Value buffer = calls.allocResult(b, loc, yType, sizes);
  Value x = calls.tensorArgument(b, loc, conv.x);
  bool hasBias = !isAbsent(conv.bias), hasResidual = !isAbsent(conv.residual);
  int32_t flags =
      (hasBias ? kHasBias : 0) | (hasResidual ? kHasResidual : 0) |
      (conv.w.getDefiningOp<onnx::ConstantOp>() ? kConstantWeights : 0);
  auto i64 = [&](OpFoldResult v) { return i64Argument(b, loc, v); };
  auto i64c = [&](int64_t v) { return i64(b.getIndexAttr(v)); };
  auto f32c = [&](float v) -> Value {
    return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
  };
  const cpu::WindowDim &h = (*window)[0], &wd = (*window)[1];
  // Absent bias / Z: X again, never read (the flags say so).
  SmallVector<Value> args = {
      calls.slot(b, loc), x, calls.tensorArgument(b, loc, conv.w),
      hasBias ? calls.tensorArgument(b, loc, conv.bias) : x,
      hasResidual ? calls.tensorArgument(b, loc, conv.residual) : x,
      calls.resultArgument(b, loc, buffer),
      b.create<arith::ConstantIntOp>(loc, flags, 32), i64(h.padBegin),
      i64(wd.padBegin), i64c(h.stride), i64c(wd.stride), i64c(h.dilation),
      i64c(wd.dilation), i64c(conv.group),
      // No post-op activation (hasKnownActivation says why).
      b.create<arith::ConstantIntOp>(loc, 0, 32), f32c(0.0f), f32c(0.0f)};
  calls.callAndReplace(b, op, "onnxc_dnnl_conv2d_f32", args, buffer);
  return success();
}

} // namespace onnxc::dnnl
