//===- WindowUtils.cpp - Sliding-window geometry for Conv and pools -------===//

#include "targets/cpu/lowering/WindowUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace onnxc::cpu {

//===----------------------------------------------------------------------===//
// IndexMath
//===----------------------------------------------------------------------===//

OpFoldResult IndexMath::constant(int64_t v) { return b.getIndexAttr(v); }

Value IndexMath::value(OpFoldResult x) { return toValue(b, loc, x); }

OpFoldResult IndexMath::add(OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return constant(*cx + *cy);
  if (cy && *cy == 0)
    return x;
  if (cx && *cx == 0)
    return y;
  return b.create<arith::AddIOp>(loc, value(x), value(y)).getResult();
}

OpFoldResult IndexMath::sub(OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return constant(*cx - *cy);
  if (cy && *cy == 0)
    return x;
  return b.create<arith::SubIOp>(loc, value(x), value(y)).getResult();
}

OpFoldResult IndexMath::mul(OpFoldResult x, int64_t c) {
  if (std::optional<int64_t> cx = getConstantIntValue(x))
    return constant(*cx * c);
  if (c == 1)
    return x;
  return b.create<arith::MulIOp>(loc, value(x), value(constant(c))).getResult();
}

OpFoldResult IndexMath::floorDiv(OpFoldResult x, int64_t c) {
  if (std::optional<int64_t> cx = getConstantIntValue(x))
    return constant(llvm::divideFloorSigned(*cx, c));
  if (c == 1)
    return x;
  return b.create<arith::FloorDivSIOp>(loc, value(x), value(constant(c)))
      .getResult();
}

OpFoldResult IndexMath::truncDiv(OpFoldResult x, int64_t c) {
  if (std::optional<int64_t> cx = getConstantIntValue(x))
    return constant(*cx / c);
  if (c == 1)
    return x;
  return b.create<arith::DivSIOp>(loc, value(x), value(constant(c)))
      .getResult();
}

OpFoldResult IndexMath::ceilDiv(OpFoldResult x, int64_t c) {
  if (std::optional<int64_t> cx = getConstantIntValue(x))
    return constant(llvm::divideCeilSigned(*cx, c));
  if (c == 1)
    return x;
  return b.create<arith::CeilDivSIOp>(loc, value(x), value(constant(c)))
      .getResult();
}

OpFoldResult IndexMath::max(OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return constant(std::max(*cx, *cy));
  return b.create<arith::MaxSIOp>(loc, value(x), value(y)).getResult();
}

OpFoldResult IndexMath::min(OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return constant(std::min(*cx, *cy));
  return b.create<arith::MinSIOp>(loc, value(x), value(y)).getResult();
}

//===----------------------------------------------------------------------===//
// Window resolution
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<WindowDim>>
resolveWindow(OpBuilder &b, Operation *op, Value input,
              ArrayRef<int64_t> kernel, std::optional<ArrayAttr> strides,
              std::optional<ArrayAttr> dilations, std::optional<ArrayAttr> pads,
              StringRef autoPad, bool ceilMode, bool clampAutoPad,
              RankedTensorType resultType) {
  Location loc = op->getLoc();
  auto inputType = llvm::cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank() - 2;
  if (rank < 1)
    return op->emitError("expects an input of rank >= 3 (N x C x D1 ...)");
  if (static_cast<int64_t>(kernel.size()) != rank)
    return op->emitError() << "kernel has " << kernel.size()
                           << " dims but the input has " << rank
                           << " spatial dims";
  if (resultType.getRank() != inputType.getRank())
    return op->emitError("the output rank differs from the input rank");
  SmallVector<int64_t> s = getI64Array(strides, rank, 1);
  SmallVector<int64_t> d = getI64Array(dilations, rank, 1);
  SmallVector<int64_t> p = getI64Array(pads, 2 * rank, 0);
  if (static_cast<int64_t>(s.size()) != rank ||
      static_cast<int64_t>(d.size()) != rank ||
      static_cast<int64_t>(p.size()) != 2 * rank)
    return op->emitError("strides, dilations and pads must have one value "
                         "per spatial dim (two for pads)");
  for (int64_t i = 0; i < rank; ++i) {
    if (kernel[i] < 1 || s[i] < 1 || d[i] < 1)
      return op->emitError(
          "kernel sizes, strides and dilations must be positive");
    if (p[i] < 0 || p[i + rank] < 0)
      return op->emitError("pads must be non-negative");
  }
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!same && autoPad != "VALID" && autoPad != "NOTSET")
    return op->emitError() << "unknown auto_pad '" << autoPad << "'";

  IndexMath m(b, loc);
  SmallVector<OpFoldResult> inputDims = mixedDims(b, loc, input);
  SmallVector<WindowDim> dims;
  for (int64_t i = 0; i < rank; ++i) {
    WindowDim w;
    w.input = inputDims[i + 2];
    w.kernel = kernel[i];
    w.stride = s[i];
    w.dilation = d[i];
    if (same) {
      // Output ceil(in / stride); the missing input is padded, the odd
      // element going to the end (SAME_UPPER) or the beginning. A kernel
      // shorter than the stride needs a negative pad: Conv clamps it to 0,
      // the pools keep it (the windows then start inside the input).
      OpFoldResult target = m.ceilDiv(w.input, w.stride);
      OpFoldResult need =
          m.sub(m.add(m.mul(m.sub(target, m.constant(1)), w.stride),
                      m.constant(w.extent())),
                w.input);
      if (clampAutoPad)
        need = m.max(m.constant(0), need);
      OpFoldResult head = autoPad == "SAME_UPPER"
                              ? m.truncDiv(need, 2)
                              : m.truncDiv(m.add(need, m.constant(1)), 2);
      w.padBegin = head;
      w.padEnd = m.sub(need, head);
    } else if (autoPad == "VALID") {
      w.padBegin = w.padEnd = m.constant(0);
    } else {
      w.padBegin = m.constant(p[i]);
      w.padEnd = m.constant(p[i + rank]);
    }

    OpFoldResult span = m.sub(m.add(m.add(w.input, w.padBegin), w.padEnd),
                              m.constant(w.extent()));
    if (!ceilMode) {
      // A window larger than the padded input still gives one output when
      // (in + pads - extent) / stride rounds to zero.
      w.output = m.add(m.truncDiv(span, w.stride), m.constant(1));
    } else {
      // Round up, but drop a last window that would start past the input
      // and its leading pad.
      OpFoldResult out = m.add(m.ceilDiv(span, w.stride), m.constant(1));
      OpFoldResult lastStart = m.mul(m.sub(out, m.constant(1)), w.stride);
      OpFoldResult limit = m.add(w.input, w.padBegin);
      std::optional<int64_t> cStart = getConstantIntValue(lastStart);
      std::optional<int64_t> cLimit = getConstantIntValue(limit);
      if (cStart && cLimit) {
        w.output = *cStart >= *cLimit ? m.sub(out, m.constant(1)) : out;
      } else {
        Value past = b.create<arith::CmpIOp>(
            loc, arith::CmpIPredicate::sge, m.value(lastStart), m.value(limit));
        Value dec = b.create<arith::IndexCastOp>(
            loc, b.getIndexType(),
            b.create<arith::ExtUIOp>(loc, b.getI64Type(), past));
        w.output = m.sub(out, dec);
      }
    }

    std::optional<int64_t> out = getConstantIntValue(w.output);
    // A run-time size must never make a negative output.
    if (!out)
      w.output = m.max(m.constant(0), w.output);
    if (out && *out < 0)
      return op->emitError() << "the window (extent " << w.extent()
                             << ") is larger than the padded input in "
                                "spatial dim "
                             << i;
    int64_t declared = resultType.getDimSize(i + 2);
    if (!ShapedType::isDynamic(declared)) {
      if (out && *out != declared)
        return op->emitError()
               << "spatial dim " << i << " of the output is " << declared
               << " but the attributes give " << *out;
      w.output = m.constant(declared);
    }
    dims.push_back(w);
  }
  return dims;
}

FailureOr<SmallVector<int64_t>>
resolveKernelShape(Operation *op, RankedTensorType weightType,
                   std::optional<ArrayAttr> kernelShape) {
  SmallVector<int64_t> kernel(weightType.getShape().drop_front(2));
  if (!kernelShape)
    return kernel;
  SmallVector<int64_t> declared = getI64Array(kernelShape, 0, 0);
  if (declared.size() != kernel.size())
    return op->emitError("kernel_shape must have one value per spatial dim");
  for (auto [size, want] : llvm::zip(kernel, declared)) {
    if (!ShapedType::isDynamic(size) && size != want)
      return op->emitError("kernel_shape differs from W's shape");
    size = want;
  }
  return kernel;
}

Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<OpFoldResult> low, ArrayRef<OpFoldResult> high,
                 Value padValue) {
  bool none = true;
  for (OpFoldResult pad : llvm::concat<const OpFoldResult>(low, high))
    none &= isConstantIntValue(pad, 0);
  if (none)
    return input;
  SmallVector<OpFoldResult> fullLow(2, b.getIndexAttr(0));
  SmallVector<OpFoldResult> fullHigh(2, b.getIndexAttr(0));
  fullLow.append(foldSizes(low));
  fullHigh.append(foldSizes(high));
  return b.create<tensor::PadOp>(loc, Type(), input, fullLow, fullHigh,
                                 padValue);
}

SmallVector<OpFoldResult> foldSizes(ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> folded;
  for (OpFoldResult size : sizes) {
    if (auto value = llvm::dyn_cast_if_present<Value>(size))
      folded.push_back(getAsOpFoldResult(value));
    else
      folded.push_back(size);
  }
  return folded;
}

} // namespace onnxc::cpu
