//===- ElementwiseExtra.cpp - Bitwise, inverse hyperbolic, Shrink ---------===//
//
// More elementwise ONNX ops through the elementwise pattern
// (ElementwisePattern.h): BitwiseAnd/Or/Xor/Not on integers, Acosh, Asinh,
// Atanh and Shrink on floats. Each becomes one broadcasting linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/ElementwisePattern.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace onnxc::cpu {
namespace {

using Args = ValueRange;

ElementwiseSpec makeSpec(StringRef name, unsigned kinds, ElementwiseBody body) {
  ElementwiseSpec spec;
  spec.opName = name;
  spec.kinds = kinds;
  spec.body = std::move(body);
  return spec;
}

/// A bitwise binary op: the same bits op for signed and unsigned integers.
template <typename BitsOp> ElementwiseSpec bitwise(StringRef name) {
  return makeSpec(name, kInt,
                  [](Operation *, OpBuilder &b, Location loc, Args a) {
                    return b.create<BitsOp>(loc, a[0], a[1]).getResult();
                  });
}

template <typename MathOp> ElementwiseSpec floatUnary(StringRef name) {
  return makeSpec(name, kFloat,
                  [](Operation *, OpBuilder &b, Location loc, Args a) {
                    return b.create<MathOp>(loc, a[0]).getResult();
                  });
}

float floatAttr(Operation *op, StringRef name, float defaultValue) {
  if (auto attr = op->getAttrOfType<FloatAttr>(name))
    return attr.getValueAsDouble();
  return defaultValue;
}

} // namespace

void populateElementwiseExtraPatterns(const TypeConverter &typeConverter,
                                      RewritePatternSet &patterns) {
  auto add = [&](ElementwiseSpec spec) {
    addElementwisePattern(typeConverter, patterns, std::move(spec));
  };
  add(bitwise<arith::AndIOp>("onnx.BitwiseAnd"));
  add(bitwise<arith::OrIOp>("onnx.BitwiseOr"));
  add(bitwise<arith::XOrIOp>("onnx.BitwiseXor"));
  add(makeSpec("onnx.BitwiseNot", kInt,
               [](Operation *, OpBuilder &b, Location loc, Args a) -> Value {
                 return b.create<arith::XOrIOp>(
                     loc, a[0], scalarConst(b, loc, a[0].getType(), -1));
               }));

  add(floatUnary<math::AcoshOp>("onnx.Acosh"));
  add(floatUnary<math::AsinhOp>("onnx.Asinh"));
  add(floatUnary<math::AtanhOp>("onnx.Atanh"));

  // Shrink: x + bias below -lambd, x - bias above lambd, 0 in between.
  add(makeSpec("onnx.Shrink", kFloat,
               [](Operation *op, OpBuilder &b, Location loc, Args a) -> Value {
                 Value x = a[0];
                 Type type = x.getType();
                 double lambd = floatAttr(op, "lambd", 0.5f);
                 double bias = floatAttr(op, "bias", 0.0f);
                 Value below =
                     b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x,
                                             scalarConst(b, loc, type, -lambd));
                 Value above =
                     b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x,
                                             scalarConst(b, loc, type, lambd));
                 Value biasValue = scalarConst(b, loc, type, bias);
                 Value plus = b.create<arith::AddFOp>(loc, x, biasValue);
                 Value minus = b.create<arith::SubFOp>(loc, x, biasValue);
                 Value zero = scalarConst(b, loc, type, 0.0);
                 Value inner =
                     b.create<arith::SelectOp>(loc, above, minus, zero);
                 return b.create<arith::SelectOp>(loc, below, plus, inner);
               }));
}

} // namespace onnxc::cpu
