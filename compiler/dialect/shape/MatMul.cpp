//===- MatMul.cpp - Shape rules of MatMul, Gemm, Einsum -------------------===//
//
// MatMul follows numpy.matmul: a 1-D operand is promoted to a matrix (and the
// added dim dropped from the result), batch dims broadcast. Gemm multiplies
// two (optionally transposed) matrices and adds a C broadcast to the result.
// Also the quantized MatMuls, Einsum and Det.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;

namespace onnxc::shape {
namespace {

bool staticMismatch(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

/// numpy.matmul of operands `lhsIndex` and `rhsIndex` into a result of
/// `element` type.
LogicalResult inferMatMulShape(RuleContext &ctx, unsigned lhsIndex,
                               unsigned rhsIndex, Type element) {
  RankedTensorType lhsType = ctx.getInputType(lhsIndex),
                   rhsType = ctx.getInputType(rhsIndex);
  ArrayRef<int64_t> a = lhsType.getShape(), b = rhsType.getShape();
  if (a.empty() || b.empty())
    return ctx.emitError() << "operands must have rank >= 1, got " << lhsType
                           << " and " << rhsType;
  SmallVector<int64_t> lhs(a), rhs(b);
  if (a.size() == 1)
    lhs.insert(lhs.begin(), 1);
  if (b.size() == 1)
    rhs.push_back(1);
  int64_t k1 = lhs.back(), k2 = rhs[rhs.size() - 2];
  if (staticMismatch(k1, k2))
    return ctx.emitError() << "inner dimensions differ: " << lhsType << " and "
                           << rhsType;
  SmallVector<int64_t> shape;
  if (!broadcastShapes(ArrayRef(lhs).drop_back(2), ArrayRef(rhs).drop_back(2),
                       shape))
    return ctx.emitError() << "cannot broadcast the batch dims of " << lhsType
                           << " and " << rhsType;
  if (a.size() > 1)
    shape.push_back(lhs[lhs.size() - 2]);
  if (b.size() > 1)
    shape.push_back(rhs.back());
  ctx.setResult(0, element, shape);
  return success();
}

LogicalResult inferMatMul(RuleContext &ctx) {
  if (ctx.getInputElementType(0) != ctx.getInputElementType(1))
    return ctx.emitError() << "input element types differ: "
                           << ctx.getInputElementType(0) << " and "
                           << ctx.getInputElementType(1);
  return inferMatMulShape(ctx, 0, 1, ctx.getInputElementType(0));
}

/// MatMulInteger(A, B, a_zero_point, b_zero_point): an i32 result.
LogicalResult inferMatMulInteger(RuleContext &ctx) {
  return inferMatMulShape(ctx, 0, 1,
                          IntegerType::get(ctx.getOp()->getContext(), 32));
}

/// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): the
/// result has y_zero_point's type.
LogicalResult inferQLinearMatMul(RuleContext &ctx) {
  return inferMatMulShape(ctx, 0, 3, ctx.getInputElementType(7));
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
    return ctx.emitError() << "inner dimensions differ (" << k1 << " vs " << k2
                           << ") for A " << ctx.getInputType(0) << " and B "
                           << ctx.getInputType(1) << " with transA = " << transA
                           << ", transB = " << transB;
  SmallVector<int64_t> shape = {m, n};
  if (ctx.hasInput(2)) {
    ArrayRef<int64_t> c = ctx.getInputShape(2);
    SmallVector<int64_t> broadcast;
    // C broadcasts to [M, N] (unidirectionally): its static non-1 dims must
    // match and may refine a dynamic M or N.
    if (c.size() > 2 || !broadcastShapes(shape, c, broadcast) ||
        broadcast.size() != 2 ||
        (c.size() == 2 && c[0] != 1 && !ShapedType::isDynamic(c[0]) &&
         m == 1) ||
        (!c.empty() && c.back() != 1 && !ShapedType::isDynamic(c.back()) &&
         n == 1))
      return ctx.emitError()
             << "C " << ctx.getInputType(2)
             << " does not broadcast to the result "
             << RankedTensorType::get(shape, ctx.getInputElementType(0));
    shape = broadcast;
  }
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

/// Einsum: labels name dims (a label's dims must agree, 1 broadcasts), the
/// ellipsis dims of the inputs broadcast. Without "->" the output is the
/// ellipsis dims and then the labels used once, in ASCII order.
LogicalResult inferEinsum(RuleContext &ctx) {
  std::string equation;
  for (char c : ctx.getStrAttr("equation", ""))
    if (c != ' ')
      equation += c;
  StringRef eq(equation);
  auto [lhs, rhs] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != ctx.getNumInputs())
    return ctx.emitError() << "equation '" << eq << "' has " << terms.size()
                           << " inputs, the node " << ctx.getNumInputs();

  std::map<char, int64_t> labelDims;
  std::map<char, int> labelUses;
  SmallVector<int64_t> ellipsisDims;
  auto mergeLabel = [&](char label, int64_t dim) -> bool {
    auto [it, inserted] = labelDims.try_emplace(label, dim);
    if (inserted)
      return true;
    SmallVector<int64_t> merged;
    if (!broadcastShapes({it->second}, {dim}, merged))
      return false;
    it->second = merged[0];
    return true;
  };
  for (auto [i, term] : llvm::enumerate(terms)) {
    ArrayRef<int64_t> shape = ctx.getInputShape(i);
    size_t dots = term.find("...");
    StringRef before = term.substr(0, dots);
    StringRef after = dots == StringRef::npos ? "" : term.substr(dots + 3);
    size_t labels = before.size() + after.size();
    if (!llvm::all_of(before.str() + after.str(), llvm::isAlpha) ||
        (dots == StringRef::npos ? shape.size() != labels
                                 : shape.size() < labels))
      return ctx.emitError()
             << "term '" << term << "' of the equation does "
             << "not fit input #" << i << " " << ctx.getInputType(i);
    for (auto [j, label] : llvm::enumerate(before)) {
      ++labelUses[label];
      if (!mergeLabel(label, shape[j]))
        return ctx.emitError() << "label '" << label << "' has conflicting "
                               << "sizes";
    }
    for (auto [j, label] : llvm::enumerate(after)) {
      ++labelUses[label];
      if (!mergeLabel(label, shape[shape.size() - after.size() + j]))
        return ctx.emitError() << "label '" << label << "' has conflicting "
                               << "sizes";
    }
    if (dots != StringRef::npos) {
      SmallVector<int64_t> merged;
      if (!broadcastShapes(ellipsisDims,
                           shape.slice(before.size(), shape.size() - labels),
                           merged))
        return ctx.emitError() << "the ellipsis dims of the inputs do not "
                               << "broadcast";
      ellipsisDims = merged;
    }
  }

  SmallVector<int64_t> shape;
  if (!explicitOutput) {
    shape = ellipsisDims;
    for (auto [label, uses] : labelUses)
      if (uses == 1)
        shape.push_back(labelDims[label]);
  } else {
    size_t dots = rhs.find("...");
    for (size_t j = 0; j < rhs.size(); ++j) {
      if (j == dots) {
        shape.append(ellipsisDims.begin(), ellipsisDims.end());
        j += 2;
        continue;
      }
      auto it = labelDims.find(rhs[j]);
      if (it == labelDims.end())
        return ctx.emitError()
               << "output label '" << rhs[j] << "' is not an input label";
      shape.push_back(it->second);
    }
  }
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

/// Det: [*, M, M] -> [*].
LogicalResult inferDet(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  if (x.size() < 2 || staticMismatch(x[x.size() - 1], x[x.size() - 2]))
    return ctx.emitError() << "expects square matrices, got "
                           << ctx.getInputType(0);
  ctx.setResult(0, ctx.getInputElementType(0), x.drop_back(2));
  return success();
}

} // namespace

void addMatMulRules(RuleTable &rules) {
  rules.add("MatMul", inferMatMul);
  rules.add("MatMulInteger", inferMatMulInteger, 2);
  rules.add("QLinearMatMul", inferQLinearMatMul);
  rules.add("Einsum", inferEinsum);
  rules.add("Det", inferDet);
  rules.add("Gemm", inferGemm, 2);
}

} // namespace onnxc::shape
