//===- LowerNormalization.cpp - Batch and layer norm as oneDNN primitives -===//
//
// LayerNormalization over the last dim with [D] scale and bias (only Y
// read) becomes onnxc_dnnl_layernorm_f32. Other axes, broadcast scales and
// the Mean/InvStdDev outputs stay with the cpu, and so does every
// BatchNormalization: on ONNX's NCHW layout oneDNN 2.6 runs it in a plain
// loop (ncsp_bnorm) several times slower than the cpu's elementwise loop,
// which also fuses it with its neighbours (docs/internals.md has the
// numbers; the glue keeps its batchnorm entry, tested, for operands in
// oneDNN's own layouts).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/dnnl/DnnlCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace onnxc::dnnl {
namespace {

// Must match runtime/dnnl/DnnlRuntime.h.
enum : int32_t { kLayerNormBias = 1 };

bool onlyFirstResultRead(Operation *op) {
  return llvm::all_of(op->getResults().drop_front(),
                      [](Value r) { return r.use_empty(); });
}

bool isF32Vector(Value value) {
  RankedTensorType type = f32Tensor(value);
  return type && type.getRank() == 1;
}

Claim claimLayerNorm(onnx::LayerNormalizationOp op) {
  RankedTensorType x = f32Tensor(op.getX());
  if (!x || !f32Tensor(op.getY()) || x.getRank() < 1)
    return Claim::refuse("not f32 of rank >= 1");
  int64_t axis = op.getAxis();
  if (axis != -1 && axis != x.getRank() - 1)
    return Claim::refuse("it normalizes more than the last dim");
  if (!onlyFirstResultRead(op))
    return Claim::refuse("its Mean or InvStdDev output is read");
  if (!isF32Vector(op.getScale()) ||
      (!isAbsent(op.getB()) && !isF32Vector(op.getB())))
    return Claim::refuse("the scale or bias is not an f32 [D] tensor");
  return Claim::take();
}

Value f32Constant(OpBuilder &b, Location loc, float value) {
  return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(value));
}

void lowerLayerNorm(onnx::LayerNormalizationOp op, DnnlCallBuilder &calls) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto yType = llvm::cast<RankedTensorType>(op.getY().getType());
  Value buffer =
      calls.allocResult(b, loc, yType, cpu::mixedDims(b, loc, op.getX()));
  bool hasBias = !isAbsent(op.getB());
  Value x = calls.tensorArgument(b, loc, op.getX());
  // Absent bias: X again, never read (the flag says so).
  SmallVector<Value> args = {
      calls.slot(b, loc),
      x,
      calls.tensorArgument(b, loc, op.getScale()),
      hasBias ? calls.tensorArgument(b, loc, op.getB()) : x,
      calls.resultArgument(b, loc, buffer),
      b.create<arith::ConstantIntOp>(loc, hasBias ? kLayerNormBias : 0, 32),
      f32Constant(b, loc, op.getEpsilon().convertToFloat())};
  calls.callAndReplace(b, op, "onnxc_dnnl_layernorm_f32", args, buffer);
}

} // namespace

std::optional<Claim> claimNormalization(Operation *op) {
  if (llvm::isa<onnx::BatchNormalizationOp>(op))
    return Claim::refuse("oneDNN 2.6 normalizes NCHW batches in a plain "
                         "loop, slower than the cpu's elementwise one");
  if (auto ln = llvm::dyn_cast<onnx::LayerNormalizationOp>(op))
    return claimLayerNorm(ln);
  return std::nullopt;
}

LogicalResult lowerNormalization(Operation *op, DnnlCallBuilder &calls) {
  lowerLayerNorm(llvm::cast<onnx::LayerNormalizationOp>(op), calls);
  return success();
}

} // namespace onnxc::dnnl
