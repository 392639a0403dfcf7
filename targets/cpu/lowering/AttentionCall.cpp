//===- AttentionCall.cpp - f32 Attention as a runtime kernel call ---------===//
//
// onnx.Attention on 4-D f32 Q, K, V ([batch, heads, seq, size]) becomes one
// call of the runtime's attention kernel (runtime/cpu/TransformerOps.c,
// kernels/Transformer.h): per (batch, head, block of query rows) a strided
// GEMM for the scores, the mask and softmax on the block while it is in
// cache, and a GEMM with V into Y; grouped heads read K/V head h / group.
// A Q, K or V that is an onnx.Transpose with perm [0, 2, 1, 3] (heads split
// from [batch, seq, heads, size], as exporters write attention) is read
// through strides from the transpose's input, so the copy is never used.
//
// The kernel follows the op's reference: scale defaults to 1/sqrt(size);
// an f32 attn_mask broadcasts onto [batch, heads, q_len, kv_len] and is
// padded with -inf when shorter than kv_len; a row whose mask is all -inf
// gives zeros. The pattern fails to match (leaving the op to the linalg
// form, Attention.cpp) for other element types, 3-D inputs, boolean masks,
// past key/value, nonpad_kv_seqlen, is_causal, sliding windows, softcap, a
// softmax precision other than float, the present/qk outputs, static shapes
// that disagree, and when the callee was not declared (static mode).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"
#include "targets/cpu/lowering/RuntimeCall.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;

namespace onnxc::cpu {
namespace {

// Must match runtime/cpu/CpuRuntime.h.
enum : int32_t {
  kAttentionMask = 8,
  kQSeqMajor = 16,
  kKSeqMajor = 32,
  kVSeqMajor = 64
};

bool sameOrDynamic(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// The [batch, seq, heads, size] tensor `value` transposes (perm [0, 2, 1,
/// 3]) when it is such an onnx.Transpose of f32, else null.
Value seqMajorSource(ConversionPatternRewriter &rewriter, Value value) {
  auto transpose = value.getDefiningOp<onnx::TransposeOp>();
  if (!transpose)
    return {};
  std::optional<ArrayAttr> perm = transpose.getPerm();
  if (!perm || getI64Array(*perm, 4, 0) != SmallVector<int64_t>{0, 2, 1, 3})
    return {};
  Value source = rewriter.getRemappedValue(transpose->getOperand(0));
  auto type = llvm::dyn_cast_if_present<RankedTensorType>(
      source ? source.getType() : Type());
  return type && type.getRank() == 4 && type.getElementType().isF32() ? source
                                                                      : Value();
}

struct AttentionCall : OpConversionPattern<onnx::AttentionOp> {
  AttentionCall(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(onnx::AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto f32Of = [](Value v) {
      auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
      return type && type.getElementType().isF32() && type.getRank() == 4
                 ? type
                 : RankedTensorType();
    };
    RankedTensorType q = f32Of(adaptor.getQ()), k = f32Of(adaptor.getK()),
                     v = f32Of(adaptor.getV()), y = f32Of(op.getY());
    if (!q || !k || !v || !y)
      return rewriter.notifyMatchFailure(op, "not 4-D f32 Q, K, V");
    if (!isNoneValue(adaptor.getPastKey()) ||
        !isNoneValue(adaptor.getPastValue()) ||
        !isNoneValue(adaptor.getNonpadKvSeqlen()))
      return rewriter.notifyMatchFailure(op, "past or nonpad inputs");
    for (unsigned i = 1; i < op->getNumResults(); ++i)
      if (!llvm::isa<NoneType>(op->getResult(i).getType()))
        return rewriter.notifyMatchFailure(op, "present or qk outputs");
    if (op.getIsCausal() != 0 || op.getSoftcap().convertToDouble() != 0.0 ||
        op.getLeftWindowSize() >= 0 || op.getRightWindowSize() >= 0)
      return rewriter.notifyMatchFailure(op, "causal, window or softcap");
    if (std::optional<int64_t> precision = op.getSoftmaxPrecision();
        precision && *precision != 1)
      return rewriter.notifyMatchFailure(op, "softmax precision");
    // Shapes: [B, Hq, Sq, D] x [B, Hkv, Skv, D] x [B, Hkv, Skv, Dv].
    bool shapesAgree = sameOrDynamic(q.getDimSize(0), k.getDimSize(0)) &&
                       sameOrDynamic(k.getDimSize(0), v.getDimSize(0)) &&
                       sameOrDynamic(k.getDimSize(1), v.getDimSize(1)) &&
                       sameOrDynamic(k.getDimSize(2), v.getDimSize(2)) &&
                       sameOrDynamic(q.getDimSize(3), k.getDimSize(3)) &&
                       sameOrDynamic(y.getDimSize(0), q.getDimSize(0)) &&
                       sameOrDynamic(y.getDimSize(1), q.getDimSize(1)) &&
                       sameOrDynamic(y.getDimSize(2), q.getDimSize(2)) &&
                       sameOrDynamic(y.getDimSize(3), v.getDimSize(3));
    int64_t qHeads = q.getDimSize(1), kvHeads = k.getDimSize(1);
    if (!shapesAgree || ShapedType::isDynamic(qHeads) ||
        ShapedType::isDynamic(kvHeads) || kvHeads == 0 || qHeads % kvHeads != 0)
      return rewriter.notifyMatchFailure(op, "shapes");
    Value mask = adaptor.getAttnMask();
    bool hasMask = !isNoneValue(mask);
    if (hasMask) {
      auto maskType = llvm::dyn_cast<RankedTensorType>(mask.getType());
      if (!maskType || !maskType.getElementType().isF32() ||
          maskType.getRank() < 1 || maskType.getRank() > 4)
        return rewriter.notifyMatchFailure(op, "mask is not an f32 tensor");
      int64_t len = maskType.getDimSize(maskType.getRank() - 1);
      int64_t kvLen = k.getDimSize(2);
      if (!ShapedType::isDynamic(len) && !ShapedType::isDynamic(kvLen) &&
          len > kvLen)
        return rewriter.notifyMatchFailure(op, "mask longer than the keys");
    }
    float scale;
    if (std::optional<APFloat> attr = op.getScale())
      scale = attr->convertToFloat();
    else if (!ShapedType::isDynamic(q.getDimSize(3)) && q.getDimSize(3) > 0)
      scale = static_cast<float>(
          1.0 / std::sqrt(static_cast<double>(q.getDimSize(3))));
    else
      return rewriter.notifyMatchFailure(op, "no scale and dynamic size");
    func::FuncOp callee = lookupRuntimeCallee(op);
    if (!callee)
      return rewriter.notifyMatchFailure(op, "runtime attention not declared");

    Location loc = op.getLoc();
    // Q, K, V: through their heads transpose when they have one (dims 1 and
    // 2 swapped); sizes are read from the tensors passed, so a transpose
    // that is read through keeps no use.
    struct Operand {
      Value tensor;
      bool seqMajor;
      int64_t dim(int64_t d) const {
        return seqMajor && (d == 1 || d == 2) ? 3 - d : d;
      }
    };
    auto operand = [&](Value original, Value converted) {
      if (Value source = seqMajorSource(rewriter, original))
        return Operand{source, true};
      return Operand{converted, false};
    };
    Operand qo = operand(op.getQ(), adaptor.getQ());
    Operand ko = operand(op.getK(), adaptor.getK());
    Operand vo = operand(op.getV(), adaptor.getV());
    auto check = [&](const Operand &x, int64_t xd, const Operand &y,
                     int64_t yd) {
      reportDimMismatch(rewriter, loc, x.tensor, x.dim(xd), y.tensor, y.dim(yd),
                        /*broadcasts=*/false);
    };
    check(qo, 0, ko, 0);
    check(ko, 0, vo, 0);
    check(ko, 1, vo, 1);
    check(ko, 2, vo, 2);
    check(qo, 3, ko, 3);
    if (hasMask) {
      // The mask's leading dims broadcast onto [batch, heads, q_len].
      int64_t maskRank = llvm::cast<RankedTensorType>(mask.getType()).getRank();
      for (int64_t d = 0; d + 1 < maskRank; ++d)
        reportDimMismatch(rewriter, loc, mask, d, qo.tensor,
                          qo.dim(4 - maskRank + d), /*broadcasts=*/true);
    }
    int32_t flags =
        (hasMask ? kAttentionMask : 0) | (qo.seqMajor ? kQSeqMajor : 0) |
        (ko.seqMajor ? kKSeqMajor : 0) | (vo.seqMajor ? kVSeqMajor : 0);
    Value qRef = runtimeCallStridedArgument(rewriter, loc, qo.tensor);
    Value kRef = runtimeCallStridedArgument(rewriter, loc, ko.tensor);
    Value vRef = runtimeCallStridedArgument(rewriter, loc, vo.tensor);
    Value maskRef =
        hasMask ? runtimeCallStridedArgument(rewriter, loc, mask) : qRef;
    SmallVector<OpFoldResult> qDims = mixedDims(rewriter, loc, qo.tensor);
    SmallVector<OpFoldResult> sizes = {qDims[qo.dim(0)], qDims[qo.dim(1)],
                                       qDims[qo.dim(2)],
                                       mixedDims(rewriter, loc, vo.tensor)[3]};
    Value buffer = allocRuntimeResult(rewriter, loc, y, sizes);
    rewriter.create<func::CallOp>(
        loc, callee,
        ValueRange{qRef, kRef, vRef, maskRef,
                   castToDynamicMemref(rewriter, loc, buffer),
                   rewriter.create<arith::ConstantIntOp>(loc, flags, 32),
                   rewriter.create<arith::ConstantOp>(
                       loc, rewriter.getF32FloatAttr(scale))});
    SmallVector<Value> results(op->getNumResults(), Value());
    results[0] = runtimeResultTensor(rewriter, loc, y, buffer);
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateAttentionCallPatterns(const TypeConverter &typeConverter,
                                   RewritePatternSet &patterns) {
  patterns.add<AttentionCall>(typeConverter, patterns.getContext());
}

} // namespace onnxc::cpu
