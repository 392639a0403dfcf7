//===- Elementwise.cpp - Shape rules of the elementwise onnx ops ----------===//
//
// Unary ops keep their input's type; n-ary ops broadcast their inputs
// (multidirectional, numpy style) and compute known values of small integer
// tensors (shape arithmetic such as `Mul(Gather(Shape(x), 0), 12)`).
//
// Broadcasting with dynamic dims. Dims are aligned from the right; a missing
// dim counts as a static 1. For one pair of dims:
//   - static 1 vs d (static or dynamic)          -> d
//   - static a vs static b (a, b != 1, a != b)   -> error
//   - dynamic vs static n (n != 1)               -> n (the dynamic one must be
//                                                   n or 1 at run time)
//   - dynamic vs dynamic                          -> dynamic (assumed equal or
//                                                   broadcastable at run time)
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;

namespace onnxc::shape {

bool broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                     SmallVectorImpl<int64_t> &result) {
  size_t rank = std::max(lhs.size(), rhs.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    bool aDyn = ShapedType::isDynamic(a), bDyn = ShapedType::isDynamic(b);
    if (a == 1)
      result[i] = b;
    else if (b == 1)
      result[i] = a;
    else if (aDyn)
      result[i] = b;
    else if (bDyn || a == b)
      result[i] = a;
    else
      return false;
  }
  return true;
}

namespace {

/// How an n-ary op treats its element types.
enum class ElementKind {
  SameAsInputs, // all inputs share one type, the result's (Add, Max, And...)
  Bool,         // inputs share one type, the result is bool (Equal, Less...)
  FirstInput,   // the result has the first input's type (Pow)
};

/// Broadcasts the shapes of operands [first, end), with an error naming both
/// shapes when two static dims conflict.
LogicalResult broadcastInputs(RuleContext &ctx, unsigned first,
                              SmallVectorImpl<int64_t> &shape) {
  shape.assign(ctx.getInputShape(first).begin(),
               ctx.getInputShape(first).end());
  for (unsigned i = first + 1; i < ctx.getNumInputs(); ++i) {
    SmallVector<int64_t> next;
    if (!broadcastShapes(shape, ctx.getInputShape(i), next))
      return ctx.emitError()
             << "cannot broadcast input shapes "
             << RankedTensorType::get(shape, ctx.getInputElementType(first))
             << " and " << ctx.getInputType(i);
    shape = std::move(next);
  }
  return success();
}

LogicalResult checkSameElementTypes(RuleContext &ctx, unsigned first) {
  Type type = ctx.getInputElementType(first);
  for (unsigned i = first + 1; i < ctx.getNumInputs(); ++i)
    if (ctx.getInputElementType(i) != type)
      return ctx.emitError() << "input element types differ: " << type
                             << " and " << ctx.getInputElementType(i);
  return success();
}

/// Known elements of a broadcast of 0-D/1-D operands, combined elementwise
/// by `fn` (which returns unknown when it cannot tell).
template <typename Fn>
void propagateKnown(RuleContext &ctx, ArrayRef<int64_t> resultShape,
                    unsigned first, Fn fn) {
  if (resultShape.size() > 1)
    return;
  int64_t length = resultShape.empty() ? 1 : resultShape[0];
  if (ShapedType::isDynamic(length) || length > kMaxKnownElements)
    return;
  SmallVector<const KnownInts *> inputs;
  for (unsigned i = first; i < ctx.getNumInputs(); ++i) {
    const KnownInts *known = ctx.getKnown(i);
    if (!known || (known->size() != 1 && int64_t(known->size()) != length))
      return;
    inputs.push_back(known);
  }
  KnownInts result;
  SmallVector<IntElem> args(inputs.size());
  for (int64_t j = 0; j < length; ++j) {
    for (auto [arg, known] : llvm::zip(args, inputs))
      arg = (*known)[known->size() == 1 ? 0 : j];
    result.push_back(fn(args));
  }
  ctx.setKnown(0, std::move(result));
}

/// Mod of two known integers: with `fmod` the remainder has the dividend's
/// sign (C's %), otherwise the divisor's (Python's %), as ONNX Mod defines.
/// Unknown for a zero divisor.
IntElem foldMod(int64_t x, int64_t y, bool fmod) {
  if (y == 0)
    return IntElem::unknown();
  // x % -1 is 0, and INT64_MIN % -1 would trap.
  int64_t r = y == -1 ? 0 : x % y;
  if (!fmod && r != 0 && ((r < 0) != (y < 0)))
    r += y;
  return IntElem::known(r);
}

/// Integer arithmetic of shape computations on known elements; an identity
/// (x + 0, x * 1, ...) keeps a symbolic element. `fmod` is Mod's attribute.
IntElem foldBinary(StringRef name, const IntElem &a, const IntElem &b,
                   bool fmod = false) {
  if (a.value && b.value) {
    int64_t x = *a.value, y = *b.value, r;
    // Exporters compute split points with Mod (torch's unflatten and
    // chunk write `Mod(dim, rank)`), which then bound a Slice of a Shape.
    if (name == "onnx.Mod")
      return foldMod(x, y, fmod);
    // Overflowing shape arithmetic (INT64_MAX-style "to the end" values) is
    // left unknown.
    if (name == "onnx.Add")
      return llvm::AddOverflow(x, y, r) ? IntElem::unknown()
                                        : IntElem::known(r);
    if (name == "onnx.Sub")
      return llvm::SubOverflow(x, y, r) ? IntElem::unknown()
                                        : IntElem::known(r);
    if (name == "onnx.Mul")
      return llvm::MulOverflow(x, y, r) ? IntElem::unknown()
                                        : IntElem::known(r);
    if (name == "onnx.Div" && y > 0 && x >= 0)
      return IntElem::known(x / y);
    if (name == "onnx.Max")
      return IntElem::known(std::max(x, y));
    if (name == "onnx.Min")
      return IntElem::known(std::min(x, y));
    if (name == "onnx.Equal")
      return IntElem::known(x == y);
    if (name == "onnx.Less")
      return IntElem::known(x < y);
    if (name == "onnx.Greater")
      return IntElem::known(x > y);
    if (name == "onnx.LessOrEqual")
      return IntElem::known(x <= y);
    if (name == "onnx.GreaterOrEqual")
      return IntElem::known(x >= y);
    return IntElem::unknown();
  }
  auto is = [](const IntElem &e, int64_t v) {
    return e.value && *e.value == v;
  };
  // A symbolic element is a dim size, never negative: exporters compare
  // shapes with -1 to find the dims to keep (Expand after a Reshape).
  auto isNegative = [](const IntElem &e) { return e.value && *e.value < 0; };
  if (name == "onnx.Equal" &&
      ((a.isSymbol() && isNegative(b)) || (b.isSymbol() && isNegative(a))))
    return IntElem::known(0);
  if ((name == "onnx.Add" || name == "onnx.Sub") && is(b, 0))
    return a;
  if (name == "onnx.Add" && is(a, 0))
    return b;
  if ((name == "onnx.Mul" || name == "onnx.Div") && is(b, 1))
    return a;
  if (name == "onnx.Mul" && is(a, 1))
    return b;
  return IntElem::unknown();
}

/// Add, Sub, Mul, Div, Mod, Pow, And, Equal, ... and the variadic Sum, Mean,
/// Max, Min: broadcast all inputs.
template <ElementKind kind> LogicalResult inferBroadcast(RuleContext &ctx) {
  if (ctx.getNumInputs() == 0)
    return success();
  if (kind != ElementKind::FirstInput && failed(checkSameElementTypes(ctx, 0)))
    return failure();
  SmallVector<int64_t> shape;
  if (failed(broadcastInputs(ctx, 0, shape)))
    return failure();
  Type element = kind == ElementKind::Bool
                     ? Type(IntegerType::get(ctx.getOp()->getContext(), 1))
                     : ctx.getInputElementType(0);
  ctx.setResult(0, element, shape);
  if (isTrackedIntType(ctx.getInputElementType(0))) {
    StringRef name = ctx.getOp()->getName().getStringRef();
    bool fmod = ctx.getIntAttr("fmod", 0) != 0;
    propagateKnown(ctx, shape, 0, [&](ArrayRef<IntElem> args) {
      IntElem acc = args[0];
      for (const IntElem &next : args.drop_front())
        acc = foldBinary(name, acc, next, fmod);
      return acc;
    });
  }
  return success();
}

/// Where(condition, X, Y): three-way broadcast, the type of X.
LogicalResult inferWhere(RuleContext &ctx) {
  if (!ctx.getInputElementType(0).isInteger(1))
    return ctx.emitError() << "condition must be a bool tensor, not "
                           << ctx.getInputType(0);
  if (failed(checkSameElementTypes(ctx, 1)))
    return failure();
  SmallVector<int64_t> shape;
  if (failed(broadcastInputs(ctx, 0, shape)))
    return failure();
  ctx.setResult(0, ctx.getInputElementType(1), shape);
  if (isTrackedIntType(ctx.getInputElementType(1)))
    propagateKnown(ctx, shape, 0, [](ArrayRef<IntElem> args) {
      if (!args[0].value)
        return IntElem::unknown();
      return *args[0].value ? args[1] : args[2];
    });
  return success();
}

/// Ops whose result has the input's type and shape.
LogicalResult inferSameAsInput(RuleContext &ctx) {
  ctx.setResult(0, ctx.getInputElementType(0), ctx.getInputShape(0));
  StringRef name = ctx.getOp()->getName().getStringRef();
  if (name == "onnx.Identity") {
    if (const KnownInts *known = ctx.getKnown(0))
      ctx.setKnown(0, *known);
  } else if (name == "onnx.Neg" || name == "onnx.Abs") {
    if (const KnownInts *known = ctx.getKnown(0)) {
      KnownInts result;
      for (const IntElem &e : *known)
        result.push_back(
            !e.value || *e.value == std::numeric_limits<int64_t>::min()
                ? IntElem::unknown()
            : name == "onnx.Neg" ? IntElem::known(-*e.value)
                                 : IntElem::known(std::abs(*e.value)));
      ctx.setKnown(0, std::move(result));
    }
  }
  return success();
}

/// IsNaN, IsInf: a bool tensor of the input's shape.
LogicalResult inferBoolOfInput(RuleContext &ctx) {
  ctx.setResult(0, IntegerType::get(ctx.getOp()->getContext(), 1),
                ctx.getInputShape(0));
  return success();
}

} // namespace

void addElementwiseRules(RuleTable &rules) {
  for (StringRef name : {"Add", "Sub", "Mul", "Div", "Mod", "Sum", "Mean",
                         "Max", "Min", "And", "Or", "Xor", "PRelu", "BitShift",
                         "BitwiseAnd", "BitwiseOr", "BitwiseXor"})
    rules.add(name, inferBroadcast<ElementKind::SameAsInputs>);
  for (StringRef name :
       {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"})
    rules.add(name, inferBroadcast<ElementKind::Bool>);
  rules.add("Pow", inferBroadcast<ElementKind::FirstInput>);
  rules.add("Where", inferWhere);
  for (StringRef name : {"Abs",       "Neg",      "Exp",
                         "Log",       "Sqrt",     "Reciprocal",
                         "Floor",     "Ceil",     "Round",
                         "Sin",       "Cos",      "Tan",
                         "Asin",      "Acos",     "Atan",
                         "Sinh",      "Cosh",     "Asinh",
                         "Acosh",     "Atanh",    "Tanh",
                         "Erf",       "Sigmoid",  "Relu",
                         "LeakyRelu", "Elu",      "Selu",
                         "Celu",      "Gelu",     "HardSigmoid",
                         "HardSwish", "Softplus", "Softsign",
                         "Sign",      "Not",      "BitwiseNot",
                         "Identity",  "Mish",     "ThresholdedRelu",
                         "Shrink",    "Swish"})
    rules.add(name, inferSameAsInput);
  rules.add("Clip", inferSameAsInput, 1);
  rules.add("SwiGLU", inferSameAsInput);
  rules.add("IsNaN", inferBoolOfInput);
  rules.add("IsInf", inferBoolOfInput);
}

} // namespace onnxc::shape
