//===- CenterCropPad.cpp - CenterCropPad ----------------------------------===//
//
// CenterCropPad centers the input in an output of the given sizes along
// `axes`: an axis that shrinks drops floor((in - out) / 2) elements at the
// start, one that grows gets floor((out - in) / 2) zeros at the start. So
// output index o reads input index o + offset with offset = (in - out) / 2
// rounded toward zero, and is 0 where that index is outside the input. Sizes
// may be run-time values.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

struct CenterCropPadLowering : OpConversionPattern<onnx::CenterCropPadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::CenterCropPadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInputData();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    if (!inputType)
      return rewriter.notifyMatchFailure(op, "expected a ranked input");
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op, 0);
    if (!resultType)
      return failure();
    int64_t rank = inputType.getRank();
    SmallVector<int64_t> axes;
    if (std::optional<ArrayAttr> attr = op.getAxes()) {
      axes = getI64Array(attr, 0, 0);
      if (failed(normalizeAxes(op, axes, rank)))
        return failure();
    } else {
      for (int64_t i = 0; i < rank; ++i)
        axes.push_back(i);
    }
    SmallVector<OpFoldResult> targets =
        readIntsAsIndex(rewriter, loc, adaptor.getShape(), axes.size());
    SmallVector<OpFoldResult> sizes = mixedDims(rewriter, loc, input);
    SmallVector<Value> offsets(rank);
    for (auto [i, axis] : llvm::enumerate(axes)) {
      sizes[axis] = targets[i];
      Value in = dimValue(rewriter, loc, input, axis);
      Value out = toValue(rewriter, loc, targets[i]);
      Value diff = rewriter.createOrFold<arith::SubIOp>(loc, in, out);
      offsets[axis] = rewriter.createOrFold<arith::DivSIOp>(
          loc, diff, indexConst(rewriter, loc, 2));
    }
    Value zero = zeroScalar(rewriter, loc, inputType.getElementType());
    Value result = buildIndexedGeneric(
        rewriter, loc, emptyTensor(rewriter, loc, resultType, sizes), {}, {},
        [&](OpBuilder &b, Location nloc, ValueRange ivs, ValueRange) -> Value {
          SmallVector<Value> at(ivs.begin(), ivs.end());
          Value valid;
          for (int64_t axis : axes) {
            Value in = dimValue(b, nloc, input, axis);
            Value src = b.create<arith::AddIOp>(nloc, ivs[axis], offsets[axis]);
            Value lo = b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::sge,
                                               src, indexConst(b, nloc, 0));
            Value hi = b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::slt,
                                               src, in);
            Value ok = b.create<arith::AndIOp>(nloc, lo, hi);
            valid = valid ? b.create<arith::AndIOp>(nloc, valid, ok) : ok;
            at[axis] = clampIntoBounds(b, nloc, src, in);
          }
          Value x = b.create<tensor::ExtractOp>(nloc, input, at);
          return valid ? b.create<arith::SelectOp>(nloc, valid, x, zero) : x;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateCenterCropPadPatterns(const TypeConverter &typeConverter,
                                   RewritePatternSet &patterns) {
  patterns.add<CenterCropPadLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
