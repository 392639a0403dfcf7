//===- ShapeOps.cpp - Shape rules of the shape-manipulating onnx ops ------===//
//
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Expand, Tile, Pad,
// CenterCropPad, Shape,
// Size, Constant, ConstantOfShape, Range, Dropout, Cast, CastLike, EyeLike,
// DepthToSpace, SpaceToDepth. Ops whose result shape is given by an integer
// input (Reshape, Expand, Tile, ...) read its known elements: an unknown
// element gives a dynamic dim. Shape, Size and the ops that move integers
// around (Squeeze, Unsqueeze, Reshape, Cast) also compute known elements.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;

namespace onnxc::shape {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

/// The elements of a 1-D integer operand that gives a shape: the known ones,
/// unknown where not tracked. Nullopt when even its length is unknown.
std::optional<KnownInts> getShapeElements(RuleContext &ctx, unsigned i) {
  if (ctx.getInputRank(i) != 1)
    return std::nullopt;
  if (const KnownInts *known = ctx.getKnown(i))
    return *known;
  std::optional<int64_t> length = ctx.getStaticLength(i);
  if (!length || *length > kMaxKnownElements)
    return std::nullopt;
  return KnownInts(*length, IntElem::unknown());
}

/// The element count of `dims`: kDynamic if one is dynamic, INT64_MAX if the
/// count overflows (a shape no tensor can have).
int64_t product(ArrayRef<int64_t> dims) {
  int64_t result = 1;
  bool overflow = false;
  for (int64_t dim : dims) {
    if (ShapedType::isDynamic(dim))
      return kDynamic;
    overflow |= llvm::MulOverflow(result, dim, result);
  }
  return overflow ? std::numeric_limits<int64_t>::max() : result;
}

/// Passes the known elements of operand 0 on to result 0 unchanged (for ops
/// that only change the shape of a small integer tensor).
void forwardKnown(RuleContext &ctx) {
  if (const KnownInts *known = ctx.getKnown(0))
    ctx.setKnown(0, *known);
}

//===----------------------------------------------------------------------===//
// Reshape
//===----------------------------------------------------------------------===//

/// Solves for the -1 dim of a Reshape when the element counts can be
/// compared: each dynamic dim of the data must cancel against an output
/// element that is the run-time size of the same dim (traced to a common
/// origin, see DimOrigin.cpp).
std::optional<int64_t> solveInferredDim(RuleContext &ctx, Value data,
                                        ArrayRef<int64_t> dataShape,
                                        ArrayRef<IntElem> outDims,
                                        size_t inferredIndex) {
  int64_t inProduct = 1, outProduct = 1;
  SmallVector<DimRef> unmatched;
  for (auto [i, dim] : llvm::enumerate(dataShape)) {
    if (ShapedType::isDynamic(dim))
      unmatched.push_back(ctx.traceDim(data, i));
    else
      inProduct *= dim;
  }
  for (auto [i, elem] : llvm::enumerate(outDims)) {
    if (i == inferredIndex)
      continue;
    if (elem.value) {
      outProduct *= *elem.value;
      continue;
    }
    if (!elem.isSymbol())
      return std::nullopt;
    auto match = llvm::find(unmatched, ctx.traceDim(elem.dimOf, elem.dim));
    if (match == unmatched.end())
      return std::nullopt;
    unmatched.erase(match);
  }
  if (!unmatched.empty() || outProduct == 0 || inProduct % outProduct != 0)
    return std::nullopt;
  return inProduct / outProduct;
}

LogicalResult inferReshape(RuleContext &ctx) {
  Value data = ctx.getOp()->getOperand(0);
  ArrayRef<int64_t> dataShape = ctx.getInputShape(0);
  std::optional<KnownInts> elements = getShapeElements(ctx, 1);
  if (ctx.getInputRank(1) != 1)
    return ctx.emitError() << "the shape input must be 1-D, got "
                           << ctx.getInputType(1);
  if (!elements)
    return success();
  bool allowZero = ctx.getIntAttr("allowzero", 0) != 0;

  // Output dims as elements: 0 copies the data's dim (its symbol if dynamic).
  KnownInts outDims;
  std::optional<size_t> inferredIndex;
  for (auto [i, elem] : llvm::enumerate(*elements)) {
    if (!elem.value) {
      outDims.push_back(elem);
      continue;
    }
    int64_t v = *elem.value;
    if (v == -1) {
      if (inferredIndex)
        return ctx.emitError() << "the shape has more than one -1";
      inferredIndex = i;
      outDims.push_back(IntElem::unknown());
    } else if (v == 0 && !allowZero) {
      if (i >= dataShape.size())
        return ctx.emitError()
               << "shape value 0 at index " << i << " copies a dim the data "
               << ctx.getInputType(0) << " does not have";
      outDims.push_back(ShapedType::isDynamic(dataShape[i])
                            ? IntElem::sizeOf(data, i)
                            : IntElem::known(dataShape[i]));
    } else if (v < 0) {
      return ctx.emitError() << "invalid shape value " << v;
    } else {
      outDims.push_back(IntElem::known(v));
    }
  }
  if (inferredIndex && allowZero &&
      llvm::any_of(outDims, [](const IntElem &e) { return e.value == 0; }))
    return ctx.emitError() << "the shape has both -1 and 0 with allowzero";

  int64_t dataCount = product(dataShape);
  if (inferredIndex) {
    if (std::optional<int64_t> solved =
            solveInferredDim(ctx, data, dataShape, outDims, *inferredIndex)) {
      outDims[*inferredIndex] = IntElem::known(*solved);
    } else if (!ShapedType::isDynamic(dataCount)) {
      // Fully static: the -1 must divide evenly.
      int64_t rest = 1;
      bool restKnown = true;
      for (auto [i, e] : llvm::enumerate(outDims))
        if (i != *inferredIndex) {
          restKnown &= e.value.has_value();
          rest *= e.value.value_or(1);
        }
      if (restKnown && (rest == 0 || dataCount % rest != 0))
        return ctx.emitError() << "cannot reshape " << ctx.getInputType(0)
                               << " (" << dataCount << " elements) with a -1 "
                               << "dim: the other dims multiply to " << rest;
    }
  } else if (llvm::all_of(
                 outDims,
                 [](const IntElem &e) { return e.value.has_value(); }) &&
             !ShapedType::isDynamic(dataCount)) {
    SmallVector<int64_t> dims;
    for (const IntElem &e : outDims)
      dims.push_back(*e.value);
    if (product(dims) == std::numeric_limits<int64_t>::max())
      return ctx.emitError() << "the target shape " << formatShape(dims)
                             << " has more elements than fit in 64 bits";
    if (product(dims) != dataCount)
      return ctx.emitError()
             << "cannot reshape " << ctx.getInputType(0) << " (" << dataCount
             << " elements) to " << formatShape(dims) << " (" << product(dims)
             << " elements)";
  }
  SmallVector<int64_t> shape;
  for (const IntElem &e : outDims)
    shape.push_back(e.value ? *e.value : kDynamic);
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  if (shape.size() <= 1)
    forwardKnown(ctx);
  return success();
}

//===----------------------------------------------------------------------===//
// Flatten, Squeeze, Unsqueeze, Transpose
//===----------------------------------------------------------------------===//

LogicalResult inferFlatten(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  int64_t axis = ctx.getIntAttr("axis", 1);
  if (axis < -rank || axis > rank)
    return ctx.emitError() << "axis " << axis << " is out of range for rank "
                           << rank;
  if (axis < 0)
    axis += rank;
  ctx.setResult(
      0, ctx.getInputElementType(0),
      {product(shape.take_front(axis)), product(shape.drop_front(axis))});
  return success();
}

LogicalResult inferSqueeze(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  llvm::SmallBitVector squeezed(rank);
  if (!ctx.hasInput(1)) {
    // Without axes every size-1 dim goes, which a dynamic dim may be.
    if (llvm::any_of(shape, ShapedType::isDynamic))
      return success();
    for (auto [i, dim] : llvm::enumerate(shape))
      if (dim == 1)
        squeezed.set(i);
  } else {
    std::optional<SmallVector<int64_t>> axes = ctx.getKnownInts(1);
    if (!axes) {
      std::optional<int64_t> count = ctx.getStaticLength(1);
      if (count && *count <= rank)
        ctx.setResult(0, ctx.getInputElementType(0),
                      SmallVector<int64_t>(rank - *count, kDynamic));
      return success();
    }
    for (int64_t axis : *axes) {
      FailureOr<int64_t> normalized =
          ctx.normalizeAxis(axis, rank, "axes value");
      if (failed(normalized))
        return failure();
      if (!ShapedType::isDynamic(shape[*normalized]) && shape[*normalized] != 1)
        return ctx.emitError() << "cannot squeeze dim " << *normalized
                               << " of size " << shape[*normalized];
      squeezed.set(*normalized);
    }
  }
  SmallVector<int64_t> result;
  for (auto [i, dim] : llvm::enumerate(shape))
    if (!squeezed[i])
      result.push_back(dim);
  ctx.setResult(0, ctx.getInputElementType(0), result);
  if (result.size() <= 1)
    forwardKnown(ctx);
  return success();
}

LogicalResult inferUnsqueeze(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  // A 0-D axes names one axis: ONNX Runtime and the reference accept it, and
  // expanded functions (AffineGrid) use it.
  int64_t axesRank = ctx.getInputRank(1);
  if (axesRank > 1)
    return ctx.emitError() << "axes must be 1-D, got " << ctx.getInputType(1);
  std::optional<SmallVector<int64_t>> axes = ctx.getKnownInts(1);
  if (!axes) {
    std::optional<int64_t> count =
        axesRank == 0 ? std::optional<int64_t>(1) : ctx.getStaticLength(1);
    if (count)
      ctx.setResult(0, ctx.getInputElementType(0),
                    SmallVector<int64_t>(shape.size() + *count, kDynamic));
    return success();
  }
  int64_t rank = shape.size() + axes->size();
  llvm::SmallBitVector inserted(rank);
  for (int64_t axis : *axes) {
    FailureOr<int64_t> normalized = ctx.normalizeAxis(axis, rank, "axes value");
    if (failed(normalized))
      return failure();
    if (inserted[*normalized])
      return ctx.emitError() << "axis " << axis << " is repeated in axes";
    inserted.set(*normalized);
  }
  SmallVector<int64_t> result;
  const int64_t *next = shape.begin();
  for (int64_t i = 0; i < rank; ++i)
    result.push_back(inserted[i] ? 1 : *next++);
  ctx.setResult(0, ctx.getInputElementType(0), result);
  if (result.size() <= 1)
    forwardKnown(ctx);
  return success();
}

LogicalResult inferTranspose(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> attr = ctx.getIntsAttr("perm"))
    perm = *attr;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  llvm::SmallBitVector seen(rank);
  bool valid = int64_t(perm.size()) == rank;
  for (int64_t p : perm) {
    if (!valid || p < 0 || p >= rank || seen[p]) {
      valid = false;
      break;
    }
    seen.set(p);
  }
  if (!valid)
    return ctx.emitError() << "perm is not a permutation of the " << rank
                           << " dims of " << ctx.getInputType(0);
  SmallVector<int64_t> result;
  for (int64_t p : perm)
    result.push_back(shape[p]);
  ctx.setResult(0, ctx.getInputElementType(0), result);
  return success();
}

//===----------------------------------------------------------------------===//
// Expand, Tile, Pad
//===----------------------------------------------------------------------===//

LogicalResult inferExpand(RuleContext &ctx) {
  if (ctx.getInputRank(1) != 1)
    return ctx.emitError() << "the shape input must be 1-D, got "
                           << ctx.getInputType(1);
  std::optional<KnownInts> elements = getShapeElements(ctx, 1);
  if (!elements)
    return success();
  // An unknown element may be 1 (keep the data's dim) or the data's dim, so
  // it broadcasts like a dynamic dim.
  SmallVector<int64_t> target;
  for (const IntElem &e : *elements)
    target.push_back(e.value ? *e.value : kDynamic);
  SmallVector<int64_t> shape;
  if (!broadcastShapes(ctx.getInputShape(0), target, shape))
    return ctx.emitError() << "cannot expand " << ctx.getInputType(0)
                           << " to the shape " << formatShape(target);
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

LogicalResult inferTile(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  if (ctx.getInputRank(1) != 1)
    return ctx.emitError() << "repeats must be 1-D, got "
                           << ctx.getInputType(1);
  std::optional<int64_t> length = ctx.getStaticLength(1);
  if (length && *length != int64_t(shape.size()))
    return ctx.emitError() << "repeats has " << *length
                           << " elements for an input of rank " << shape.size();
  std::optional<KnownInts> repeats = getShapeElements(ctx, 1);
  SmallVector<int64_t> result;
  for (auto [i, dim] : llvm::enumerate(shape)) {
    const IntElem *rep =
        repeats && i < repeats->size() ? &(*repeats)[i] : nullptr;
    if (rep && rep->value && *rep->value < 0)
      return ctx.emitError() << "repeats must be non-negative";
    if (!rep || !rep->value || ShapedType::isDynamic(dim))
      result.push_back(rep && rep->value == 1 ? dim : kDynamic);
    else
      result.push_back(dim * *rep->value);
  }
  ctx.setResult(0, ctx.getInputElementType(0), result);
  return success();
}

LogicalResult inferPad(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  if (ctx.getInputRank(1) != 1)
    return ctx.emitError() << "pads must be 1-D, got " << ctx.getInputType(1);
  SmallVector<int64_t> axes;
  if (ctx.hasInput(3)) {
    std::optional<SmallVector<int64_t>> known = ctx.getKnownInts(3);
    if (!known) {
      // Which dims grow is only known at run time.
      ctx.setResult(0, ctx.getInputElementType(0),
                    SmallVector<int64_t>(rank, kDynamic));
      return success();
    }
    for (int64_t axis : *known) {
      FailureOr<int64_t> normalized =
          ctx.normalizeAxis(axis, rank, "axes value");
      if (failed(normalized))
        return failure();
      axes.push_back(*normalized);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  std::optional<int64_t> length = ctx.getStaticLength(1);
  if (length && *length != 2 * int64_t(axes.size()))
    return ctx.emitError() << "pads has " << *length << " elements, expected "
                           << 2 * axes.size();
  std::optional<KnownInts> pads = getShapeElements(ctx, 1);
  if (pads && pads->size() != 2 * axes.size())
    pads.reset();
  SmallVector<int64_t> result(shape);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    const IntElem *begin = pads ? &(*pads)[i] : nullptr;
    const IntElem *end = pads ? &(*pads)[i + axes.size()] : nullptr;
    if (!begin || !begin->value || !end->value ||
        ShapedType::isDynamic(shape[axis])) {
      result[axis] = kDynamic;
      continue;
    }
    result[axis] = shape[axis] + *begin->value + *end->value;
    if (result[axis] < 0)
      return ctx.emitError() << "pads make dim " << axis << " negative ("
                             << result[axis] << ")";
  }
  ctx.setResult(0, ctx.getInputElementType(0), result);
  return success();
}

/// CenterCropPad(input, shape): the given sizes on `axes` (default all).
LogicalResult inferCenterCropPad(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  SmallVector<int64_t> axes;
  if (std::optional<SmallVector<int64_t>> attr = ctx.getIntsAttr("axes")) {
    for (int64_t axis : *attr) {
      FailureOr<int64_t> normalized =
          ctx.normalizeAxis(axis, rank, "axes value");
      if (failed(normalized))
        return failure();
      axes.push_back(*normalized);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  if (ctx.getInputRank(1) != 1)
    return ctx.emitError() << "shape must be 1-D, got " << ctx.getInputType(1);
  std::optional<int64_t> length = ctx.getStaticLength(1);
  if (length && *length != int64_t(axes.size()))
    return ctx.emitError() << "shape has " << *length << " elements for "
                           << axes.size() << " axes";
  std::optional<KnownInts> sizes = getShapeElements(ctx, 1);
  SmallVector<int64_t> result(shape);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    std::optional<int64_t> size =
        sizes && i < sizes->size() ? (*sizes)[i].value : std::nullopt;
    result[axis] = size ? *size : kDynamic;
  }
  ctx.setResult(0, ctx.getInputElementType(0), result);
  return success();
}

//===----------------------------------------------------------------------===//
// Shape, Size, Constant, ConstantOfShape, Range
//===----------------------------------------------------------------------===//

LogicalResult inferShape(RuleContext &ctx) {
  Value data = ctx.getOp()->getOperand(0);
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  auto clamp = [&](int64_t i) {
    if (i < 0)
      i += rank;
    return std::clamp<int64_t>(i, 0, rank);
  };
  int64_t start = clamp(ctx.getIntAttr("start", 0));
  int64_t end = clamp(ctx.getIntAttr("end", rank));
  KnownInts known;
  for (int64_t i = start; i < end; ++i)
    known.push_back(ShapedType::isDynamic(shape[i]) ? IntElem::sizeOf(data, i)
                                                    : IntElem::known(shape[i]));
  ctx.setResult(0, IntegerType::get(ctx.getOp()->getContext(), 64),
                {int64_t(known.size())});
  ctx.setKnown(0, std::move(known));
  return success();
}

LogicalResult inferSize(RuleContext &ctx) {
  ctx.setResult(0, IntegerType::get(ctx.getOp()->getContext(), 64), {});
  int64_t count = product(ctx.getInputShape(0));
  ctx.setKnown(0, {ShapedType::isDynamic(count) ? IntElem::unknown()
                                                : IntElem::known(count)});
  return success();
}

LogicalResult inferConstant(RuleContext &ctx) {
  Operation *op = ctx.getOp();
  Builder b(op->getContext());
  if (auto value = op->getAttrOfType<ElementsAttr>("value")) {
    auto type = llvm::dyn_cast<RankedTensorType>(value.getShapedType());
    if (type)
      ctx.setResult(0, type.getElementType(), type.getShape());
    return success();
  }
  if (auto attr = op->getAttrOfType<IntegerAttr>("value_int")) {
    ctx.setResult(0, b.getI64Type(), {});
    ctx.setKnown(0, {IntElem::known(attr.getValue().getSExtValue())});
  } else if (std::optional<SmallVector<int64_t>> ints =
                 ctx.getIntsAttr("value_ints")) {
    ctx.setResult(0, b.getI64Type(), {int64_t(ints->size())});
    KnownInts known;
    for (int64_t v : *ints)
      known.push_back(IntElem::known(v));
    ctx.setKnown(0, std::move(known));
  } else if (op->getAttrOfType<FloatAttr>("value_float")) {
    ctx.setResult(0, b.getF32Type(), {});
  } else if (auto floats = op->getAttrOfType<ArrayAttr>("value_floats")) {
    ctx.setResult(0, b.getF32Type(), {int64_t(floats.size())});
  }
  return success();
}

LogicalResult inferConstantOfShape(RuleContext &ctx) {
  if (ctx.getInputRank(0) != 1)
    return ctx.emitError() << "the shape input must be 1-D, got "
                           << ctx.getInputType(0);
  Type element = Builder(ctx.getOp()->getContext()).getF32Type();
  std::optional<int64_t> fill;
  if (auto value = ctx.getOp()->getAttrOfType<ElementsAttr>("value")) {
    element = value.getElementType();
    if (auto ints = llvm::dyn_cast<DenseIntElementsAttr>(value);
        ints && ints.getNumElements() == 1)
      fill = (*ints.getValues<APInt>().begin()).getSExtValue();
  }
  std::optional<KnownInts> elements = getShapeElements(ctx, 0);
  if (!elements)
    return success();
  SmallVector<int64_t> shape;
  for (const IntElem &e : *elements) {
    if (e.value && *e.value < 0)
      return ctx.emitError() << "negative dim " << *e.value << " in the shape";
    shape.push_back(e.value ? *e.value : kDynamic);
  }
  ctx.setResult(0, element, shape);
  if (fill && isTrackedIntType(element) && shape.size() <= 1) {
    int64_t count = shape.empty() ? 1 : shape[0];
    if (!ShapedType::isDynamic(count) && count <= kMaxKnownElements)
      ctx.setKnown(0, KnownInts(count, IntElem::known(*fill)));
  }
  return success();
}

LogicalResult inferRange(RuleContext &ctx) {
  Type element = ctx.getInputElementType(0);
  for (unsigned i = 0; i < 3; ++i) {
    if (ctx.getInputRank(i) > 1 ||
        (ctx.getInputRank(i) == 1 && ctx.getInputShape(i)[0] != 1 &&
         !ShapedType::isDynamic(ctx.getInputShape(i)[0])))
      return ctx.emitError() << "start, limit and delta must be scalars, got "
                             << ctx.getInputType(i);
    if (ctx.getInputElementType(i) != element)
      return ctx.emitError() << "start, limit and delta must have one type";
  }
  int64_t length = kDynamic;
  if (isTrackedIntType(element)) {
    std::optional<int64_t> start = ctx.getKnownScalar(0),
                           limit = ctx.getKnownScalar(1),
                           delta = ctx.getKnownScalar(2);
    if (delta == 0)
      return ctx.emitError() << "delta must not be 0";
    if (start && limit && delta) {
      int64_t span = *limit - *start;
      length = std::max<int64_t>(
          (span + *delta + (*delta > 0 ? -1 : 1)) / *delta, 0);
      if (length <= kMaxKnownElements) {
        KnownInts known;
        for (int64_t i = 0; i < length; ++i)
          known.push_back(IntElem::known(*start + i * *delta));
        ctx.setKnown(0, std::move(known));
      }
    }
  } else {
    std::optional<SmallVector<double>> start = ctx.getConstantFloats(0),
                                       limit = ctx.getConstantFloats(1),
                                       delta = ctx.getConstantFloats(2);
    if (delta && delta->size() == 1 && delta->front() == 0.0)
      return ctx.emitError() << "delta must not be 0";
    if (start && limit && delta && start->size() == 1 && limit->size() == 1 &&
        delta->size() == 1)
      length = std::max<int64_t>(
          int64_t(
              std::ceil((limit->front() - start->front()) / delta->front())),
          0);
  }
  ctx.setResult(0, element, {length});
  return success();
}

//===----------------------------------------------------------------------===//
// Dropout, Cast, CastLike, EyeLike, DepthToSpace, SpaceToDepth
//===----------------------------------------------------------------------===//

/// Dropout: the data's type, and a bool mask of its shape.
LogicalResult inferDropout(RuleContext &ctx) {
  ctx.setResult(0, ctx.getInputElementType(0), ctx.getInputShape(0));
  ctx.setResult(1, IntegerType::get(ctx.getOp()->getContext(), 1),
                ctx.getInputShape(0));
  return success();
}

/// Cast and CastLike to `element`; integer known values survive an integer
/// to integer cast (shape values fit every width exporters cast them to).
LogicalResult castTo(RuleContext &ctx, Type element) {
  ctx.setResult(0, element, ctx.getInputShape(0));
  if (!isTrackedIntType(element) ||
      !isTrackedIntType(ctx.getInputElementType(0)))
    return success();
  if (const KnownInts *known = ctx.getKnown(0)) {
    KnownInts result = *known;
    if (element.isInteger(1))
      for (IntElem &e : result)
        e = e.value ? IntElem::known(*e.value != 0) : IntElem::unknown();
    ctx.setKnown(0, std::move(result));
  }
  return success();
}

LogicalResult inferCast(RuleContext &ctx) {
  int64_t to = ctx.getIntAttr("to", 0);
  Type element = getElementTypeFromOnnx(ctx.getOp()->getContext(), to);
  if (!element)
    return ctx.emitError() << "unsupported cast target type " << to;
  return castTo(ctx, element);
}

LogicalResult inferCastLike(RuleContext &ctx) {
  return castTo(ctx, ctx.getInputElementType(1));
}

LogicalResult inferEyeLike(RuleContext &ctx) {
  if (ctx.getInputRank(0) != 2)
    return ctx.emitError() << "expects a 2-D input, got "
                           << ctx.getInputType(0);
  Type element = ctx.getInputElementType(0);
  if (auto dtype = ctx.getOp()->getAttrOfType<IntegerAttr>("dtype")) {
    element = getElementTypeFromOnnx(ctx.getOp()->getContext(),
                                     dtype.getValue().getSExtValue());
    if (!element)
      return ctx.emitError() << "unsupported dtype " << dtype;
  }
  ctx.setResult(0, element, ctx.getInputShape(0));
  return success();
}

/// DepthToSpace (blocks move from channels to space) and SpaceToDepth.
template <bool toSpace> LogicalResult inferDepthSpace(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0);
  int64_t block = ctx.getIntAttr("blocksize", 0);
  if (x.size() != 4 || block < 1)
    return ctx.emitError() << "expects a 4-D input and a positive blocksize";
  auto mul = [](int64_t d, int64_t f) {
    return ShapedType::isDynamic(d) ? kDynamic : d * f;
  };
  auto div = [&](int64_t d, int64_t f) -> FailureOr<int64_t> {
    if (ShapedType::isDynamic(d))
      return kDynamic;
    if (d % f != 0) {
      ctx.emitError() << "dim " << d << " is not divisible by " << f;
      return failure();
    }
    return d / f;
  };
  SmallVector<int64_t> shape = {x[0]};
  if (toSpace) {
    FailureOr<int64_t> c = div(x[1], block * block);
    if (failed(c))
      return failure();
    shape.append({*c, mul(x[2], block), mul(x[3], block)});
  } else {
    FailureOr<int64_t> h = div(x[2], block), w = div(x[3], block);
    if (failed(h) || failed(w))
      return failure();
    shape.append({mul(x[1], block * block), *h, *w});
  }
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

} // namespace

void addShapeOpRules(RuleTable &rules) {
  rules.add("Reshape", inferReshape);
  rules.add("Flatten", inferFlatten);
  rules.add("Squeeze", inferSqueeze, 1);
  rules.add("Unsqueeze", inferUnsqueeze);
  rules.add("Transpose", inferTranspose);
  rules.add("Expand", inferExpand);
  rules.add("Tile", inferTile);
  rules.add("Pad", inferPad, 2);
  rules.add("CenterCropPad", inferCenterCropPad);
  rules.add("Shape", inferShape);
  rules.add("Size", inferSize);
  rules.add("Constant", inferConstant);
  rules.add("ConstantOfShape", inferConstantOfShape);
  rules.add("Range", inferRange);
  rules.add("Dropout", inferDropout, 1);
  rules.add("Cast", inferCast);
  rules.add("CastLike", inferCastLike);
  rules.add("EyeLike", inferEyeLike);
  rules.add("DepthToSpace", inferDepthSpace<true>);
  rules.add("SpaceToDepth", inferDepthSpace<false>);
}

} // namespace onnxc::shape
