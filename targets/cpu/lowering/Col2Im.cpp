//===- Col2Im.cpp - Col2Im ------------------------------------------------===//
//
// Col2Im(input [N, C * prod(block), L], image_shape, block_shape) adds the
// columns of `input` back into an image [N, C, image...]: column entry
// (c, k, l) lands at image position l_d * stride_d - pad_d + k_d * dilation_d
// on every spatial dim d. Lowered as a gather: each image element sums, over
// the kernel offsets k (a reduction loop; the shapes may be run-time
// values), the one block l that puts offset k on it, if any.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

struct Col2ImLowering : OpConversionPattern<onnx::Col2ImOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::Col2ImOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = llvm::dyn_cast<RankedTensorType>(input.getType());
    auto blockType =
        llvm::dyn_cast<RankedTensorType>(adaptor.getBlockShape().getType());
    if (!inputType || !blockType ||
        !isElementKind(onnxElementType(op.getInput()), kNumeric))
      return rewriter.notifyMatchFailure(op, "expected a numeric tensor");
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op, 0);
    if (!resultType)
      return failure();
    if (blockType.getRank() != 1 || blockType.isDynamicDim(0))
      return op.emitError() << "needs a block_shape of static length";
    int64_t spatial = blockType.getDimSize(0);
    if (inputType.getRank() != 3 || resultType.getRank() != spatial + 2)
      return op.emitError() << "expects an input [N, C * prod(block), L] and "
                            << "image_shape and block_shape of one length";
    SmallVector<int64_t> dilations = getI64Array(op.getDilations(), spatial, 1);
    SmallVector<int64_t> strides = getI64Array(op.getStrides(), spatial, 1);
    SmallVector<int64_t> pads = getI64Array(op.getPads(), 2 * spatial, 0);
    if (int64_t(dilations.size()) != spatial ||
        int64_t(strides.size()) != spatial ||
        int64_t(pads.size()) != 2 * spatial ||
        llvm::any_of(strides, [](int64_t v) { return v <= 0; }))
      return op.emitError() << "dilations, strides and pads must have "
                            << spatial << ", " << spatial << " and "
                            << 2 * spatial << " values (positive strides)";

    auto cst = [&](int64_t v) { return indexConst(rewriter, loc, v); };
    SmallVector<OpFoldResult> image =
        readIntsAsIndex(rewriter, loc, adaptor.getImageShape(), spatial);
    SmallVector<OpFoldResult> blockOfr =
        readIntsAsIndex(rewriter, loc, adaptor.getBlockShape(), spatial);
    SmallVector<Value> block, blocks;
    Value kernelSize = cst(1);
    for (int64_t d = 0; d < spatial; ++d) {
      block.push_back(toValue(rewriter, loc, blockOfr[d]));
      kernelSize =
          rewriter.createOrFold<arith::MulIOp>(loc, kernelSize, block[d]);
      // blocks = (image + pads - dilation * (block - 1) - 1) / stride + 1
      Value extent = rewriter.createOrFold<arith::MulIOp>(
          loc, cst(dilations[d]),
          rewriter.createOrFold<arith::SubIOp>(loc, block[d], cst(1)));
      Value span = rewriter.createOrFold<arith::SubIOp>(
          loc,
          rewriter.createOrFold<arith::AddIOp>(
              loc, toValue(rewriter, loc, image[d]),
              cst(pads[d] + pads[d + spatial] - 1)),
          extent);
      blocks.push_back(rewriter.createOrFold<arith::AddIOp>(
          loc,
          rewriter.createOrFold<arith::DivSIOp>(loc, span, cst(strides[d])),
          cst(1)));
    }

    SmallVector<OpFoldResult> sizes{
        tensorSize(rewriter, loc, input, 0),
        rewriter.createOrFold<arith::DivSIOp>(
            loc, dimValue(rewriter, loc, input, 1), kernelSize)};
    sizes.append(image.begin(), image.end());
    Type element = inputType.getElementType();
    Value zero = zeroScalar(rewriter, loc, element);
    Value init =
        rewriter
            .create<linalg::FillOp>(
                loc, zero, emptyTensor(rewriter, loc, resultType, sizes))
            .getResult(0);
    // Loops: the output dims, then the kernel offsets (a reduction).
    int64_t rank = spatial + 2;
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> outExprs;
    for (int64_t d = 0; d < rank; ++d)
      outExprs.push_back(getAffineDimExpr(d, ctx));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    // The kernel loop runs over a tensor of kernelSize elements (the loop
    // bound needs a shaped operand).
    Value kernelRange = rewriter.create<tensor::EmptyOp>(
        loc, ArrayRef<OpFoldResult>{kernelSize}, rewriter.getI1Type());
    SmallVector<AffineMap> maps{
        AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx), ctx),
        AffineMap::get(rank + 1, 0, outExprs, ctx)};
    bool isFloat = llvm::isa<FloatType>(element);
    auto generic = rewriter.create<linalg::GenericOp>(
        loc, TypeRange{resultType}, ValueRange{kernelRange}, ValueRange{init},
        maps, iterators, [&](OpBuilder &b, Location nloc, ValueRange args) {
          auto c = [&](int64_t v) { return indexConst(b, nloc, v); };
          SmallVector<Value> ivs;
          for (int64_t d = 0; d <= rank; ++d)
            ivs.push_back(b.create<linalg::IndexOp>(nloc, d));
          Value k = ivs[rank];
          // Kernel offset per dim, row-major over block_shape.
          SmallVector<Value> offset(spatial);
          Value rest = k;
          for (int64_t d = spatial - 1; d >= 0; --d) {
            offset[d] = b.create<arith::RemSIOp>(nloc, rest, block[d]);
            rest = b.create<arith::DivSIOp>(nloc, rest, block[d]);
          }
          Value valid, blockIndex = c(0);
          for (int64_t d = 0; d < spatial; ++d) {
            Value t = b.create<arith::SubIOp>(
                nloc, b.create<arith::AddIOp>(nloc, ivs[2 + d], c(pads[d])),
                b.create<arith::MulIOp>(nloc, offset[d], c(dilations[d])));
            Value q = b.create<arith::DivSIOp>(nloc, t, c(strides[d]));
            Value exact = b.create<arith::CmpIOp>(
                nloc, arith::CmpIPredicate::eq,
                b.create<arith::MulIOp>(nloc, q, c(strides[d])), t);
            Value lo = b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::sge,
                                               t, c(0));
            Value hi = b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::slt,
                                               q, blocks[d]);
            Value ok = b.create<arith::AndIOp>(
                nloc, exact, b.create<arith::AndIOp>(nloc, lo, hi));
            valid = valid ? b.create<arith::AndIOp>(nloc, valid, ok) : ok;
            q = clampIntoBounds(b, nloc, q, blocks[d]);
            blockIndex = b.create<arith::AddIOp>(
                nloc, b.create<arith::MulIOp>(nloc, blockIndex, blocks[d]), q);
          }
          Value channel = b.create<arith::AddIOp>(
              nloc, b.create<arith::MulIOp>(nloc, ivs[1], kernelSize), k);
          // A malformed input never reads out of bounds.
          channel =
              clampIntoBounds(b, nloc, channel, dimValue(b, nloc, input, 1));
          blockIndex =
              clampIntoBounds(b, nloc, blockIndex, dimValue(b, nloc, input, 2));
          Value x = b.create<tensor::ExtractOp>(
              nloc, input, ValueRange{ivs[0], channel, blockIndex});
          x = b.create<arith::SelectOp>(nloc, valid, x, zero);
          Value sum =
              isFloat
                  ? b.create<arith::AddFOp>(nloc, args.back(), x).getResult()
                  : b.create<arith::AddIOp>(nloc, args.back(), x).getResult();
          b.create<linalg::YieldOp>(nloc, sum);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void populateCol2ImPatterns(const TypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<Col2ImLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
