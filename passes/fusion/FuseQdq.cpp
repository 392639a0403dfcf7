//===- FuseQdq.cpp - QDQ-wrapped Conv/MatMul -> QLinearConv/QLinearMatMul -===//
//
// A model quantized in the QDQ format (onnxruntime.quantization,
// quantize_static) writes each quantized Conv / MatMul as float ops between
// DequantizeLinear and QuantizeLinear nodes:
//   Q(Conv(DQ(x, xs, xz), DQ(w, ws, wz), [DQ(b, xs * ws, 0)]), ys, yz)
//   Q(MatMul(DQ(a, as, az), DQ(b, bs, bz)), ys, yz)
// which are QLinearConv(x, xs, xz, w, ws, wz, ys, yz, b) and
// QLinearMatMul(a, as, az, b, bs, bz, ys, yz) up to the rounding of the
// float intermediate (within one quantization step of y). The rewrite needs
// 8-bit quantized tensors, constant f32 scales and constant zero points
// (an omitted one is 0), per tensor except the weight's: per output channel
// (DQ axis 0) for Conv, per column (axis 1 of a 2-D B) for MatMul. A bias
// must be the int32 constant dequantized with scale xs * ws and zero point
// 0 (what the quantizer writes), or a float constant (what it writes when
// the bias is not an initializer, e.g. a Paddle export's Constant node),
// which is quantized here as ONNX Runtime's BiasQuantization does:
// round_half_even(b / f32(xs * ws)) to int32, so both engines run the same
// integer convolution. The float result must have no other user.
// A DQ output may have others (a residual block's input feeds its first
// conv, its shortcut and the residual Add): the fused op reads the DQ's
// quantized input, and the DQ stays for the other users.
//
//===----------------------------------------------------------------------===//

#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include <algorithm>
#include <cmath>

namespace onnxc {
#define GEN_PASS_DEF_FUSEQDQ
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

static bool isOmitted(Value v) { return llvm::isa<NoneType>(v.getType()); }

static int64_t getIntAttr(Operation *op, StringRef name, int64_t dflt) {
  auto attr = op->getAttrOfType<IntegerAttr>(name);
  return attr ? attr.getValue().getSExtValue() : dflt;
}

/// A DequantizeLinear's operands. An omitted zero point is null (0 of
/// `zeroType`) until materialize() creates it: a pattern must not change
/// the IR before it knows it matches.
struct Dequantized {
  Value quantized, scale, zeroPoint;
  RankedTensorType zeroType;
  SmallVector<double> scales;

  bool hasZeroZeroPoint() const {
    if (!zeroPoint)
      return true;
    DenseElementsAttr zero = getConstant(zeroPoint);
    return zero && llvm::all_of(zero.getValues<APInt>(),
                                [](const APInt &v) { return v.isZero(); });
  }
  void materialize(PatternRewriter &rewriter, Location loc) {
    if (zeroPoint)
      return;
    auto element = llvm::cast<IntegerType>(zeroType.getElementType());
    zeroPoint = createConstant(
        rewriter, loc,
        DenseElementsAttr::get(zeroType, APInt(element.getWidth(), 0)));
  }
};

/// An 8-bit integer tensor type, or null.
static RankedTensorType get8BitType(Value v) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  auto element =
      type ? llvm::dyn_cast<IntegerType>(type.getElementType()) : IntegerType();
  return element && element.getWidth() == 8 ? type : RankedTensorType();
}

/// Matches `v` = DequantizeLinear(q, scale, zero_point) with constant f32
/// scale and zero point, with per-tensor parameters or, when
/// `channelAxis` >= 0, parameters along that axis of q. With `elementWidth`
/// other than 8, q holds integers of that width (the int32 bias).
static std::optional<Dequantized> matchDequantize(Value v, int64_t channelAxis,
                                                  unsigned elementWidth = 8) {
  Operation *dq = v.getDefiningOp();
  if (!isOnnxOp(dq, "DequantizeLinear") || getIntAttr(dq, "block_size", 0) != 0)
    return std::nullopt;
  auto outType = llvm::dyn_cast<RankedTensorType>(v.getType());
  Dequantized result{
      dq->getOperand(0), dq->getOperand(1), dq->getOperand(2), {}, {}};
  auto qType = llvm::dyn_cast<RankedTensorType>(result.quantized.getType());
  auto qElement =
      qType ? llvm::dyn_cast<IntegerType>(qType.getElementType()) : nullptr;
  DenseFPElementsAttr scale = getFloatConstant(result.scale);
  if (!outType || !outType.getElementType().isF32() || !qElement ||
      qElement.getWidth() != elementWidth || !scale ||
      !scale.getElementType().isF32())
    return std::nullopt;
  int64_t count = scale.getNumElements();
  if (count != 1) {
    int64_t rank = qType.getRank();
    int64_t axis = getIntAttr(dq, "axis", 1);
    if (axis < 0)
      axis += rank;
    if (channelAxis < 0 || axis != channelAxis ||
        scale.getType().getRank() != 1 || qType.isDynamicDim(axis) ||
        qType.getDimSize(axis) != count)
      return std::nullopt;
  }
  result.zeroType = RankedTensorType::get(
      llvm::cast<RankedTensorType>(scale.getType()).getShape(), qElement);
  if (isOmitted(result.zeroPoint)) {
    result.zeroPoint = nullptr;
  } else {
    DenseElementsAttr zero = getConstant(result.zeroPoint);
    // A per-tensor scale and zero point may be a scalar and a [1] tensor.
    if (!zero || zero.getElementType() != qElement ||
        zero.getNumElements() != count ||
        (count != 1 &&
         zero.getType().getShape() !=
             llvm::cast<RankedTensorType>(scale.getType()).getShape()))
      return std::nullopt;
  }
  result.scales = getDoubles(scale);
  return result;
}

/// The quantization of `v`'s only use, Q(v, ys, yz) with constant per-tensor
/// f32 ys and 8-bit yz: returns the QuantizeLinear op, or null.
static Operation *matchQuantize(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  Operation *q = *v.getUsers().begin();
  if (!isOnnxOp(q, "QuantizeLinear") || getIntAttr(q, "block_size", 0) != 0 ||
      getIntAttr(q, "precision", 0) != 0 || isOmitted(q->getOperand(2)))
    return nullptr;
  DenseFPElementsAttr scale = getFloatConstant(q->getOperand(1));
  DenseElementsAttr zero = getConstant(q->getOperand(2));
  RankedTensorType yType = get8BitType(q->getResult(0));
  if (!scale || !scale.getElementType().isF32() ||
      scale.getNumElements() != 1 || !zero || zero.getNumElements() != 1 ||
      !yType || zero.getElementType() != yType.getElementType())
    return nullptr;
  return q;
}

/// Whether every `biasScales[i]` is `inputScale * weightScales[i]` (or the
/// one weight scale) as the f32 product the quantizer computes.
static bool isProductScale(ArrayRef<double> biasScales, double inputScale,
                           ArrayRef<double> weightScales) {
  if (biasScales.size() != weightScales.size() && weightScales.size() != 1)
    return false;
  for (auto [i, b] : llvm::enumerate(biasScales)) {
    double w = weightScales.size() == 1 ? weightScales[0] : weightScales[i];
    double expected = float(float(inputScale) * float(w));
    if (std::abs(b - expected) > 1e-6 * std::abs(expected))
      return false;
  }
  return true;
}

/// A constant f32 bias of `channels` values quantized to int32 with scales
/// f32(inputScale * weightScales[c]), rounded half to even and saturated;
/// null when `bias` is not such a constant.
static DenseElementsAttr quantizeFloatBias(Value bias, int64_t channels,
                                           double inputScale,
                                           ArrayRef<double> weightScales) {
  DenseFPElementsAttr values = getFloatConstant(bias);
  if (!values || !values.getElementType().isF32() ||
      values.getType().getRank() != 1 || values.getNumElements() != channels ||
      (weightScales.size() != 1 && int64_t(weightScales.size()) != channels))
    return {};
  SmallVector<int32_t> quantized;
  for (auto [c, b] : llvm::enumerate(values.getValues<float>())) {
    double w = weightScales.size() == 1 ? weightScales[0] : weightScales[c];
    float scale = float(inputScale) * float(w);
    float rounded = std::nearbyint(b / scale);
    if (std::isnan(rounded))
      return {};
    double clamped = std::clamp(double(rounded), -2147483648.0, 2147483647.0);
    quantized.push_back(int32_t(clamped));
  }
  auto type = RankedTensorType::get({channels},
                                    IntegerType::get(bias.getContext(), 32));
  return DenseElementsAttr::get(type, ArrayRef<int32_t>(quantized));
}

/// Q(Conv(DQ(x), DQ(w), [DQ(b) or b])) -> QLinearConv.
struct FuseQdqConv : RewritePattern {
  FuseQdqConv(MLIRContext *ctx) : RewritePattern("onnx.Conv", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *conv,
                                PatternRewriter &rewriter) const override {
    Operation *quantize = matchQuantize(conv->getResult(0));
    if (!quantize)
      return rewriter.notifyMatchFailure(conv, "result is not quantized");
    std::optional<Dequantized> x = matchDequantize(conv->getOperand(0), -1);
    std::optional<Dequantized> w = matchDequantize(conv->getOperand(1), 0);
    if (!x || !w)
      return rewriter.notifyMatchFailure(conv, "inputs are not dequantized");
    Value bias = conv->getOperand(2);
    DenseElementsAttr floatBias;
    if (!isOmitted(bias)) {
      std::optional<Dequantized> b = matchDequantize(bias, 0, 32);
      if (b && b->hasZeroZeroPoint() &&
          isProductScale(b->scales, x->scales[0], w->scales))
        bias = b->quantized;
      else if (!(floatBias = quantizeFloatBias(
                     bias, get8BitType(w->quantized).getDimSize(0),
                     x->scales[0], w->scales)))
        return rewriter.notifyMatchFailure(conv, "bias is not int32 x*w");
    }
    Location loc = rewriter.getFusedLoc({conv->getLoc(), quantize->getLoc()});
    if (floatBias)
      bias = createConstant(rewriter, loc, floatBias);
    x->materialize(rewriter, loc);
    w->materialize(rewriter, loc);
    OperationState state(loc, "onnx.QLinearConv");
    state.addOperands({x->quantized, x->scale, x->zeroPoint, w->quantized,
                       w->scale, w->zeroPoint, quantize->getOperand(1),
                       quantize->getOperand(2), bias});
    for (StringRef name :
         {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"})
      if (Attribute value = conv->getAttr(name))
        state.addAttribute(name, value);
    state.addTypes(quantize->getResult(0).getType());
    rewriter.replaceOp(quantize, rewriter.create(state)->getResults());
    return success();
  }
};

/// Q(MatMul(DQ(a), DQ(b))) -> QLinearMatMul.
struct FuseQdqMatMul : RewritePattern {
  FuseQdqMatMul(MLIRContext *ctx) : RewritePattern("onnx.MatMul", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *matmul,
                                PatternRewriter &rewriter) const override {
    Operation *quantize = matchQuantize(matmul->getResult(0));
    if (!quantize)
      return rewriter.notifyMatchFailure(matmul, "result is not quantized");
    auto bType = llvm::dyn_cast<RankedTensorType>(
        skipIdentity(matmul->getOperand(1)).getType());
    // Per-column scales only for a 2-D B (axis 1), as QLinearMatMul takes.
    int64_t columnAxis = bType && bType.getRank() == 2 ? 1 : -1;
    std::optional<Dequantized> a = matchDequantize(matmul->getOperand(0), -1);
    std::optional<Dequantized> b =
        matchDequantize(matmul->getOperand(1), columnAxis);
    if (!a || !b)
      return rewriter.notifyMatchFailure(matmul, "inputs are not dequantized");
    Location loc = rewriter.getFusedLoc({matmul->getLoc(), quantize->getLoc()});
    a->materialize(rewriter, loc);
    b->materialize(rewriter, loc);
    OperationState state(loc, "onnx.QLinearMatMul");
    state.addOperands({a->quantized, a->scale, a->zeroPoint, b->quantized,
                       b->scale, b->zeroPoint, quantize->getOperand(1),
                       quantize->getOperand(2)});
    state.addTypes(quantize->getResult(0).getType());
    rewriter.replaceOp(quantize, rewriter.create(state)->getResults());
    return success();
  }
};

struct FuseQdqPass : impl::FuseQdqBase<FuseQdqPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseQdqConv, FuseQdqMatMul>(&getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "quantized-ops")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseQdqPass() {
  return std::make_unique<FuseQdqPass>();
}

} // namespace onnxc
