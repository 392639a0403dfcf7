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
// onnx.QLinearMatMul and onnx.MatMulInteger (what ONNX Runtime's static and
// dynamic quantizers write) with int8 B whose zero point is a constant of
// zeros become onnxc_dnnl_qlinear_matmul: oneDNN's int8 matmul with the
// requantization as output scales (QLinearMatMul) or an int32 Y
// (MatMulInteger), and A's zero point passed at run time.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/RuntimeCall.h"
#include "targets/dnnl/DnnlCalls.h"
#include "targets/dnnl/QuantizedOperands.h"

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
enum : int32_t {
  kQuantizedASigned = 1,
  kQuantizedYSigned = 2,
  kQuantizedConstantB = 4,
  kQuantizedAZero = 8,
  kQuantizedBZero = 16,
  kQuantizedYZero = 32,
  kQuantizedInteger = 64
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

/// QLinearMatMul's operands; MatMulInteger's with null scales and Y zero
/// point.
struct QuantizedMatMulView {
  Value a, aScale, aZero, b, bScale, bZero, yScale, yZero;
  bool integer;
};

std::optional<QuantizedMatMulView> viewQuantizedMatMul(Operation *op) {
  if (auto m = llvm::dyn_cast<onnx::QLinearMatMulOp>(op))
    return QuantizedMatMulView{
        m.getA(),      m.getAScale(),     m.getAZeroPoint(),
        m.getB(),      m.getBScale(),     m.getBZeroPoint(),
        m.getYScale(), m.getYZeroPoint(), false};
  if (auto m = llvm::dyn_cast<onnx::MatMulIntegerOp>(op))
    return QuantizedMatMulView{m.getA(), Value(), m.getAZeroPoint(),
                               m.getB(), Value(), m.getBZeroPoint(),
                               Value(),  Value(), true};
  return std::nullopt;
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

std::optional<Claim> claimQuantizedMatMul(Operation *op) {
  std::optional<QuantizedMatMulView> mm = viewQuantizedMatMul(op);
  if (!mm)
    return std::nullopt;
  RankedTensorType a = int8Tensor(mm->a), b = int8Tensor(mm->b);
  auto y = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!a || !b || !y)
    return Claim::refuse("A and B are not 8-bit with ranked shapes");
  if (!y.getElementType().isInteger(mm->integer ? 32 : 8))
    return Claim::refuse(mm->integer ? "Y is not int32" : "Y is not 8-bit");
  if (a.getRank() < 2 || b.getRank() < 2)
    return Claim::refuse("a 1-D operand (a matrix-vector product)");
  if (b.getElementType().isUnsignedInteger() || !hasZeroWeightPoints(mm->bZero))
    return Claim::refuse("oneDNN's int8 matmul takes int8 B with a constant "
                         "zero point of 0 only");
  if (!isAbsent(mm->aZero) && !isZeroPointOf(mm->aZero, a))
    return Claim::refuse("A's zero point is not one element of its type");
  if (mm->integer)
    return Claim::take();
  int64_t columns =
      b.isDynamicDim(b.getRank() - 1) ? 0 : b.getDimSize(b.getRank() - 1);
  if (!isF32Scale(mm->aScale, 0) || !isF32Scale(mm->yScale, 0) ||
      !isF32Scale(mm->bScale, columns))
    return Claim::refuse("the scales are not f32 of one element (one per "
                         "column for B's)");
  if (!isAbsent(mm->yZero) && !isZeroPointOf(mm->yZero, y))
    return Claim::refuse("Y's zero point is not one element of its type");
  return Claim::take();
}

LogicalResult lowerQuantizedMatMul(Operation *op, DnnlCallBuilder &calls) {
  QuantizedMatMulView q = *viewQuantizedMatMul(op);
  OpBuilder b(op);
  Location loc = op->getLoc();
  // Index ops (dims) must read the signless values.
  MatMulView mm{signlessTensor(b, loc, q.a), signlessTensor(b, loc, q.b),
                Value()};
  checkDims(b, loc, mm);
  auto yType = llvm::cast<RankedTensorType>(op->getResult(0).getType());
  Value buffer =
      calls.allocResult(b, loc, yType, resultSizes(b, loc, mm, yType));
  auto isSigned = [](Value v) {
    return !llvm::cast<RankedTensorType>(v.getType())
                .getElementType()
                .isUnsignedInteger();
  };
  int32_t flags =
      (isSigned(q.a) ? kQuantizedASigned : 0) |
      (!q.integer && isSigned(op->getResult(0)) ? kQuantizedYSigned : 0) |
      (q.b.getDefiningOp<onnx::ConstantOp>() ? kQuantizedConstantB : 0) |
      (isAbsent(q.aZero) ? 0 : kQuantizedAZero) |
      (isAbsent(q.bZero) ? 0 : kQuantizedBZero) |
      (q.integer || isAbsent(q.yZero) ? 0 : kQuantizedYZero) |
      (q.integer ? kQuantizedInteger : 0);
  Value a = calls.tensorArgument(b, loc, mm.a);
  // Absent operands (MatMulInteger's scales, a zero point): A again, never
  // read (the flags say so). The scales are f32: an absent one is passed
  // as a one-element f32 placeholder, the callee has one signature.
  auto zeroPoint = [&](Value v) {
    return isAbsent(v) ? a : calls.tensorArgument(b, loc, v);
  };
  Value noScale;
  auto scale = [&](Value v) {
    if (v)
      return calls.tensorArgument(b, loc, v);
    if (!noScale) {
      auto type = RankedTensorType::get({1}, b.getF32Type());
      noScale = calls.tensorArgument(
          b, loc,
          b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(type, 1.0f)));
    }
    return noScale;
  };
  SmallVector<Value> args = {calls.slot(b, loc),
                             a,
                             scale(q.aScale),
                             zeroPoint(q.aZero),
                             calls.tensorArgument(b, loc, mm.b),
                             scale(q.bScale),
                             zeroPoint(q.bZero),
                             scale(q.yScale),
                             zeroPoint(q.integer ? Value() : q.yZero),
                             calls.resultArgument(b, loc, buffer),
                             b.create<arith::ConstantIntOp>(loc, flags, 32)};
  calls.callAndReplace(b, op, "onnxc_dnnl_qlinear_matmul", args, buffer);
  return success();
}

} // namespace onnxc::dnnl
