//===- LinearAttention.cpp - LinearAttention to linalg + scf --------------===//
//
// onnx.LinearAttention (opset 27) is a recurrence over the sequence: a state
// S [B, Hkv, dk, dv] (past_state, or zeros) is updated once per token t,
//   gated:  S = exp(g_t) * S                    (g per head or per key dim)
//   delta:  v_t = beta_t * (v_t - S^T k_t)
//   always: S = S + k_t (x) v_t;   o_t = scale * q_t^T S
// and query head h reads the state of kv head h / (Hq / Hkv). The token loop
// is an scf.for carrying S and the output; each step is a few linalg
// generics on [B, H, ...] slices of the [B, T, H, D] views of the packed
// [B, T, H * D] inputs. Everything is computed in f32 (half floats are
// extended) and rounded once at the end, as the operator's reference does.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

using namespace mlir;

namespace onnxc::cpu {
namespace {

SmallVector<int64_t> shapeOf(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return shape;
}

/// A tensor of `sizes` filled with zeros of `element`.
Value zeros(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
            Type element) {
  Value empty = emptyTensor(
      b, loc, RankedTensorType::get(shapeOf(sizes), element), sizes);
  return b.create<linalg::FillOp>(loc, zeroScalar(b, loc, element), empty)
      .getResult(0);
}

/// One linalg.generic into `init` with `iterators`; the body gets the inputs'
/// elements and the output's and returns the value to yield.
Value buildGeneric(OpBuilder &b, Location loc, Value init, ValueRange inputs,
                   ArrayRef<AffineMap> maps,
                   ArrayRef<utils::IteratorType> iterators,
                   ScalarBodyBuilder body) {
  return b
      .create<linalg::GenericOp>(
          loc, init.getType(), inputs, init, maps, iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            nb.create<linalg::YieldOp>(nloc, body(nb, nloc, args));
          })
      .getResult(0);
}

/// `x` [B, T, H * D] as [B, T, H, D] (H * D static).
Value splitHeads(OpBuilder &b, Location loc, Value x, int64_t heads) {
  auto type = llvm::cast<RankedTensorType>(x.getType());
  int64_t size = type.getDimSize(2) / heads;
  SmallVector<OpFoldResult> sizes = {
      tensorSize(b, loc, x, 0), tensorSize(b, loc, x, 1), b.getIndexAttr(heads),
      b.getIndexAttr(size)};
  return reshapeTo(b, loc, x,
                   RankedTensorType::get(
                       {type.getDimSize(0), type.getDimSize(1), heads, size},
                       type.getElementType()),
                   sizes);
}

/// Token `t` of a [B, T, ...] view: [B, ...].
Value tokenSlice(OpBuilder &b, Location loc, Value view, Value t) {
  auto type = llvm::cast<RankedTensorType>(view.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[1] = t;
  SmallVector<OpFoldResult> sizes = tensorSizes(b, loc, view);
  sizes[1] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + 1);
  return b.create<tensor::ExtractSliceOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), view, offsets,
      sizes, strides);
}

/// `x` with its elements converted by `convert` into a tensor of `element`.
Value mapElements(OpBuilder &b, Location loc, Value x, Type element,
                  ScalarBodyBuilder convert) {
  auto type = llvm::cast<RankedTensorType>(x.getType());
  return buildParallelGeneric(
      b, loc, RankedTensorType::get(type.getShape(), element),
      tensorSizes(b, loc, x), x, {b.getMultiDimIdentityMap(type.getRank())},
      convert);
}

/// Lowers LinearAttention with float inputs and static hidden sizes.
struct LinearAttentionLowering : OpConversionPattern<onnx::LinearAttentionOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(onnx::LinearAttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType outType = convertedResultType(*getTypeConverter(), op, 0);
    RankedTensorType stateType =
        convertedResultType(*getTypeConverter(), op, 1);
    if (!outType || !stateType)
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    Value past = adaptor.getPastState(), decay = adaptor.getDecay(),
          beta = adaptor.getBeta();
    bool hasPast = !isNoneValue(past), hasDecay = !isNoneValue(decay),
         hasBeta = !isNoneValue(beta);

    // Types and ranks.
    Type element = outType.getElementType();
    if (!llvm::isa<FloatType>(element) ||
        !llvm::isa<FloatType>(stateType.getElementType()))
      return rewriter.notifyMatchFailure(op, "expects float tensors");
    auto rank3 = [&](Value x) {
      auto type = llvm::dyn_cast<RankedTensorType>(x.getType());
      return type && type.getRank() == 3 && type.getElementType() == element;
    };
    if (!rank3(q) || !rank3(k) || !rank3(v) || (hasDecay && !rank3(decay)) ||
        (hasBeta && !rank3(beta)))
      return op.emitError("query, key, value, decay and beta must be rank-3 "
                          "[B, T, H * D] tensors of one float type");
    auto hidden = [](Value x) {
      return llvm::cast<RankedTensorType>(x.getType()).getDimSize(2);
    };
    if (ShapedType::isDynamic(hidden(q)) || ShapedType::isDynamic(hidden(k)) ||
        ShapedType::isDynamic(hidden(v)) ||
        (hasDecay && ShapedType::isDynamic(hidden(decay))) ||
        (hasBeta && ShapedType::isDynamic(hidden(beta))))
      return rewriter.notifyMatchFailure(op, "dynamic hidden size");

    // Heads and the update rule.
    int64_t qHeads = op.getQNumHeads(), kvHeads = op.getKvNumHeads();
    if (qHeads <= 0 || kvHeads <= 0 || qHeads % kvHeads != 0)
      return op.emitError() << "q_num_heads (" << qHeads
                            << ") must be a positive multiple of kv_num_heads ("
                            << kvHeads << ")";
    if (hidden(q) % qHeads != 0 || hidden(k) % kvHeads != 0 ||
        hidden(v) % kvHeads != 0)
      return op.emitError("the hidden sizes are not divisible by the heads");
    int64_t groupSize = qHeads / kvHeads;
    int64_t dk = hidden(q) / qHeads, dv = hidden(v) / kvHeads;
    if (hidden(k) != kvHeads * dk)
      return op.emitError() << "key's hidden size " << hidden(k) << " is not "
                            << kvHeads << " heads of " << dk;
    StringRef rule = op.getUpdateRule();
    if (rule != "linear" && rule != "gated" && rule != "delta" &&
        rule != "gated_delta")
      return op.emitError() << "unknown update_rule '" << rule << "'";
    bool gating = rule == "gated" || rule == "gated_delta";
    bool delta = rule == "delta" || rule == "gated_delta";
    if (gating != hasDecay)
      return op.emitError()
             << "update_rule '" << rule << "' "
             << (gating ? "requires" : "forbids") << " the decay input";
    if (delta != hasBeta)
      return op.emitError()
             << "update_rule '" << rule << "' "
             << (delta ? "requires" : "forbids") << " the beta input";
    int64_t decayWidth = 1;
    if (hasDecay) {
      if (hidden(decay) == kvHeads * dk)
        decayWidth = dk;
      else if (hidden(decay) != kvHeads)
        return op.emitError()
               << "decay's last dim " << hidden(decay)
               << " must be kv_num_heads (" << kvHeads
               << ") or kv_num_heads * d_k (" << kvHeads * dk << ")";
    }
    if (hasBeta && hidden(beta) != kvHeads && hidden(beta) != 1)
      return op.emitError() << "beta's last dim " << hidden(beta)
                            << " must be kv_num_heads (" << kvHeads << ") or 1";
    // Batch and sequence sizes must agree where they are static (a dynamic
    // one is assumed equal, as shape inference does).
    for (Value x : {k, v, decay, beta}) {
      if (isNoneValue(x))
        continue;
      auto xType = llvm::cast<RankedTensorType>(x.getType());
      auto qType = llvm::cast<RankedTensorType>(q.getType());
      for (int64_t d = 0; d < 2; ++d)
        if (!xType.isDynamicDim(d) && !qType.isDynamicDim(d) &&
            xType.getDimSize(d) != qType.getDimSize(d))
          return op.emitError()
                 << "the inputs disagree on the "
                 << (d == 0 ? "batch" : "sequence") << " size ("
                 << qType.getDimSize(d) << " vs " << xType.getDimSize(d) << ")";
    }
    if (hasPast) {
      auto pastType = llvm::dyn_cast<RankedTensorType>(past.getType());
      int64_t expected[] = {kvHeads, dk, dv};
      if (!pastType || pastType.getRank() != 4 ||
          !llvm::isa<FloatType>(pastType.getElementType()) ||
          llvm::any_of(llvm::zip(pastType.getShape().drop_front(), expected),
                       [](auto pair) {
                         auto [got, want] = pair;
                         return !ShapedType::isDynamic(got) && got != want;
                       }))
        return op.emitError() << "past_state must be [B, " << kvHeads << ", "
                              << dk << ", " << dv << "]";
    }
    double scale = op.getScale().convertToDouble();
    if (scale == 0.0)
      scale = 1.0 / std::sqrt(static_cast<double>(dk));

    // [B, T, H, D] views; beta stays [B, T, Hb].
    Type f32 = rewriter.getF32Type();
    Value qv = splitHeads(rewriter, loc, q, qHeads);
    Value kv = splitHeads(rewriter, loc, k, kvHeads);
    Value vv = splitHeads(rewriter, loc, v, kvHeads);
    Value gv = hasDecay ? splitHeads(rewriter, loc, decay, kvHeads) : Value();
    OpFoldResult batch = tensorSize(rewriter, loc, q, 0);
    OpFoldResult seqLen = tensorSize(rewriter, loc, q, 1);
    auto idx = [&](int64_t v) -> OpFoldResult {
      return rewriter.getIndexAttr(v);
    };
    SmallVector<OpFoldResult> stateSizes = {batch, idx(kvHeads), idx(dk),
                                            idx(dv)};
    Value state =
        hasPast
            ? mapElements(rewriter, loc, past, f32,
                          [](OpBuilder &b, Location l, ValueRange args) {
                            return castScalar(b, l, args[0], args[0].getType(),
                                              b.getF32Type());
                          })
            : zeros(rewriter, loc, stateSizes, f32);
    state = castIfNeeded(rewriter, loc, state,
                         RankedTensorType::get(shapeOf(stateSizes), f32));
    SmallVector<OpFoldResult> outSizes = {batch, seqLen, idx(qHeads), idx(dv)};
    Value output = emptyTensor(
        rewriter, loc, RankedTensorType::get(shapeOf(outSizes), f32), outSizes);

    AffineExpr d0, d1, d2, d3;
    bindDims(ctx, d0, d1, d2, d3);
    auto par = utils::IteratorType::parallel;
    auto red = utils::IteratorType::reduction;
    auto map = [&](ArrayRef<AffineExpr> exprs) {
      return AffineMap::get(4, 0, exprs, ctx);
    };
    auto map3 = [&](ArrayRef<AffineExpr> exprs) {
      return AffineMap::get(3, 0, exprs, ctx);
    };
    AffineMap id4 = rewriter.getMultiDimIdentityMap(4);
    SmallVector<utils::IteratorType> parallel4(4, par);
    Value cZero = rewriter.create<arith::ConstantIndexOp>(loc, 0);
    Value cOne = rewriter.create<arith::ConstantIndexOp>(loc, 1);
    Value steps = toValue(rewriter, loc, seqLen);

    auto loop = rewriter.create<scf::ForOp>(
        loc, cZero, steps, cOne, ValueRange{state, output},
        [&](OpBuilder &b, Location l, Value t, ValueRange iter) {
          Value s = iter[0], out = iter[1];
          Value qt = tokenSlice(b, l, qv, t); // [B, Hq, dk]
          Value kt = tokenSlice(b, l, kv, t); // [B, Hkv, dk]
          Value vt = tokenSlice(b, l, vv, t); // [B, Hkv, dv]
          auto ext = [&](OpBuilder &nb, Location nl, Value x) {
            return castScalar(nb, nl, x, x.getType(), nb.getF32Type());
          };
          // The state is updated in place (it is the generics' init), so the
          // loop carries one buffer.
          // S *= exp(g_t), broadcast over dv (and dk for per-head decay).
          if (gating) {
            Value gt = tokenSlice(b, l, gv, t); // [B, Hkv, 1 or dk]
            s = buildGeneric(
                b, l, s, gt,
                {map({d0, d1,
                      decayWidth == 1 ? b.getAffineConstantExpr(0) : d2}),
                 id4},
                parallel4,
                [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                  Value g = nb.create<math::ExpOp>(nl, ext(nb, nl, args[0]));
                  return nb.create<arith::MulFOp>(nl, args[1], g);
                });
          }
          // v_t = beta_t * (v_t - S^T k_t).
          Value update = vt;
          if (delta) {
            SmallVector<OpFoldResult> sizes = {batch, idx(kvHeads), idx(dv)};
            // retrieved[b, h, m] = sum_d S[b, h, d, m] * k[b, h, d]
            Value retrieved = buildGeneric(
                b, l, zeros(b, l, sizes, f32), ValueRange{s, kt},
                {map({d0, d1, d3, d2}), map({d0, d1, d3}), map({d0, d1, d2})},
                {par, par, par, red},
                [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                  Value p = nb.create<arith::MulFOp>(nl, args[0],
                                                     ext(nb, nl, args[1]));
                  return nb.create<arith::AddFOp>(nl, args[2], p);
                });
            Value bt = tokenSlice(b, l, beta, t); // [B, Hkv or 1]
            AffineExpr betaHead =
                hidden(beta) == 1 ? b.getAffineConstantExpr(0) : d1;
            update = buildParallelGeneric(
                b, l, RankedTensorType::get(shapeOf(sizes), f32), sizes,
                ValueRange{vt, retrieved, bt},
                {map3({d0, d1, d2}), map3({d0, d1, d2}), map3({d0, betaHead})},
                [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                  Value diff = nb.create<arith::SubFOp>(
                      nl, ext(nb, nl, args[0]), args[1]);
                  return nb.create<arith::MulFOp>(nl, ext(nb, nl, args[2]),
                                                  diff);
                });
          }
          // S += k_t (x) v_t.
          s = buildGeneric(
              b, l, s, ValueRange{kt, update},
              {map({d0, d1, d2}), map({d0, d1, d3}), id4}, parallel4,
              [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                Value outer = nb.create<arith::MulFOp>(nl, ext(nb, nl, args[0]),
                                                       ext(nb, nl, args[1]));
                return nb.create<arith::AddFOp>(nl, args[2], outer);
              });
          // o_t[b, h, m] = sum_d q[b, h, d] * S[b, h / group, d, m]; the
          // scale is applied when the output is rounded.
          AffineExpr kvHead = groupSize == 1 ? d1 : d1.floorDiv(groupSize);
          SmallVector<OpFoldResult> oSizes = {batch, idx(qHeads), idx(dv)};
          Value ot = buildGeneric(
              b, l, zeros(b, l, oSizes, f32), ValueRange{qt, s},
              {map({d0, d1, d3}), map({d0, kvHead, d3, d2}), map({d0, d1, d2})},
              {par, par, par, red},
              [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                Value p =
                    nb.create<arith::MulFOp>(nl, ext(nb, nl, args[0]), args[1]);
                return nb.create<arith::AddFOp>(nl, args[2], p);
              });
          SmallVector<OpFoldResult> offsets = {idx(0), t, idx(0), idx(0)};
          SmallVector<OpFoldResult> sliceSizes = {batch, idx(1), idx(qHeads),
                                                  idx(dv)};
          out = b.create<tensor::InsertSliceOp>(
              l, ot, out, offsets, sliceSizes,
              SmallVector<OpFoldResult>(4, idx(1)));
          b.create<scf::YieldOp>(l, ValueRange{s, out});
        });

    // Scale and round the output; pack the heads back; round the state.
    Value scaled =
        mapElements(rewriter, loc, loop.getResult(1), element,
                    [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                      Value x = b.create<arith::MulFOp>(
                          l, args[0], scalarConst(b, l, b.getF32Type(), scale));
                      return castScalar(b, l, x, x.getType(), element);
                    });
    Value packed = rewriter.create<tensor::CollapseShapeOp>(
        loc, scaled, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
    Type stateElement = stateType.getElementType();
    Value present = mapElements(
        rewriter, loc, loop.getResult(0), stateElement,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return castScalar(b, l, args[0], args[0].getType(), stateElement);
        });
    rewriter.replaceOp(op, {castIfNeeded(rewriter, loc, packed, outType),
                            castIfNeeded(rewriter, loc, present, stateType)});
    return success();
  }
};

} // namespace

void populateLinearAttentionPatterns(const TypeConverter &typeConverter,
                                     RewritePatternSet &patterns) {
  patterns.add<LinearAttentionLowering>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
