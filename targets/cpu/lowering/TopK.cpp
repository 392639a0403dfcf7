//===- TopK.cpp - TopK ----------------------------------------------------===//
//
// TopK without sorting: every element's place in the sorted order along the
// axis is the number of elements that come before it (a linalg.generic
// counting, for each element, the elements along the axis that beat it), and
// the elements whose place is below K are written there (a loop nest). Ties
// go to the lower index and NaN sorts above every number, as in the ONNX
// reference; the output is always sorted, which `sorted = 0` allows. This
// costs n^2 comparisons per slice of n elements along the axis.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// Whether `lhs` sorts above `rhs` (NaN above every number), and whether the
/// two sort equal.
std::pair<Value, Value> compareForSort(OpBuilder &b, Location loc, Value lhs,
                                       Value rhs, bool isUnsigned) {
  if (llvm::isa<FloatType>(lhs.getType())) {
    using P = arith::CmpFPredicate;
    Value lhsNaN = b.create<arith::CmpFOp>(loc, P::UNO, lhs, lhs);
    Value rhsNaN = b.create<arith::CmpFOp>(loc, P::UNO, rhs, rhs);
    Value rhsNumber = b.create<arith::XOrIOp>(
        loc, rhsNaN, b.create<arith::ConstantIntOp>(loc, 1, 1));
    Value above = b.create<arith::OrIOp>(
        loc, b.create<arith::CmpFOp>(loc, P::OGT, lhs, rhs),
        b.create<arith::AndIOp>(loc, lhsNaN, rhsNumber));
    Value equal = b.create<arith::OrIOp>(
        loc, b.create<arith::CmpFOp>(loc, P::OEQ, lhs, rhs),
        b.create<arith::AndIOp>(loc, lhsNaN, rhsNaN));
    return {above, equal};
  }
  using P = arith::CmpIPredicate;
  Value above =
      b.create<arith::CmpIOp>(loc, isUnsigned ? P::ugt : P::sgt, lhs, rhs);
  Value equal = b.create<arith::CmpIOp>(loc, P::eq, lhs, rhs);
  return {above, equal};
}

/// TopK on a numeric tensor of rank >= 1 with a run-time K.
struct TopKLowering : OpConversionPattern<onnx::TopKOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    const TypeConverter &converter = *getTypeConverter();
    auto valuesType = llvm::dyn_cast_or_null<RankedTensorType>(
        converter.convertType(op.getValues().getType()));
    auto indicesType = llvm::dyn_cast_or_null<RankedTensorType>(
        converter.convertType(op.getIndices().getType()));
    Value input = adaptor.getX();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    auto kType = llvm::dyn_cast<RankedTensorType>(adaptor.getK().getType());
    Type onnxElement = onnxElementType(op.getX());
    if (!valuesType || !indicesType || !inputType || !kType ||
        !isElementKind(onnxElement, kNumeric) ||
        valuesType.getElementType() != inputType.getElementType() ||
        !indicesType.getElementType().isInteger(64) ||
        valuesType.getRank() != inputType.getRank() ||
        indicesType.getRank() != inputType.getRank())
      return rewriter.notifyMatchFailure(op, "unsupported TopK types");
    int64_t rank = inputType.getRank();
    int64_t axis = op.getAxis();
    if (rank == 0 || axis < -rank || axis >= rank)
      return op.emitError() << "axis " << axis << " is out of range for a rank-"
                            << rank << " input";
    axis = normalizeAxis(axis, rank);
    if (kType.getRank() > 1 || kType.getNumElements() != 1 ||
        !llvm::isa<IntegerType>(kType.getElementType()))
      return op.emitError()
             << "K must be a one-element integer tensor, got " << kType;
    bool largest = op.getLargest() != 0;
    bool isUnsigned = onnxElement.isUnsignedInteger();

    // The place of each element in the sorted order along the axis.
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> self, other;
    for (int64_t d = 0; d < rank; ++d) {
      self.push_back(getAffineDimExpr(d, ctx));
      other.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
    }
    AffineMap selfMap = AffineMap::get(rank + 1, 0, self, ctx);
    AffineMap otherMap = AffineMap::get(rank + 1, 0, other, ctx);
    SmallVector<OpFoldResult> inputSizes = tensorSizes(rewriter, loc, input);
    auto placeType =
        RankedTensorType::get(inputType.getShape(), rewriter.getIndexType());
    Value places = rewriter
                       .create<linalg::FillOp>(
                           loc, indexConst(rewriter, loc, 0),
                           emptyTensor(rewriter, loc, placeType, inputSizes))
                       .getResult(0);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    places =
        rewriter
            .create<linalg::GenericOp>(
                loc, placeType, ValueRange{input, input}, places,
                ArrayRef<AffineMap>{selfMap, otherMap, selfMap}, iterators,
                [&](OpBuilder &b, Location nloc, ValueRange args) {
                  Value mine = args[0], theirs = args[1];
                  auto [above, equal] =
                      largest
                          ? compareForSort(b, nloc, theirs, mine, isUnsigned)
                          : compareForSort(b, nloc, mine, theirs, isUnsigned);
                  Value earlier = b.create<arith::CmpIOp>(
                      nloc, arith::CmpIPredicate::ult,
                      b.create<linalg::IndexOp>(nloc, rank),
                      b.create<linalg::IndexOp>(nloc, axis));
                  Value beats = b.create<arith::OrIOp>(
                      nloc, above,
                      b.create<arith::AndIOp>(nloc, equal, earlier));
                  Value next = b.create<arith::AddIOp>(
                      nloc, args[2],
                      b.create<arith::SelectOp>(nloc, beats,
                                                indexConst(b, nloc, 1),
                                                indexConst(b, nloc, 0)));
                  b.create<linalg::YieldOp>(nloc, next);
                })
            .getResult(0);

    // Write each element whose place is below K to that place.
    // K outside [0, n] is invalid; clamping keeps every write in bounds.
    Value k = extractAsIndex(rewriter, loc, adaptor.getK(), 0);
    k = rewriter.create<arith::MinSIOp>(
        loc,
        rewriter.create<arith::MaxSIOp>(loc, k, indexConst(rewriter, loc, 0)),
        dimValue(rewriter, loc, input, axis));
    if (!valuesType.isDynamicDim(axis))
      k = rewriter.create<arith::MinSIOp>(
          loc, k, indexConst(rewriter, loc, valuesType.getDimSize(axis)));
    SmallVector<OpFoldResult> outSizes(inputSizes);
    outSizes[axis] = k;
    Value values = emptyTensor(rewriter, loc, valuesType, outSizes);
    Value indices = emptyTensor(rewriter, loc, indicesType, outSizes);
    SmallVector<Value> lbs(rank, indexConst(rewriter, loc, 0));
    SmallVector<Value> steps(rank, indexConst(rewriter, loc, 1));
    SmallVector<Value> ubs;
    for (int64_t d = 0; d < rank; ++d)
      ubs.push_back(dimValue(rewriter, loc, input, d));
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lbs, ubs, steps, ValueRange{values, indices},
        [&](OpBuilder &b, Location nloc, ValueRange ivs,
            ValueRange iterArgs) -> scf::ValueVector {
          Value place = b.create<tensor::ExtractOp>(nloc, places, ivs);
          Value kept = b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::ult,
                                               place, k);
          auto ifOp = b.create<scf::IfOp>(
              nloc, kept,
              [&](OpBuilder &tb, Location tloc) {
                SmallVector<Value> coords(ivs);
                coords[axis] = place;
                Value value = tb.create<tensor::ExtractOp>(tloc, input, ivs);
                Value index = tb.create<arith::IndexCastOp>(
                    tloc, tb.getI64Type(), ivs[axis]);
                Value newValues = tb.create<tensor::InsertOp>(
                    tloc, value, iterArgs[0], coords);
                Value newIndices = tb.create<tensor::InsertOp>(
                    tloc, index, iterArgs[1], coords);
                tb.create<scf::YieldOp>(tloc,
                                        ValueRange{newValues, newIndices});
              },
              [&](OpBuilder &eb, Location eloc) {
                eb.create<scf::YieldOp>(eloc, iterArgs);
              });
          return {ifOp.getResult(0), ifOp.getResult(1)};
        });
    rewriter.replaceOp(
        op, {castIfNeeded(rewriter, loc, nest.results[0], valuesType),
             castIfNeeded(rewriter, loc, nest.results[1], indicesType)});
    return success();
  }
};

} // namespace

void populateTopKPatterns(const TypeConverter &typeConverter,
                          RewritePatternSet &patterns) {
  patterns.add<TopKLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
