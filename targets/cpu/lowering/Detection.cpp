//===- Detection.cpp - NonMaxSuppression, RoiAlign -----------------------===//
//
// The object-detection ops. NonMaxSuppression keeps a data-dependent number
// of boxes after a sort and a greedy scan, which is a runtime call
// (runtime/cpu/NonMaxSuppression.c): its result buffer is allocated for the
// most boxes that can be kept and sliced to the count the call returns.
// RoiAlign is one linalg.generic over the output whose body averages (or
// takes the max of) bilinear samples in nested scf.for loops, since the
// sampling grid of each region is only known at run time.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The first element of optional scalar input `value` (0-D or 1-D) as
/// `type`, or null when the input is omitted or statically empty.
Value optionalScalar(OpBuilder &b, Location loc, Value value) {
  if (isNoneValue(value))
    return {};
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() > 1 ||
      (type.hasStaticShape() && type.getNumElements() == 0))
    return {};
  SmallVector<Value> index;
  if (type.getRank() == 1)
    index.push_back(indexConst(b, loc, 0));
  return b.create<tensor::ExtractOp>(loc, value, index);
}

/// NonMaxSuppression(boxes [B, N, 4], scores [B, C, N], max_output_boxes_per
/// _class?, iou_threshold?, score_threshold?) -> [selected, 3] i64, through
/// the runtime helper onnxc_rt_nms.
struct NonMaxSuppressionLowering : ConversionPattern {
  NonMaxSuppressionLowering(const TypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, "onnx.NonMaxSuppression", 1, ctx) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = convertedResultType(*getTypeConverter(), op);
    if (!type)
      return failure();
    Value boxes = operands[0], scores = operands[1];
    auto boxesType = llvm::dyn_cast<RankedTensorType>(boxes.getType());
    auto scoresType = llvm::dyn_cast<RankedTensorType>(scores.getType());
    if (!boxesType || !scoresType || boxesType.getRank() != 3 ||
        scoresType.getRank() != 3 || !boxesType.getElementType().isF32() ||
        !scoresType.getElementType().isF32() || type.getRank() != 2 ||
        !type.getElementType().isInteger(64))
      return rewriter.notifyMatchFailure(op, "expected f32 [B,N,4] boxes and "
                                             "[B,C,N] scores");
    std::optional<RuntimeHelper> helper = runtimeHelperFor(op);
    auto callee = helper ? SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                               op, StringAttr::get(getContext(), helper->name))
                         : func::FuncOp();
    if (!callee)
      return op->emitError("the runtime helper for this node is not declared "
                           "(run --onnxc-declare-runtime-helpers first)");
    int64_t centerPointBox = 0;
    if (auto attr = op->getAttrOfType<IntegerAttr>("center_point_box"))
      centerPointBox = attr.getInt();
    if (centerPointBox != 0 && centerPointBox != 1)
      return op->emitError()
             << "center_point_box must be 0 or 1, got " << centerPointBox;

    Location loc = op->getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Value maxPerClass = optionalScalar(rewriter, loc, operands[2]);
    if (maxPerClass && maxPerClass.getType() != i64)
      return rewriter.notifyMatchFailure(op, "expected an i64 max count");
    if (!maxPerClass)
      maxPerClass = rewriter.create<arith::ConstantIntOp>(loc, 0, i64);
    Value iou = optionalScalar(rewriter, loc, operands[3]);
    Value scoreThreshold = optionalScalar(rewriter, loc, operands[4]);
    if ((iou && !iou.getType().isF32()) ||
        (scoreThreshold && !scoreThreshold.getType().isF32()))
      return rewriter.notifyMatchFailure(op, "expected f32 thresholds");
    Value zero = scalarConst(rewriter, loc, rewriter.getF32Type(), 0.0);
    Value hasScoreThreshold =
        rewriter.create<arith::ConstantIntOp>(loc, scoreThreshold ? 1 : 0, i32);
    if (!iou)
      iou = zero;
    if (!scoreThreshold)
      scoreThreshold = zero;

    // The most rows that can be kept: B * C * min(N, max(max_per_class, 0)).
    Value batches = dimValue(rewriter, loc, scores, 0);
    Value classes = dimValue(rewriter, loc, scores, 1);
    Value perClass = rewriter.create<arith::IndexCastOp>(
        loc, rewriter.getIndexType(),
        rewriter.create<arith::MaxSIOp>(
            loc, maxPerClass,
            rewriter.create<arith::ConstantIntOp>(loc, 0, i64)));
    perClass = rewriter.create<arith::MinSIOp>(
        loc, perClass, dimValue(rewriter, loc, scores, 2));
    Value capacity = rewriter.create<arith::MulIOp>(
        loc, rewriter.create<arith::MulIOp>(loc, batches, classes), perClass);

    auto dense3 = RankedTensorType::get(
        {ShapedType::kDynamic, ShapedType::kDynamic, ShapedType::kDynamic},
        rewriter.getF32Type());
    auto asMemref = [&](Value tensor) -> Value {
      tensor = castIfNeeded(rewriter, loc, tensor, dense3);
      return rewriter.create<bufferization::ToMemrefOp>(
          loc, callee.getFunctionType().getInput(0), tensor,
          rewriter.getUnitAttr());
    };
    auto rowsType =
        llvm::cast<MemRefType>(callee.getFunctionType().getInput(7));
    Value rows =
        rewriter.create<memref::AllocOp>(loc, rowsType, ValueRange{capacity});
    auto call = rewriter.create<func::CallOp>(
        loc, callee,
        ValueRange{
            asMemref(boxes), asMemref(scores), maxPerClass, iou, scoreThreshold,
            hasScoreThreshold,
            rewriter.create<arith::ConstantIntOp>(loc, centerPointBox, i64),
            rows});
    Value count = rewriter.create<arith::IndexCastOp>(
        loc, rewriter.getIndexType(), call.getResult(0));

    auto rowsTensorType =
        RankedTensorType::get(rowsType.getShape(), rowsType.getElementType());
    Value all = rewriter.create<bufferization::ToTensorOp>(
        loc, rowsTensorType, rows, rewriter.getUnitAttr(),
        rewriter.getUnitAttr());
    Value selected = rewriter.create<tensor::ExtractSliceOp>(
        loc, rowsTensorType, all,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{count, rewriter.getIndexAttr(3)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                               rewriter.getIndexAttr(1)});
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, selected, type));
    return success();
  }
};

} // namespace

void populateDetectionPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<NonMaxSuppressionLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
