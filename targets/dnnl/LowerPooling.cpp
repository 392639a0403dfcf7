//===- LowerPooling.cpp - MaxPool and AveragePool as oneDNN pooling -------===//
//
// f32 2-D NCHW MaxPool (without its Indices output) and AveragePool become
// onnxc_dnnl_pool2d_f32 with the window resolved as the cpu lowering does
// (ceil_mode shows in Y's size, from which the runtime derives the end
// pads).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/WindowUtils.h"
#include "targets/dnnl/DnnlCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace onnxc::dnnl {
namespace {

// Must match runtime/dnnl/DnnlRuntime.h.
enum : int32_t { kMax = 0, kAverageIncludePad = 1, kAverageExcludePad = 2 };

struct PoolView {
  Value x;
  int32_t kind;
  ArrayAttr kernel;
  std::optional<ArrayAttr> strides, dilations, pads;
  StringRef autoPad;
  bool ceilMode;
};

std::optional<PoolView> viewPool(Operation *op) {
  if (auto p = llvm::dyn_cast<onnx::MaxPoolOp>(op))
    return PoolView{p.getX(),           kMax,
                    p.getKernelShape(), p.getStrides(),
                    p.getDilations(),   p.getPads(),
                    p.getAutoPad(),     p.getCeilMode() != 0};
  if (auto p = llvm::dyn_cast<onnx::AveragePoolOp>(op))
    return PoolView{p.getX(),
                    p.getCountIncludePad() ? kAverageIncludePad
                                           : kAverageExcludePad,
                    p.getKernelShape(),
                    p.getStrides(),
                    p.getDilations(),
                    p.getPads(),
                    p.getAutoPad(),
                    p.getCeilMode() != 0};
  return std::nullopt;
}

FailureOr<SmallVector<cpu::WindowDim>> resolve(OpBuilder &b, Operation *op,
                                               const PoolView &pool) {
  ScopedDiagnosticHandler silence(op->getContext(),
                                  [](Diagnostic &) { return success(); });
  SmallVector<int64_t> kernel;
  for (Attribute k : pool.kernel)
    kernel.push_back(llvm::cast<IntegerAttr>(k).getInt());
  return cpu::resolveWindow(
      b, op, pool.x, kernel, pool.strides, pool.dilations, pool.pads,
      pool.autoPad, pool.ceilMode, /*clampAutoPad=*/false,
      llvm::cast<RankedTensorType>(op->getResult(0).getType()));
}

std::optional<Claim> claimPool(Operation *op) {
  std::optional<PoolView> pool = viewPool(op);
  if (!pool)
    return std::nullopt;
  RankedTensorType x = f32Tensor(pool->x), y = f32Tensor(op->getResult(0));
  if (!x || !y)
    return Claim::refuse("not f32 with ranked shapes");
  if (x.getRank() != 4 || pool->kernel.size() != 2)
    return Claim::refuse("not a 2-D pooling");
  if (op->getNumResults() > 1 && !op->getResult(1).use_empty())
    return Claim::refuse("MaxPool's Indices output is read");
  if (pool->kind == kAverageIncludePad && pool->ceilMode)
    return Claim::refuse("ceil_mode with count_include_pad: oneDNN would "
                         "count the ceiling's extra padding");
  // SAME padding of a kernel shorter than its stride starts windows inside
  // the input (negative pads), which oneDNN does not take.
  if (pool->autoPad.starts_with("SAME")) {
    std::optional<ArrayAttr> strides = pool->strides;
    for (auto [d, k] : llvm::enumerate(pool->kernel)) {
      int64_t stride = strides && d < strides->size()
                           ? llvm::cast<IntegerAttr>((*strides)[d]).getInt()
                           : 1;
      if (llvm::cast<IntegerAttr>(k).getInt() < stride)
        return Claim::refuse("auto_pad SAME with a kernel shorter than its "
                             "stride (negative pads)");
    }
  }
  OpBuilder b(op->getContext());
  Block scratch;
  b.setInsertionPointToStart(&scratch);
  bool resolved = succeeded(resolve(b, op, *pool));
  for (Operation &probe : llvm::make_early_inc_range(llvm::reverse(scratch)))
    probe.erase();
  if (!resolved)
    return Claim::refuse("the window attributes do not resolve");
  return Claim::take();
}

LogicalResult lowerPool(Operation *op, DnnlCallBuilder &calls) {
  PoolView pool = *viewPool(op);
  OpBuilder b(op);
  Location loc = op->getLoc();
  FailureOr<SmallVector<cpu::WindowDim>> window = resolve(b, op, pool);
  if (failed(window))
    return op->emitError("the dnnl target claimed a pooling it cannot lower");
  auto yType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<OpFoldResult> xDims = cpu::mixedDims(b, loc, pool.x);
  Value buffer = calls.allocResult(
      b, loc, yType,
      {xDims[0], xDims[1], (*window)[0].output, (*window)[1].output});
  auto i64 = [&](OpFoldResult v) { return i64Argument(b, loc, v); };
  auto i64c = [&](int64_t v) { return i64(b.getIndexAttr(v)); };
  const cpu::WindowDim &h = (*window)[0], &w = (*window)[1];
  SmallVector<Value> args = {calls.slot(b, loc),
                             calls.tensorArgument(b, loc, pool.x),
                             calls.resultArgument(b, loc, buffer),
                             b.create<arith::ConstantIntOp>(loc, pool.kind, 32),
                             i64c(h.kernel),
                             i64c(w.kernel),
                             i64(h.padBegin),
                             i64(w.padBegin),
                             i64c(h.stride),
                             i64c(w.stride),
                             i64c(h.dilation),
                             i64c(w.dilation)};
  calls.callAndReplace(b, op, "onnxc_dnnl_pool2d_f32", args, buffer);
  return success();
}

} // namespace

std::optional<Claim> claimPooling(Operation *op) { return claimPool(op); }

LogicalResult lowerPooling(Operation *op, DnnlCallBuilder &calls) {
  return lowerPool(op, calls);
}

} // namespace onnxc::dnnl
