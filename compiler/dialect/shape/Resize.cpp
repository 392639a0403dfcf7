//===- Resize.cpp - Shape rules of Resize and the sampling ops ------------===//
//
// Resize takes output sizes (known integer elements) or scales (float
// constants): out = floor(in * scale), computed in single precision like the
// reference implementations. Dims whose size or scale is only known at run
// time are dynamic. GridSample, AffineGrid and RoiAlign sample images at
// given points; their output sizes come from the grid, `size` or attributes.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;

int64_t scaleDim(int64_t size, double scale) {
  if (ShapedType::isDynamic(size))
    return kDynamic;
  return int64_t(std::floor(float(size) * float(scale)));
}

/// True when operand `i` is given and not an empty tensor (exporters pass an
/// empty `scales` when they use `sizes`).
bool isGiven(RuleContext &ctx, unsigned i) {
  return ctx.hasInput(i) && ctx.getStaticLength(i) != 0;
}

LogicalResult inferResize(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  SmallVector<int64_t> axes;
  if (std::optional<SmallVector<int64_t>> attr = ctx.getIntsAttr("axes")) {
    llvm::SmallBitVector seen(rank);
    for (int64_t axis : *attr) {
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
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  int64_t n = axes.size();
  SmallVector<int64_t> result(shape);
  if (isGiven(ctx, 3)) {
    if (isGiven(ctx, 2))
      return ctx.emitError() << "only one of scales and sizes may be given";
    std::optional<int64_t> length = ctx.getStaticLength(3);
    if (length && *length != n)
      return ctx.emitError()
             << "sizes has " << *length << " elements for " << n << " axes";
    bool stretch =
        ctx.getStrAttr("keep_aspect_ratio_policy", "stretch") == "stretch";
    const KnownInts *known = ctx.getKnown(3);
    if (known && int64_t(known->size()) != n)
      known = nullptr;
    for (auto [i, axis] : llvm::enumerate(axes)) {
      std::optional<int64_t> size = known ? (*known)[i].value : std::nullopt;
      result[axis] = stretch && size ? *size : kDynamic;
    }
    // Other aspect-ratio policies scale every axis by the smallest (or
    // largest) of the ratios and round the sizes half up.
    std::optional<SmallVector<int64_t>> sizes = ctx.getKnownInts(3);
    if (!stretch && sizes && int64_t(sizes->size()) == n &&
        llvm::none_of(axes, [&](int64_t axis) {
          return ShapedType::isDynamic(shape[axis]);
        })) {
      bool notLarger =
          ctx.getStrAttr("keep_aspect_ratio_policy", "") == "not_larger";
      double scale = 0;
      for (auto [i, axis] : llvm::enumerate(axes)) {
        double ratio = double((*sizes)[i]) / double(shape[axis]);
        if (i == 0 || (notLarger ? ratio < scale : ratio > scale))
          scale = ratio;
      }
      for (int64_t axis : axes)
        result[axis] = int64_t(scale * double(shape[axis]) + 0.5);
    }
  } else if (isGiven(ctx, 2)) {
    std::optional<int64_t> length = ctx.getStaticLength(2);
    if (length && *length != n)
      return ctx.emitError()
             << "scales has " << *length << " elements for " << n << " axes";
    std::optional<SmallVector<double>> scales = ctx.getConstantFloats(2);
    std::optional<SmallVector<double>> roi;
    bool crop = ctx.getStrAttr("coordinate_transformation_mode",
                               "half_pixel") == "tf_crop_and_resize";
    if (crop)
      roi = ctx.getConstantFloats(1);
    for (auto [i, axis] : llvm::enumerate(axes)) {
      if (!scales || int64_t(scales->size()) != n ||
          (crop && (!roi || int64_t(roi->size()) != 2 * n))) {
        result[axis] = kDynamic;
        continue;
      }
      double scale = (*scales)[i];
      if (scale <= 0)
        return ctx.emitError() << "scales must be positive, got " << scale;
      if (crop)
        scale *= (*roi)[i + n] - (*roi)[i];
      result[axis] = scaleDim(shape[axis], scale);
    }
  } else {
    return ctx.emitError() << "needs either scales or sizes";
  }
  ctx.setResult(0, ctx.getInputElementType(0), result);
  return success();
}

/// Upsample(X, scales): the deprecated form of Resize with scales.
LogicalResult inferUpsample(RuleContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  std::optional<SmallVector<double>> scales = ctx.getConstantFloats(1);
  if (scales && scales->size() != shape.size())
    return ctx.emitError() << "scales has " << scales->size()
                           << " elements for an input of rank " << shape.size();
  SmallVector<int64_t> result;
  for (auto [i, dim] : llvm::enumerate(shape))
    result.push_back(scales ? scaleDim(dim, (*scales)[i]) : kDynamic);
  ctx.setResult(0, ctx.getInputElementType(0), result);
  return success();
}

/// GridSample(X [N, C, D...], grid [N, O..., r]) -> [N, C, O...].
LogicalResult inferGridSample(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0), grid = ctx.getInputShape(1);
  if (x.size() < 3 || grid.size() != x.size())
    return ctx.emitError() << "expects X of rank >= 3 and a grid of the same "
                           << "rank, got " << ctx.getInputType(0) << " and "
                           << ctx.getInputType(1);
  SmallVector<int64_t> shape = {x[0], x[1]};
  shape.append(grid.begin() + 1, grid.end() - 1);
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

/// AffineGrid(theta, size = [N, C, H, W] or [N, C, D, H, W]) -> [N, H, W, 2]
/// or [N, D, H, W, 3].
LogicalResult inferAffineGrid(RuleContext &ctx) {
  std::optional<int64_t> length = ctx.getStaticLength(1);
  if (!length)
    return success();
  if (*length != 4 && *length != 5)
    return ctx.emitError() << "size must have 4 or 5 elements, got " << *length;
  const KnownInts *size = ctx.getKnown(1);
  if (size && int64_t(size->size()) != *length)
    size = nullptr;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < *length; ++i) {
    if (i == 1)
      continue;
    std::optional<int64_t> dim = size ? (*size)[i].value : std::nullopt;
    shape.push_back(dim ? *dim : kDynamic);
  }
  shape.push_back(*length - 2);
  ctx.setResult(0, ctx.getInputElementType(0), shape);
  return success();
}

/// RoiAlign(X [N, C, H, W], rois [R, 4], batch_indices [R]) ->
/// [R, C, output_height, output_width].
LogicalResult inferRoiAlign(RuleContext &ctx) {
  ArrayRef<int64_t> x = ctx.getInputShape(0), rois = ctx.getInputShape(1);
  if (x.size() != 4 || rois.size() != 2)
    return ctx.emitError() << "expects a 4-D X and 2-D rois, got "
                           << ctx.getInputType(0) << " and "
                           << ctx.getInputType(1);
  ctx.setResult(0, ctx.getInputElementType(0),
                {rois[0], x[1], ctx.getIntAttr("output_height", 1),
                 ctx.getIntAttr("output_width", 1)});
  return success();
}

} // namespace

void addResizeRules(RuleTable &rules) {
  rules.add("Resize", inferResize, 1);
  rules.add("Upsample", inferUpsample);
  rules.add("GridSample", inferGridSample);
  rules.add("AffineGrid", inferAffineGrid);
  rules.add("RoiAlign", inferRoiAlign);
}

} // namespace onnxc::shape
