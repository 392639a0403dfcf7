//===- ReassociateReductions.cpp - Let float reductions vectorize ---------===//
//
// A float reduction loop (a row sum of Softmax or LayerNorm, ReduceSum,
// ReduceMax) adds one element at a time into its accumulator. LLVM may only
// vectorize it, keeping several partial sums, when the combining
// instruction allows reassociation; otherwise the loop stays scalar, one add
// per element, each waiting for the previous one.
//
// ONNX does not fix the order of a reduction: the reference implementation
// sums with numpy (pairwise), ONNX Runtime with vectorized partial sums. So
// this pass marks the combiner of every linalg reduction (the op that folds
// a new value into the output's block argument) `reassoc`, and only that op:
// no other fast-math freedom (NaN, infinity and signed-zero semantics, and
// every elementwise op, stay exact). Measured against ONNX Runtime in
// docs/internals.md.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Pass/Pass.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_REASSOCIATEREDUCTIONS
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Marks `combiner` reassociable when it is an associative float op (add,
/// mul, min/max) one of whose operands is `accumulator`.
void markCombiner(Operation *combiner, Value accumulator) {
  if (!combiner || !llvm::is_contained(combiner->getOperands(), accumulator))
    return;
  if (!isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp>(combiner))
    return;
  auto fastMath = cast<arith::ArithFastMathInterface>(combiner);
  arith::FastMathFlags flags = fastMath.getFastMathFlagsAttr().getValue();
  combiner->setAttr(
      fastMath.getFastMathAttrName(),
      arith::FastMathFlagsAttr::get(combiner->getContext(),
                                    flags | arith::FastMathFlags::reassoc));
}

struct ReassociateReductionsPass
    : impl::ReassociateReductionsBase<ReassociateReductionsPass> {
  void runOnOperation() override {
    getOperation().walk([](linalg::GenericOp op) {
      if (op.getNumReductionLoops() == 0)
        return;
      auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
      for (OpOperand &init : op.getDpsInitsMutable()) {
        Value accumulator = op.getMatchingBlockArgument(&init);
        Value yielded =
            yield.getOperand(init.getOperandNumber() - op.getNumDpsInputs());
        markCombiner(yielded.getDefiningOp(), accumulator);
      }
    });
  }
};

} // namespace
} // namespace onnxc::cpu
