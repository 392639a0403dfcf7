//===- Attention.cpp - The opset-23+ Attention op -------------------------===//
//
// Attention as a composition of linalg generics on [batch, heads, seq, size]
// tensors (3-D inputs are split into heads and transposed first):
//   present = concat(past, current) along the sequence dim (K and V);
//   scores  = (Q * sqrt(scale)) x (K * sqrt(scale))^T, optionally softcapped;
//   bias    = attn_mask (bool -> 0/-inf, padded with -inf up to the total
//             kv length) + causal/sliding-window frontier (offset by the past
//             length, or by nonpad_kv_seqlen - q_len) + kv padding;
//   probs   = softmax(scores + bias), zero on rows whose bias is all -inf;
//   Y       = probs x V.
// Grouped-query attention reads kv head h / (q_heads / kv_heads), so K and V
// are never repeated in memory. Half floats are computed in f32 and rounded
// where the spec's function body rounds (scaled inputs, probabilities).
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
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace onnxc::cpu {
namespace {

using GenericBody = llvm::function_ref<Value(OpBuilder &, Location,
                                             ValueRange)>;

/// A tensor of `element`s with `sizes`, filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   Type element, Value value) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes) {
    std::optional<int64_t> cst = getConstantIntValue(size);
    shape.push_back(cst ? *cst : ShapedType::kDynamic);
  }
  Value empty =
      emptyTensor(b, loc, RankedTensorType::get(shape, element), sizes);
  return b.create<linalg::FillOp>(loc, value, empty).getResult(0);
}

/// One linalg.generic writing into `init`; the body gets the inputs'
/// elements and the output's element and returns the value to yield.
Value buildGeneric(OpBuilder &b, Location loc, Value init, ValueRange inputs,
                   ArrayRef<AffineMap> maps,
                   ArrayRef<utils::IteratorType> iterators, GenericBody body) {
  auto generic = b.create<linalg::GenericOp>(
      loc, init.getType(), inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        nb.create<linalg::YieldOp>(nloc, body(nb, nloc, args));
      });
  return generic.getResult(0);
}

/// Rounds a compute-type float to `element` and back, as an op computing in
/// `element` would.
Value roundThrough(OpBuilder &b, Location loc, Value value, Type element) {
  if (value.getType() == element)
    return value;
  return promoteHalf(b, loc, demoteTo(b, loc, value, element));
}

/// `tensor` (of compute-type floats) converted to `element`.
Value convertTensor(OpBuilder &b, Location loc, Value tensor, Type element) {
  auto type = llvm::cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == element)
    return tensor;
  int64_t rank = type.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  return buildParallelGeneric(
      b, loc, RankedTensorType::get(type.getShape(), element),
      tensorSizes(b, loc, tensor), tensor, {identity},
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        return demoteTo(nb, nloc, args[0], element);
      });
}

/// A 3-D [batch, seq, heads * size] input as [batch, heads, seq, size].
Value splitHeads(OpBuilder &b, Location loc, Value input, int64_t heads) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  OpFoldResult hidden = tensorSize(b, loc, input, 2);
  OpFoldResult size;
  if (std::optional<int64_t> cst = getConstantIntValue(hidden))
    size = b.getIndexAttr(*cst / heads);
  else
    size = b.create<arith::DivUIOp>(loc, toValue(b, loc, hidden),
                                    indexConst(b, loc, heads))
               .getResult();
  SmallVector<OpFoldResult> splitSizes = {tensorSize(b, loc, input, 0),
                                          tensorSize(b, loc, input, 1),
                                          b.getIndexAttr(heads), size};
  int64_t staticSize =
      type.isDynamicDim(2) ? ShapedType::kDynamic : type.getDimSize(2) / heads;
  auto splitType = RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(1), heads, staticSize},
      type.getElementType());
  Value split = reshapeTo(b, loc, input, splitType, splitSizes);
  SmallVector<OpFoldResult> sizes = {splitSizes[0], splitSizes[2],
                                     splitSizes[1], splitSizes[3]};
  auto resultType = RankedTensorType::get(
      {type.getDimSize(0), heads, type.getDimSize(1), staticSize},
      type.getElementType());
  Value init = emptyTensor(b, loc, resultType, sizes);
  return b
      .create<linalg::TransposeOp>(loc, split, init,
                                   ArrayRef<int64_t>{0, 2, 1, 3})
      .getResult()[0];
}

/// `past` and `current` concatenated along dim 2 (the KV cache update).
Value concatSequence(OpBuilder &b, Location loc, Value past, Value current) {
  auto pastType = llvm::cast<RankedTensorType>(past.getType());
  auto currentType = llvm::cast<RankedTensorType>(current.getType());
  SmallVector<OpFoldResult> sizes = tensorSizes(b, loc, current);
  OpFoldResult pastLen = tensorSize(b, loc, past, 2);
  SmallVector<int64_t> shape(currentType.getShape());
  if (pastType.isDynamicDim(2) || currentType.isDynamicDim(2)) {
    shape[2] = ShapedType::kDynamic;
    sizes[2] = b.create<arith::AddIOp>(loc, toValue(b, loc, pastLen),
                                       toValue(b, loc, sizes[2]))
                   .getResult();
  } else {
    shape[2] = pastType.getDimSize(2) + currentType.getDimSize(2);
    sizes[2] = b.getIndexAttr(shape[2]);
  }
  Value result = emptyTensor(
      b, loc, RankedTensorType::get(shape, currentType.getElementType()),
      sizes);
  SmallVector<OpFoldResult> zeros(4, b.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(4, b.getIndexAttr(1));
  result = b.create<tensor::InsertSliceOp>(loc, past, result, zeros,
                                           tensorSizes(b, loc, past), ones);
  SmallVector<OpFoldResult> offsets = zeros;
  offsets[2] = pastLen;
  return b.create<tensor::InsertSliceOp>(loc, current, result, offsets,
                                         tensorSizes(b, loc, current), ones);
}

/// Lowers Attention with float Q/K/V and static head counts.
struct AttentionLowering : OpConversionPattern<onnx::AttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value q = adaptor.getQ(), k = adaptor.getK(), v = adaptor.getV();
    auto qType = llvm::dyn_cast<RankedTensorType>(q.getType());
    auto kType = llvm::dyn_cast<RankedTensorType>(k.getType());
    auto vType = llvm::dyn_cast<RankedTensorType>(v.getType());
    if (!qType || !kType || !vType)
      return rewriter.notifyMatchFailure(op, "expected ranked Q, K, V");
    Type element = qType.getElementType();
    if (!isElementKind(onnxElementType(op.getQ()), kFloat) ||
        kType.getElementType() != element || vType.getElementType() != element)
      return op.emitError() << "Q, K and V must share one float element type";
    int64_t rank = qType.getRank();
    if ((rank != 3 && rank != 4) || kType.getRank() != rank ||
        vType.getRank() != rank)
      return op.emitError() << "Q, K and V must all be 3-D or all be 4-D";

    if (rank == 3) {
      std::optional<int64_t> qHeads = op.getQNumHeads();
      std::optional<int64_t> kvHeads = op.getKvNumHeads();
      if (!qHeads || !kvHeads || *qHeads <= 0 || *kvHeads <= 0)
        return op.emitError()
               << "3-D inputs need positive q_num_heads and kv_num_heads";
      q = splitHeads(rewriter, loc, q, *qHeads);
      k = splitHeads(rewriter, loc, k, *kvHeads);
      v = splitHeads(rewriter, loc, v, *kvHeads);
    }
    auto q4 = llvm::cast<RankedTensorType>(q.getType());
    int64_t qHeads = q4.getDimSize(1);
    int64_t kvHeads = llvm::cast<RankedTensorType>(k.getType()).getDimSize(1);
    if (ShapedType::isDynamic(qHeads) || ShapedType::isDynamic(kvHeads) ||
        llvm::cast<RankedTensorType>(v.getType()).getDimSize(1) != kvHeads)
      return op.emitError() << "head counts must be static and K and V must "
                               "have the same number of heads";
    if (kvHeads == 0 || qHeads % kvHeads != 0)
      return op.emitError() << qHeads << " query heads cannot be grouped over "
                            << kvHeads << " key/value heads";
    int64_t groupSize = qHeads / kvHeads;
    int64_t headSize = q4.getDimSize(3);

    Value pastKey = adaptor.getPastKey(), pastValue = adaptor.getPastValue();
    bool hasPast = !isNoneValue(pastKey);
    if (hasPast != !isNoneValue(pastValue))
      return op.emitError() << "past_key and past_value go together";
    Value nonpad = adaptor.getNonpadKvSeqlen();
    bool hasNonpad = !isNoneValue(nonpad);
    if (hasPast) {
      if (llvm::cast<RankedTensorType>(pastKey.getType()).getRank() != 4 ||
          llvm::cast<RankedTensorType>(pastValue.getType()).getRank() != 4)
        return op.emitError() << "past_key and past_value must be 4-D";
      k = concatSequence(rewriter, loc, pastKey, k);
      v = concatSequence(rewriter, loc, pastValue, v);
    }

    Type acc = computeType(element);
    if (std::optional<int64_t> precision = op.getSoftmaxPrecision();
        precision && *precision == 11)
      acc = rewriter.getF64Type();
    // Q and K are both scaled by sqrt(scale), rounded to the input type.
    double scale;
    if (std::optional<APFloat> attr = op.getScale())
      scale = attr->convertToDouble();
    else if (!ShapedType::isDynamic(headSize) && headSize > 0)
      scale = 1.0 / std::sqrt(static_cast<double>(headSize));
    else
      return op.emitError() << "the head size must be static without a scale";
    double rootScale = std::sqrt(scale);
    double softcap = op.getSoftcap().convertToDouble();
    int64_t mode = op.getQkMatmulOutputMode();
    if (mode < 0 || mode > 3)
      return op.emitError() << "qk_matmul_output_mode " << mode
                            << " is not one of 0..3";

    SmallVector<OpFoldResult> qSizes = tensorSizes(rewriter, loc, q);
    SmallVector<OpFoldResult> vSizes = tensorSizes(rewriter, loc, v);
    OpFoldResult totalLen = tensorSize(rewriter, loc, k, 2);
    SmallVector<OpFoldResult> scoreSizes = {qSizes[0], qSizes[1], qSizes[2],
                                            totalLen};
    AffineExpr d0, d1, d2, d3, d4;
    bindDims(ctx, d0, d1, d2, d3, d4);
    AffineExpr kvHead = groupSize == 1 ? d1 : d1.floorDiv(groupSize);
    auto par = utils::IteratorType::parallel;
    auto red = utils::IteratorType::reduction;

    // scores[b, h, i, j] = sum_d (q[b, h, i, d] * s) * (k[b, h/g, j, d] * s)
    Value zero = scalarConst(rewriter, loc, acc, 0.0);
    Value scores = buildGeneric(
        rewriter, loc, filledTensor(rewriter, loc, scoreSizes, acc, zero),
        ValueRange{q, k},
        {AffineMap::get(5, 0, {d0, d1, d2, d4}, ctx),
         AffineMap::get(5, 0, {d0, kvHead, d3, d4}, ctx),
         AffineMap::get(5, 0, {d0, d1, d2, d3}, ctx)},
        {par, par, par, par, red},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value s = roundThrough(
              b, nloc, scalarConst(b, nloc, computeType(element), rootScale),
              element);
          Value qs = roundThrough(
              b, nloc, b.create<arith::MulFOp>(nloc, promoteHalf(b, nloc, args[0]), s),
              element);
          Value ks = roundThrough(
              b, nloc, b.create<arith::MulFOp>(nloc, promoteHalf(b, nloc, args[1]), s),
              element);
          Value product = b.create<arith::MulFOp>(nloc, qs, ks);
          product = castScalar(b, nloc, product, product.getType(), acc);
          return b.create<arith::AddFOp>(nloc, args[2], product);
        });

    AffineMap id4 = rewriter.getMultiDimIdentityMap(4);
    auto scoreType = llvm::cast<RankedTensorType>(scores.getType());
    if (softcap > 0.0)
      scores = buildParallelGeneric(
          rewriter, loc, scoreType, scoreSizes, scores, {id4},
          [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
            Value cap = scalarConst(b, nloc, acc, softcap);
            Value t = b.create<math::TanhOp>(
                nloc, b.create<arith::DivFOp>(nloc, args[0], cap));
            return b.create<arith::MulFOp>(nloc, t, cap);
          });

    FailureOr<Value> bias = buildBias(rewriter, op, adaptor, scoreSizes, acc,
                                      hasPast, hasNonpad);
    if (failed(bias))
      return failure();
    Value biased = buildParallelGeneric(
        rewriter, loc, scoreType, scoreSizes, ValueRange{scores, *bias},
        {id4, id4},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          return b.create<arith::AddFOp>(nloc, args[0], args[1]);
        });

    // Softmax over j; rows whose bias is all -inf become zeros.
    SmallVector<bool> lastDim = {false, false, false, true};
    Value negInf = scalarConst(rewriter, loc, acc,
                               -std::numeric_limits<double>::infinity());
    auto maxCombiner = [](OpBuilder &b, Location nloc, ValueRange in,
                          Value accum) -> Value {
      return b.create<arith::MaximumFOp>(nloc, accum, in[0]);
    };
    Value biasMax =
        buildReduction(rewriter, loc, *bias, lastDim, negInf, {}, maxCombiner);
    Value rowMax =
        buildReduction(rewriter, loc, biased, lastDim, negInf, {}, maxCombiner);
    auto safeMax = [&](OpBuilder &b, Location nloc, Value max) -> Value {
      Value isNegInf = b.create<arith::CmpFOp>(
          nloc, arith::CmpFPredicate::OEQ, max,
          scalarConst(b, nloc, acc, -std::numeric_limits<double>::infinity()));
      return b.create<arith::SelectOp>(nloc, isNegInf,
                                       scalarConst(b, nloc, acc, 0.0), max);
    };
    Value rowSum = buildReduction(
        rewriter, loc, biased, lastDim, zero, rowMax,
        [&](OpBuilder &b, Location nloc, ValueRange in, Value accum) -> Value {
          Value shifted =
              b.create<arith::SubFOp>(nloc, in[0], safeMax(b, nloc, in[1]));
          return b.create<arith::AddFOp>(nloc, accum,
                                         b.create<math::ExpOp>(nloc, shifted));
        });
    AffineMap rowMap = reducedMap(ctx, lastDim);
    Value probs = buildParallelGeneric(
        rewriter, loc, RankedTensorType::get(scoreType.getShape(), element),
        scoreSizes, ValueRange{biased, rowMax, rowSum, biasMax},
        {id4, rowMap, rowMap, rowMap},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value e = b.create<math::ExpOp>(
              nloc,
              b.create<arith::SubFOp>(nloc, args[0], safeMax(b, nloc, args[1])));
          Value accZero = scalarConst(b, nloc, acc, 0.0);
          Value sumIsZero = b.create<arith::CmpFOp>(
              nloc, arith::CmpFPredicate::OEQ, args[2], accZero);
          Value sum = b.create<arith::SelectOp>(
              nloc, sumIsZero, scalarConst(b, nloc, acc, 1.0), args[2]);
          Value p = b.create<arith::DivFOp>(nloc, e, sum);
          Value masked = b.create<arith::CmpFOp>(
              nloc, arith::CmpFPredicate::OEQ, args[3],
              scalarConst(b, nloc, acc,
                          -std::numeric_limits<double>::infinity()));
          p = b.create<arith::SelectOp>(nloc, masked, accZero, p);
          return castScalar(b, nloc, p, acc, element);
        });

    // Y[b, h, i, e] = sum_j probs[b, h, i, j] * v[b, h/g, j, e], written as
    // [b, i, h, e] for 3-D inputs.
    Type yAcc = computeType(element);
    SmallVector<OpFoldResult> ySizes = {qSizes[0], qSizes[1], qSizes[2],
                                        vSizes[3]};
    AffineMap yMap = AffineMap::get(5, 0, {d0, d1, d2, d3}, ctx);
    if (rank == 3) {
      std::swap(ySizes[1], ySizes[2]);
      yMap = AffineMap::get(5, 0, {d0, d2, d1, d3}, ctx);
    }
    Value y = buildGeneric(
        rewriter, loc,
        filledTensor(rewriter, loc, ySizes, yAcc,
                     scalarConst(rewriter, loc, yAcc, 0.0)),
        ValueRange{probs, v},
        {AffineMap::get(5, 0, {d0, d1, d2, d4}, ctx),
         AffineMap::get(5, 0, {d0, kvHead, d4, d3}, ctx), yMap},
        {par, par, par, par, red},
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value product =
              b.create<arith::MulFOp>(nloc, promoteHalf(b, nloc, args[0]),
                                      promoteHalf(b, nloc, args[1]));
          return b.create<arith::AddFOp>(nloc, args[2], product);
        });
    y = convertTensor(rewriter, loc, y, element);

    SmallVector<Value> results;
    RankedTensorType yType = convertedResultType(*getTypeConverter(), op, 0);
    if (!yType)
      return failure();
    if (rank == 3) {
      SmallVector<OpFoldResult> sizes = {ySizes[0], ySizes[1]};
      std::optional<int64_t> h = getConstantIntValue(ySizes[2]);
      std::optional<int64_t> e = getConstantIntValue(ySizes[3]);
      if (h && e)
        sizes.push_back(rewriter.getIndexAttr(*h * *e));
      else
        sizes.push_back(rewriter
                            .create<arith::MulIOp>(
                                loc, toValue(rewriter, loc, ySizes[2]),
                                toValue(rewriter, loc, ySizes[3]))
                            .getResult());
      y = reshapeTo(rewriter, loc, y, yType, sizes);
    }
    results.push_back(castIfNeeded(rewriter, loc, y, yType));

    auto pushOptional = [&](unsigned i, Value value) -> LogicalResult {
      if (llvm::isa<NoneType>(op->getResult(i).getType())) {
        results.push_back(nullptr);
        return success();
      }
      RankedTensorType type = convertedResultType(*getTypeConverter(), op, i);
      if (!type)
        return failure();
      results.push_back(castIfNeeded(rewriter, loc, value, type));
      return success();
    };
    if (failed(pushOptional(1, k)) || failed(pushOptional(2, v)))
      return failure();
    Value qkOutput;
    if (!llvm::isa<NoneType>(op->getResult(3).getType())) {
      if (mode == 3)
        qkOutput = probs;
      else
        qkOutput = convertTensor(rewriter, loc, mode == 2 ? biased : scores,
                                 element);
    }
    if (failed(pushOptional(3, qkOutput)))
      return failure();
    rewriter.replaceOp(op, results);
    return success();
  }

  /// The additive bias [batch, q_heads, q_len, total_len] in `acc`: the
  /// mask, the causal and sliding-window frontiers, and kv padding.
  FailureOr<Value> buildBias(ConversionPatternRewriter &rewriter,
                             onnx::AttentionOp op, OpAdaptor adaptor,
                             ArrayRef<OpFoldResult> sizes, Type acc,
                             bool hasPast, bool hasNonpad) const {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value mask = adaptor.getAttnMask();
    bool hasMask = !isNoneValue(mask);
    bool boolMask = false;
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    if (hasMask) {
      auto maskType = llvm::dyn_cast<RankedTensorType>(mask.getType());
      if (!maskType || maskType.getRank() < 1 || maskType.getRank() > 4)
        return op.emitError() << "attn_mask must have rank 1 to 4";
      boolMask = maskType.getElementType().isInteger(1);
      if (!boolMask && !isElementKind(onnxElementType(op.getAttnMask()), kFloat))
        return op.emitError() << "attn_mask must be bool or float";
      int64_t maskRank = maskType.getRank();
      // Pad the last dim up to the total kv length (-inf / false).
      std::optional<int64_t> total = getConstantIntValue(sizes[3]);
      int64_t last = maskType.getDimSize(maskRank - 1);
      if (total && !ShapedType::isDynamic(last) && last != *total) {
        if (last > *total)
          return op.emitError() << "attn_mask's last dim " << last
                                << " exceeds the total kv length " << *total;
        Type maskElement = maskType.getElementType();
        Value padValue =
            boolMask ? rewriter.create<arith::ConstantOp>(
                           loc, rewriter.getBoolAttr(false))
                           .getResult()
                     : scalarConst(rewriter, loc, maskElement,
                                   -std::numeric_limits<double>::infinity());
        SmallVector<OpFoldResult> padded = tensorSizes(rewriter, loc, mask);
        padded.back() = rewriter.getIndexAttr(*total);
        Value init = filledTensor(rewriter, loc, padded, maskElement, padValue);
        SmallVector<OpFoldResult> zeros(maskRank, rewriter.getIndexAttr(0));
        SmallVector<OpFoldResult> ones(maskRank, rewriter.getIndexAttr(1));
        mask = rewriter.create<tensor::InsertSliceOp>(
            loc, mask, init, zeros, tensorSizes(rewriter, loc, mask), ones);
        maskType = llvm::cast<RankedTensorType>(mask.getType());
      }
      SmallVector<AffineExpr> exprs;
      for (int64_t d = 0; d < maskRank; ++d) {
        int64_t iterDim = 4 - maskRank + d;
        std::optional<int64_t> iterSize = getConstantIntValue(sizes[iterDim]);
        if (maskType.getDimSize(d) == 1 && (!iterSize || *iterSize != 1))
          exprs.push_back(getAffineConstantExpr(0, ctx));
        else
          exprs.push_back(getAffineDimExpr(iterDim, ctx));
      }
      inputs.push_back(mask);
      maps.push_back(AffineMap::get(4, 0, exprs, ctx));
    }
    Value nonpad = adaptor.getNonpadKvSeqlen();
    if (hasNonpad) {
      auto nonpadType = llvm::dyn_cast<RankedTensorType>(nonpad.getType());
      if (!nonpadType || nonpadType.getRank() != 1 ||
          !nonpadType.getElementType().isInteger(64))
        return op.emitError() << "nonpad_kv_seqlen must be a 1-D int64 tensor";
      inputs.push_back(nonpad);
      maps.push_back(AffineMap::get(4, 0, getAffineDimExpr(0, ctx), ctx));
    }
    bool causal = op.getIsCausal() != 0;
    int64_t left = op.getLeftWindowSize(), right = op.getRightWindowSize();
    bool window = left >= 0 || right >= 0;
    Value pastLen;
    if (hasPast)
      pastLen = dimValue(rewriter, loc, adaptor.getPastKey(), 2);
    Value qLen = toValue(rewriter, loc, sizes[2]);

    SmallVector<int64_t> shape;
    for (OpFoldResult size : sizes) {
      std::optional<int64_t> cst = getConstantIntValue(size);
      shape.push_back(cst ? *cst : ShapedType::kDynamic);
    }
    return buildParallelGeneric(
        rewriter, loc, RankedTensorType::get(shape, acc), sizes, inputs, maps,
        [&](OpBuilder &b, Location nloc, ValueRange args) -> Value {
          Value zero = scalarConst(b, nloc, acc, 0.0);
          Value negInf = scalarConst(b, nloc, acc,
                                     -std::numeric_limits<double>::infinity());
          auto blockUnless = [&](Value allowed, Value base) -> Value {
            return b.create<arith::AddFOp>(
                nloc, base,
                b.create<arith::SelectOp>(nloc, allowed, zero, negInf));
          };
          Value bias = zero;
          unsigned next = 0;
          if (hasMask) {
            Value m = args[next++];
            bias = boolMask ? b.create<arith::SelectOp>(nloc, m, zero, negInf)
                                  .getResult()
                            : castScalar(b, nloc, promoteHalf(b, nloc, m),
                                         computeType(m.getType()), acc);
          }
          Value i = b.create<linalg::IndexOp>(nloc, 2);
          Value j = b.create<linalg::IndexOp>(nloc, 3);
          Value seqLen;
          if (hasNonpad)
            seqLen = b.create<arith::IndexCastOp>(nloc, b.getIndexType(),
                                                  args[next++]);
          if (causal || window) {
            // Query i sits at absolute position i + offset.
            Value offset;
            if (hasPast)
              offset = pastLen;
            else if (hasNonpad)
              offset = b.create<arith::SubIOp>(nloc, seqLen, qLen);
            else
              offset = indexConst(b, nloc, 0);
            Value pos = b.create<arith::AddIOp>(nloc, i, offset);
            if (causal)
              bias = blockUnless(b.create<arith::CmpIOp>(
                                     nloc, arith::CmpIPredicate::sle, j, pos),
                                 bias);
            if (window) {
              Value diff = b.create<arith::SubIOp>(nloc, pos, j);
              if (left >= 0)
                bias = blockUnless(
                    b.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::sle,
                                            diff, indexConst(b, nloc, left)),
                    bias);
              if (right >= 0)
                bias = blockUnless(
                    b.create<arith::CmpIOp>(
                        nloc, arith::CmpIPredicate::sle,
                        b.create<arith::SubIOp>(nloc, indexConst(b, nloc, 0),
                                                diff),
                        indexConst(b, nloc, right)),
                    bias);
            }
          }
          if (hasNonpad)
            bias = blockUnless(b.create<arith::CmpIOp>(
                                   nloc, arith::CmpIPredicate::slt, j, seqLen),
                               bias);
          return bias;
        });
  }
};

} // namespace

void populateAttentionPatterns(const TypeConverter &typeConverter,
                               RewritePatternSet &patterns) {
  patterns.add<AttentionLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
