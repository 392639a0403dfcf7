//===- FuseElementwise.cpp - Elementwise fusion without recomputation -----===//
//
// Fuses elementwise linalg.generic producers into their consumers, like
// upstream's linalg-fuse-elementwise-ops, with one difference in what may
// fuse. A fused producer's payload runs once per iteration of the consumer.
// When the consumer reads the producer's result through a map that is not a
// permutation of all its loops (a reduction such as a matmul reading one
// operand, or a broadcast), every producer element is recomputed once per
// value of the loops the map drops: a GELU fused into the matmul that reads
// it evaluated erf 128 times per element in bert_small. Such producers fuse
// only when their payload is a few cheap scalar ops (casts, adds, compares);
// anything else stays a buffer, computed once.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// At most this many payload ops may run more than once per producer element.
constexpr unsigned kMaxRecomputedOps = 4;

/// Whether `op`'s payload is cheap enough to run once per consumer iteration:
/// a few arith ops (no division or remainder, which cost tens of cycles) and
/// index reads; no math-dialect function.
bool isCheapToRecompute(linalg::GenericOp op) {
  unsigned count = 0;
  for (Operation &payload : op.getBody()->without_terminator()) {
    if (isa<linalg::IndexOp>(payload))
      continue;
    if (payload.getDialect()->getNamespace() !=
            arith::ArithDialect::getDialectNamespace() ||
        isa<arith::DivFOp, arith::DivSIOp, arith::DivUIOp, arith::RemFOp,
            arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
            arith::CeilDivUIOp, arith::FloorDivSIOp>(payload))
      return false;
    if (++count > kMaxRecomputedOps)
      return false;
  }
  return true;
}

/// The fusion rule: a single-use producer, fused only where it is computed
/// once per element, or where recomputing it is cheap.
bool shouldFuseProducer(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fusedOperand->getOwner());
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!consumer || !generic)
    return true;
  if (consumer.getMatchingIndexingMap(fusedOperand).isPermutation())
    return true;
  return isCheapToRecompute(generic);
}

/// shouldFuseProducer, and when it fuses, the consumer's location gains the
/// producer's: upstream's fused op takes the consumer's location, and the
/// profiler (InstrumentNodes.cpp) should name both nodes. The consumer's
/// stays first, so diagnostics still name the consumer.
bool fuseProducerKeepingLocations(OpOperand *fusedOperand) {
  if (!shouldFuseProducer(fusedOperand))
    return false;
  Operation *consumer = fusedOperand->getOwner();
  consumer->setLoc(FusedLoc::get(
      consumer->getContext(),
      {consumer->getLoc(), fusedOperand->get().getDefiningOp()->getLoc()}));
  return true;
}

/// Constant folding keeps upstream's rule.
bool isSingleUseProducer(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

/// Whether the expanded side of `reassociation` ends in a dim split off
/// the collapsed side's last dim and only a few elements long.
bool endsInShortSplitDim(RankedTensorType expanded,
                         ArrayRef<ReassociationIndices> reassociation) {
  if (reassociation.empty() || reassociation.back().size() < 2)
    return false;
  int64_t last = expanded.getShape().back();
  return !ShapedType::isDynamic(last) && last < 8;
}

/// Reshape propagation keeps upstream's rule, except that it does not
/// expand a generic's loops so that its innermost loop becomes a short dim
/// split off a long one (the block dim of DepthToSpace's [.., W, b] view):
/// an elementwise op after a DepthToSpace would then run 2-iteration
/// inner loops, 10x slower than on the collapsed rows.
bool shouldPropagateReshape(OpOperand *fusedOperand) {
  if (!isSingleUseProducer(fusedOperand))
    return false;
  Operation *producer = fusedOperand->get().getDefiningOp();
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(producer))
    return !endsInShortSplitDim(collapse.getSrcType(),
                                collapse.getReassociationIndices());
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(fusedOperand->getOwner()))
    return !endsInShortSplitDim(expand.getResultType(),
                                expand.getReassociationIndices());
  return true;
}

struct FuseElementwisePass : impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fuseProducerKeepingLocations);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      shouldPropagateReshape);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, isSingleUseProducer);
    GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    // Not converging within the iteration limit leaves valid IR, only less
    // fused: not an error.
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns),
                                       config);
  }
};

} // namespace
} // namespace onnxc::cpu
