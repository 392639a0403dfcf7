//===- Indexing.cpp - Shape rules of Concat, Split, Gather, Slice, ... ----===//
//
// Ops that select or join parts of tensors. Concat, Split, Gather and Slice
// also move the known elements of small integer tensors (the middle of
// Shape -> Gather/Slice -> Concat -> Reshape chains).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

/// The known elements of a 0-D/1-D operand, or all-unknown elements when its
/// length is static and nothing is tracked.
std::optional<KnownInts> getElementsOrUnknown(RuleContext &ctx, unsigned i) {
  if (const KnownInts *known = ctx.getKnown(i))
    return *known;
  ArrayRef<int64_t> shape = ctx.getInputShape(i);
  if (shape.size() > 1)
    return std::nullopt;
  int64_t length = shape.empty() ? 1 : shape[0];
  if (ShapedType::isDynamic(length) || length > kMaxKnownElements)
    return std::nullopt;
  return KnownInts(length, IntElem::unknown());
}

//===----------------------------------------------------------------------===//
// Concat, Split
//===----------------------------------------------------------------------===//

LogicalResult inferConcat(RuleContext &ctx) {
  unsigned count = ctx.getNumInputs();
  if (count == 0)
    return ctx.emitError() << "expects at least one input";
  RankedTensorType first = ctx.getInputType(0);
  int64_t rank = first.getRank();
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.getIntAttr("axis", 0), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (unsigned i = 1; i < count; ++i) {
    RankedTensorType type = ctx.getInputType(i);
    if (type.getElementType() != first.getElementType() ||
        type.getRank() != rank)
      return ctx.emitError() << "input #" << i << " " << type
                             << " does not match the rank and element type "
                                "of input #0 "
                             << first;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t dim = type.getDimSize(d);
      if (d == *axis) {
        shape[d] = ShapedType::isDynamic(shape[d]) || ShapedType::isDynamic(dim)
                       ? kDynamic
                       : shape[d] + dim;
      } else if (ShapedType::isDynamic(shape[d])) {
        shape[d] = dim;
      } else if (!ShapedType::isDynamic(dim) && dim != shape[d]) {
        return ctx.emitError() << "input #" << i << " " << type
                               << " differs from the other inputs in dim " << d
                               << " (" << shape[d] << ")";
      }
    }
  }
  ctx.setResult(0, first.getElementType(), shape);
  if (rank == 1 && isTrackedIntType(first.getElementType())) {
    KnownInts known;
    for (unsigned i = 0; i < count; ++i) {
      std::optional<KnownInts> elements = getElementsOrUnknown(ctx, i);
      if (!elements)
        return success();
      known.append(elements->begin(), elements->end());
    }
    ctx.setKnown(0, std::move(known));
  }
  return success();
}

LogicalResult inferSplit(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  FailureOr<int64_t> axis =
      ctx.normalizeAxis(ctx.getIntAttr("axis", 0), shape.size());
  if (failed(axis))
    return failure();
  int64_t count = ctx.getNumResults();
  int64_t dim = shape[*axis];
  SmallVector<int64_t> sizes(count, kDynamic);
  if (ctx.hasInput(1)) {
    if (ctx.getInputRank(1) != 1)
      return ctx.emitError()
             << "split must be 1-D, got " << ctx.getInputType(1);
    std::optional<int64_t> length = ctx.getStaticLength(1);
    if (length && *length != count)
      return ctx.emitError()
             << "split has " << *length << " sizes for " << count << " outputs";
    if (std::optional<SmallVector<int64_t>> split = ctx.getKnownInts(1)) {
      int64_t sum = 0;
      for (int64_t size : *split) {
        if (size < 0)
          return ctx.emitError() << "negative split size " << size;
        sum += size;
      }
      if (!ShapedType::isDynamic(dim) && sum != dim)
        return ctx.emitError()
               << "split sizes add up to " << sum << ", not the size " << dim
               << " of axis " << *axis;
      sizes = *split;
    }
  } else if (auto numOutputs =
                 ctx.getOp()->getAttrOfType<IntegerAttr>("num_outputs")) {
    int64_t n = numOutputs.getValue().getSExtValue();
    if (n != count)
      return ctx.emitError() << "num_outputs is " << n << " but the node has "
                             << count << " outputs";
    if (!ShapedType::isDynamic(dim)) {
      // Chunks of ceil(dim / n); the last one takes the rest.
      int64_t chunk = (dim + n - 1) / n;
      if (chunk * (n - 1) > dim)
        return ctx.emitError() << "cannot split a dim of size " << dim
                               << " into " << n << " outputs";
      sizes.assign(n, chunk);
      sizes.back() = dim - chunk * (n - 1);
    }
  } else if (!ShapedType::isDynamic(dim)) {
    if (dim % count != 0)
      return ctx.emitError() << "cannot split a dim of size " << dim
                             << " evenly into " << count << " outputs";
    sizes.assign(count, dim / count);
  }
  const KnownInts *known = shape.size() == 1 ? ctx.getKnown(0) : nullptr;
  int64_t offset = 0;
  for (int64_t i = 0; i < count; ++i) {
    SmallVector<int64_t> result(shape);
    result[*axis] = sizes[i];
    ctx.setResult(i, ctx.getInputElementType(0), result);
    if (!known || ShapedType::isDynamic(sizes[i]))
      known = nullptr;
    else if (offset + sizes[i] <= int64_t(known->size())) {
      ctx.setKnown(i, KnownInts(known->begin() + offset,
                                known->begin() + offset + sizes[i]));
      offset += sizes[i];
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Gather, GatherElements, GatherND
//===----------------------------------------------------------------------===//

LogicalResult inferGather(RuleContext &ctx) {
  ArrayRef<int64_t> data = ctx.getInputShape(0), indices = ctx.getInputShape(1);
  if (data.empty())
    return ctx.emitError() << "cannot gather from a 0-D tensor";
  if (!llvm::isa<IntegerType>(ctx.getInputElementType(1)))
    return ctx.emitError() << "indices must be integers, got "
                           << ctx.getInputType(1);
  FailureOr<int64_t> axis =
      ctx.normalizeAxis(ctx.getIntAttr("axis", 0), data.size());
  if (failed(axis))
    return failure();
  int64_t dim = data[*axis];
  std::optional<SmallVector<int64_t>> knownIndices = ctx.getKnownInts(1);
  if (knownIndices && !ShapedType::isDynamic(dim))
    for (int64_t index : *knownIndices)
      if (index < -dim || index >= dim)
        return ctx.emitError()
               << "index " << index << " is out of range for axis " << *axis
               << " of size " << dim;
  SmallVector<int64_t> shape(data.take_front(*axis));
  shape.append(indices.begin(), indices.end());
  shape.append(data.begin() + *axis + 1, data.end());
  ctx.setResult(0, ctx.getInputElementType(0), shape);

  if (data.size() != 1 || !isTrackedIntType(ctx.getInputElementType(0)) ||
      shape.size() > 1)
    return success();
  const KnownInts *known = ctx.getKnown(0);
  if (knownIndices && known) {
    KnownInts result;
    int64_t size = known->size();
    for (int64_t index : *knownIndices) {
      if (index < 0)
        index += size;
      if (index < 0 || index >= size)
        return success();
      result.push_back((*known)[index]);
    }
    ctx.setKnown(0, std::move(result));
  }
  return success();
}

/// GatherElements: the shape of the indices, the data's element type.
LogicalResult inferGatherElements(RuleContext &ctx) {
  if (ctx.getInputRank(0) != ctx.getInputRank(1))
    return ctx.emitError() << "data " << ctx.getInputType(0) << " and indices "
                           << ctx.getInputType(1) << " must have the same rank";
  if (failed(ctx.normalizeAxis(ctx.getIntAttr("axis", 0), ctx.getInputRank(0))))
    return failure();
  ctx.setResult(0, ctx.getInputElementType(0), ctx.getInputShape(1));
  return success();
}

/// GatherND: indices[:-1] + data[batch_dims + indices[-1]:].
LogicalResult inferGatherND(RuleContext &ctx) {
  ArrayRef<int64_t> data = ctx.getInputShape(0), indices = ctx.getInputShape(1);
  int64_t batchDims = ctx.getIntAttr("batch_dims", 0);
  if (indices.empty() || data.empty() || batchDims < 0)
    return ctx.emitError() << "data and indices must have rank >= 1";
  int64_t last = indices.back();
  if (ShapedType::isDynamic(last))
    return success();
  if (batchDims + last > int64_t(data.size()))
    return ctx.emitError() << "indices address " << last
                           << " dims beyond the batch dims of "
                           << ctx.getInputType(0);
  SmallVector<int64_t> shape(indices.drop_back());
  shape.append(data.begin() + batchDims + last, data.end());
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

//===----------------------------------------------------------------------===//
// Slice
//===----------------------------------------------------------------------===//

/// The number of elements Slice takes from a dim of `size` (ONNX clamping).
int64_t sliceLength(int64_t size, int64_t start, int64_t end, int64_t step) {
  if (size == 0)
    return 0;
  if (start < 0)
    start += size;
  if (end < 0)
    end += size;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, 0, size);
    return end <= start ? 0 : (end - start + step - 1) / step;
  }
  start = std::clamp<int64_t>(start, 0, size - 1);
  end = std::clamp<int64_t>(end, -1, size - 1);
  return start <= end ? 0 : (start - end - step - 1) / -step;
}

LogicalResult inferSlice(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  if (ctx.getInputRank(1) != 1 || ctx.getInputRank(2) != 1)
    return ctx.emitError() << "starts and ends must be 1-D";
  std::optional<int64_t> count = ctx.getStaticLength(1);
  if (!count)
    count = ctx.getStaticLength(2);
  std::optional<int64_t> endCount = ctx.getStaticLength(2);
  if (count && endCount && *count != *endCount)
    return ctx.emitError() << "starts has " << *count << " elements, ends "
                           << *endCount;

  SmallVector<int64_t> axes;
  if (ctx.hasInput(3)) {
    std::optional<SmallVector<int64_t>> known = ctx.getKnownInts(3);
    if (!known) {
      // Which dims are sliced is only known at run time.
      ctx.setResult(0, ctx.getInputElementType(0),
                    SmallVector<int64_t>(rank, kDynamic));
      return success();
    }
    llvm::SmallBitVector seen(rank);
    for (int64_t axis : *known) {
      FailureOr<int64_t> normalized =
          ctx.normalizeAxis(axis, rank, "axes value");
      if (failed(normalized))
        return failure();
      if (seen[*normalized])
        return ctx.emitError() << "axis " << axis << " is repeated in axes";
      seen.set(*normalized);
      axes.push_back(*normalized);
    }
  } else {
    if (!count)
      return success();
    if (*count > rank)
      return ctx.emitError() << "starts has " << *count
                             << " elements for an input of rank " << rank;
    for (int64_t i = 0; i < *count; ++i)
      axes.push_back(i);
  }
  if (count && *count != int64_t(axes.size()))
    return ctx.emitError() << "starts has " << *count << " elements but axes "
                           << axes.size();
  size_t n = axes.size();
  std::optional<KnownInts> starts = getElementsOrUnknown(ctx, 1);
  std::optional<KnownInts> ends = getElementsOrUnknown(ctx, 2);
  std::optional<KnownInts> steps = ctx.hasInput(4)
                                       ? getElementsOrUnknown(ctx, 4)
                                       : KnownInts(n, IntElem::known(1));
  auto elementAt = [&](const std::optional<KnownInts> &e,
                       size_t i) -> std::optional<int64_t> {
    if (!e || e->size() != n)
      return std::nullopt;
    return (*e)[i].value;
  };

  SmallVector<int64_t> result(shape);
  SmallVector<std::optional<int64_t>> begins(n), stepValues(n);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    std::optional<int64_t> start = elementAt(starts, i),
                           end = elementAt(ends, i), step = elementAt(steps, i);
    if (step == 0)
      return ctx.emitError() << "slice step must not be 0";
    if (!start || !end || !step || ShapedType::isDynamic(shape[axis])) {
      result[axis] = kDynamic;
      continue;
    }
    result[axis] = sliceLength(shape[axis], *start, *end, *step);
    int64_t first = *start < 0 ? *start + shape[axis] : *start;
    begins[i] = *step > 0 ? std::clamp<int64_t>(first, 0, shape[axis])
                          : std::clamp<int64_t>(first, 0, shape[axis] - 1);
    stepValues[i] = step;
  }
  ctx.setResult(0, ctx.getInputElementType(0), result);

  // A slice of a known 1-D integer tensor.
  const KnownInts *known = rank == 1 ? ctx.getKnown(0) : nullptr;
  if (known && n == 1 && !ShapedType::isDynamic(result[0]) && begins[0] &&
      int64_t(known->size()) == shape[0]) {
    KnownInts elements;
    for (int64_t i = 0; i < result[0]; ++i)
      elements.push_back((*known)[*begins[0] + i * *stepValues[0]]);
    ctx.setKnown(0, std::move(elements));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Ops with the data's type
//===----------------------------------------------------------------------===//

/// ScatterElements, ScatterND, Scatter, CumSum, CumProd, Trilu,
/// ReverseSequence, RotaryEmbedding: the result has the data input's type.
LogicalResult inferLikeData(RuleContext &ctx) {
  ctx.setResult(0, ctx.getInputElementType(0), ctx.getInputShape(0));
  return success();
}

/// TensorScatter(past_cache, update, write_indices): the cache's type; the
/// update matches it except along `axis` (never the batch dim).
LogicalResult inferTensorScatter(RuleContext &ctx) {
  ArrayRef<int64_t> cache = ctx.getInputShape(0), update = ctx.getInputShape(1);
  if (cache.size() < 2 || update.size() != cache.size())
    return ctx.emitError() << "expects past_cache of rank >= 2 and an update "
                              "of the same rank, got "
                           << ctx.getInputType(0) << " and "
                           << ctx.getInputType(1);
  FailureOr<int64_t> axis =
      ctx.normalizeAxis(ctx.getIntAttr("axis", -2), cache.size());
  if (failed(axis))
    return failure();
  if (*axis == 0)
    return ctx.emitError() << "axis cannot be the batch dim";
  for (auto [d, sizes] : llvm::enumerate(llvm::zip(cache, update))) {
    auto [c, u] = sizes;
    if (ShapedType::isDynamic(c) || ShapedType::isDynamic(u))
      continue;
    if (static_cast<int64_t>(d) == *axis ? u > c : u != c)
      return ctx.emitError()
             << "update " << ctx.getInputType(1) << " does not fit past_cache "
             << ctx.getInputType(0) << " in dim " << d;
  }
  ctx.setResult(0, ctx.getInputElementType(0), cache);
  return success();
}

/// NonZero: [rank, number of non-zeros] i64 indices.
LogicalResult inferNonZero(RuleContext &ctx) {
  ctx.setResult(0, IntegerType::get(ctx.getOp()->getContext(), 64),
                {ctx.getInputRank(0), kDynamic});
  return success();
}

/// OneHot(indices, depth, values): a new axis of `depth` elements, the type
/// of `values`.
LogicalResult inferOneHot(RuleContext &ctx) {
  ArrayRef<int64_t> indices = ctx.getInputShape(0);
  int64_t rank = indices.size() + 1;
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.getIntAttr("axis", -1), rank);
  if (failed(axis))
    return failure();
  if (ctx.getInputRank(2) != 1 ||
      (!ShapedType::isDynamic(ctx.getInputShape(2)[0]) &&
       ctx.getInputShape(2)[0] != 2))
    return ctx.emitError() << "values must hold [off, on], got "
                           << ctx.getInputType(2);
  int64_t depth = kDynamic;
  if (std::optional<int64_t> known = ctx.getKnownScalar(1))
    depth = *known;
  else if (std::optional<SmallVector<double>> floats = ctx.getConstantFloats(1);
           floats && floats->size() == 1)
    depth = int64_t(floats->front());
  if (!ShapedType::isDynamic(depth) && depth < 1)
    return ctx.emitError() << "depth must be positive, got " << depth;
  SmallVector<int64_t> shape(indices);
  shape.insert(shape.begin() + *axis, depth);
  ctx.setResult(0, ctx.getInputElementType(2), shape);
  return success();
}

/// Compress: the selected count is only known at run time.
LogicalResult inferCompress(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  auto axisAttr = ctx.getOp()->getAttrOfType<IntegerAttr>("axis");
  if (!axisAttr) {
    ctx.setResult(0, ctx.getInputElementType(0), {kDynamic});
    return success();
  }
  FailureOr<int64_t> axis =
      ctx.normalizeAxis(axisAttr.getValue().getSExtValue(), shape.size());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> result(shape);
  result[*axis] = kDynamic;
  ctx.setResult(0, ctx.getInputElementType(0), result);
  return success();
}

/// NonMaxSuppression: [selected, 3] i64 triples.
LogicalResult inferNonMaxSuppression(RuleContext &ctx) {
  ctx.setResult(0, IntegerType::get(ctx.getOp()->getContext(), 64),
                {kDynamic, 3});
  return success();
}

/// Unique: as many values as are distinct at run time; i64 index outputs.
LogicalResult inferUnique(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  Type i64 = IntegerType::get(ctx.getOp()->getContext(), 64);
  int64_t inverseLength = kDynamic;
  if (auto axisAttr = ctx.getOp()->getAttrOfType<IntegerAttr>("axis")) {
    FailureOr<int64_t> axis =
        ctx.normalizeAxis(axisAttr.getValue().getSExtValue(), shape.size());
    if (failed(axis))
      return failure();
    SmallVector<int64_t> values(shape);
    values[*axis] = kDynamic;
    ctx.setResult(0, ctx.getInputElementType(0), values);
    inverseLength = shape[*axis];
  } else {
    ctx.setResult(0, ctx.getInputElementType(0), {kDynamic});
    inverseLength = 1;
    for (int64_t dim : shape)
      inverseLength =
          ShapedType::isDynamic(dim) || ShapedType::isDynamic(inverseLength)
              ? kDynamic
              : inverseLength * dim;
  }
  ctx.setResult(1, i64, {kDynamic});
  ctx.setResult(2, i64, {inverseLength});
  ctx.setResult(3, i64, {kDynamic});
  return success();
}

} // namespace

void addIndexingRules(RuleTable &rules) {
  rules.add("Concat", inferConcat);
  rules.add("Split", inferSplit, 1);
  rules.add("Gather", inferGather);
  rules.add("GatherElements", inferGatherElements);
  rules.add("GatherND", inferGatherND);
  rules.add("Slice", inferSlice, 3);
  for (StringRef name : {"ScatterElements", "ScatterND", "Scatter", "CumSum",
                         "CumProd", "ReverseSequence"})
    rules.add(name, inferLikeData);
  rules.add("Trilu", inferLikeData, 1);
  rules.add("RotaryEmbedding", inferLikeData, 3);
  rules.add("TensorScatter", inferTensorScatter, 2);
  rules.add("NonZero", inferNonZero);
  rules.add("OneHot", inferOneHot);
  rules.add("Unique", inferUnique);
  rules.add("Compress", inferCompress);
  rules.add("NonMaxSuppression", inferNonMaxSuppression, 2);
}

} // namespace onnxc::shape
