//===- DataMovementMask.cpp - Trilu, OneHot -------------------------------===//
//
// populateDataMovementMaskPatterns: ops whose every output element is chosen
// by comparing iteration indices (a linalg.generic with linalg.index):
// Trilu keeps one triangle of the input, OneHot compares each index with
// the position along the new axis.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// A scalar integer or float as an index (floats truncate toward zero, the
/// way ONNX Runtime casts them to int64); `isUnsigned` zero-extends.
static Value scalarToIndex(OpBuilder &b, Location loc, Value scalar,
                           bool isUnsigned) {
  Type i64 = b.getI64Type();
  if (llvm::isa<FloatType>(scalar.getType()))
    scalar = b.create<arith::FPToSIOp>(loc, i64, scalar);
  if (scalar.getType().isInteger(1) || isUnsigned)
    return b.create<arith::IndexCastUIOp>(loc, b.getIndexType(), scalar);
  return b.create<arith::IndexCastOp>(loc, b.getIndexType(), scalar);
}

/// onnx.Trilu: keeps the elements with j - i >= k (upper) or j - i <= k
/// (lower) in the last two dims, zeroes the others. k defaults to 0.
struct TriluLowering : OpConversionPattern<onnx::TriluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!inputType || !type)
      return failure();
    int64_t rank = inputType.getRank();
    if (rank < 2)
      return op.emitError() << "the input must have rank 2 or more";
    Value k = indexConst(rewriter, loc, 0);
    if (!isNoneValue(op.getK())) {
      if (std::optional<SmallVector<int64_t>> constK =
              getConstantInts(adaptor.getK()))
        k = indexConst(rewriter, loc, constK->front());
      else
        k = scalarToIndex(rewriter, loc,
                          extractScalar(rewriter, loc, adaptor.getK()), false);
    }
    bool upper = op.getUpper() != 0;
    Value zero = zeroScalar(rewriter, loc, type.getElementType());
    Value init =
        emptyTensor(rewriter, loc, type, mixedDims(rewriter, loc, input));
    Value result = buildIndexedGeneric(
        rewriter, loc, init, input, rewriter.getMultiDimIdentityMap(rank),
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs, ValueRange args) {
          Value diff =
              b.create<arith::SubIOp>(nestedLoc, ivs[rank - 1], ivs[rank - 2]);
          Value keep = b.create<arith::CmpIOp>(
              nestedLoc,
              upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
              diff, k);
          return b.create<arith::SelectOp>(nestedLoc, keep, args[0], zero)
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// onnx.OneHot: out[.., d, ..] = (indices[..] == d ? on : off) with d along
/// `axis`; negative indices count from depth, out-of-range ones match
/// nothing.
struct OneHotLowering : OpConversionPattern<onnx::OneHotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(onnx::OneHotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value indices = adaptor.getIndices();
    auto indicesType = llvm::dyn_cast<RankedTensorType>(indices.getType());
    auto valuesType =
        llvm::dyn_cast<RankedTensorType>(adaptor.getValues().getType());
    auto depthType =
        llvm::dyn_cast<RankedTensorType>(adaptor.getDepth().getType());
    RankedTensorType type =
        convertedResultType(*getTypeConverter(), op.getOperation());
    if (!indicesType || !valuesType || !depthType || !type)
      return failure();
    if (valuesType.getRank() != 1 ||
        (!valuesType.isDynamicDim(0) && valuesType.getDimSize(0) != 2))
      return op.emitError() << "values must hold [off_value, on_value]";
    if (depthType.getNumElements() != 1)
      return op.emitError() << "depth must be a scalar";
    int64_t rank = type.getRank();
    if (rank != indicesType.getRank() + 1)
      return op.emitError() << "the result rank must be the indices rank + 1";
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    if (axis < 0 || axis >= rank)
      return op.emitError()
             << "axis " << op.getAxis() << " is out of range for rank " << rank;

    Value depth = scalarToIndex(
        rewriter, loc, extractScalar(rewriter, loc, adaptor.getDepth()),
        isUnsignedElement(op.getDepth()));
    depth = rewriter.create<arith::MaxSIOp>(loc, depth,
                                            indexConst(rewriter, loc, 0));
    Value off = rewriter.create<tensor::ExtractOp>(
        loc, adaptor.getValues(), indexConst(rewriter, loc, 0));
    Value on = rewriter.create<tensor::ExtractOp>(loc, adaptor.getValues(),
                                                  indexConst(rewriter, loc, 1));
    SmallVector<OpFoldResult> sizes = mixedDims(rewriter, loc, indices);
    sizes.insert(sizes.begin() + axis, depth);
    Value init = emptyTensor(rewriter, loc, type, sizes);
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        exprs.push_back(rewriter.getAffineDimExpr(d));
    auto map = AffineMap::get(rank, 0, exprs, rewriter.getContext());
    bool unsignedIndices = isUnsignedElement(op.getIndices());
    Value result = buildIndexedGeneric(
        rewriter, loc, init, indices, map,
        [&](OpBuilder &b, Location nestedLoc, ValueRange ivs, ValueRange args) {
          Value index = scalarToIndex(b, nestedLoc, args[0], unsignedIndices);
          index = wrapNegativeIndex(b, nestedLoc, index, depth);
          Value hit = b.create<arith::CmpIOp>(
              nestedLoc, arith::CmpIPredicate::eq, index, ivs[axis]);
          return b.create<arith::SelectOp>(nestedLoc, hit, on, off).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateDataMovementMaskPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<TriluLowering, OneHotLowering>(converter, patterns.getContext());
}

} // namespace onnxc::cpu
