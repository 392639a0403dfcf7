//===- ExpandArith.cpp - arith ops the LLVM conversion lacks --------------===//
//
// Upstream arith-expand expands ceil/floor division and bf16 conversions,
// which arith-to-llvm cannot convert (bf16 conversions would otherwise call
// __truncsfbf2, which not every libgcc has), but also every float min/max
// into compares and selects. For f32 and f64 that expansion is harmful:
// LLVM vectorizes a reduction over llvm.maximum/minimum/maxnum/minnum (a
// Softmax or ReduceMax row, a max-pool window), not one over the
// compare-and-select form. So f32/f64 min/max stay arith ops, which
// arith-to-llvm turns into those intrinsics (same semantics, NaN included);
// other float types are expanded as upstream does.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_EXPANDARITH
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// f32/f64 scalars and vectors: LLVM has min/max intrinsics for them on
/// every target.
bool hasLlvmMinMax(Operation *op) {
  Type type = getElementTypeOrSelf(op->getResult(0).getType());
  return type.isF32() || type.isF64();
}

bool isBf16(Type type) { return getElementTypeOrSelf(type).isBF16(); }

struct ExpandArithPass : impl::ExpandArithBase<ExpandArithPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    arith::populateArithExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect>();
    target.addIllegalOp<arith::CeilDivSIOp, arith::CeilDivUIOp,
                        arith::FloorDivSIOp>();
    target.addDynamicallyLegalOp<arith::MaximumFOp, arith::MinimumFOp,
                                 arith::MaxNumFOp, arith::MinNumFOp>(
        hasLlvmMinMax);
    target.addDynamicallyLegalOp<arith::ExtFOp>(
        [](arith::ExtFOp op) { return !isBf16(op.getIn().getType()); });
    target.addDynamicallyLegalOp<arith::TruncFOp>(
        [](arith::TruncFOp op) { return !isBf16(op.getResult().getType()); });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace onnxc::cpu
