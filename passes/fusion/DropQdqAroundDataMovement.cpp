//===- DropQdqAroundDataMovement.cpp - Move quantized values as they are --===//
//
// A QDQ model wraps the ops that only move or select elements like any
// other float op:
//   Q(op(DQ(q, s, z), shape operands...), s, z)
// With the same scale and zero point on both sides this is op(q): each
// output element is some input element x = (q - z) * s, or the largest of
// several (a positive scale keeps their order), and Q(x) gives q back
// exactly, since (q - z) * s / s is within an ulp of the small integer
// q - z. So the op runs on the 8-bit tensor and the pair goes, as ONNX
// Runtime drops it (its DropQDQNodes rules): a quarter of the bytes moved,
// no rounding. Matched ops: Transpose, Reshape, Squeeze, Unsqueeze,
// Flatten, Identity, DepthToSpace, SpaceToDepth, MaxPool without Indices,
// and Resize in nearest mode (tf_crop_and_resize writes a float
// extrapolation value, so not that). Each has one data operand, the
// dequantized one (the others are shapes, axes or sizes), and its result
// has no user but the Q. The DQ stays when something else reads it.
//
//===----------------------------------------------------------------------===//

#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_DROPQDQAROUNDDATAMOVEMENT
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

bool isOmitted(Value v) { return llvm::isa<NoneType>(v.getType()); }

/// Whether (de)quantization ops `a` and `b` use the same single positive
/// f32 scale and the same zero point (an omitted one is 0).
bool haveSameParameters(Operation *a, Operation *b) {
  DenseFPElementsAttr scaleA = getFloatConstant(a->getOperand(1));
  DenseFPElementsAttr scaleB = getFloatConstant(b->getOperand(1));
  if (!scaleA || !scaleB || scaleA.getNumElements() != 1 ||
      scaleB.getNumElements() != 1 || !scaleA.getElementType().isF32() ||
      !scaleB.getElementType().isF32())
    return false;
  float s = *scaleA.getValues<float>().begin();
  if (!(s > 0) || s != *scaleB.getValues<float>().begin())
    return false;
  auto zeroOf = [](Operation *op) -> std::optional<int64_t> {
    if (op->getNumOperands() < 3 || isOmitted(op->getOperand(2)))
      return 0;
    DenseElementsAttr zero = getConstant(op->getOperand(2));
    if (!zero || zero.getNumElements() != 1 ||
        !llvm::isa<IntegerType>(zero.getElementType()))
      return std::nullopt;
    auto type = llvm::cast<IntegerType>(zero.getElementType());
    APInt v = *zero.getValues<APInt>().begin();
    return type.isUnsigned() ? int64_t(v.getZExtValue()) : v.getSExtValue();
  };
  std::optional<int64_t> zeroA = zeroOf(a), zeroB = zeroOf(b);
  return zeroA && zeroB && *zeroA == *zeroB;
}

/// Whether `op` only moves or selects elements of operand 0 (its other
/// operands, shapes, axes, scales or sizes, need not be constants: a
/// Resize to another tensor's size computes them).
bool movesElements(Operation *op) {
  static constexpr StringRef kOps[] = {
      "Transpose", "Reshape",      "Squeeze",      "Unsqueeze", "Flatten",
      "Identity",  "DepthToSpace", "SpaceToDepth", "MaxPool",   "Resize"};
  if (!llvm::any_of(kOps, [&](StringRef name) { return isOnnxOp(op, name); }))
    return false;
  if (isOnnxOp(op, "Resize")) {
    auto mode = op->getAttrOfType<StringAttr>("mode");
    auto transform =
        op->getAttrOfType<StringAttr>("coordinate_transformation_mode");
    if ((mode && mode.getValue() != "nearest") ||
        (transform && transform.getValue() == "tf_crop_and_resize"))
      return false;
  }
  if (isOnnxOp(op, "MaxPool") && op->getNumResults() > 1 &&
      !op->getResult(1).use_empty() &&
      !llvm::isa<NoneType>(op->getResult(1).getType()))
    return false;
  return true;
}

/// Q(op(DQ(q))) with one scale and zero point -> op(q).
struct DropQdqAroundDataMovement : RewritePattern {
  DropQdqAroundDataMovement(MLIRContext *ctx)
      : RewritePattern("onnx.QuantizeLinear", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *quantize,
                                PatternRewriter &rewriter) const override {
    Operation *op = quantize->getOperand(0).getDefiningOp();
    if (!op || op->getNumOperands() == 0 || !movesElements(op) ||
        !op->getResult(0).hasOneUse())
      return rewriter.notifyMatchFailure(quantize, "not a data movement op");
    Operation *dequantize = op->getOperand(0).getDefiningOp();
    if (!dequantize || !isOnnxOp(dequantize, "DequantizeLinear"))
      return rewriter.notifyMatchFailure(quantize, "input not dequantized");
    Value quantized = dequantize->getOperand(0);
    auto inType = llvm::dyn_cast<RankedTensorType>(quantized.getType());
    auto outType =
        llvm::dyn_cast<RankedTensorType>(quantize->getResult(0).getType());
    if (!inType || !outType ||
        inType.getElementType() != outType.getElementType() ||
        !inType.getElementType().isInteger(8) ||
        !haveSameParameters(dequantize, quantize))
      return rewriter.notifyMatchFailure(quantize, "parameters differ");
    Operation *moved = rewriter.clone(*op);
    moved->setOperand(0, quantized);
    moved->getResult(0).setType(outType);
    moved->setLoc(rewriter.getFusedLoc({op->getLoc(), quantize->getLoc()}));
    rewriter.replaceOp(quantize, moved->getResult(0));
    return success();
  }
};

struct DropQdqAroundDataMovementPass
    : impl::DropQdqAroundDataMovementBase<DropQdqAroundDataMovementPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DropQdqAroundDataMovement>(&getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "quantized-data-movement")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createDropQdqAroundDataMovementPass() {
  return std::make_unique<DropQdqAroundDataMovementPass>();
}

} // namespace onnxc
