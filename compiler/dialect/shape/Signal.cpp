//===- Signal.cpp - Shape rules of DFT and STFT ---------------------------===//
//
// Both take signals as real ([..., 1]) or complex ([..., 2]) tensors and make
// complex spectra [..., 2], except the inverse one-sided DFT, which makes a
// real signal [..., 1]. The transform length and the axis may be run-time
// inputs; the dims they decide are then dynamic.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

/// Fails with an error unless the last dim of input `i` can be 1 or 2.
LogicalResult checkComponentDim(RuleContext &ctx, unsigned i, int64_t minRank) {
  ArrayRef<int64_t> shape = ctx.getInputShape(i);
  if (static_cast<int64_t>(shape.size()) < minRank)
    return ctx.emitError() << "expects a signal of rank >= " << minRank
                           << ", got " << ctx.getInputType(i);
  int64_t last = shape.back();
  if (!ShapedType::isDynamic(last) && last != 1 && last != 2)
    return ctx.emitError() << "the last dim of the signal must be 1 (real) or "
                              "2 (complex), got "
                           << last;
  return success();
}

/// DFT(input, dft_length?, axis?): the axis dim becomes dft_length (or
/// dft_length / 2 + 1 when one-sided forward); the last dim is 2, or 1 for
/// the inverse one-sided (real) transform.
LogicalResult inferDFT(RuleContext &ctx) {
  if (failed(checkComponentDim(ctx, 0, 2)))
    return failure();
  ArrayRef<int64_t> input = ctx.getInputShape(0);
  int64_t rank = input.size();
  bool inverse = ctx.getIntAttr("inverse", 0) != 0;
  bool onesided = ctx.getIntAttr("onesided", 0) != 0;
  bool realOutput = inverse && onesided;

  std::optional<int64_t> length;
  bool hasLength = ctx.hasInput(1);
  if (hasLength) {
    length = ctx.getKnownScalar(1);
    if (length && *length <= 0)
      return ctx.emitError() << "dft_length must be positive, got " << *length;
  }
  std::optional<int64_t> axis = rank - 2;
  if (ctx.hasInput(2))
    axis = ctx.getKnownScalar(2);
  if (axis) {
    if (*axis < -rank || *axis > rank - 2)
      return ctx.emitError() << "axis " << *axis << " is out of range for a "
                             << rank << "-D signal (the last dim is the "
                             << "complex component)";
    if (*axis < 0)
      *axis += rank;
  }

  SmallVector<int64_t> shape(input.begin(), input.end());
  shape.back() = realOutput ? 1 : 2;
  bool axisDimChanges = hasLength || onesided;
  if (!axis) {
    // Any dim but the last may be the axis.
    if (axisDimChanges)
      for (int64_t d = 0; d < rank - 1; ++d)
        shape[d] = kDynamic;
    ctx.setResult(0, ctx.getInputElementType(0), shape);
    return success();
  }
  int64_t inputLength = input[*axis];
  if (!hasLength && !ShapedType::isDynamic(inputLength))
    length = realOutput ? 2 * (inputLength - 1) : inputLength;
  if (!length)
    shape[*axis] = kDynamic;
  else if (onesided && !inverse)
    shape[*axis] = *length / 2 + 1;
  else
    shape[*axis] = *length;
  if (length && *length <= 0)
    return ctx.emitError() << "the transform length must be positive, got "
                           << *length;
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

/// STFT(signal [batch, length, 1|2], frame_step, window?, frame_length?):
/// [batch, frames, bins, 2] with frames = 1 + (length - frame_length) /
/// frame_step and bins = frame_length (/ 2 + 1 when one-sided).
LogicalResult inferSTFT(RuleContext &ctx) {
  if (failed(checkComponentDim(ctx, 0, 3)))
    return failure();
  ArrayRef<int64_t> signal = ctx.getInputShape(0);
  if (signal.size() != 3)
    return ctx.emitError() << "expects a signal [batch, length, 1|2], got "
                           << ctx.getInputType(0);
  if (ctx.hasInput(2) && ctx.getInputRank(2) != 1)
    return ctx.emitError() << "expects a 1-D window, got "
                           << ctx.getInputType(2);
  bool onesided = ctx.getIntAttr("onesided", 1) != 0;

  std::optional<int64_t> frameLength;
  if (ctx.hasInput(3))
    frameLength = ctx.getKnownScalar(3);
  else if (ctx.hasInput(2) && !ShapedType::isDynamic(ctx.getInputShape(2)[0]))
    frameLength = ctx.getInputShape(2)[0];
  else if (!ctx.hasInput(2) && !ShapedType::isDynamic(signal[1]))
    frameLength = signal[1];
  if (frameLength && *frameLength <= 0)
    return ctx.emitError() << "frame_length must be positive, got "
                           << *frameLength;
  std::optional<int64_t> step = ctx.getKnownScalar(1);
  if (step && *step <= 0)
    return ctx.emitError() << "frame_step must be positive, got " << *step;

  int64_t frames = kDynamic;
  if (frameLength && step && !ShapedType::isDynamic(signal[1])) {
    if (*frameLength > signal[1])
      return ctx.emitError()
             << "frame_length " << *frameLength
             << " is longer than the signal (" << signal[1] << ")";
    frames = 1 + (signal[1] - *frameLength) / *step;
  }
  int64_t bins = kDynamic;
  if (frameLength)
    bins = onesided ? *frameLength / 2 + 1 : *frameLength;
  ctx.setResult(0, ctx.getInputElementType(0), {signal[0], frames, bins, 2});
  return success();
}

} // namespace

void addSignalRules(RuleTable &rules) {
  rules.add("DFT", inferDFT, 1);
  rules.add("STFT", inferSTFT, 2);
}

} // namespace onnxc::shape
