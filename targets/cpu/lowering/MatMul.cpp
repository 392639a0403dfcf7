//===- MatMul.cpp - MatMul, Gemm and MatMulInteger to linalg --------------===//
//
// MatMul follows numpy: 1-D operands are promoted to matrices (and the unit
// dim dropped again afterwards), batch dims broadcast. The lowering picks the
// cheapest linalg form the shapes allow:
//   - B has no batch (or only unit batch dims): A's batch dims fold into its
//     rows and one linalg.matmul does the work;
//   - A and B have the same batch dims: they are collapsed into one and
//     linalg.batch_matmul does the work;
//   - otherwise a linalg.generic contraction whose indexing maps broadcast.
// A dynamic batch dim is assumed to equal the other side's size (numpy's
// rules leave a run-time 1 against a dynamic dim ambiguous; ONNX exporters do
// not produce it).
//
// Gemm maps its transposes onto linalg.matmul / matmul_transpose_a / _b and
// folds C into the accumulator when alpha is 1. 16-bit floats accumulate in
// f32 and are rounded once at the end.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

//===----------------------------------------------------------------------===//
// Shared builders
//===----------------------------------------------------------------------===//

/// The type a contraction over `elementType` accumulates in: f32 for the
/// 16-bit floats (summing in 16 bits loses too much), the type itself
/// otherwise.
Type accumulatorType(Type elementType) {
  if (elementType.isF16() || elementType.isBF16())
    return Float32Type::get(elementType.getContext());
  return elementType;
}

/// Converts a scalar to `type` (a wider float, or the same type).
Value extendTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return b.create<arith::ExtFOp>(loc, type, value);
}

/// `acc + lhs * rhs` in the accumulator's type.
Value mulAdd(OpBuilder &b, Location loc, Value lhs, Value rhs, Value acc) {
  Type accType = acc.getType();
  lhs = extendTo(b, loc, lhs, accType);
  rhs = extendTo(b, loc, rhs, accType);
  if (llvm::isa<FloatType>(accType))
    return b.create<arith::AddFOp>(loc, acc,
                                   b.create<arith::MulFOp>(loc, lhs, rhs));
  return b.create<arith::AddIOp>(loc, acc,
                                 b.create<arith::MulIOp>(loc, lhs, rhs));
}

/// Sizes as OpFoldResults with every constant as an attribute, so tensor
/// types built from them are as static as possible.
SmallVector<OpFoldResult> foldSizes(ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> folded;
  for (OpFoldResult size : sizes) {
    if (auto value = llvm::dyn_cast_if_present<Value>(size))
      folded.push_back(getAsOpFoldResult(value));
    else
      folded.push_back(size);
  }
  return folded;
}

SmallVector<int64_t> staticShape(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return shape;
}

/// A zero-filled tensor of `sizes` (the initial accumulator).
Value zeroFilled(OpBuilder &b, Location loc, Type elementType,
                 ArrayRef<OpFoldResult> sizes) {
  Value empty = b.create<tensor::EmptyOp>(loc, foldSizes(sizes), elementType);
  Value zero = zeroScalar(b, loc, elementType);
  return b.create<linalg::FillOp>(loc, zero, empty).getResult(0);
}

/// tensor.collapse_shape by `groups`.
Value collapse(OpBuilder &b, Location loc, Value source,
               ArrayRef<ReassociationIndices> groups) {
  return b.create<tensor::CollapseShapeOp>(loc, source, groups);
}

/// tensor.expand_shape by `groups` into a tensor of `sizes`.
Value expand(OpBuilder &b, Location loc, Value source,
             ArrayRef<ReassociationIndices> groups,
             ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> folded = foldSizes(sizes);
  auto type = RankedTensorType::get(
      staticShape(folded),
      llvm::cast<RankedTensorType>(source.getType()).getElementType());
  return b.create<tensor::ExpandShapeOp>(loc, type, source, groups, folded);
}

/// Reassociation that merges the leading `count` dims into one and keeps
/// the others.
SmallVector<ReassociationIndices> mergeLeading(int64_t rank, int64_t count) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t d = 0; d < count; ++d)
    leading.push_back(d);
  if (!leading.empty())
    groups.push_back(leading);
  for (int64_t d = count; d < rank; ++d)
    groups.push_back({d});
  return groups;
}

/// Reassociation that removes the unit dims marked in `drop` from a tensor
/// of rank drop.size(); a dropped dim joins the group of a kept neighbour.
SmallVector<ReassociationIndices> dropUnitDims(ArrayRef<bool> drop) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t d = 0, e = drop.size(); d < e; ++d) {
    pending.push_back(d);
    if (!drop[d]) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!pending.empty() && !groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return groups;
}

/// Rounds a tensor computed in the accumulator type back to `elementType`.
Value truncateTo(OpBuilder &b, Location loc, Value tensor, Type elementType) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  int64_t rank = type.getRank();
  Value init =
      b.create<tensor::EmptyOp>(loc, mixedDims(b, loc, tensor), elementType);
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return b
      .create<linalg::GenericOp>(
          loc, init.getType(), tensor, init, maps, iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value v = nb.create<arith::TruncFOp>(nloc, elementType, args[0]);
            nb.create<linalg::YieldOp>(nloc, v);
          })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

/// Lowers `a @ b` with numpy's MatMul semantics into a tensor of
/// `resultType` (the converted ONNX result type). Operands already have the
/// result's element type. Errors name `op`.
FailureOr<Value> buildMatMul(OpBuilder &b, Operation *op, Value a, Value bm,
                             RankedTensorType resultType) {
  Location loc = op->getLoc();
  auto aType = llvm::cast<RankedTensorType>(a.getType());
  auto bType = llvm::cast<RankedTensorType>(bm.getType());
  if (aType.getRank() == 0 || bType.getRank() == 0)
    return op->emitError("MatMul operands must have rank >= 1");
  Type elementType = resultType.getElementType();
  Type accType = accumulatorType(elementType);

  // numpy promotion of vectors: [K] @ B is [1, K] @ B, A @ [K] is A @ [K, 1].
  bool aVector = aType.getRank() == 1, bVector = bType.getRank() == 1;
  if (aVector)
    a = expand(b, loc, a, {{0, 1}},
               {b.getIndexAttr(1), mixedDims(b, loc, a)[0]});
  if (bVector)
    bm = expand(b, loc, bm, {{0, 1}},
                {mixedDims(b, loc, bm)[0], b.getIndexAttr(1)});
  aType = llvm::cast<RankedTensorType>(a.getType());
  bType = llvm::cast<RankedTensorType>(bm.getType());
  int64_t aRank = aType.getRank(), bRank = bType.getRank();
  int64_t batchRank = std::max(aRank, bRank) - 2;
  int64_t expectedRank = batchRank + 2 - aVector - bVector;
  if (resultType.getRank() != expectedRank)
    return op->emitError() << "MatMul result has rank " << resultType.getRank()
                           << ", expected " << expectedRank;

  // Dynamic batch dims broadcast at run time: both operands are resolved to
  // the broadcast batch sizes first (checked, size 1 copied), so below a
  // dynamic batch dim of either is the broadcast size.
  bool batchNeedsCheck = false;
  for (int64_t j = 0; j < batchRank; ++j) {
    int64_t ai = j - (batchRank - (aRank - 2)),
            bi = j - (batchRank - (bRank - 2));
    int64_t aSize = ai >= 0 ? aType.getDimSize(ai) : 1;
    int64_t bSize = bi >= 0 ? bType.getDimSize(bi) : 1;
    bool staticResult = !resultType.isDynamicDim(j);
    batchNeedsCheck |=
        ShapedType::isDynamic(aSize) && (bSize != 1 || staticResult);
    batchNeedsCheck |=
        ShapedType::isDynamic(bSize) && (aSize != 1 || staticResult);
  }
  if (batchNeedsCheck) {
    SmallVector<SmallVector<OpFoldResult>> batchDims;
    SmallVector<SmallVector<OpFoldResult>> operandSizes;
    for (Value operand : {a, bm}) {
      operandSizes.push_back(tensorSizes(b, loc, operand));
      batchDims.push_back(SmallVector<OpFoldResult>(
          ArrayRef<OpFoldResult>(operandSizes.back()).drop_back(2)));
    }
    SmallVector<OpFoldResult> batchShape = broadcastShapes(
        b, loc, resultType.getShape().take_front(batchRank), batchDims);
    auto resolve = [&](Value operand, ArrayRef<OpFoldResult> sizes) {
      int64_t rank = sizes.size();
      SmallVector<OpFoldResult> targets(rank);
      for (int64_t i = 0; i < rank - 2; ++i)
        targets[i] = batchShape[batchRank - (rank - 2) + i];
      return broadcastOperandTo(b, loc, operand, sizes, targets);
    };
    a = resolve(a, operandSizes[0]);
    bm = resolve(bm, operandSizes[1]);
    aType = llvm::cast<RankedTensorType>(a.getType());
    bType = llvm::cast<RankedTensorType>(bm.getType());
  }

  int64_t kA = aType.getDimSize(aRank - 1), kB = bType.getDimSize(bRank - 2);
  if (!ShapedType::isDynamic(kA) && !ShapedType::isDynamic(kB) && kA != kB)
    return op->emitError() << "MatMul inner dims differ (" << kA << " vs " << kB
                           << ")";

  // The broadcast batch dims. A dim of A (B) is -1 when A (B) lacks it.
  SmallVector<OpFoldResult> aDims = mixedDims(b, loc, a);
  SmallVector<OpFoldResult> bDims = mixedDims(b, loc, bm);
  auto aDimOf = [&](int64_t j) { return j - (batchRank - (aRank - 2)); };
  auto bDimOf = [&](int64_t j) { return j - (batchRank - (bRank - 2)); };
  SmallVector<OpFoldResult> batchSizes;
  bool aBatchTrivial = true, bBatchTrivial = true, sameBatch = aRank == bRank;
  for (int64_t j = 0; j < batchRank; ++j) {
    int64_t ai = aDimOf(j), bi = bDimOf(j);
    int64_t aSize = ai >= 0 ? aType.getDimSize(ai) : 1;
    int64_t bSize = bi >= 0 ? bType.getDimSize(bi) : 1;
    aBatchTrivial &= aSize == 1;
    bBatchTrivial &= bSize == 1;
    if (aSize != ShapedType::kDynamic && bSize != ShapedType::kDynamic &&
        aSize != bSize && aSize != 1 && bSize != 1)
      return op->emitError() << "MatMul batch dims cannot broadcast (" << aSize
                             << " vs " << bSize << ")";
    // Same batch (no broadcasting needed): equal static sizes, or a dynamic
    // size against anything but a static 1.
    if (aSize == ShapedType::kDynamic || bSize == ShapedType::kDynamic)
      sameBatch &= aSize != 1 && bSize != 1;
    else
      sameBatch &= aSize == bSize;
    if (ai < 0 || aSize == 1)
      batchSizes.push_back(bi >= 0 ? bDims[bi] : b.getIndexAttr(1));
    else if (bi < 0 || bSize == 1 || ShapedType::isDynamic(bSize))
      batchSizes.push_back(aDims[ai]);
    else
      batchSizes.push_back(bDims[bi]);
  }
  OpFoldResult m = aDims[aRank - 2], n = bDims[bRank - 1];
  SmallVector<OpFoldResult> productSizes(batchSizes);
  productSizes.push_back(m);
  productSizes.push_back(n);

  // tensor.expand_shape with two dynamic sizes in one group does not
  // bufferize in LLVM 19 (memref.expand_shape loses its output shape): such
  // shapes take the generic contraction instead of reshaping around a named
  // op.
  auto dynamicCount = [](ArrayRef<OpFoldResult> sizes) {
    return llvm::count_if(sizes, [](OpFoldResult size) {
      return !getConstantIntValue(size).has_value();
    });
  };
  SmallVector<OpFoldResult> rowGroup(batchSizes);
  rowGroup.push_back(m);
  bool rowsExpandable = batchRank == 0 || dynamicCount(rowGroup) <= 1;
  bool batchExpandable = batchRank <= 1 || dynamicCount(batchSizes) <= 1;

  Value product;
  if (bBatchTrivial && rowsExpandable) {
    // Fold A's batch dims into its rows: one plain matmul.
    Value a2 =
        aRank > 2 ? collapse(b, loc, a, mergeLeading(aRank, aRank - 1)) : a;
    Value b2 =
        bRank > 2 ? collapse(b, loc, bm, mergeLeading(bRank, bRank - 1)) : bm;
    Value init = zeroFilled(b, loc, accType, {mixedDims(b, loc, a2)[0], n});
    product =
        b.create<linalg::MatmulOp>(loc, ValueRange{a2, b2}, init).getResult(0);
    if (batchRank > 0)
      product =
          expand(b, loc, product, mergeLeading(batchRank + 2, batchRank + 1),
                 productSizes);
  } else if (sameBatch && batchExpandable) {
    // Identical batch dims: collapse them into one for linalg.batch_matmul.
    Value a3 = collapse(b, loc, a, mergeLeading(aRank, aRank - 2));
    Value b3 = collapse(b, loc, bm, mergeLeading(bRank, bRank - 2));
    Value init = zeroFilled(b, loc, accType, {mixedDims(b, loc, a3)[0], m, n});
    product = b.create<linalg::BatchMatmulOp>(loc, ValueRange{a3, b3}, init)
                  .getResult(0);
    if (batchRank > 1)
      product = expand(b, loc, product, mergeLeading(batchRank + 2, batchRank),
                       productSizes);
  } else {
    // Broadcasting batch dims: a contraction whose maps read index 0 of a
    // unit dim. Loops: batch..., m, n, k.
    int64_t loops = batchRank + 3;
    MLIRContext *ctx = b.getContext();
    AffineExpr zero = getAffineConstantExpr(0, ctx);
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    SmallVector<AffineExpr> aExprs, bExprs, outExprs;
    for (int64_t j = 0; j < batchRank; ++j) {
      int64_t ai = aDimOf(j), bi = bDimOf(j);
      if (ai >= 0)
        aExprs.push_back(aType.getDimSize(ai) == 1 ? zero : dim(j));
      if (bi >= 0)
        bExprs.push_back(bType.getDimSize(bi) == 1 ? zero : dim(j));
      outExprs.push_back(dim(j));
    }
    int64_t mLoop = batchRank, nLoop = batchRank + 1, kLoop = batchRank + 2;
    aExprs.append({dim(mLoop), dim(kLoop)});
    bExprs.append({dim(kLoop), dim(nLoop)});
    outExprs.append({dim(mLoop), dim(nLoop)});
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, aExprs, ctx),
                                   AffineMap::get(loops, 0, bExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(loops - 1,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    Value init = zeroFilled(b, loc, accType, productSizes);
    product =
        b.create<linalg::GenericOp>(
             loc, init.getType(), ValueRange{a, bm}, init, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               nb.create<linalg::YieldOp>(
                   nloc, mulAdd(nb, nloc, args[0], args[1], args[2]));
             })
            .getResult(0);
  }

  product = truncateTo(b, loc, product, elementType);
  if (aVector || bVector) {
    SmallVector<bool> drop(batchRank + 2, false);
    drop[batchRank] = aVector;
    drop[batchRank + 1] = bVector;
    product = collapse(b, loc, product, dropUnitDims(drop));
  }
  return castIfNeeded(b, loc, product, resultType);
}

/// The ranked type of a converted operand, or null.
RankedTensorType rankedType(Value value) {
  return llvm::dyn_cast<RankedTensorType>(value.getType());
}

/// onnx.MatMul on float or integer tensors of any rank >= 1.
struct MatMulLowering : OpConversionPattern<onnx::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    RankedTensorType aType = rankedType(adaptor.getA());
    RankedTensorType bType = rankedType(adaptor.getB());
    Type elementType = resultType.getElementType();
    if (!aType || !bType || aType.getElementType() != elementType ||
        bType.getElementType() != elementType ||
        !llvm::isa<FloatType, IntegerType>(elementType) ||
        elementType.isInteger(1))
      return rewriter.notifyMatchFailure(op, "unsupported operand types");
    FailureOr<Value> result =
        buildMatMul(rewriter, op, adaptor.getA(), adaptor.getB(), resultType);
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// onnx.MatMulInteger: (A - a_zero_point) @ (B - b_zero_point) in i32, with
/// 8-bit operands. Zero points may be scalars (rank 0 or one element); B's may
/// also be per column ([N]). The operands are widened to i32 first (a cheap
/// elementwise pass) so the product itself is a plain integer matmul.
struct MatMulIntegerLowering : OpConversionPattern<onnx::MatMulIntegerOp> {
  using OpConversionPattern::OpConversionPattern;

  /// ext(x) - ext(zeroPoint) as an i32 tensor. `perColumn` broadcasts a 1-D
  /// zero point along x's last dim.
  static Value widen(OpBuilder &b, Location loc, Value x, bool xUnsigned,
                     Value zeroPoint, bool zpUnsigned) {
    auto type = llvm::cast<RankedTensorType>(x.getType());
    int64_t rank = type.getRank();
    Type i32 = b.getI32Type();
    MLIRContext *ctx = b.getContext();
    SmallVector<Value> inputs = {x};
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank)};
    if (zeroPoint) {
      auto zpType = llvm::cast<RankedTensorType>(zeroPoint.getType());
      inputs.push_back(zeroPoint);
      if (zpType.getRank() == 0)
        maps.push_back(AffineMap::get(rank, 0, {}, ctx));
      else if (zpType.getDimSize(0) == 1)
        maps.push_back(
            AffineMap::get(rank, 0, getAffineConstantExpr(0, ctx), ctx));
      else
        maps.push_back(
            AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx), ctx));
    }
    maps.push_back(b.getMultiDimIdentityMap(rank));
    Value init = b.create<tensor::EmptyOp>(loc, mixedDims(b, loc, x), i32);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto ext = [&](OpBuilder &nb, Location nloc, Value v,
                   bool isUnsigned) -> Value {
      if (isUnsigned)
        return nb.create<arith::ExtUIOp>(nloc, i32, v);
      return nb.create<arith::ExtSIOp>(nloc, i32, v);
    };
    return b
        .create<linalg::GenericOp>(
            loc, init.getType(), inputs, init, maps, iterators,
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value v = ext(nb, nloc, args[0], xUnsigned);
              if (args.size() == 3)
                v = nb.create<arith::SubIOp>(
                    nloc, v, ext(nb, nloc, args[1], zpUnsigned));
              nb.create<linalg::YieldOp>(nloc, v);
            })
        .getResult(0);
  }

  LogicalResult
  matchAndRewrite(onnx::MatMulIntegerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    RankedTensorType aType = rankedType(adaptor.getA());
    RankedTensorType bType = rankedType(adaptor.getB());
    if (!aType || !bType || !resultType.getElementType().isInteger(32) ||
        !aType.getElementType().isInteger(8) ||
        !bType.getElementType().isInteger(8))
      return rewriter.notifyMatchFailure(op, "expects 8-bit operands");

    // Zero points: optional, scalar for A; scalar or [N] for B.
    Value aZero = adaptor.getAZeroPoint(), bZero = adaptor.getBZeroPoint();
    auto isScalar = [](RankedTensorType t) {
      return t.getRank() == 0 || (t.getRank() == 1 && t.getDimSize(0) == 1);
    };
    if (isNoneValue(aZero))
      aZero = nullptr;
    if (isNoneValue(bZero))
      bZero = nullptr;
    if (aZero && !isScalar(cast<RankedTensorType>(aZero.getType())))
      return rewriter.notifyMatchFailure(op, "per-row a_zero_point");
    if (bZero) {
      auto zpType = cast<RankedTensorType>(bZero.getType());
      if (!isScalar(zpType) &&
          !(zpType.getRank() == 1 && bType.getRank() >= 1 &&
            zpType.getDimSize(0) == bType.getDimSize(bType.getRank() - 1)))
        return rewriter.notifyMatchFailure(op, "unsupported b_zero_point");
    }

    Location loc = op.getLoc();
    Value a = widen(rewriter, loc, adaptor.getA(), isUnsignedElement(op.getA()),
                    aZero, aZero && isUnsignedElement(op.getAZeroPoint()));
    Value b = widen(rewriter, loc, adaptor.getB(), isUnsignedElement(op.getB()),
                    bZero, bZero && isUnsignedElement(op.getBZeroPoint()));
    FailureOr<Value> result = buildMatMul(rewriter, op, a, b, resultType);
    if (failed(result))
      return failure();
    rewriter.replaceOp(op, *result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Gemm
//===----------------------------------------------------------------------===//

/// The indexing map that reads C, unidirectionally broadcast to [M, N].
AffineMap broadcastCMap(RankedTensorType cType, MLIRContext *ctx) {
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  SmallVector<AffineExpr> exprs;
  int64_t rank = cType.getRank();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t outDim = 2 - rank + d;
    exprs.push_back(cType.getDimSize(d) == 1 ? zero
                                             : getAffineDimExpr(outDim, ctx));
  }
  return AffineMap::get(2, 0, exprs, ctx);
}

/// onnx.Gemm: alpha * op(A) @ op(B) + beta * C with op = optional transpose.
struct GemmLowering : OpConversionPattern<onnx::GemmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultType = convertedResultType(*getTypeConverter(), op);
    if (!resultType)
      return failure();
    Value a = adaptor.getA(), bm = adaptor.getB(), c = adaptor.getC();
    RankedTensorType aType = rankedType(a), bType = rankedType(bm);
    Type elementType = resultType.getElementType();
    if (!aType || !bType || aType.getElementType() != elementType ||
        bType.getElementType() != elementType ||
        !llvm::isa<FloatType, IntegerType>(elementType) ||
        elementType.isInteger(1))
      return rewriter.notifyMatchFailure(op, "unsupported operand types");
    if (aType.getRank() != 2 || bType.getRank() != 2 ||
        resultType.getRank() != 2)
      return op.emitError("Gemm expects 2-D A, B and Y");

    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    bool isFloat = llvm::isa<FloatType>(elementType);
    if (!isFloat && (alpha != std::floor(alpha) || beta != std::floor(beta)))
      return rewriter.notifyMatchFailure(
          op, "non-integral alpha/beta on an integer Gemm");
    bool transA = op.getTransA() != 0, transB = op.getTransB() != 0;

    bool hasC = !isNoneValue(c) && beta != 0.0;
    RankedTensorType cType;
    if (hasC) {
      cType = rankedType(c);
      if (!cType || cType.getElementType() != elementType ||
          cType.getRank() > 2)
        return op.emitError("Gemm's C must be a tensor of rank <= 2 with "
                            "the element type of A");
    }

    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<OpFoldResult> aDims = mixedDims(rewriter, loc, a);
    SmallVector<OpFoldResult> bDims = mixedDims(rewriter, loc, bm);
    OpFoldResult m = aDims[transA ? 1 : 0];
    OpFoldResult n = bDims[transB ? 0 : 1];
    int64_t kA = aType.getDimSize(transA ? 0 : 1);
    int64_t kB = bType.getDimSize(transB ? 1 : 0);
    if (!ShapedType::isDynamic(kA) && !ShapedType::isDynamic(kB) && kA != kB)
      return op.emitError()
             << "Gemm inner dims differ (" << kA << " vs " << kB << ")";

    Type accType = accumulatorType(elementType);
    SmallVector<utils::IteratorType> parallel2(2,
                                               utils::IteratorType::parallel);
    AffineMap identity2 = rewriter.getMultiDimIdentityMap(2);

    // With alpha == 1, beta * C is the initial accumulator; otherwise the
    // product starts from zero and an epilogue combines it with C.
    bool cInInit = hasC && alpha == 1.0 && accType == elementType;
    Value alphaConst = scalarConst(rewriter, loc, accType, alpha);
    Value betaConst = scalarConst(rewriter, loc, accType, beta);
    Value init;
    if (cInInit) {
      Value empty =
          rewriter.create<tensor::EmptyOp>(loc, foldSizes({m, n}), elementType);
      init =
          rewriter
              .create<linalg::GenericOp>(
                  loc, empty.getType(), c, empty,
                  SmallVector<AffineMap>{broadcastCMap(cType, ctx), identity2},
                  parallel2,
                  [&](OpBuilder &nb, Location nloc, ValueRange args) {
                    Value v = args[0];
                    if (beta != 1.0)
                      v = multiply(nb, nloc, v, betaConst);
                    nb.create<linalg::YieldOp>(nloc, v);
                  })
              .getResult(0);
    } else {
      init = zeroFilled(rewriter, loc, accType, {m, n});
    }

    Value product;
    if (!transA && !transB)
      product = rewriter.create<linalg::MatmulOp>(loc, ValueRange{a, bm}, init)
                    .getResult(0);
    else if (transA && !transB)
      product =
          rewriter
              .create<linalg::MatmulTransposeAOp>(loc, ValueRange{a, bm}, init)
              .getResult(0);
    else if (!transA && transB)
      product =
          rewriter
              .create<linalg::MatmulTransposeBOp>(loc, ValueRange{a, bm}, init)
              .getResult(0);
    else {
      // Loops m, n, k reading A[k, m] and B[n, k].
      auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
      SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {d(2), d(0)}, ctx),
                                     AffineMap::get(3, 0, {d(1), d(2)}, ctx),
                                     AffineMap::get(3, 0, {d(0), d(1)}, ctx)};
      product =
          rewriter
              .create<linalg::GenericOp>(
                  loc, init.getType(), ValueRange{a, bm}, init, maps,
                  SmallVector<utils::IteratorType>{
                      utils::IteratorType::parallel,
                      utils::IteratorType::parallel,
                      utils::IteratorType::reduction},
                  [&](OpBuilder &nb, Location nloc, ValueRange args) {
                    nb.create<linalg::YieldOp>(
                        nloc, mulAdd(nb, nloc, args[0], args[1], args[2]));
                  })
              .getResult(0);
    }

    if (!cInInit && (alpha != 1.0 || hasC || accType != elementType)) {
      // Epilogue: alpha * product + beta * C, rounded to the element type.
      SmallVector<Value> inputs = {product};
      SmallVector<AffineMap> maps = {identity2};
      if (hasC) {
        inputs.push_back(c);
        maps.push_back(broadcastCMap(cType, ctx));
      }
      maps.push_back(identity2);
      Value empty =
          rewriter.create<tensor::EmptyOp>(loc, foldSizes({m, n}), elementType);
      product =
          rewriter
              .create<linalg::GenericOp>(
                  loc, empty.getType(), inputs, empty, maps, parallel2,
                  [&](OpBuilder &nb, Location nloc, ValueRange args) {
                    Value v = args[0];
                    if (alpha != 1.0)
                      v = multiply(nb, nloc, v, alphaConst);
                    if (hasC) {
                      Value cv = extendTo(nb, nloc, args[1], accType);
                      if (beta != 1.0)
                        cv = multiply(nb, nloc, cv, betaConst);
                      v = llvm::isa<FloatType>(accType)
                              ? nb.create<arith::AddFOp>(nloc, v, cv)
                                    .getResult()
                              : nb.create<arith::AddIOp>(nloc, v, cv)
                                    .getResult();
                    }
                    if (v.getType() != elementType)
                      v = nb.create<arith::TruncFOp>(nloc, elementType, v);
                    nb.create<linalg::YieldOp>(nloc, v);
                  })
              .getResult(0);
    }
    rewriter.replaceOp(op, castIfNeeded(rewriter, loc, product, resultType));
    return success();
  }

  /// `v * factor` (same types).
  static Value multiply(OpBuilder &b, Location loc, Value v, Value factor) {
    if (llvm::isa<FloatType>(v.getType()))
      return b.create<arith::MulFOp>(loc, v, factor);
    return b.create<arith::MulIOp>(loc, v, factor);
  }
};

} // namespace

void populateMatMulPatterns(const TypeConverter &typeConverter,
                            RewritePatternSet &patterns) {
  patterns.add<MatMulLowering, MatMulIntegerLowering, GemmLowering>(
      typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
