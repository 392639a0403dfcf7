//===- DynamicExpandShapeToReshape.cpp - Work around expand_shape bufferization -===//
//
// MLIR 19's bufferization of `tensor.expand_shape` builds memref.expand_shape
// from the static result shape only, and crashes when a result dim is
// dynamic. This pass rewrites exactly those expand_shapes into
// `tensor.reshape` with a shape tensor built from the op's output_shape,
// which has the same meaning (expanding never reorders elements) and
// bufferizes to memref.reshape. Static expand_shapes are left alone: they
// bufferize correctly and stay copy-free views.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_DYNAMICEXPANDSHAPETORESHAPE
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// tensor.expand_shape with a dynamic result dim -> tensor.reshape.
struct DynamicExpandShapeToReshape
    : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getResultType();
    if (resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "static result shape");
    Location loc = op.getLoc();
    SmallVector<Value> sizes;
    for (OpFoldResult size : getMixedValues(op.getStaticOutputShape(),
                                            op.getOutputShape(), rewriter))
      sizes.push_back(rewriter.create<arith::IndexCastOp>(
          loc, rewriter.getI64Type(),
          getValueOrCreateConstantIndexOp(rewriter, loc, size)));
    auto shapeType =
        RankedTensorType::get({resultType.getRank()}, rewriter.getI64Type());
    Value shape = rewriter.create<tensor::FromElementsOp>(loc, shapeType, sizes);
    rewriter.replaceOpWithNewOp<tensor::ReshapeOp>(op, resultType, op.getSrc(),
                                                   shape);
    return success();
  }
};

struct DynamicExpandShapeToReshapePass
    : impl::DynamicExpandShapeToReshapeBase<DynamicExpandShapeToReshapePass> {
  void runOnOperation() override {
    // A walk, not the greedy driver: only the matched ops change, and no
    // folding turns the reshapes back into expand_shapes.
    SmallVector<tensor::ExpandShapeOp> ops;
    getOperation().walk([&](tensor::ExpandShapeOp op) { ops.push_back(op); });
    PatternRewriter rewriter(&getContext());
    DynamicExpandShapeToReshape pattern(&getContext());
    for (tensor::ExpandShapeOp op : ops) {
      rewriter.setInsertionPoint(op);
      (void)pattern.matchAndRewrite(op, rewriter);
    }
  }
};

} // namespace
} // namespace onnxc::cpu
