//===- DecomposeConvTranspose.cpp - Non-overlapping ConvTranspose as Conv -===//
//
// A 2-D ConvTranspose whose square kernel equals its strides (k = s: the
// 2x2 stride-2 upsampling of U-Net and DBNet heads), without pads,
// dilations, output padding or groups, writes each input pixel to its own
// s x s block:
//   Y[n, m, i*s + a, j*s + b] = sum_c X[n, c, i, j] * W[c, m, a, b] + B[m].
// That is a 1x1 convolution into M*s*s channels, W'[(m*s + a)*s + b, c] =
// W[c, m, a, b] with the bias repeated per block, followed by
// DepthToSpace(blocksize s, mode CRD), which moves channel (m*s + a)*s + b
// of pixel (i, j) to (m, i*s + a, j*s + b). The 1x1 convolution runs on the
// GEMM-based convolution kernels; the ConvTranspose lowering's gather reads
// a zero-spread input where 1 - 1/s^2 of the products are zeros.
//
// Legal: the same sums of the same products, each output a sum over c only
// (no two input pixels meet in one output), so only their order may differ.
// Matches a constant f32 W; other forms keep their lowering.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace onnxc::cpu {
#define GEN_PASS_DECL_DECOMPOSECONVTRANSPOSE
#define GEN_PASS_DEF_DECOMPOSECONVTRANSPOSE
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Whether the optional integer list `attr` is absent or all `value`.
bool allEqual(std::optional<ArrayAttr> attr, int64_t value) {
  if (!attr)
    return true;
  return llvm::all_of(*attr, [&](Attribute a) {
    auto i = llvm::dyn_cast<IntegerAttr>(a);
    return i && i.getInt() == value;
  });
}

/// The f32 constant behind `value`, or null.
DenseFPElementsAttr f32Constant(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getName().getStringRef() != "onnx.Constant")
    return {};
  auto attr = def->getAttrOfType<DenseFPElementsAttr>("value");
  return attr && attr.getElementType().isF32() ? attr : DenseFPElementsAttr();
}

Value constant(PatternRewriter &rewriter, Location loc, RankedTensorType type,
               ArrayRef<float> values) {
  OperationState state(loc, "onnx.Constant");
  state.addTypes(type);
  state.addAttribute("value", DenseElementsAttr::get(type, values));
  return rewriter.create(state)->getResult(0);
}

/// The block size s when `op` is a ConvTranspose this pass rewrites.
std::optional<int64_t> blockSize(onnx::ConvTransposeOp op) {
  auto x = llvm::dyn_cast<RankedTensorType>(op.getX().getType());
  auto w = llvm::dyn_cast<RankedTensorType>(op.getW().getType());
  auto y = llvm::dyn_cast<RankedTensorType>(op.getY().getType());
  if (!x || !w || !y || x.getRank() != 4 || !w.hasStaticShape() ||
      !x.getElementType().isF32() || op.getGroup() != 1 ||
      op.getOutputShape() || !allEqual(op.getPads(), 0) ||
      !allEqual(op.getDilations(), 1) || !allEqual(op.getOutputPadding(), 0) ||
      (op.getAutoPad() != "NOTSET" && op.getAutoPad() != "VALID"))
    return std::nullopt;
  int64_t s = w.getDimSize(2);
  if (s < 2 || w.getDimSize(3) != s || !allEqual(op.getStrides(), s) ||
      !op.getStrides() || !allEqual(op.getKernelShape(), s))
    return std::nullopt;
  return s;
}

struct ConvTransposeAsConv : OpRewritePattern<onnx::ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(onnx::ConvTransposeOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> s = blockSize(op);
    DenseFPElementsAttr w = f32Constant(op.getW());
    bool hasBias = !llvm::isa<NoneType>(op.getB().getType());
    DenseFPElementsAttr bias = hasBias ? f32Constant(op.getB()) : nullptr;
    if (!s || !w || (hasBias && !bias))
      return rewriter.notifyMatchFailure(op, "not a constant k = s form");
    auto wType = llvm::cast<RankedTensorType>(w.getType());
    int64_t c = wType.getDimSize(0), m = wType.getDimSize(1);
    int64_t block = *s * *s, channels = m * block;
    if (hasBias && bias.getNumElements() != m)
      return rewriter.notifyMatchFailure(op, "bias of another size");

    // W [C, M, s, s] -> W' [M*s*s, C, 1, 1]; B [M] -> B' [M*s*s].
    SmallVector<float> wValues(w.getValues<float>());
    SmallVector<float> packed(static_cast<size_t>(channels * c));
    for (int64_t ci = 0; ci < c; ++ci)
      for (int64_t k = 0; k < channels; ++k)
        packed[k * c + ci] = wValues[ci * channels + k];
    SmallVector<float> biasValues(static_cast<size_t>(channels), 0.0f);
    if (hasBias) {
      SmallVector<float> b(bias.getValues<float>());
      for (int64_t k = 0; k < channels; ++k)
        biasValues[k] = b[k / block];
    }
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value newW = constant(
        rewriter, loc, RankedTensorType::get({channels, c, 1, 1}, f32), packed);
    Value newB = constant(rewriter, loc, RankedTensorType::get({channels}, f32),
                          biasValues);

    auto x = llvm::cast<RankedTensorType>(op.getX().getType());
    auto convType = RankedTensorType::get(
        {x.getDimSize(0), channels, x.getDimSize(2), x.getDimSize(3)}, f32);
    OperationState conv(loc, "onnx.Conv");
    conv.addOperands({op.getX(), newW, newB});
    conv.addAttribute("kernel_shape", rewriter.getI64ArrayAttr({1, 1}));
    conv.addTypes(convType);
    Operation *convOp = rewriter.create(conv);

    OperationState shuffle(loc, "onnx.DepthToSpace");
    shuffle.addOperands(convOp->getResult(0));
    shuffle.addAttribute("blocksize", rewriter.getI64IntegerAttr(*s));
    shuffle.addAttribute("mode", rewriter.getStringAttr("CRD"));
    shuffle.addTypes(op.getY().getType());
    rewriter.replaceOp(op, rewriter.create(shuffle)->getResults());
    return success();
  }
};

struct DecomposeConvTransposePass
    : impl::DecomposeConvTransposeBase<DecomposeConvTransposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ConvTransposeAsConv>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createDecomposeConvTransposePass() {
  return std::make_unique<DecomposeConvTransposePass>();
}

} // namespace onnxc::cpu
