//===- LowerConvTranspose.cpp - ConvTranspose as oneDNN deconvolutions ----===//
//
// f32 2-D onnx.ConvTranspose with a constant W and static channels (image
// sizes too where output_shape or auto_pad SAME sets the pads) becomes one
// call of onnxc_dnnl_conv_transpose2d_f32 (oneDNN's
// deconvolution; W is described in ONNX's [C, M/group, kH, kW] memory and
// reordered once). The begin pads are resolved here as the cpu lowering
// resolves them (explicit pads, or those output_shape / auto_pad SAME
// imply); the runtime derives the end pads, output_padding included, from
// Y's size. An output_shape past the natural output (which ONNX fills
// with the bias alone) stays with the cpu.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/dnnl/ConvWindow.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace onnxc::dnnl {
namespace {

// Must match runtime/dnnl/DnnlRuntime.h (the convolution's flags).
enum : int32_t { kHasBias = 1, kConstantWeights = 4 };

/// One spatial dim of a ConvTranspose: its output is `output` when static,
/// else (in - 1) * stride + outputAdd (explicit pads only).
struct TransposedWindow {
  int64_t stride, dilation, padBegin, output, outputAdd;
};

/// The window of `op`'s two spatial dims, or a reason why dnnl cannot
/// take it.
FailureOr<SmallVector<TransposedWindow>>
resolveTransposedWindow(onnx::ConvTransposeOp op, std::string &why) {
  auto x = llvm::cast<RankedTensorType>(op.getX().getType());
  auto w = llvm::cast<RankedTensorType>(op.getW().getType());
  auto y = llvm::cast<RankedTensorType>(op.getY().getType());
  SmallVector<int64_t> strides = cpu::getI64Array(op.getStrides(), 2, 1);
  SmallVector<int64_t> dilations = cpu::getI64Array(op.getDilations(), 2, 1);
  SmallVector<int64_t> pads = cpu::getI64Array(op.getPads(), 4, 0);
  SmallVector<int64_t> outputPadding =
      cpu::getI64Array(op.getOutputPadding(), 2, 0);
  SmallVector<int64_t> outputShape =
      cpu::getI64Array(op.getOutputShape(), 0, 0);
  if (outputShape.size() == 4)
    outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
  StringRef autoPad = op.getAutoPad();
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4 ||
      outputPadding.size() != 2 ||
      (op.getOutputShape() && outputShape.size() != 2) ||
      (!same && autoPad != "NOTSET" && autoPad != "VALID")) {
    why = "the window attributes do not resolve";
    return failure();
  }
  SmallVector<TransposedWindow> window;
  for (int64_t i = 0; i < 2; ++i) {
    int64_t in = x.getDimSize(2 + i), kernel = w.getDimSize(2 + i);
    TransposedWindow t{strides[i], dilations[i], pads[i], y.getDimSize(2 + i),
                       0};
    if (t.stride < 1 || t.dilation < 1 || kernel < 1 || pads[i] < 0 ||
        pads[i + 2] < 0 || outputPadding[i] < 0) {
      why = "the window attributes do not resolve";
      return failure();
    }
    int64_t extent = (kernel - 1) * t.dilation + 1;
    int64_t padEnd = pads[i + 2];
    if (op.getOutputShape() || same) {
      // Pads derived from the wanted length need a static input length.
      if (ShapedType::isDynamic(in) || ShapedType::isDynamic(t.output)) {
        why = "output_shape or auto_pad SAME with dynamic image sizes";
        return failure();
      }
      int64_t natural = (in - 1) * t.stride + outputPadding[i] + extent;
      int64_t wanted = op.getOutputShape() ? outputShape[i] : in * t.stride;
      int64_t total = std::max<int64_t>(0, natural - wanted);
      t.padBegin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      padEnd = (in - 1) * t.stride + extent - t.padBegin - t.output;
    } else {
      if (autoPad == "VALID")
        t.padBegin = padEnd = 0;
      t.outputAdd = outputPadding[i] + extent - t.padBegin - padEnd;
      // The deconvolution's end pad: output_padding makes it negative.
      padEnd -= outputPadding[i];
    }
    if (padEnd <= -t.stride || (!ShapedType::isDynamic(t.output) &&
                                t.output < 1)) {
      why = "an output_shape past the natural output";
      return failure();
    }
    window.push_back(t);
  }
  return window;
}

} // namespace

std::optional<Claim> claimConvTranspose(Operation *op) {
  auto convT = llvm::dyn_cast<onnx::ConvTransposeOp>(op);
  if (!convT)
    return std::nullopt;
  RankedTensorType x = f32Tensor(convT.getX()), w = f32Tensor(convT.getW()),
                   y = f32Tensor(convT.getY());
  if (!x || !w || !y)
    return Claim::refuse("not f32 with ranked shapes");
  if (x.getRank() != 4 || w.getRank() != 4 || y.getRank() != 4)
    return Claim::refuse("not a 2-D ConvTranspose");
  if (!isConstantTensor(convT.getW()) || !w.hasStaticShape())
    return Claim::refuse("W is not a constant");
  if (x.isDynamicDim(1) || y.isDynamicDim(1))
    return Claim::refuse("a ConvTranspose with dynamic channels");
  int64_t group = convT.getGroup();
  if (group < 1 || x.getDimSize(1) % group != 0 ||
      w.getDimSize(0) != x.getDimSize(1) ||
      y.getDimSize(1) != w.getDimSize(1) * group)
    return Claim::refuse("the channels and group do not agree");
  if (!isAbsent(convT.getB()) &&
      (!f32Tensor(convT.getB()) || f32Tensor(convT.getB()).getRank() != 1))
    return Claim::refuse("the bias is not an f32 [M] tensor");
  std::string why;
  if (failed(resolveTransposedWindow(convT, why)))
    return Claim::refuse(why);
  return Claim::take();
}

LogicalResult lowerConvTranspose(Operation *op, DnnlCallBuilder &calls) {
  auto convT = llvm::cast<onnx::ConvTransposeOp>(op);
  std::string why;
  FailureOr<SmallVector<TransposedWindow>> resolved =
      resolveTransposedWindow(convT, why);
  if (failed(resolved))
    return op->emitError("the dnnl target claimed a ConvTranspose it cannot "
                         "lower: ")
           << why;
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto yType = llvm::cast<RankedTensorType>(convT.getY().getType());
  SmallVector<OpFoldResult> sizes = cpu::mixedDims(b, loc, convT.getX());
  sizes[1] = b.getIndexAttr(yType.getDimSize(1));
  for (auto [i, t] : llvm::enumerate(*resolved)) {
    OpFoldResult &size = sizes[2 + i];
    if (!yType.isDynamicDim(2 + i)) {
      size = b.getIndexAttr(yType.getDimSize(2 + i));
      continue;
    }
    // (in - 1) * stride + outputAdd; the runtime checks it against X.
    cpu::IndexMath m(b, loc);
    size = m.add(m.mul(m.sub(size, m.constant(1)), t.stride),
                 m.constant(t.outputAdd));
  }
  Value buffer = calls.allocResult(b, loc, yType, sizes);
  SmallVector<cpu::WindowDim> window(2);
  for (auto [dim, t] : llvm::zip(window, *resolved)) {
    dim.stride = t.stride;
    dim.dilation = t.dilation;
    dim.padBegin = b.getIndexAttr(t.padBegin);
  }
  Value x = calls.tensorArgument(b, loc, convT.getX());
  bool hasBias = !isAbsent(convT.getB());
  // Absent bias: X again, never read (the flag says so).
  SmallVector<Value> args = {
      calls.slot(b, loc),
      x,
      calls.tensorArgument(b, loc, convT.getW()),
      hasBias ? calls.tensorArgument(b, loc, convT.getB()) : x,
      calls.resultArgument(b, loc, buffer),
      b.create<arith::ConstantIntOp>(
          loc, kConstantWeights | (hasBias ? kHasBias : 0), 32)};
  appendConvWindow(b, loc, convT.getGroup(), window, args);
  calls.callAndReplace(b, op, "onnxc_dnnl_conv_transpose2d_f32", args, buffer);
  return success();
}

} // namespace onnxc::dnnl
