//===- BlockedConvCall.cpp - f32 onnxc.BlockedConv as a kernel call -------===//
//
// An f32 onnxc.BlockedConv (block 16, 1-D or 2-D) becomes one call of the
// runtime's direct NCHWc convolution (runtime/cpu/ConvNchwc.c), whose
// register-tiled micro-kernels do what the linalg form (BlockedLayout.cpp)
// leaves to generic loops. X, W, the bias, Z and the result cross as
// identity-layout memrefs through a wrapper that casts them to unranked ones
// (RuntimeHelpers.cpp); the geometry and the fused epilogue (bias, residual,
// activation) are scalars. The kernel reads only the `in_channels` true
// input lanes, as the op requires. The result is a fresh buffer the call
// fills, wrapped as a restrict/writable tensor.
//
// A group-1 2-D conv of fewer than 16 input channels whose X is a
// ReorderToBlocked (an image: ResNet's, MobileNet's stems) passes the
// reorder's plain NCHW input instead, with the NCHW-input flag: blocked, 3
// channels take 16 lanes, 5.3x the bytes for the reorder to write and the
// kernel to read (MobileNetV2's stem and reorder took 7% of the model at
// batch 8, measured; the NCHW stem runs 8-14% faster in bench/conv).
//
// An f32 onnxc.ReorderToBlocked of block 16, and an f32 onnx.MaxPool on a
// blocked tensor, are likewise one call each of the runtime (same file). A
// reorder that only such convolutions read is left to the linalg pattern,
// whose result, unread, is then erased as dead code: a call would run.
//
// The patterns outrank the linalg ones and fail to match, leaving the op to
// them, for other element types, block sizes and ranks, for an activation
// they do not know (the linalg pattern reports it), and when the callee was
// not declared (`--emit static`: onnxc-declare-runtime-helpers skips
// wrappers).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/KernelActivation.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeCall.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"
#include "targets/cpu/lowering/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

// Must match runtime/cpu/CpuRuntime.h and kernels/Gemm.h.
enum : int32_t {
  kHasBias = 1,
  kHasResidual = 2,
  kDepthwise = 4,
  kWinograd = 8,
  kNchwInput = 16,
  kWinograd4x4 = 32
};
constexpr int64_t kBlock = 16;

/// Whether the convolution `op` may write Y over its residual Z: Z comes
/// from an op (a function argument is read-only), is not also `op`'s input,
/// weight or bias, and nothing reads it after `op` in its block. The kernel
/// reads each element of Z only just before it stores the same element of Y
/// (the full reduction sits in registers), so Y == Z is safe there.
/// Bufferization still checks the aliasing (the buffer is taken by a writable
/// to_memref) and copies Z where that would clobber a value read later. ONNX
/// Runtime's NCHWc convolution sums into its Sum input the same way. Here it
/// shrinks the workspace (ResNet-50: 7.2 -> 5.2 MB); the time stayed within
/// noise.
static bool canWriteOverResidual(fused::BlockedConvOp op, Value z) {
  Operation *producer = z.getDefiningOp();
  if (!producer || producer->getBlock() != op->getBlock() ||
      producer->hasTrait<OpTrait::ConstantLike>())
    return false;
  return llvm::all_of(z.getUses(), [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (user == op.getOperation())
      return &use == &op.getZMutable();
    return user->getBlock() == op->getBlock() && user->isBeforeInBlock(op);
  });
}

/// f32 onnxc.BlockedConv of block 16 over 1 or 2 spatial dims.
struct BlockedConvCall : OpConversionPattern<fused::BlockedConvOp> {
  BlockedConvCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(fused::BlockedConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto f32Ranked = [](Value v) {
      auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
      return type && type.getElementType().isF32() ? type : RankedTensorType();
    };
    Value x = adaptor.getX(), w = adaptor.getW();
    RankedTensorType xType = f32Ranked(x), wType = f32Ranked(w);
    RankedTensorType resultType = f32Ranked(op.getY());
    if (!xType || !wType || !resultType || !wType.hasStaticShape() ||
        (xType.getRank() != 4 && xType.getRank() != 5) ||
        resultType.getRank() != xType.getRank() ||
        xType.getShape().back() != kBlock ||
        resultType.getShape().back() != kBlock || resultType.isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "not an f32 1-D/2-D conv of "
                                             "block 16");
    std::optional<KernelActivation> act =
        kernelActivationFor(op.getActivation(), op.getActivationParams());
    if (!act)
      return rewriter.notifyMatchFailure(op, "unknown activation");
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!callee)
      return rewriter.notifyMatchFailure(op, "runtime kernel not declared");
    // Checked before anything is created: U's global
    // (transforms/WinogradConvWeights.cpp).
    auto winograd = op->getAttrOfType<FlatSymbolRefAttr>(kWinogradWeightsAttr);
    memref::GlobalOp global;
    if (winograd) {
      global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          op, winograd.getAttr());
      if (!global)
        return rewriter.notifyMatchFailure(op, "Winograd weights not found");
    }
    Value bias = isNoneValue(adaptor.getB()) ? Value() : adaptor.getB();
    Value z = isNoneValue(adaptor.getZ()) ? Value() : adaptor.getZ();
    if ((bias && !f32Ranked(bias)) || (z && z.getType() != resultType))
      return rewriter.notifyMatchFailure(op, "bias or Z of another type");

    int64_t spatial = xType.getRank() - 3;
    bool depthwise = op.getGroup() != 1;
    int64_t kernelStart = depthwise ? 1 : 2;
    ArrayRef<int64_t> kernel = wType.getShape().slice(kernelStart, spatial);
    SmallVector<int64_t> strides = getI64Array(op.getStrides(), spatial, 1);
    SmallVector<int64_t> dilations = getI64Array(op.getDilations(), spatial, 1);
    SmallVector<int64_t> pads = getI64Array(op.getPads(), 2 * spatial, 0);

    // The result's sizes: the static ones, the others from X's.
    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> xDims = mixedDims(rewriter, loc, x);
    SmallVector<Value> dynamicSizes;
    if (resultType.isDynamicDim(0))
      dynamicSizes.push_back(m.value(xDims[0]));
    for (int64_t i = 0; i < spatial; ++i) {
      if (!resultType.isDynamicDim(2 + i))
        continue;
      int64_t extent = (kernel[i] - 1) * dilations[i] + 1;
      OpFoldResult padded =
          m.add(xDims[2 + i], m.constant(pads[i] + pads[spatial + i] - extent));
      dynamicSizes.push_back(
          m.value(m.add(m.floorDiv(padded, strides[i]), m.constant(1))));
    }
    Type f32 = rewriter.getF32Type();
    auto resultMemref = MemRefType::get(resultType.getShape(), f32);
    Value buffer;
    if (z && canWriteOverResidual(op, op.getZ()))
      buffer = rewriter.create<bufferization::ToMemrefOp>(loc, resultMemref, z);
    else
      buffer = rewriter.create<memref::AllocOp>(loc, resultMemref, dynamicSizes,
                                                rewriter.getI64IntegerAttr(64));

    // Operands as the wrapper's all-dynamic memrefs; an absent bias or Z
    // passes X in its place (see runtimeHelperFor).
    ArrayRef<Type> inputs = callee.getFunctionType().getInputs();
    auto asArgument = [&](Value tensor, Type calleeType) -> Value {
      auto type = llvm::cast<RankedTensorType>(tensor.getType());
      Value memref = rewriter.create<bufferization::ToMemrefOp>(
          loc, MemRefType::get(type.getShape(), f32), tensor,
          rewriter.getUnitAttr());
      return rewriter.create<memref::CastOp>(loc, calleeType, memref);
    };
    Value plain = blockedConvPlainInput(op);
    Value xRef =
        asArgument(plain ? rewriter.getRemappedValue(plain) : x, inputs[0]);
    auto i32 = [&](int64_t v) -> Value {
      return rewriter.create<arith::ConstantIntOp>(loc, v, 32);
    };
    auto i64 = [&](int64_t v) -> Value {
      return rewriter.create<arith::ConstantIntOp>(loc, v, 64);
    };
    auto f32c = [&](float v) -> Value {
      return rewriter.create<arith::ConstantOp>(loc,
                                                rewriter.getF32FloatAttr(v));
    };
    // U replaces W, which is then left unused.
    Value wRef;
    if (winograd) {
      wRef = rewriter.create<memref::CastOp>(
          loc, inputs[1],
          rewriter.create<memref::GetGlobalOp>(loc, global.getType(),
                                               winograd.getValue()));
    } else {
      wRef = asArgument(w, inputs[1]);
    }
    auto tile = op->getAttrOfType<IntegerAttr>(kWinogradTileAttr);
    bool winograd4x4 = winograd && tile && tile.getInt() == 4;
    int32_t flags = (bias ? kHasBias : 0) | (z ? kHasResidual : 0) |
                    (depthwise ? kDepthwise : 0) | (winograd ? kWinograd : 0) |
                    (plain ? kNchwInput : 0) | (winograd4x4 ? kWinograd4x4 : 0);
    // 1-D is 2-D with H = 1: the H stride, dilation and pad are neutral.
    int64_t h = spatial == 2 ? 0 : -1, wd = spatial - 1;
    rewriter.create<func::CallOp>(
        loc, callee,
        ValueRange{xRef, wRef, bias ? asArgument(bias, inputs[2]) : xRef,
                   z ? asArgument(z, inputs[3]) : xRef,
                   rewriter.create<memref::CastOp>(loc, inputs[4], buffer),
                   i32(flags), i64(op.getInChannels()),
                   i64(op.getOutChannels()), i64(h < 0 ? 1 : strides[h]),
                   i64(strides[wd]), i64(h < 0 ? 1 : dilations[h]),
                   i64(dilations[wd]), i64(h < 0 ? 0 : pads[h]), i64(pads[wd]),
                   i32(act->kind), f32c(act->alpha), f32c(act->beta)});
    rewriter.replaceOp(op,
                       runtimeResultTensor(rewriter, loc, resultType, buffer));
    return success();
  }
};

/// f32 onnxc.ReorderToBlocked of block 16 over 1 to 3 spatial dims: one
/// call of the runtime's reorder, which writes each channel's pixels into
/// its lane and zeroes the lanes past C in one pass (the linalg form pads
/// the channels in a copy first).
struct ReorderToBlockedCall : OpConversionPattern<fused::ReorderToBlockedOp> {
  ReorderToBlockedCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(fused::ReorderToBlockedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    auto resultType = llvm::dyn_cast<RankedTensorType>(op.getY().getType());
    if (!xType || !resultType || !xType.getElementType().isF32() ||
        op.getBlockSize() != kBlock || resultType.getShape().back() != kBlock)
      return rewriter.notifyMatchFailure(op, "not an f32 reorder of block 16");
    if (reorderReadOnlyAsPlainInput(op))
      return rewriter.notifyMatchFailure(op, "only read by NCHW-input convs");
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!callee)
      return rewriter.notifyMatchFailure(op, "runtime kernel not declared");
    // The result's dynamic sizes: N and the spatial dims are X's, the
    // blocks ceil(C / 16).
    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> xDims = mixedDims(rewriter, loc, x);
    SmallVector<Value> dynamicSizes;
    for (int64_t i = 0; i + 1 < resultType.getRank(); ++i) {
      if (!resultType.isDynamicDim(i))
        continue;
      dynamicSizes.push_back(
          m.value(i == 1 ? m.ceilDiv(xDims[1], kBlock) : xDims[i]));
    }
    Type f32 = rewriter.getF32Type();
    Value buffer = rewriter.create<memref::AllocOp>(
        loc, MemRefType::get(resultType.getShape(), f32), dynamicSizes,
        rewriter.getI64IntegerAttr(64));
    ArrayRef<Type> inputs = callee.getFunctionType().getInputs();
    Value xRef = rewriter.create<bufferization::ToMemrefOp>(
        loc, MemRefType::get(xType.getShape(), f32), x, rewriter.getUnitAttr());
    rewriter.create<func::CallOp>(
        loc, callee,
        ValueRange{rewriter.create<memref::CastOp>(loc, inputs[0], xRef),
                   rewriter.create<memref::CastOp>(loc, inputs[1], buffer)});
    rewriter.replaceOp(op,
                       runtimeResultTensor(rewriter, loc, resultType, buffer));
    return success();
  }
};

/// f32 onnx.MaxPool on a blocked tensor ([N, Cb, H, W, 16], the window
/// [kh, kw, 1] as NchwcLayout makes it) with an unused Indices: one call of
/// the runtime's blocked max pool, which reads only in-bounds taps (the
/// linalg form pads the input in a copy first).
struct MaxPoolNchwcCall : OpConversionPattern<onnx::MaxPoolOp> {
  MaxPoolNchwcCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::MaxPoolOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    auto resultType = llvm::dyn_cast<RankedTensorType>(op.getY().getType());
    Value indices = op.getIndices();
    if (!xType || !resultType || !xType.getElementType().isF32() ||
        xType.getRank() != 5 || xType.getShape().back() != kBlock ||
        resultType.getRank() != 5 ||
        (!llvm::isa<NoneType>(indices.getType()) && !indices.use_empty()))
      return rewriter.notifyMatchFailure(op, "not a blocked f32 max pool");
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!callee)
      return rewriter.notifyMatchFailure(op, "runtime kernel not declared");
    // The window over (H, W, lane): the lane dim must be left alone, and
    // the begin pads constants. Bad attributes are left to the linalg
    // pattern, which reports them.
    SmallVector<int64_t> kernel = getI64Array(op.getKernelShape(), 0, 0);
    if (kernel.size() != 3 || kernel[2] != 1)
      return rewriter.notifyMatchFailure(op, "not a [kh, kw, 1] window");
    auto window = [&]() -> FailureOr<SmallVector<WindowDim>> {
      // resolveWindow reports bad attributes; let the linalg pattern do it.
      if (op.getAutoPad() != "NOTSET" && op.getAutoPad() != "VALID")
        return failure();
      return resolveWindow(rewriter, op, x, kernel, op.getStrides(),
                           op.getDilations(), op.getPads(), op.getAutoPad(),
                           op.getCeilMode() != 0, /*clampAutoPad=*/false,
                           resultType);
    }();
    if (failed(window))
      return rewriter.notifyMatchFailure(op, "window not resolved");
    const WindowDim &lane = (*window)[2];
    std::optional<int64_t> padTop = getConstantIntValue((*window)[0].padBegin);
    std::optional<int64_t> padLeft = getConstantIntValue((*window)[1].padBegin);
    if (lane.stride != 1 || lane.dilation != 1 ||
        !isConstantIntValue(lane.padBegin, 0) ||
        !isConstantIntValue(lane.padEnd, 0) || !padTop || !padLeft ||
        *padTop < 0 || *padLeft < 0)
      return rewriter.notifyMatchFailure(op, "the lanes are pooled");

    Location loc = op.getLoc();
    IndexMath m(rewriter, loc);
    SmallVector<OpFoldResult> xDims = mixedDims(rewriter, loc, x);
    SmallVector<Value> dynamicSizes;
    for (int64_t i = 0; i < 4; ++i)
      if (resultType.isDynamicDim(i))
        dynamicSizes.push_back(
            m.value(i < 2 ? xDims[i] : (*window)[i - 2].output));
    Type f32 = rewriter.getF32Type();
    Value buffer = rewriter.create<memref::AllocOp>(
        loc, MemRefType::get(resultType.getShape(), f32), dynamicSizes,
        rewriter.getI64IntegerAttr(64));
    ArrayRef<Type> inputs = callee.getFunctionType().getInputs();
    Value xRef = rewriter.create<bufferization::ToMemrefOp>(
        loc, MemRefType::get(xType.getShape(), f32), x, rewriter.getUnitAttr());
    auto i64 = [&](int64_t v) -> Value {
      return rewriter.create<arith::ConstantIntOp>(loc, v, 64);
    };
    const WindowDim &h = (*window)[0], &w = (*window)[1];
    rewriter.create<func::CallOp>(
        loc, callee,
        ValueRange{rewriter.create<memref::CastOp>(loc, inputs[0], xRef),
                   rewriter.create<memref::CastOp>(loc, inputs[1], buffer),
                   i64(h.kernel), i64(w.kernel), i64(h.stride), i64(w.stride),
                   i64(h.dilation), i64(w.dilation), i64(*padTop),
                   i64(*padLeft)});
    Value result = runtimeResultTensor(rewriter, loc, resultType, buffer);
    rewriter.replaceOp(op, {result, Value()});
    return success();
  }
};

} // namespace

Value blockedConvPlainInput(Operation *op) {
  auto conv = llvm::dyn_cast<fused::BlockedConvOp>(op);
  if (!conv)
    return Value();
  auto reorder = conv.getX().getDefiningOp<fused::ReorderToBlockedOp>();
  if (!reorder || reorder.getBlockSize() != kBlock || conv.getGroup() != 1 ||
      conv.getInChannels() >= kBlock || conv->hasAttr(kWinogradWeightsAttr))
    return Value();
  auto plain = llvm::dyn_cast<RankedTensorType>(reorder.getX().getType());
  auto blocked = llvm::dyn_cast<RankedTensorType>(conv.getX().getType());
  if (!plain || !blocked || plain.getRank() != 4 || blocked.getRank() != 5 ||
      !plain.getElementType().isF32())
    return Value();
  return reorder.getX();
}

bool reorderReadOnlyAsPlainInput(Operation *op) {
  return llvm::isa<fused::ReorderToBlockedOp>(op) && !op->use_empty() &&
         llvm::all_of(op->getUsers(), [](Operation *user) {
           return blockedConvPlainInput(user) != nullptr;
         });
}

void populateBlockedConvCallPatterns(const TypeConverter &typeConverter,
                                     RewritePatternSet &patterns) {
  patterns.add<BlockedConvCall, ReorderToBlockedCall, MaxPoolNchwcCall>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
