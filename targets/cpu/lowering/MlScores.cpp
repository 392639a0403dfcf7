//===- MlScores.cpp - post_transform and attributes of ai.onnx.ml scorers -===//
//
// ONNX Runtime's score transforms, built as scalar arithmetic so that each
// scorer can apply them inside its own final generic.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/lowering/MlScores.h"
#include "targets/cpu/lowering/DataMovementUtils.h"
#include "targets/cpu/lowering/IndexingUtils.h"
#include "targets/cpu/lowering/LinalgBuilders.h"
#include "targets/cpu/lowering/TreeTables.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace mlir;

namespace onnxc::cpu::ml {

/// A STRING attribute, `fallback` when absent.
StringRef stringAttr(Operation *op, StringRef name, StringRef fallback) {
  if (auto s = op->getAttrOfType<StringAttr>(name))
    return s.getValue();
  return fallback;
}

/// post_transform, or an error naming the node for an unknown or
/// unsupported one.
FailureOr<Transform> readTransform(Operation *op) {
  StringRef name = stringAttr(op, "post_transform", "NONE");
  std::optional<Transform> t =
      llvm::StringSwitch<std::optional<Transform>>(name)
          .Case("NONE", Transform::kNone)
          .Case("LOGISTIC", Transform::kLogistic)
          .Case("SOFTMAX", Transform::kSoftmax)
          .Case("SOFTMAX_ZERO", Transform::kSoftmaxZero)
          .Case("PROBIT", Transform::kProbit)
          .Default(std::nullopt);
  if (!t)
    return op->emitError() << "unknown post_transform '" << name << "'";
  if (*t == Transform::kProbit)
    return op->emitError() << "post_transform PROBIT is not supported";
  return *t;
}

/// The first attribute of `names` that is present, as doubles (empty when
/// none is).
SmallVector<double> firstDoubles(Operation *op,
                                 std::initializer_list<StringRef> names) {
  for (StringRef name : names)
    if (auto values = trees::doublesAttr(op, name))
      return *values;
  return {};
}

/// ONNX Runtime's logistic: 1 / (1 + exp(-|x|)), mirrored for x < 0.
Value logistic(OpBuilder &b, Location loc, Value x) {
  Type f32 = x.getType();
  Value one = scalarConst(b, loc, f32, 1.0);
  Value v = b.create<arith::DivFOp>(
      loc, one,
      b.create<arith::AddFOp>(
          loc, one,
          b.create<math::ExpOp>(
              loc,
              b.create<arith::NegFOp>(loc, b.create<math::AbsFOp>(loc, x)))));
  Value negative = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, x,
                                           scalarConst(b, loc, f32, 0.0));
  return b.create<arith::SelectOp>(loc, negative,
                                   b.create<arith::SubFOp>(loc, one, v), v);
}

/// `transform` of element `j` of a row of scores read by `at(j)` (f32):
/// per element, or a softmax over the `count` scores (SOFTMAX_ZERO leaves
/// scores within 1e-7 of 0 out of the sum, scaled by exp(-max)).
Value transformElement(
    OpBuilder &b, Location loc, Transform transform, Value x, int64_t count,
    llvm::function_ref<Value(OpBuilder &, Location, Value)> at) {
  Type f32 = b.getF32Type();
  if (transform == Transform::kNone)
    return x;
  if (transform == Transform::kLogistic)
    return logistic(b, loc, x);
  bool zero = transform == Transform::kSoftmaxZero;
  auto isZero = [&](OpBuilder &nb, Location l, Value v) -> Value {
    Value tiny = scalarConst(nb, l, f32, 1e-7);
    Value above =
        nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, v, tiny);
    Value below = nb.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLT, v,
                                           nb.create<arith::NegFOp>(l, tiny));
    return nb.create<arith::XOrIOp>(l, nb.create<arith::OrIOp>(l, above, below),
                                    nb.create<arith::ConstantIntOp>(l, 1, 1));
  };
  auto overRow =
      [&](Value init,
          llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> step) {
        return b
            .create<scf::ForOp>(
                loc, indexConst(b, loc, 0), indexConst(b, loc, count),
                indexConst(b, loc, 1), ValueRange{init},
                [&](OpBuilder &fb, Location fl, Value j, ValueRange acc) {
                  fb.create<scf::YieldOp>(fl,
                                          step(fb, fl, at(fb, fl, j), acc[0]));
                })
            .getResult(0);
      };
  Value rowMax =
      overRow(scalarConst(b, loc, f32, -std::numeric_limits<float>::max()),
              [](OpBuilder &fb, Location fl, Value v, Value acc) -> Value {
                Value above = fb.create<arith::CmpFOp>(
                    fl, arith::CmpFPredicate::OGT, v, acc);
                return fb.create<arith::SelectOp>(fl, above, v, acc);
              });
  Value sum = overRow(
      scalarConst(b, loc, f32, 0.0),
      [&](OpBuilder &fb, Location fl, Value v, Value acc) -> Value {
        Value e =
            fb.create<math::ExpOp>(fl, fb.create<arith::SubFOp>(fl, v, rowMax));
        Value added = fb.create<arith::AddFOp>(fl, acc, e);
        if (!zero)
          return added;
        return fb.create<arith::SelectOp>(fl, isZero(fb, fl, v), acc, added);
      });
  Value e = b.create<math::ExpOp>(loc, b.create<arith::SubFOp>(loc, x, rowMax));
  if (zero)
    e = b.create<arith::SelectOp>(
        loc, isZero(b, loc, x),
        b.create<arith::MulFOp>(
            loc, x,
            b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, rowMax))),
        e);
  return b.create<arith::DivFOp>(loc, e, sum);
}

/// `scores` [N, C] (any float type) as f32 after `transform` over each row.
Value transformRows(OpBuilder &b, Location loc, Value scores,
                    RankedTensorType resultType, ArrayRef<OpFoldResult> sizes,
                    Transform transform) {
  auto type = llvm::cast<RankedTensorType>(scores.getType());
  Type element = type.getElementType(), f32 = b.getF32Type();
  int64_t count = type.getDimSize(1);
  return buildIndexedGeneric(
      b, loc, emptyTensor(b, loc, resultType, sizes), scores,
      {b.getMultiDimIdentityMap(2)},
      [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange args) {
        auto at = [&](OpBuilder &fb, Location fl, Value j) -> Value {
          Value v =
              fb.create<tensor::ExtractOp>(fl, scores, ValueRange{ivs[0], j});
          return castScalar(fb, fl, v, element, f32);
        };
        return transformElement(nb, l, transform,
                                castScalar(nb, l, args[0], element, f32), count,
                                at);
      });
}

} // namespace onnxc::cpu::ml
