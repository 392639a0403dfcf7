//===- Attention.cpp - Shape rule of the Attention op ---------------------===//
//
// Attention (opset 23+) takes Q, K, V as 4-D [batch, heads, seq, head_size]
// tensors, or 3-D [batch, seq, heads * head_size] ones with q_num_heads and
// kv_num_heads attributes. Y has Q's form with V's head size; the KV cache
// outputs have past + current sequence length. LinearAttention (opset 27)
// takes the 3-D form only and returns its recurrent state.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

int64_t mul(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) ? kDynamic
                                                              : a * b;
}

/// `size / parts`, dynamic when either is unknown.
int64_t divide(int64_t size, int64_t parts) {
  return ShapedType::isDynamic(size) || ShapedType::isDynamic(parts) ||
                 parts == 0
             ? kDynamic
             : size / parts;
}

/// The [batch, heads, seq, head_size] view of a Q/K/V operand.
struct HeadsView {
  int64_t batch, heads, seq, headSize;
};

FailureOr<HeadsView> getHeadsView(RuleContext &ctx, unsigned i,
                                  int64_t numHeads, StringRef what) {
  ArrayRef<int64_t> shape = ctx.getInputShape(i);
  if (shape.size() == 4)
    return HeadsView{shape[0], shape[1], shape[2], shape[3]};
  if (shape.size() == 3) {
    if (!ShapedType::isDynamic(numHeads) && numHeads > 0 &&
        !ShapedType::isDynamic(shape[2]) && shape[2] % numHeads != 0) {
      ctx.emitError() << what << " hidden size " << shape[2]
                      << " is not divisible by " << numHeads << " heads";
      return failure();
    }
    return HeadsView{shape[0], numHeads, shape[1], divide(shape[2], numHeads)};
  }
  ctx.emitError() << what << " must be 3-D or 4-D, got " << ctx.getInputType(i);
  return failure();
}

LogicalResult inferAttention(RuleContext &ctx) {
  int64_t qHeads = ctx.getIntAttr("q_num_heads", kDynamic);
  int64_t kvHeads = ctx.getIntAttr("kv_num_heads", kDynamic);
  bool is3d = ctx.getInputRank(0) == 3;
  if (is3d && (ShapedType::isDynamic(qHeads) || ShapedType::isDynamic(kvHeads)))
    return ctx.emitError() << "3-D inputs need q_num_heads and kv_num_heads";
  FailureOr<HeadsView> q = getHeadsView(ctx, 0, qHeads, "Q");
  FailureOr<HeadsView> k = getHeadsView(ctx, 1, kvHeads, "K");
  FailureOr<HeadsView> v = getHeadsView(ctx, 2, kvHeads, "V");
  if (failed(q) || failed(k) || failed(v))
    return failure();
  if (!ShapedType::isDynamic(q->headSize) &&
      !ShapedType::isDynamic(k->headSize) && q->headSize != k->headSize)
    return ctx.emitError() << "Q and K head sizes differ (" << q->headSize
                           << " vs " << k->headSize << ")";
  int64_t total = k->seq, past = 0;
  if (ctx.hasInput(4)) {
    ArrayRef<int64_t> pastKey = ctx.getInputShape(4);
    if (pastKey.size() != 4)
      return ctx.emitError()
             << "past_key must be 4-D, got " << ctx.getInputType(4);
    past = pastKey[2];
    total = ShapedType::isDynamic(past) || ShapedType::isDynamic(total)
                ? kDynamic
                : past + total;
  }
  Type element = ctx.getInputElementType(0);
  if (is3d)
    ctx.setResult(0, element, {q->batch, q->seq, mul(q->heads, v->headSize)});
  else
    ctx.setResult(0, element, {q->batch, q->heads, q->seq, v->headSize});
  ctx.setResult(1, element, {k->batch, k->heads, total, k->headSize});
  ctx.setResult(2, element, {v->batch, v->heads, total, v->headSize});
  ctx.setResult(3, element, {q->batch, q->heads, q->seq, total});
  return success();
}

/// LinearAttention: query [B, T, Hq * dk], key [B, T, Hkv * dk], value
/// [B, T, Hkv * dv] -> output [B, T, Hq * dv] and present_state
/// [B, Hkv, dk, dv] (past_state's type, else query's).
LogicalResult inferLinearAttention(RuleContext &ctx) {
  int64_t qHeads = ctx.getIntAttr("q_num_heads", 0);
  int64_t kvHeads = ctx.getIntAttr("kv_num_heads", 0);
  if (qHeads <= 0 || kvHeads <= 0 || qHeads % kvHeads != 0)
    return ctx.emitError() << "q_num_heads (" << qHeads
                           << ") must be a positive multiple of kv_num_heads ("
                           << kvHeads << ")";
  FailureOr<HeadsView> q = getHeadsView(ctx, 0, qHeads, "query");
  FailureOr<HeadsView> k = getHeadsView(ctx, 1, kvHeads, "key");
  FailureOr<HeadsView> v = getHeadsView(ctx, 2, kvHeads, "value");
  if (failed(q) || failed(k) || failed(v))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (ctx.getInputRank(i) != 3)
      return ctx.emitError() << "query, key and value must be rank 3 [B, T, "
                                "H * D], got "
                             << ctx.getInputType(i);
  Type stateElement = ctx.getInputElementType(0);
  if (ctx.hasInput(3)) {
    if (ctx.getInputRank(3) != 4)
      return ctx.emitError()
             << "past_state must be rank 4, got " << ctx.getInputType(3);
    stateElement = ctx.getInputElementType(3);
  }
  ctx.setResult(0, ctx.getInputElementType(0),
                {q->batch, q->seq, mul(qHeads, v->headSize)});
  ctx.setResult(1, stateElement, {q->batch, kvHeads, q->headSize, v->headSize});
  return success();
}

} // namespace

void addAttentionRules(RuleTable &rules) {
  rules.add("Attention", inferAttention, 3);
  rules.add("LinearAttention", inferLinearAttention, 3);
}

} // namespace onnxc::shape
