//===- MatMul.cpp - Shape rules of MatMul and Gemm ------------------------===//
//
// MatMul follows numpy.matmul: a 1-D operand is promoted to a matrix (and the
// added dim dropped from the result), batch dims broadcast. Gemm multiplies
// two (optionally transposed) matrices and adds a C broadcast to the result.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

bool staticMismatch(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

/// MatMul and MatMulInteger (whose result is i32).
template <bool isInteger> LogicalResult inferMatMul(RuleContext &ctx) {
  ArrayRef<int64_t> a = ctx.getInputShape(0), b = ctx.getInputShape(1);
  if (a.empty() || b.empty())
    return ctx.emitError() << "operands must have rank >= 1, got "
                           << ctx.getInputType(0) << " and "
                           << ctx.getInputType(1);
  if (!isInteger && ctx.getInputElementType(0) != ctx.getInputElementType(1))
    return ctx.emitError() << "input element types differ: "
                           << ctx.getInputElementType(0) << " and "
                           << ctx.getInputElementType(1);
  SmallVector<int64_t> lhs(a), rhs(b);
  if (a.size() == 1)
    lhs.insert(lhs.begin(), 1);
  if (b.size() == 1)
    rhs.push_back(1);
  int64_t k1 = lhs.back(), k2 = rhs[rhs.size() - 2];
  if (staticMismatch(k1, k2))
    return ctx.emitError() << "inner dimensions differ: "
                           << ctx.getInputType(0) << " and "
                           << ctx.getInputType(1);
  SmallVector<int64_t> shape;
  if (!broadcastShapes(ArrayRef(lhs).drop_back(2), ArrayRef(rhs).drop_back(2),
                       shape))
    return ctx.emitError() << "cannot broadcast the batch dims of "
                           << ctx.getInputType(0) << " and "
                           << ctx.getInputType(1);
  if (a.size() > 1)
    shape.push_back(lhs[lhs.size() - 2]);
  if (b.size() > 1)
    shape.push_back(rhs.back());
  Type element = isInteger ? Type(IntegerType::get(ctx.getOp()->getContext(), 32))
                           : ctx.getInputElementType(0);
  ctx.setResult(0, element, shape);
  return success();
}

/// Gemm: Y[M, N] = alpha * A' * B' + beta * C.
LogicalResult inferGemm(RuleContext &ctx) {
  ArrayRef<int64_t> a = ctx.getInputShape(0), b = ctx.getInputShape(1);
  if (a.size() != 2 || b.size() != 2)
    return ctx.emitError() << "A and B must be matrices, got "
                           << ctx.getInputType(0) << " and "
                           << ctx.getInputType(1);
  if (ctx.getInputElementType(0) != ctx.getInputElementType(1))
    return ctx.emitError() << "input element types differ: "
                           << ctx.getInputElementType(0) << " and "
                           << ctx.getInputElementType(1);
  bool transA = ctx.getIntAttr("transA", 0) != 0;
  bool transB = ctx.getIntAttr("transB", 0) != 0;
  int64_t m = transA ? a[1] : a[0], k1 = transA ? a[0] : a[1];
  int64_t k2 = transB ? b[1] : b[0], n = transB ? b[0] : b[1];
  if (staticMismatch(k1, k2))
    return ctx.emitError() << "inner dimensions differ (" << k1 << " vs "
                           << k2 << ") for A " << ctx.getInputType(0)
                           << " and B " << ctx.getInputType(1)
                           << " with transA = " << transA
                           << ", transB = " << transB;
  SmallVector<int64_t> shape = {m, n};
  if (ctx.hasInput(2)) {
    ArrayRef<int64_t> c = ctx.getInputShape(2);
    SmallVector<int64_t> broadcast;
    // C broadcasts to [M, N] (unidirectionally): its static non-1 dims must
    // match and may refine a dynamic M or N.
    if (c.size() > 2 || !broadcastShapes(shape, c, broadcast) ||
        broadcast.size() != 2 || (c.size() == 2 && c[0] != 1 &&
                                  !ShapedType::isDynamic(c[0]) && m == 1) ||
        (!c.empty() && c.back() != 1 && !ShapedType::isDynamic(c.back()) &&
         n == 1))
      return ctx.emitError() << "C " << ctx.getInputType(2)
                             << " does not broadcast to the result "
                             << RankedTensorType::get(
                                    shape, ctx.getInputElementType(0));
    shape = broadcast;
  }
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

} // namespace

void addMatMulRules(RuleTable &rules) {
  rules["onnx.MatMul"] = inferMatMul<false>;
  rules["onnx.MatMulInteger"] = inferMatMul<true>;
  rules["onnx.Gemm"] = inferGemm;
}

} // namespace onnxc::shape
