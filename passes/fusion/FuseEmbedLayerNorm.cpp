//===- FuseEmbedLayerNorm.cpp - Embedding lookups + LayerNorm -------------===//
//
// BERT's embedding layer, as transformers exports it:
//   e = Add(Add(Gather(word_table, input_ids), Gather(type_table, type_ids)),
//           Gather(position_table, position_ids))
//   y = LayerNormalization(e, gamma, beta, axis = -1)
// (or two lookups: word and position) becomes onnxc.EmbedLayerNorm. The
// index tensors can be anything (the position ids are usually a Slice of a
// constant [1, max_positions] buffer; the token type ids an Expand of one),
// the tables are constant 2-D [vocab, hidden] floats looked up with Gather
// on axis 0, and each lookup and partial sum has no other user. The sum is
// kept in the order the graph adds (the inner pair first, which is exact in
// either order); the lookup whose indices are a graph input is the word
// embedding. The LayerNormalization must normalize the last axis only in f32
// and not return its statistics.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/fusion/FusionPasses.h"
#include "passes/fusion/FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DEF_FUSEEMBEDLAYERNORM
#include "passes/fusion/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using namespace onnxc::fusion;

namespace onnxc {
namespace {

/// One table[ids] lookup.
struct Lookup {
  Value table, ids;
};

/// Matches `v` = Gather(table, ids, axis = 0) with a constant 2-D float table
/// of `hidden` columns and no other user of `v`.
static std::optional<Lookup> matchLookup(Value v, int64_t hidden) {
  Operation *gather = v.getDefiningOp();
  if (!isOnnxOp(gather, "Gather") || !v.hasOneUse())
    return std::nullopt;
  auto axis = gather->getAttrOfType<IntegerAttr>("axis");
  if (axis && axis.getInt() != 0)
    return std::nullopt;
  Value table = gather->getOperand(0), ids = gather->getOperand(1);
  auto tableType = llvm::dyn_cast<RankedTensorType>(table.getType());
  auto idsType = llvm::dyn_cast<RankedTensorType>(ids.getType());
  if (!tableType || !idsType || tableType.getRank() != 2 ||
      tableType.getDimSize(1) != hidden || !getFloatConstant(table) ||
      !llvm::isa<IntegerType>(idsType.getElementType()))
    return std::nullopt;
  return Lookup{table, ids};
}

/// Orders two lookups whose sum is exact in either order: the one whose
/// indices are a graph input (the token ids) first.
static void wordFirst(Lookup &a, Lookup &b) {
  if (!llvm::isa<BlockArgument>(a.ids) && llvm::isa<BlockArgument>(b.ids))
    std::swap(a, b);
}

struct FuseEmbedLayerNormPattern : RewritePattern {
  FuseEmbedLayerNormPattern(MLIRContext *ctx)
      : RewritePattern("onnx.LayerNormalization", 1, ctx) {}

  LogicalResult matchAndRewrite(Operation *ln,
                                PatternRewriter &rewriter) const override {
    Value sum = ln->getOperand(0);
    RankedTensorType type = getFloatTensorType(sum);
    Operation *outer = sum.getDefiningOp();
    if (!type || type.getRank() < 2 || !isOnnxOp(outer, "Add") ||
        !sum.hasOneUse() || ln->getResult(0).getType() != type)
      return rewriter.notifyMatchFailure(ln, "not LayerNorm(Add(..))");
    auto axis = ln->getAttrOfType<IntegerAttr>("axis");
    int64_t a = axis ? axis.getInt() : -1;
    auto stash = ln->getAttrOfType<IntegerAttr>("stash_type");
    if ((a != -1 && a != type.getRank() - 1) ||
        (stash && stash.getInt() != 1) ||
        !llvm::all_of(ln->getResults().drop_front(),
                      [](Value r) { return r.use_empty(); }))
      return rewriter.notifyMatchFailure(ln, "not over the last axis in f32");
    int64_t hidden = type.getShape().back();
    if (ShapedType::isDynamic(hidden))
      return rewriter.notifyMatchFailure(ln, "dynamic hidden size");
    Value gamma = ln->getOperand(1), beta = ln->getOperand(2);
    auto gammaType = llvm::dyn_cast<RankedTensorType>(gamma.getType());
    auto betaType = llvm::dyn_cast<RankedTensorType>(beta.getType());
    bool hasBeta = !llvm::isa<NoneType>(beta.getType());
    if (!gammaType || gammaType.getRank() != 1 ||
        gammaType.getDimSize(0) != hidden ||
        (hasBeta && (!betaType || betaType.getRank() != 1 ||
                     betaType.getDimSize(0) != hidden)))
      return rewriter.notifyMatchFailure(ln, "gamma/beta are not [hidden]");

    // Add(Add(word, segment), position) in any operand order, or
    // Add(word, position).
    std::optional<Lookup> word, segment, position;
    for (unsigned i = 0; i < 2 && !word; ++i) {
      Value inner = outer->getOperand(i);
      Operation *innerAdd = inner.getDefiningOp();
      std::optional<Lookup> last =
          matchLookup(outer->getOperand(1 - i), hidden);
      if (!last || !isOnnxOp(innerAdd, "Add") || !inner.hasOneUse())
        continue;
      std::optional<Lookup> x = matchLookup(innerAdd->getOperand(0), hidden);
      std::optional<Lookup> y = matchLookup(innerAdd->getOperand(1), hidden);
      if (!x || !y)
        continue;
      wordFirst(*x, *y);
      word = x;
      segment = y;
      position = last;
    }
    if (!word) {
      word = matchLookup(outer->getOperand(0), hidden);
      position = matchLookup(outer->getOperand(1), hidden);
      if (!word || !position)
        return rewriter.notifyMatchFailure(ln, "not a sum of embeddings");
      wordFirst(*word, *position);
    }
    Type element = type.getElementType();
    for (const std::optional<Lookup> &l : {word, segment, position})
      if (l &&
          llvm::cast<RankedTensorType>(l->table.getType()).getElementType() !=
              element)
        return rewriter.notifyMatchFailure(ln, "tables of another type");

    Location loc = rewriter.getFusedLoc({outer->getLoc(), ln->getLoc()});
    auto epsilon = ln->getAttrOfType<FloatAttr>("epsilon");
    if (!epsilon)
      epsilon = rewriter.getF32FloatAttr(1e-5f);
    Value none = createNoValue(rewriter, loc);
    auto fusedOp = rewriter.create<fused::EmbedLayerNormOp>(
        loc, type, word->ids, segment ? segment->ids : none, position->ids,
        word->table, position->table, segment ? segment->table : none, gamma,
        hasBeta ? beta : none, epsilon);
    rewriter.replaceAllUsesWith(ln->getResult(0), fusedOp.getResult());
    rewriter.eraseOp(ln);
    return success();
  }
};

struct FuseEmbedLayerNormPass
    : impl::FuseEmbedLayerNormBase<FuseEmbedLayerNormPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseEmbedLayerNormPattern>(&getContext());
    if (failed(applyFusionPatterns(getOperation(), std::move(patterns),
                                   getArgument(), "embed-layernorm")))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseEmbedLayerNormPass() {
  return std::make_unique<FuseEmbedLayerNormPass>();
}

} // namespace onnxc
