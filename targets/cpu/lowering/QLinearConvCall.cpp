//===- QLinearConvCall.cpp - QLinearConv / ConvInteger as int8 GEMM calls -===//
//
// onnx.QLinearConv and onnx.ConvInteger on 1-D or 2-D (NCW / NCHW) 8-bit
// operands with a constant W (what QDQ fusion and ONNX Runtime's quantizers
// produce) become one call of runtime/cpu/QLinearConv.c: windows gathered
// into rows and the int8 GEMM against W packed once per group, requantized
// in its epilogue (QLinearConv, f32 scales) or left as int32 sums
// (ConvInteger), in place of the linalg form's f64 convolution
// (Quantization.cpp), which these patterns outrank. A 1-D convolution is
// the 2-D one with a unit height. The window is resolved as for f32
// convolutions (WindowUtils.h) and passed as begin pads, strides and
// dilations; the runtime derives the end pads from Y's size and returns a
// status the call site checks. The patterns fail to match, leaving the op
// to the linalg form, for other ranks or scale types, a W that is not
// constant, dynamic kernel sizes or grouped channels, and attributes the
// linalg form reports.
//
// onnxc.BlockedQLinearConv (transforms/QuantizedChannelsLast.cpp: X and Y
// are [N, 1, H, W, C], NHWC with a unit dim) becomes the same call on the
// NHWC views, flagged channels-last, with the window its attributes give.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeCall.h"
#include "targets/cpu/lowering/WindowUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

// Must match runtime/cpu/CpuRuntime.h.
enum : int32_t {
  kXSigned = 1,
  kWSigned = 2,
  kYSigned = 4,
  kBias = 8,
  kYZero = 16,
  kXZero = 32,
  kWZero = 64,
  kChannelsLast = 128
};

bool isStatic(int64_t size) { return !ShapedType::isDynamic(size); }

/// A ranked 3-D or 4-D tensor of 8-bit integers, or null.
RankedTensorType int8Image(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  return type && (type.getRank() == 3 || type.getRank() == 4) &&
                 type.getElementType().isInteger(8)
             ? type
             : RankedTensorType();
}

/// Whether `value` is an f32 tensor of one element, or of `count`.
bool isF32ScaleOf(Value value, int64_t count) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.getElementType().isF32() || !type.hasStaticShape() ||
      type.getRank() > 1)
    return false;
  return type.getNumElements() == 1 || type.getNumElements() == count;
}

/// `tensor` with a unit dim inserted before its last (NCW -> NC1W).
Value withUnitHeight(OpBuilder &b, Location loc, Value tensor) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  if (type.getRank() == 4)
    return tensor;
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + 2, 1);
  SmallVector<ReassociationIndices> groups = {{0}, {1}, {2, 3}};
  return b.create<tensor::ExpandShapeOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), tensor, groups);
}

/// The geometry of a quantized convolution, checked and resolved.
struct ConvGeometry {
  SmallVector<WindowDim> window; // one per spatial dim of the op
  int64_t filters, group;
};

/// Checks the channels and resolves the window of `op` (QLinearConv or
/// ConvInteger) on x and w; failure leaves the op to the linalg lowering,
/// whose diagnostics are silenced here.
template <typename OpTy>
FailureOr<ConvGeometry> resolveGeometry(ConversionPatternRewriter &rewriter,
                                        OpTy op, Value x, Value w,
                                        RankedTensorType resultType) {
  auto xType = llvm::cast<RankedTensorType>(x.getType());
  auto wType = llvm::cast<RankedTensorType>(w.getType());
  ConvGeometry g;
  g.filters = wType.getDimSize(0);
  g.group = op.getGroup();
  int64_t channels = xType.getDimSize(1), groupChannels = wType.getDimSize(1);
  if (!isStatic(g.filters) || !isStatic(groupChannels) || g.group < 1 ||
      g.filters % g.group != 0 ||
      (isStatic(channels) && channels != groupChannels * g.group) ||
      (g.group > 1 && !isStatic(channels)))
    return failure();
  ScopedDiagnosticHandler silence(op.getContext(),
                                  [](Diagnostic &) { return success(); });
  FailureOr<SmallVector<int64_t>> kernel =
      resolveKernelShape(op, wType, op.getKernelShape());
  if (failed(kernel) || llvm::any_of(*kernel, ShapedType::isDynamic))
    return failure();
  FailureOr<SmallVector<WindowDim>> window =
      resolveWindow(rewriter, op, x, *kernel, op.getStrides(),
                    op.getDilations(), op.getPads(), op.getAutoPad(),
                    /*ceilMode=*/false, /*clampAutoPad=*/true, resultType);
  if (failed(window))
    return failure();
  g.window = std::move(*window);
  return g;
}

/// Calls `callee` with `operands` (X first: the 4-D memrefs the helper
/// declares, the others as they are), a fresh 4-D result, the slot, `flags`
/// and the window; checks the status and replaces `op`.
/// With kChannelsLast in `flags`, X is [N, 1, H, W, C], passed as NHWC, and
/// so is the result.
LogicalResult emitConvCall(ConversionPatternRewriter &rewriter, Operation *op,
                           func::FuncOp callee, FlatSymbolRefAttr slot,
                           ArrayRef<Value> operands, unsigned resultPosition,
                           Value x, Value w, RankedTensorType resultType,
                           const ConvGeometry &g, int32_t flags) {
  bool channelsLast = flags & kChannelsLast;
  Location loc = op->getLoc();
  IndexMath m(rewriter, loc);
  if (g.group == 1 && !channelsLast &&
      !isStatic(llvm::cast<RankedTensorType>(x.getType()).getDimSize(1))) {
    Value xc = dimValue(rewriter, loc, x, 1);
    Value wc = dimValue(rewriter, loc, w, 1);
    Value differ =
        rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, xc, wc);
    emitShapeErrorIf(rewriter, loc, differ, ShapeErrorKind::InnerDims, xc, wc);
  }
  bool oneD = g.window.size() == 1;
  WindowDim unit;
  unit.padBegin = rewriter.getIndexAttr(0);
  unit.stride = 1;
  unit.dilation = 1;
  unit.output = rewriter.getIndexAttr(1);
  const WindowDim &h = oneD ? unit : g.window[0], &wd = g.window.back();
  SmallVector<int64_t> shape4(resultType.getShape());
  if (oneD)
    shape4.insert(shape4.begin() + 2, 1);
  if (channelsLast) // [N, 1, OH, OW, M] -> [N, OH, OW, M]
    shape4.erase(shape4.begin() + 1);
  auto result4 = RankedTensorType::get(shape4, resultType.getElementType());
  SmallVector<OpFoldResult> sizes = {mixedDims(rewriter, loc, x)[0],
                                     rewriter.getIndexAttr(g.filters), h.output,
                                     wd.output};
  if (channelsLast)
    std::rotate(sizes.begin() + 1, sizes.begin() + 2, sizes.end());
  Value buffer = allocRuntimeResult(rewriter, loc, result4, sizes);

  SmallVector<Value> args;
  for (Value operand : operands)
    args.push_back(runtimeCallArgument(rewriter, loc, operand));
  args.insert(args.begin() + resultPosition,
              castToDynamicMemref(rewriter, loc, buffer));
  args.push_back(rewriter.create<memref::GetGlobalOp>(
      loc, packedBSlotType(rewriter.getContext()), slot.getValue()));
  auto i64 = [&](OpFoldResult v) -> Value {
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return rewriter.create<arith::ConstantIntOp>(loc, *c, 64);
    return rewriter.create<arith::IndexCastOp>(loc, rewriter.getI64Type(),
                                               m.value(v));
  };
  auto i64c = [&](int64_t v) -> Value {
    return rewriter.create<arith::ConstantIntOp>(loc, v, 64);
  };
  args.append({rewriter.create<arith::ConstantIntOp>(loc, flags, 32),
               i64(h.padBegin), i64(wd.padBegin), i64c(h.stride),
               i64c(wd.stride), i64c(h.dilation), i64c(wd.dilation),
               i64c(g.group)});
  auto call = rewriter.create<func::CallOp>(loc, callee, args);
  emitKernelStatusCheck(rewriter, loc, call.getResult(0));
  Value result = runtimeResultTensor(rewriter, loc, result4, buffer);
  if (oneD)
    result = rewriter.create<tensor::CollapseShapeOp>(
        loc, resultType, result,
        SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
  if (channelsLast)
    result = rewriter.create<tensor::ExpandShapeOp>(
        loc, resultType, result,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
  rewriter.replaceOp(op, result);
  return success();
}

/// The checks both QLinearConv forms share: f32 scales of the right sizes,
/// ranked operands, an i32 [M] bias. Returns the flags of the signs and of
/// the operands present.
FailureOr<int32_t> qlinearOperandFlags(Operation *op, ValueRange operands,
                                       int64_t filters) {
  auto rankedOrNone = [](Value v) {
    return isNoneValue(v) || llvm::isa<RankedTensorType>(v.getType());
  };
  if (!llvm::all_of(operands, rankedOrNone) || operands.size() != 9 ||
      !isF32ScaleOf(operands[1], 1) || !isF32ScaleOf(operands[6], 1) ||
      !isF32ScaleOf(operands[4], filters))
    return failure();
  bool hasBias = !isNoneValue(operands[8]);
  if (hasBias) {
    auto biasType = llvm::dyn_cast<RankedTensorType>(operands[8].getType());
    if (!biasType || biasType.getRank() != 1 ||
        !biasType.getElementType().isInteger(32))
      return failure();
  }
  return (isUnsignedElement(op->getOperand(0)) ? 0 : kXSigned) |
         (isUnsignedElement(op->getOperand(3)) ? 0 : kWSigned) |
         (isUnsignedElement(op->getResult(0)) ? 0 : kYSigned) |
         (hasBias ? kBias : 0) | (isNoneValue(operands[7]) ? 0 : kYZero);
}

/// QLinearConv's nine operands as the call takes them: X and W in their
/// call forms, an absent y_zero_point passed as X again and an absent bias
/// as one int32 zero (the callee has one signature for every call site).
SmallVector<Value> qlinearCallOperands(OpBuilder &b, Location loc,
                                       ValueRange operands, Value x, Value w) {
  SmallVector<Value> args(operands.begin(), operands.end());
  args[0] = x;
  args[3] = w;
  if (isNoneValue(args[7]))
    args[7] = x;
  if (isNoneValue(args[8])) {
    auto type = RankedTensorType::get({1}, b.getI32Type());
    args[8] = b.create<arith::ConstantOp>(
        loc, DenseElementsAttr::get(type, b.getI32IntegerAttr(0).getValue()));
  }
  return args;
}

struct QLinearConvCall : OpConversionPattern<onnx::QLinearConvOp> {
  QLinearConvCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::QLinearConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto slot = op->getAttrOfType<FlatSymbolRefAttr>(kPackedBSlotAttr);
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!slot || !callee)
      return rewriter.notifyMatchFailure(op, "no constant W or no callee");
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    Value x = adaptor.getX(), w = adaptor.getW();
    if (!resultType || !int8Image(x) || !int8Image(w) ||
        !int8Image(op->getResult(0)))
      return rewriter.notifyMatchFailure(op, "not an 8-bit QLinearConv");
    FailureOr<ConvGeometry> g = resolveGeometry(rewriter, op, x, w, resultType);
    if (failed(g))
      return rewriter.notifyMatchFailure(op, "unsupported geometry");
    FailureOr<int32_t> flags =
        qlinearOperandFlags(op, adaptor.getOperands(), g->filters);
    if (failed(flags))
      return rewriter.notifyMatchFailure(op, "unsupported scales or bias");
    Location loc = op.getLoc();
    SmallVector<Value> operands = qlinearCallOperands(
        rewriter, loc, adaptor.getOperands(), withUnitHeight(rewriter, loc, x),
        withUnitHeight(rewriter, loc, w));
    return emitConvCall(rewriter, op, callee, slot, operands,
                        /*resultPosition=*/9, x, w, resultType, *g, *flags);
  }
};

/// onnxc.BlockedQLinearConv: the NHWC views of X [N, 1, H, W, C] and of the
/// result, the window from the attributes.
struct BlockedQLinearConvCall
    : OpConversionPattern<fused::BlockedQLinearConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(fused::BlockedQLinearConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto slot = op->getAttrOfType<FlatSymbolRefAttr>(kPackedBSlotAttr);
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!slot || !callee)
      return op.emitError("the int8 convolution kernel is not declared");
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    Value x = adaptor.getX(), w = adaptor.getW();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    auto wType = llvm::dyn_cast<RankedTensorType>(w.getType());
    if (!resultType || resultType.getRank() != 5 || !xType ||
        xType.getRank() != 5 || !int8Image(w) || wType.getRank() != 4 ||
        !wType.hasStaticShape())
      return op.emitError("expects X [N, 1, H, W, C] and a 4-D W");
    int64_t filters = wType.getDimSize(0);
    FailureOr<int32_t> flags =
        qlinearOperandFlags(op, adaptor.getOperands(), filters);
    if (failed(flags))
      return op.emitError("unsupported scales, zero points or bias");
    ConvGeometry g;
    g.filters = filters;
    g.group = op.getGroup();
    auto ints = [](ArrayAttr a) {
      return llvm::to_vector(llvm::map_range(
          a, [](Attribute v) { return llvm::cast<IntegerAttr>(v).getInt(); }));
    };
    SmallVector<int64_t> pads = ints(op.getPads()),
                         strides = ints(op.getStrides()),
                         dilations = ints(op.getDilations());
    // A dynamic output size as QLinearConv's (WindowUtils.h):
    // max(0, (in + pads - extent) / stride + 1), rounding toward zero.
    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> xDims = mixedDims(rewriter, loc, x);
    for (int64_t i = 0; i < 2; ++i) {
      WindowDim d;
      d.kernel = wType.getDimSize(2 + i);
      d.stride = strides[i];
      d.dilation = dilations[i];
      d.padBegin = rewriter.getIndexAttr(pads[i]);
      d.padEnd = rewriter.getIndexAttr(pads[2 + i]);
      d.input = xDims[2 + i];
      d.output = rewriter.getIndexAttr(resultType.getDimSize(2 + i));
      if (resultType.isDynamicDim(2 + i)) {
        OpFoldResult span =
            m.sub(m.add(d.input, m.constant(pads[i] + pads[2 + i])),
                  m.constant(d.extent()));
        d.output = m.max(m.constant(0),
                         m.add(m.truncDiv(span, d.stride), m.constant(1)));
      }
      g.window.push_back(d);
    }
    Value nhwc = rewriter.create<tensor::CollapseShapeOp>(
        loc, x, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    SmallVector<Value> operands =
        qlinearCallOperands(rewriter, loc, adaptor.getOperands(), nhwc, w);
    return emitConvCall(rewriter, op, callee, slot, operands,
                        /*resultPosition=*/9, x, w, resultType, g,
                        *flags | kChannelsLast);
  }
};

struct ConvIntegerCall : OpConversionPattern<onnx::ConvIntegerOp> {
  ConvIntegerCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::ConvIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto slot = op->getAttrOfType<FlatSymbolRefAttr>(kPackedBSlotAttr);
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!slot || !callee)
      return rewriter.notifyMatchFailure(op, "no constant W or no callee");
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    Value x = adaptor.getX(), w = adaptor.getW();
    if (!resultType || !int8Image(x) || !int8Image(w) ||
        !resultType.getElementType().isInteger(32))
      return rewriter.notifyMatchFailure(op, "not an 8-bit ConvInteger");
    FailureOr<ConvGeometry> g = resolveGeometry(rewriter, op, x, w, resultType);
    if (failed(g))
      return rewriter.notifyMatchFailure(op, "unsupported geometry");
    Value xZero = adaptor.getXZeroPoint(), wZero = adaptor.getWZeroPoint();
    auto isScalar = [](Value v) {
      auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
      return type && type.hasStaticShape() && type.getNumElements() == 1;
    };
    bool hasXZero = !isNoneValue(xZero), hasWZero = !isNoneValue(wZero);
    auto wZeroType = llvm::dyn_cast<RankedTensorType>(wZero.getType());
    if ((hasXZero && !isScalar(xZero)) ||
        (hasWZero && !isScalar(wZero) &&
         (!wZeroType || wZeroType.getRank() != 1)))
      return rewriter.notifyMatchFailure(op, "unsupported zero points");
    Location loc = op.getLoc();
    Value x4 = withUnitHeight(rewriter, loc, x);
    int32_t flags = (isUnsignedElement(op.getX()) ? 0 : kXSigned) |
                    (isUnsignedElement(op.getW()) ? 0 : kWSigned) |
                    (hasXZero ? kXZero : 0) | (hasWZero ? kWZero : 0);
    SmallVector<Value> operands = {x4, hasXZero ? xZero : x4,
                                   withUnitHeight(rewriter, loc, w),
                                   hasWZero ? wZero : x4};
    return emitConvCall(rewriter, op, callee, slot, operands,
                        /*resultPosition=*/4, x, w, resultType, *g, flags);
  }
};

} // namespace

void populateQLinearConvCallPatterns(const TypeConverter &typeConverter,
                                     RewritePatternSet &patterns) {
  patterns.add<QLinearConvCall, BlockedQLinearConvCall, ConvIntegerCall>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
