//===- Activation.cpp - Swish, SwiGLU and RotaryEmbedding -----------------===//
//
// Swish (x * sigmoid(alpha * x)) and SwiGLU (Swish(A) * B) are elementwise
// and reuse the elementwise pattern. RotaryEmbedding is one generic over the
// output: each element reads itself and its rotation partner (the other
// half, or the neighbour when interleaved) from X and the cos/sin caches at
// the token's position, so no slices or concatenations are built.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// alpha * x's sigmoid times x, in x's (compute) type.
Value swish(OpBuilder &b, Location loc, Operation *op, Value x) {
  double alpha = 1.0;
  if (auto attr = op->getAttrOfType<FloatAttr>("alpha"))
    alpha = attr.getValueAsDouble();
  Type type = x.getType();
  Value negScaled = b.create<arith::MulFOp>(
      loc, x, scalarConst(b, loc, type, -alpha));
  Value one = scalarConst(b, loc, type, 1.0);
  Value sigmoid = b.create<arith::DivFOp>(
      loc, one,
      b.create<arith::AddFOp>(loc, one, b.create<math::ExpOp>(loc, negScaled)));
  return b.create<arith::MulFOp>(loc, x, sigmoid);
}

/// Lowers RotaryEmbedding on 3-D [batch, seq, heads * size] or 4-D
/// [batch, heads, seq, size] float input.
struct RotaryEmbeddingLowering : OpConversionPattern<onnx::RotaryEmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::RotaryEmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    Value cosCache = adaptor.getCosCache(), sinCache = adaptor.getSinCache();
    Value positions = adaptor.getPositionIds();
    bool hasPositions = !isNoneValue(positions);
    auto xType = llvm::dyn_cast<RankedTensorType>(x.getType());
    auto cosType = llvm::dyn_cast<RankedTensorType>(cosCache.getType());
    auto sinType = llvm::dyn_cast<RankedTensorType>(sinCache.getType());
    if (!xType || !cosType || !sinType ||
        !isElementKind(onnxElementType(op.getX()), kFloat))
      return rewriter.notifyMatchFailure(op, "expected ranked float tensors");
    int64_t rank = xType.getRank();
    if (rank != 3 && rank != 4)
      return op.emitError() << "input must be 3-D or 4-D, got " << xType;
    int64_t cacheRank = hasPositions ? 2 : 3;
    if (cosType.getRank() != cacheRank || sinType.getRank() != cacheRank)
      return op.emitError() << "cos_cache and sin_cache must be " << cacheRank
                            << "-D " << (hasPositions ? "with" : "without")
                            << " position_ids";
    int64_t headSize;
    if (rank == 4) {
      headSize = xType.getDimSize(3);
    } else {
      std::optional<int64_t> heads = op.getNumHeads();
      if (!heads || *heads <= 0)
        return op.emitError() << "3-D input needs a positive num_heads";
      headSize = xType.isDynamicDim(2) ? ShapedType::kDynamic
                                       : xType.getDimSize(2) / *heads;
    }
    if (ShapedType::isDynamic(headSize))
      return op.emitError() << "the head size must be static";
    int64_t rotaryDim = op.getRotaryEmbeddingDim();
    if (rotaryDim == 0)
      rotaryDim = headSize;
    if (rotaryDim < 0 || rotaryDim > headSize || rotaryDim % 2 != 0)
      return op.emitError() << "rotary_embedding_dim " << rotaryDim
                            << " must be even and at most the head size "
                            << headSize;
    int64_t half = rotaryDim / 2;
    if (!cosType.isDynamicDim(cacheRank - 1) &&
        cosType.getDimSize(cacheRank - 1) != half)
      return op.emitError() << "cos_cache's last dim must be "
                            << "rotary_embedding_dim / 2 = " << half;
    bool interleaved = op.getInterleaved() != 0;
    RankedTensorType resultType =
        convertedResultType(*getTypeConverter(), op, 0);
    if (!resultType)
      return failure();
    Type element = xType.getElementType();
    int64_t seqDim = rank == 4 ? 2 : 1;

    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    Value result = buildParallelGeneric(
        rewriter, loc, resultType, tensorSizes(rewriter, loc, x), x,
        {identity}, [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          SmallVector<Value> idx;
          for (int64_t d = 0; d < rank; ++d)
            idx.push_back(b.create<linalg::IndexOp>(nloc, d));
          Value c = idx[rank - 1];
          // d: position inside the head; headBase: c - d.
          Value sizeC = indexConst(b, nloc, headSize);
          Value d = rank == 3 ? b.create<arith::RemUIOp>(nloc, c, sizeC)
                                    .getResult()
                              : c;
          Value headBase = b.create<arith::SubIOp>(nloc, c, d);
          Value halfC = indexConst(b, nloc, half);
          Value zeroC = indexConst(b, nloc, 0);
          Value rotated = b.create<arith::CmpIOp>(
              nloc, arith::CmpIPredicate::ult, d,
              indexConst(b, nloc, rotaryDim));
          Value first, partner, k;
          if (interleaved) {
            Value parity =
                b.create<arith::RemUIOp>(nloc, d, indexConst(b, nloc, 2));
            first = b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::eq,
                                            parity, zeroC);
            partner = b.create<arith::SelectOp>(
                nloc, first,
                b.create<arith::AddIOp>(nloc, d, indexConst(b, nloc, 1)),
                b.create<arith::SubIOp>(nloc, d, indexConst(b, nloc, 1)));
            k = b.create<arith::DivUIOp>(nloc, d, indexConst(b, nloc, 2));
          } else {
            first = b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::ult, d,
                                            halfC);
            partner = b.create<arith::SelectOp>(
                nloc, first, b.create<arith::AddIOp>(nloc, d, halfC),
                b.create<arith::SubIOp>(nloc, d, halfC));
            k = b.create<arith::SelectOp>(
                nloc, first, d, b.create<arith::SubIOp>(nloc, d, halfC));
          }
          // Unrotated tail elements read valid (unused) indices.
          partner = b.create<arith::SelectOp>(nloc, rotated, partner, d);
          k = b.create<arith::SelectOp>(nloc, rotated, k, zeroC);
          SmallVector<Value> partnerIdx = idx;
          partnerIdx[rank - 1] = b.create<arith::AddIOp>(nloc, headBase, partner);
          Value xv = promoteHalf(b, nloc, args[0]);
          Value xp = promoteHalf(
              b, nloc, b.create<tensor::ExtractOp>(nloc, x, partnerIdx));
          SmallVector<Value> cacheIdx;
          if (hasPositions) {
            Value pos = b.create<tensor::ExtractOp>(
                nloc, positions, ValueRange{idx[0], idx[seqDim]});
            cacheIdx = {b.create<arith::IndexCastOp>(nloc, b.getIndexType(),
                                                     pos),
                        k};
          } else {
            cacheIdx = {idx[0], idx[seqDim], k};
          }
          Value cosv = promoteHalf(
              b, nloc, b.create<tensor::ExtractOp>(nloc, cosCache, cacheIdx));
          Value sinv = promoteHalf(
              b, nloc, b.create<tensor::ExtractOp>(nloc, sinCache, cacheIdx));
          // first: cos * x - sin * partner; second: sin * partner + cos * x.
          Value cx = b.create<arith::MulFOp>(nloc, cosv, xv);
          Value sp = b.create<arith::MulFOp>(nloc, sinv, xp);
          Value out = b.create<arith::SelectOp>(
              nloc, first, b.create<arith::SubFOp>(nloc, cx, sp),
              b.create<arith::AddFOp>(nloc, sp, cx));
          out = b.create<arith::SelectOp>(nloc, rotated, out, xv);
          return demoteTo(b, nloc, out, element);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateActivationPatterns(const TypeConverter &typeConverter,
                                RewritePatternSet &patterns) {
  ElementwiseSpec swishSpec;
  swishSpec.opName = "onnx.Swish";
  swishSpec.kinds = kFloat;
  swishSpec.body = [](Operation *op, OpBuilder &b, Location loc,
                      ValueRange a) { return swish(b, loc, op, a[0]); };
  addElementwisePattern(typeConverter, patterns, std::move(swishSpec));

  ElementwiseSpec swigluSpec;
  swigluSpec.opName = "onnx.SwiGLU";
  swigluSpec.kinds = kFloat;
  swigluSpec.body = [](Operation *op, OpBuilder &b, Location loc,
                       ValueRange a) -> Value {
    return b.create<arith::MulFOp>(loc, swish(b, loc, op, a[0]), a[1]);
  };
  addElementwisePattern(typeConverter, patterns, std::move(swigluSpec));

  patterns.add<RotaryEmbeddingLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
