//===- FuseAttention.cpp - Scaled dot-product attention -> onnx.Attention -===//
//
// Matches, on 4-D [batch, heads, seq, head_size] tensors,
//   scores = MatMul(Q, K^T) scaled by Div/Mul with a scalar constant (or with
//            Q and K^T each multiplied by a scalar constant first, as
//            torch's scaled_dot_product_attention exports it, or a
//            FusedMatMul's alpha)
//   probs  = Softmax(scores [+ mask], axis = -1)
//            [then Where(IsNaN(probs), 0, probs), the guard torch adds for
//            fully masked rows]
//   Y      = MatMul(probs, V)
// and replaces Y with Attention(Q, K, V, mask, scale = the product of the
// factors). K is K^T with its last two dims swapped (a new Transpose, folded
// into the one K^T comes from). The cpu lowering of Attention gives rows
// whose mask is all -inf zero probabilities, which is what the NaN guard
// computes. Every intermediate must have no other user; head counts must be
// static (K and V may have fewer heads than Q only when they have one head,
// the case MatMul's broadcasting and Attention's head grouping agree on).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_FUSEATTENTION
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

/// What the match found below the Softmax.
struct Scores {
  Value q, kTransposed, mask;
  double scale = 1.0;
};

/// `v` multiplied by a scalar constant that does not change its type (and
/// used only there): accumulates the factor into `scale`, returns the
/// unscaled value. Otherwise returns `v`.
static Value stripScalarFactor(Value v, double &scale) {
  Operation *mul = v.getDefiningOp();
  if (!isOnnxOp(mul, "Mul") || !v.hasOneUse())
    return v;
  for (unsigned i = 0; i < 2; ++i) {
    std::optional<double> factor = getScalarConstant(mul->getOperand(1 - i));
    if (factor && mul->getOperand(i).getType() == v.getType()) {
      scale *= *factor;
      return mul->getOperand(i);
    }
  }
  return v;
}

/// Matches scaled Q x K^T ending at `v`.
static std::optional<Scores> matchScaledScores(Value v) {
  if (!v.hasOneUse())
    return std::nullopt;
  Scores scores;
  Operation *def = v.getDefiningOp();
  if (isOnnxOp(def, "Div")) {
    std::optional<double> divisor = getScalarConstant(def->getOperand(1));
    if (!divisor || *divisor == 0.0 ||
        def->getOperand(0).getType() != v.getType())
      return std::nullopt;
    scores.scale = 1.0 / *divisor;
    v = def->getOperand(0);
  } else {
    v = stripScalarFactor(v, scores.scale);
  }
  if (!v.hasOneUse())
    return std::nullopt;
  Operation *matmul = v.getDefiningOp();
  if (auto fused = llvm::dyn_cast_or_null<fused::FusedMatMulOp>(matmul)) {
    if (!fused.getActivation().empty())
      return std::nullopt;
    // A bias added before an outer scale would be scaled too.
    if (!llvm::isa<NoneType>(fused.getBias().getType())) {
      if (scores.scale != 1.0)
        return std::nullopt;
      scores.mask = fused.getBias();
    }
    scores.scale *= fused.getAlpha().convertToDouble();
  } else if (!isOnnxOp(matmul, "MatMul")) {
    return std::nullopt;
  }
  scores.q = stripScalarFactor(matmul->getOperand(0), scores.scale);
  scores.kTransposed = stripScalarFactor(matmul->getOperand(1), scores.scale);
  return scores;
}

/// K from K^T: Transpose(K^T, [0, 1, 3, 2]), folded into the Transpose that
/// produced K^T when there is one (and K^T has no other user).
static Value buildKey(PatternRewriter &rewriter, Location loc,
                      Value kTransposed) {
  auto type = llvm::cast<RankedTensorType>(kTransposed.getType());
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[2], shape[3]);
  SmallVector<int64_t> perm{0, 1, 3, 2};
  Value source = kTransposed;
  Operation *def = kTransposed.getDefiningOp();
  if (isOnnxOp(def, "Transpose") && kTransposed.hasOneUse()) {
    auto permAttr = def->getAttrOfType<ArrayAttr>("perm");
    if (permAttr && permAttr.size() == 4) {
      SmallVector<int64_t> inner;
      for (Attribute a : permAttr)
        inner.push_back(llvm::cast<IntegerAttr>(a).getInt());
      perm = {inner[0], inner[1], inner[3], inner[2]};
      source = def->getOperand(0);
    }
  }
  if (perm == SmallVector<int64_t>{0, 1, 2, 3})
    return source;
  OperationState state(loc, "onnx.Transpose");
  state.addOperands(source);
  state.addAttribute("perm", rewriter.getI64ArrayAttr(perm));
  state.addTypes(RankedTensorType::get(shape, type.getElementType()));
  return rewriter.create(state)->getResult(0);
}

/// Whether static dims `a` and `b` may be equal.
static bool mayEqual(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

struct FuseAttentionPattern : RewritePattern {
  FuseAttentionPattern(MLIRContext *ctx)
      : RewritePattern("onnx.MatMul", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    Value probs = root->getOperand(0);
    Value v = root->getOperand(1);
    // Optional NaN guard: Where(IsNaN(p), 0, p).
    Operation *guard = probs.getDefiningOp();
    if (isOnnxOp(guard, "Where") && probs.hasOneUse()) {
      Value p = guard->getOperand(2);
      Operation *isNan = guard->getOperand(0).getDefiningOp();
      if (!isOnnxOp(isNan, "IsNaN") || isNan->getOperand(0) != p ||
          !guard->getOperand(0).hasOneUse() ||
          !isScalarConstant(guard->getOperand(1), 0.0) ||
          getScalarConstant(guard->getOperand(1)) != 0.0 ||
          guard->getResult(0).getType() != p.getType() ||
          !llvm::all_of(p.getUsers(), [&](Operation *user) {
            return user == isNan || user == guard;
          }))
        return rewriter.notifyMatchFailure(root, "not a NaN guard");
      probs = p;
    } else if (!probs.hasOneUse()) {
      return rewriter.notifyMatchFailure(root, "probabilities used elsewhere");
    }
    Operation *softmax = probs.getDefiningOp();
    if (!isOnnxOp(softmax, "Softmax"))
      return rewriter.notifyMatchFailure(root, "not Softmax x V");
    RankedTensorType scoreType = getFloatTensorType(softmax->getOperand(0));
    if (!scoreType || scoreType.getRank() != 4)
      return rewriter.notifyMatchFailure(root, "scores are not 4-D floats");
    auto axis = softmax->getAttrOfType<IntegerAttr>("axis");
    if (axis && axis.getInt() != -1 && axis.getInt() != 3)
      return rewriter.notifyMatchFailure(root, "softmax not on the last axis");

    // scores [+ mask]
    Value logits = softmax->getOperand(0);
    std::optional<Scores> scores = matchScaledScores(logits);
    Operation *maskAdd = logits.getDefiningOp();
    if (!scores && isOnnxOp(maskAdd, "Add") && logits.hasOneUse()) {
      for (unsigned i = 0; i < 2 && !scores; ++i) {
        scores = matchScaledScores(maskAdd->getOperand(i));
        if (scores && scores->mask)
          scores.reset(); // a second mask
        else if (scores)
          scores->mask = maskAdd->getOperand(1 - i);
      }
    }
    if (!scores)
      return rewriter.notifyMatchFailure(root, "not scaled Q x K^T");

    auto qType = llvm::dyn_cast<RankedTensorType>(scores->q.getType());
    auto ktType =
        llvm::dyn_cast<RankedTensorType>(scores->kTransposed.getType());
    auto vType = llvm::dyn_cast<RankedTensorType>(v.getType());
    auto yType = llvm::dyn_cast<RankedTensorType>(root->getResult(0).getType());
    if (!qType || !ktType || !vType || !yType || qType.getRank() != 4 ||
        ktType.getRank() != 4 || vType.getRank() != 4 ||
        qType.getElementType() != scoreType.getElementType() ||
        ktType.getElementType() != qType.getElementType() ||
        vType.getElementType() != qType.getElementType())
      return rewriter.notifyMatchFailure(root, "Q, K, V are not 4-D alike");
    int64_t qHeads = qType.getDimSize(1), kvHeads = ktType.getDimSize(1);
    if (ShapedType::isDynamic(qHeads) || ShapedType::isDynamic(kvHeads) ||
        vType.getDimSize(1) != kvHeads || (kvHeads != qHeads && kvHeads != 1) ||
        !mayEqual(qType.getDimSize(0), ktType.getDimSize(0)) ||
        !mayEqual(qType.getDimSize(0), vType.getDimSize(0)) ||
        !mayEqual(ktType.getDimSize(3), vType.getDimSize(2)))
      return rewriter.notifyMatchFailure(root, "heads or batch do not match");
    if (Value mask = scores->mask) {
      auto maskType = llvm::dyn_cast<RankedTensorType>(mask.getType());
      int64_t total = scoreType.getDimSize(3);
      if (!maskType || maskType.getRank() < 1 || maskType.getRank() > 4 ||
          maskType.getElementType() != scoreType.getElementType() ||
          (isOnnxOp(maskAdd, "Add") &&
           maskAdd->getResult(0).getType() != scoreType))
        return rewriter.notifyMatchFailure(root, "unsupported mask");
      // Attention pads a short mask with -inf instead of broadcasting it.
      int64_t last = maskType.getDimSize(maskType.getRank() - 1);
      if (!ShapedType::isDynamic(last) && last != total)
        return rewriter.notifyMatchFailure(root, "mask broadcasts the kv dim");
    }

    Location loc = rewriter.getFusedLoc({softmax->getLoc(), root->getLoc()});
    Value key = buildKey(rewriter, loc, scores->kTransposed);
    Value none = createNoValue(rewriter, loc);
    OperationState state(loc, "onnx.Attention");
    state.addOperands({scores->q, key, v, scores->mask ? scores->mask : none,
                       none, none, none});
    state.addAttribute("scale", rewriter.getF32FloatAttr(float(scores->scale)));
    NoneType noneType = rewriter.getNoneType();
    state.addTypes({yType, noneType, noneType, noneType});
    Operation *attention = rewriter.create(state);
    rewriter.replaceAllUsesWith(root->getResult(0), attention->getResult(0));
    rewriter.eraseOp(root);
    return success();
  }
};

struct FuseAttentionPass : impl::FuseAttentionBase<FuseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAttentionPattern>(&getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "attention")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseAttentionPass() {
  return std::make_unique<FuseAttentionPass>();
}

} // namespace onnxc
