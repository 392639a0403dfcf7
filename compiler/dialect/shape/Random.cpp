//===- Random.cpp - Shape rules of the random and window generators -------===//
//
// RandomNormal/RandomUniform take their shape from an attribute, the *Like
// forms and Bernoulli from their input; `dtype` picks the element type. The
// window generators make a 1-D tensor of their `size` input, MelWeightMatrix
// a 2-D one from its bin counts.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

/// The element type of `dtype`, or `fallback` when the attribute is absent.
FailureOr<Type> getDtype(RuleContext &ctx, Type fallback) {
  auto attr = ctx.getOp()->getAttrOfType<IntegerAttr>("dtype");
  if (!attr)
    return fallback;
  int64_t dtype = attr.getValue().getSExtValue();
  Type type = getElementTypeFromOnnx(ctx.getOp()->getContext(), dtype);
  if (!type) {
    ctx.emitError() << "unsupported dtype " << dtype;
    return failure();
  }
  return type;
}

/// RandomNormal, RandomUniform: the `shape` attribute, f32 by default.
LogicalResult inferRandom(RuleContext &ctx) {
  std::optional<SmallVector<int64_t>> shape = ctx.getIntsAttr("shape");
  if (!shape || llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.emitError() << "needs a 'shape' attribute of sizes >= 0";
  FailureOr<Type> element =
      getDtype(ctx, Float32Type::get(ctx.getOp()->getContext()));
  if (failed(element))
    return failure();
  ctx.setResult(0, *element, *shape);
  return success();
}

/// RandomNormalLike, RandomUniformLike, Bernoulli: the input's shape.
LogicalResult inferRandomLike(RuleContext &ctx) {
  FailureOr<Type> element = getDtype(ctx, ctx.getInputElementType(0));
  if (failed(element))
    return failure();
  ctx.setResult(0, *element, ctx.getInputShape(0));
  return success();
}

/// Multinomial: [batch, sample_size] samples, i32 by default.
LogicalResult inferMultinomial(RuleContext &ctx) {
  if (ctx.getInputRank(0) != 2)
    return ctx.emitError() << "expects a 2-D input, got "
                           << ctx.getInputType(0);
  FailureOr<Type> element =
      getDtype(ctx, IntegerType::get(ctx.getOp()->getContext(), 32));
  if (failed(element))
    return failure();
  ctx.setResult(0, *element,
                {ctx.getInputShape(0)[0], ctx.getIntAttr("sample_size", 1)});
  return success();
}

/// HannWindow, HammingWindow, BlackmanWindow(size): [size] values of
/// output_datatype (f32 by default).
LogicalResult inferWindow(RuleContext &ctx) {
  int64_t dtype = ctx.getIntAttr("output_datatype", 1);
  Type element = getElementTypeFromOnnx(ctx.getOp()->getContext(), dtype);
  if (!element)
    return ctx.emitError() << "unsupported output_datatype " << dtype;
  std::optional<int64_t> size = ctx.getKnownScalar(0);
  if (size && *size < 0)
    return ctx.emitError() << "negative window size " << *size;
  ctx.setResult(0, element, {size ? *size : ShapedType::kDynamic});
  return success();
}

/// MelWeightMatrix(num_mel_bins, dft_length, ...): [dft_length / 2 + 1,
/// num_mel_bins] values of output_datatype (f32 by default).
LogicalResult inferMelWeightMatrix(RuleContext &ctx) {
  int64_t dtype = ctx.getIntAttr("output_datatype", 1);
  Type element = getElementTypeFromOnnx(ctx.getOp()->getContext(), dtype);
  if (!element)
    return ctx.emitError() << "unsupported output_datatype " << dtype;
  std::optional<int64_t> bins = ctx.getKnownScalar(0);
  std::optional<int64_t> dft = ctx.getKnownScalar(1);
  if ((bins && *bins < 0) || (dft && *dft < 0))
    return ctx.emitError() << "negative num_mel_bins or dft_length";
  ctx.setResult(0, element,
                {dft ? *dft / 2 + 1 : ShapedType::kDynamic,
                 bins ? *bins : ShapedType::kDynamic});
  return success();
}

} // namespace

void addRandomRules(RuleTable &rules) {
  rules.add("RandomNormal", inferRandom);
  rules.add("RandomUniform", inferRandom);
  rules.add("RandomNormalLike", inferRandomLike);
  rules.add("RandomUniformLike", inferRandomLike);
  rules.add("Bernoulli", inferRandomLike);
  rules.add("Multinomial", inferMultinomial);
  rules.add("HannWindow", inferWindow);
  rules.add("HammingWindow", inferWindow);
  rules.add("BlackmanWindow", inferWindow);
  rules.add("MelWeightMatrix", inferMelWeightMatrix);
}

} // namespace onnxc::shape
