//===- Reduction.cpp - Shape rules of reductions, ArgMax/ArgMin, TopK -----===//
//
// The ReduceX ops take their axes as an optional input (from a constant or a
// known shape computation). Reduced dims become 1 (keepdims) or disappear.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

/// The dims of `shape` with the `reduced` ones set to 1 or dropped.
SmallVector<int64_t> reduceDims(ArrayRef<int64_t> shape,
                                const llvm::SmallBitVector &reduced,
                                bool keepDims) {
  SmallVector<int64_t> result;
  for (auto [i, dim] : llvm::enumerate(shape)) {
    if (!reduced[i])
      result.push_back(dim);
    else if (keepDims)
      result.push_back(1);
  }
  return result;
}

/// ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare.
LogicalResult inferReduce(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  Type element = ctx.getInputElementType(0);
  bool keepDims = ctx.getIntAttr("keepdims", 1) != 0;
  bool noopWithEmptyAxes = ctx.getIntAttr("noop_with_empty_axes", 0) != 0;

  std::optional<SmallVector<int64_t>> axes;
  if (!ctx.hasInput(1)) {
    axes = SmallVector<int64_t>();
  } else {
    if (ctx.getInputRank(1) != 1)
      return ctx.emitError() << "axes must be 1-D, got " << ctx.getInputType(1);
    axes = ctx.getKnownInts(1);
    if (!axes && ctx.getStaticLength(1) == 0)
      axes = SmallVector<int64_t>();
  }
  if (!axes) {
    // Which dims are reduced is only known at run time.
    SmallVector<int64_t> result;
    if (keepDims) {
      for (int64_t dim : shape)
        result.push_back(dim == 1 ? 1 : kDynamic);
    } else {
      std::optional<int64_t> count = ctx.getStaticLength(1);
      if (!count)
        return success();
      if (*count == 0 && noopWithEmptyAxes)
        result.assign(shape.begin(), shape.end());
      else
        result.assign(std::max<int64_t>(rank - *count, 0), kDynamic);
    }
    ctx.setResult(0, element, result);
    return success();
  }
  if (axes->empty()) {
    llvm::SmallBitVector reduced(rank, !noopWithEmptyAxes);
    ctx.setResult(0, element, reduceDims(shape, reduced, keepDims));
    return success();
  }
  llvm::SmallBitVector reduced(rank);
  for (int64_t axis : *axes) {
    FailureOr<int64_t> normalized = ctx.normalizeAxis(axis, rank, "axes value");
    if (failed(normalized))
      return failure();
    if (reduced[*normalized])
      return ctx.emitError() << "axis " << axis << " is repeated in axes";
    reduced.set(*normalized);
  }
  ctx.setResult(0, element, reduceDims(shape, reduced, keepDims));
  return success();
}

/// ArgMax, ArgMin: i64 indices along one axis.
LogicalResult inferArgReduce(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  FailureOr<int64_t> axis =
      ctx.normalizeAxis(ctx.getIntAttr("axis", 0), shape.size());
  if (failed(axis))
    return failure();
  llvm::SmallBitVector reduced(shape.size());
  reduced.set(*axis);
  ctx.setResult(0, IntegerType::get(ctx.getOp()->getContext(), 64),
                reduceDims(shape, reduced, ctx.getIntAttr("keepdims", 1) != 0));
  return success();
}

/// TopK: Values and i64 Indices with K elements along the axis.
LogicalResult inferTopK(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  FailureOr<int64_t> axis =
      ctx.normalizeAxis(ctx.getIntAttr("axis", -1), shape.size());
  if (failed(axis))
    return failure();
  if (ctx.getInputRank(1) > 1)
    return ctx.emitError() << "K must be a one-element tensor, got "
                           << ctx.getInputType(1);
  SmallVector<int64_t> result(shape);
  result[*axis] = kDynamic;
  if (std::optional<int64_t> k = ctx.getKnownScalar(1)) {
    if (*k < 0 || (!ShapedType::isDynamic(shape[*axis]) && *k > shape[*axis]))
      return ctx.emitError() << "K = " << *k << " is out of range for axis "
                             << *axis << " of size " << shape[*axis];
    result[*axis] = *k;
  }
  ctx.setResult(0, ctx.getInputElementType(0), result);
  ctx.setResult(1, IntegerType::get(ctx.getOp()->getContext(), 64), result);
  return success();
}

} // namespace

void addReductionRules(RuleTable &rules) {
  for (StringRef name : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                         "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                         "ReduceLogSumExp", "ReduceSumSquare"})
    rules.add(name, inferReduce, 1);
  rules.add("ArgMax", inferArgReduce);
  rules.add("ArgMin", inferArgReduce);
  rules.add("TopK", inferTopK);
}

} // namespace onnxc::shape
