//===- Quantization.cpp - Shape rules of the (de)quantization ops ---------===//
//
// QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear keep the shape
// of their data input; the element type comes from the zero point, the scale
// or the output_dtype attribute. (QLinearConv/ConvInteger live with the
// convolutions, QLinearMatMul/MatMulInteger with MatMul.)
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

/// The element type named by an `output_dtype` attribute, if set (0 = unset).
FailureOr<Type> getOutputDtype(RuleContext &ctx) {
  int64_t dtype = ctx.getIntAttr("output_dtype", 0);
  if (dtype == 0)
    return Type();
  Type type = getElementTypeFromOnnx(ctx.getOp()->getContext(), dtype);
  if (!type) {
    ctx.emitError() << "unsupported output_dtype " << dtype;
    return failure();
  }
  return type;
}

/// QuantizeLinear(x, y_scale, y_zero_point): y_zero_point's type, else
/// output_dtype, else ui8.
LogicalResult inferQuantize(RuleContext &ctx) {
  FailureOr<Type> dtype = getOutputDtype(ctx);
  if (failed(dtype))
    return failure();
  Type element = *dtype;
  if (ctx.hasInput(2)) {
    if (element && element != ctx.getInputElementType(2))
      return ctx.emitError() << "output_dtype " << element
                             << " differs from the zero point's type "
                             << ctx.getInputElementType(2);
    element = ctx.getInputElementType(2);
  }
  if (!element)
    element =
        IntegerType::get(ctx.getOp()->getContext(), 8, IntegerType::Unsigned);
  ctx.setResult(0, element, ctx.getInputShape(0));
  return success();
}

/// DequantizeLinear(x, x_scale, x_zero_point): output_dtype, else the
/// scale's type.
LogicalResult inferDequantize(RuleContext &ctx) {
  FailureOr<Type> dtype = getOutputDtype(ctx);
  if (failed(dtype))
    return failure();
  Type element = *dtype ? *dtype : ctx.getInputElementType(1);
  ctx.setResult(0, element, ctx.getInputShape(0));
  return success();
}

/// DynamicQuantizeLinear(x): ui8 data, an f32 scale and a ui8 zero point.
LogicalResult inferDynamicQuantize(RuleContext &ctx) {
  MLIRContext *context = ctx.getOp()->getContext();
  Type u8 = IntegerType::get(context, 8, IntegerType::Unsigned);
  ctx.setResult(0, u8, ctx.getInputShape(0));
  ctx.setResult(1, Float32Type::get(context), {});
  ctx.setResult(2, u8, {});
  return success();
}

/// The storage width of an element type in bits (bool takes a byte).
unsigned storageBits(Type type) {
  return type.isInteger(1) ? 8 : type.getIntOrFloatBitWidth();
}

/// BitCast(input, to): input's shape, `to`'s element type, which must have
/// the input's storage width.
LogicalResult inferBitCast(RuleContext &ctx) {
  Type element = getElementTypeFromOnnx(ctx.getOp()->getContext(),
                                        ctx.getIntAttr("to", 0));
  if (!element)
    return ctx.emitError() << "unsupported BitCast target type "
                           << ctx.getIntAttr("to", 0);
  Type input = ctx.getInputElementType(0);
  if (!input.isIntOrFloat() || storageBits(input) != storageBits(element))
    return ctx.emitError() << "cannot BitCast " << input << " to " << element
                           << " (the bit widths must be equal)";
  ctx.setResult(0, element, ctx.getInputShape(0));
  return success();
}

} // namespace

void addQuantizationRules(RuleTable &rules) {
  rules.add("QuantizeLinear", inferQuantize, 2);
  rules.add("DequantizeLinear", inferDequantize, 2);
  rules.add("DynamicQuantizeLinear", inferDynamicQuantize);
  rules.add("BitCast", inferBitCast);
}

} // namespace onnxc::shape
