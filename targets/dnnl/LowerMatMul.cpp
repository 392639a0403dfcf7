//===- LowerMatMul.cpp - MatMul / Gemm and their fused forms as oneDNN ----===//
//
// f32 onnx.MatMul, onnx.Gemm, onnxc.FusedMatMul and onnxc.FusedGemm with
// operands of rank >= 2 become one call of onnxc_dnnl_matmul_f32: numpy
// batch broadcasting, Gemm's transposes, alpha as the output scale, the bias
// (Gemm's C, FusedMatMul's bias) as a broadcast binary post-op, then the
// activation. Gemm's beta must be 1 when C is present (oneDNN's binary
// post-op has no scale). Constant B is reordered once by the call site's
// cache.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/RuntimeCall.h"
#include "targets/dnnl/DnnlCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;

namespace onnxc::dnnl {
namespace {

// Must match runtime/dnnl/DnnlRuntime.h.
enum : int32_t {
  kTransA = 1,
  kTransB = 2,
  kHasBias = 4,
  kConstantB = 8,
};

struct MatMulView {
  Value a, b, bias;
  float alpha = 1.0f, beta = 1.0f;
  bool transA = false, transB = false;
};

template <typename GemmOp> MatMulView viewGemm(GemmOp g) {
  return MatMulView{g.getA(),
                    g.getB(),
                    g.getC(),
                    g.getAlpha().convertToFloat(),
                    g.getBeta().convertToFloat(),
                    g.getTransA() != 0,
                    g.getTransB() != 0};
}

std::optional<MatMulView> viewMatMul(Operation *op) {
  if (auto m = llvm::dyn_cast<onnx::MatMulOp>(op))
    return MatMulView{m.getA(), m.getB(), Value()};
  if (auto m = llvm::dyn_cast<fused::FusedMatMulOp>(op))
    return MatMulView{m.getA(), m.getB(), m.getBias(),
                      m.getAlpha().convertToFloat()};
  if (auto g = llvm::dyn_cast<onnx::GemmOp>(op))
    return viewGemm(g);
  if (auto g = llvm::dyn_cast<fused::FusedGemmOp>(op))
    return viewGemm(g);
  return std::nullopt;
}

/// Y's sizes: the batch dims broadcast from A's and B's, then M and N.
SmallVector<OpFoldResult> resultSizes(OpBuilder &b, Location loc,
                                      const MatMulView &mm,
                                      RankedTensorType y) {
  SmallVector<OpFoldResult> a = cpu::mixedDims(b, loc, mm.a);
  SmallVector<OpFoldResult> bd = cpu::mixedDims(b, loc, mm.b);
  int64_t rank = y.getRank();
  SmallVector<OpFoldResult> sizes(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (!y.isDynamicDim(d)) {
      sizes[d] = b.getIndexAttr(y.getDimSize(d));
      continue;
    }
    if (d == rank - 2) {
      sizes[d] = a[a.size() - (mm.transA ? 1 : 2)];
    } else if (d == rank - 1) {
      sizes[d] = bd[bd.size() - (mm.transB ? 2 : 1)];
    } else {
      // Batch dim d counted from the end in each operand; a missing one
      // broadcasts, and of two the larger is the result (the other is 1,
      // or equal: a mismatch is the runtime's error).
      int64_t fromEnd = rank - d;
      auto dimOf = [&](llvm::ArrayRef<OpFoldResult> dims) -> Value {
        if ((int64_t)dims.size() < fromEnd)
          return Value();
        return getValueOrCreateConstantIndexOp(b, loc,
                                               dims[dims.size() - fromEnd]);
      };
      Value x = dimOf(a), z = dimOf(bd);
      sizes[d] =
          x && z ? OpFoldResult(b.create<arith::MaxSIOp>(loc, x, z).getResult())
          : x    ? OpFoldResult(x)
                 : OpFoldResult(z);
    }
  }
  return sizes;
}

/// The run-time checks of dims only known then, with the cpu lowering's
/// messages (the glue would refuse the call too, but could not say which
/// dims differ).
void checkDims(OpBuilder &b, Location loc, const MatMulView &mm) {
  int64_t ra = llvm::cast<RankedTensorType>(mm.a.getType()).getRank();
  int64_t rb = llvm::cast<RankedTensorType>(mm.b.getType()).getRank();
  int64_t batchRank = std::max(ra, rb) - 2;
  for (int64_t j = 0; j < batchRank; ++j) {
    int64_t ai = j - (batchRank - (ra - 2)), bi = j - (batchRank - (rb - 2));
    if (ai >= 0 && bi >= 0)
      cpu::reportDimMismatch(b, loc, mm.a, ai, mm.b, bi, /*broadcasts=*/true,
                             cpu::ShapeErrorKind::Broadcast);
  }
  cpu::reportDimMismatch(b, loc, mm.a, mm.transA ? ra - 2 : ra - 1, mm.b,
                         mm.transB ? rb - 1 : rb - 2, /*broadcasts=*/false,
                         cpu::ShapeErrorKind::InnerDims);
}

} // namespace

std::optional<Claim> claimMatMul(Operation *op) {
  std::optional<MatMulView> mm = viewMatMul(op);
  if (!mm)
    return std::nullopt;
  RankedTensorType a = f32Tensor(mm->a), b = f32Tensor(mm->b),
                   y = f32Tensor(op->getResult(0));
  if (!a || !b || !y)
    return Claim::refuse("not f32 with ranked shapes");
  if (a.getRank() < 2 || b.getRank() < 2)
    return Claim::refuse("a 1-D operand (a matrix-vector product)");
  if (!isAbsent(mm->bias)) {
    RankedTensorType bias = f32Tensor(mm->bias);
    if (!bias || bias.getRank() > y.getRank())
      return Claim::refuse("the bias is not an f32 tensor that broadcasts "
                           "to Y");
    if (mm->beta != 1.0f)
      return Claim::refuse("Gemm's beta is not 1");
  }
  if (!hasKnownActivation(op))
    return Claim::refuse("an activation the fused ops do not define");
  return Claim::take();
}

LogicalResult lowerMatMul(Operation *op, DnnlCallBuilder &calls) {
  MatMulView mm = *viewMatMul(op);
  OpBuilder b(op);
  Location loc = op->getLoc();
  checkDims(b, loc, mm);
  auto yType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  Value buffer =
      calls.allocResult(b, loc, yType, resultSizes(b, loc, mm, yType));
  bool hasBias = !isAbsent(mm.bias);
  int32_t flags = (mm.transA ? kTransA : 0) | (mm.transB ? kTransB : 0) |
                  (hasBias ? kHasBias : 0) |
                  (mm.b.getDefiningOp<onnx::ConstantOp>() ? kConstantB : 0);
  Value a = calls.tensorArgument(b, loc, mm.a);
  auto f32c = [&](float v) -> Value {
    return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
  };
  SmallVector<Value> args = {
      calls.slot(b, loc), a, calls.tensorArgument(b, loc, mm.b),
      hasBias ? calls.tensorArgument(b, loc, mm.bias) : a,
      calls.resultArgument(b, loc, buffer),
      b.create<arith::ConstantIntOp>(loc, flags, 32), f32c(mm.alpha),
      // No post-op activation (hasKnownActivation says why).
      b.create<arith::ConstantIntOp>(loc, 0, 32), f32c(0.0f), f32c(0.0f)};
  calls.callAndReplace(b, op, "onnxc_dnnl_matmul_f32", args, buffer);
  return success();
}

} // namespace onnxc::dnnl
