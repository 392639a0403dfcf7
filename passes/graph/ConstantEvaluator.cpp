//===- ConstantEvaluator.cpp - Evaluate onnx ops on constants -------------===//
//
// One small evaluator per op over HostTensor. Why not compile the constant
// subgraph with the cpu pipeline and run it? Folding runs on every model at
// -O1, mostly on tiny shape computations; a JIT round trip per subgraph
// would cost more compile time than the graphs it saves, would need the
// lowering of every op in the subgraph (and of the host target), and could
// not fold for a cross-compiled target whose code cannot run here. The ops
// exporters put in front of shapes are few and simple, so a direct
// evaluator is the smaller and more predictable design.
//
//===----------------------------------------------------------------------===//

#include "passes/graph/ConstantEvaluator.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

using namespace mlir;

namespace onnxc::constfold {

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t HostTensor::getNumElements() const { return product(shape); }

bool HostTensor::isFloat() const { return llvm::isa<FloatType>(elementType); }

double HostTensor::getFloat(int64_t i) const {
  return isFloat() ? floats[i] : double(ints[i]);
}

int64_t HostTensor::getInt(int64_t i) const {
  return isFloat() ? int64_t(floats[i]) : ints[i];
}

static bool isUnsignedOrBool(Type type) {
  return type.isUnsignedInteger() || type.isInteger(1);
}

std::optional<HostTensor> HostTensor::fromAttr(DenseElementsAttr attr) {
  auto type = llvm::dyn_cast<RankedTensorType>(attr.getType());
  if (!type)
    return std::nullopt;
  HostTensor t;
  t.elementType = type.getElementType();
  t.shape.assign(type.getShape().begin(), type.getShape().end());
  if (auto floatType = llvm::dyn_cast<FloatType>(t.elementType)) {
    t.floats.reserve(attr.getNumElements());
    if (floatType.isF32()) {
      for (float v : attr.getValues<float>())
        t.floats.push_back(v);
    } else if (floatType.isF64()) {
      for (double v : attr.getValues<double>())
        t.floats.push_back(v);
    } else {
      for (APFloat v : attr.getValues<APFloat>()) {
        bool lost;
        v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
        t.floats.push_back(v.convertToDouble());
      }
    }
    return t;
  }
  auto intType = llvm::dyn_cast<IntegerType>(t.elementType);
  if (!intType || intType.getWidth() > 64)
    return std::nullopt;
  bool zext = isUnsignedOrBool(intType);
  t.ints.reserve(attr.getNumElements());
  for (const APInt &v : attr.getValues<APInt>())
    t.ints.push_back(zext ? int64_t(v.getZExtValue()) : v.getSExtValue());
  return t;
}

DenseElementsAttr HostTensor::toAttr() const {
  auto type = RankedTensorType::get(shape, elementType);
  int64_t n = getNumElements();
  if (elementType.isInteger(1)) {
    SmallVector<bool> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(ints[i] != 0);
    return DenseElementsAttr::get(type, values);
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  // The bit pattern of element i, as the element type stores it.
  auto bits = [&](int64_t i) -> uint64_t {
    if (!isFloat())
      return uint64_t(ints[i]);
    auto floatType = llvm::cast<FloatType>(elementType);
    if (floatType.isF64()) {
      double d = floats[i];
      uint64_t b;
      std::memcpy(&b, &d, sizeof(b));
      return b;
    }
    if (floatType.isF32()) {
      float f = float(floats[i]);
      uint32_t b;
      std::memcpy(&b, &f, sizeof(b));
      return b;
    }
    APFloat v(floats[i]);
    bool lost;
    v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &lost);
    return v.bitcastToAPInt().getZExtValue();
  };
  if (width % 8 != 0) {
    // int4/int2: rare enough for the slow path.
    SmallVector<APInt> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(APInt(width, bits(i)));
    return DenseElementsAttr::get(type, values);
  }
  unsigned bytes = width / 8;
  bool splat = n > 0;
  for (int64_t i = 1; i < n && splat; ++i)
    splat = isFloat() ? std::memcmp(&floats[i], &floats[0], 8) == 0
                      : ints[i] == ints[0];
  int64_t stored = splat ? 1 : n;
  std::vector<char> raw(size_t(stored) * bytes);
  for (int64_t i = 0; i < stored; ++i) {
    uint64_t b = bits(i);
    std::memcpy(raw.data() + i * bytes, &b, bytes); // little-endian hosts
  }
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

using Shape = SmallVector<int64_t>;

/// Row-major strides of `shape`.
Shape stridesOf(ArrayRef<int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Calls `fn(coord)` for every coordinate of `shape` in row-major order.
void forEachCoord(ArrayRef<int64_t> shape,
                  llvm::function_ref<void(ArrayRef<int64_t>)> fn) {
  int64_t n = product(shape);
  Shape coord(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    fn(coord);
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++coord[d] < shape[d])
        break;
      coord[d] = 0;
    }
  }
}

/// A tensor of `shape` whose element i is `src`'s element `srcIndex[i]`.
HostTensor gatherElements(const HostTensor &src, Shape shape,
                          const std::vector<int64_t> &srcIndex) {
  HostTensor out;
  out.elementType = src.elementType;
  out.shape = std::move(shape);
  if (src.isFloat()) {
    out.floats.reserve(srcIndex.size());
    for (int64_t i : srcIndex)
      out.floats.push_back(src.floats[i]);
  } else {
    out.ints.reserve(srcIndex.size());
    for (int64_t i : srcIndex)
      out.ints.push_back(src.ints[i]);
  }
  return out;
}

/// ONNX multidirectional broadcasting of static shapes.
std::optional<Shape> broadcastShapes(ArrayRef<Shape> shapes) {
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const Shape &s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1)
        continue;
      if (o != 1)
        return std::nullopt;
      o = d;
    }
  }
  return out;
}

/// For each element of `outShape`, the flat index into a tensor of `inShape`
/// broadcast to it.
std::vector<int64_t> broadcastIndex(ArrayRef<int64_t> inShape,
                                    ArrayRef<int64_t> outShape) {
  size_t offset = outShape.size() - inShape.size();
  Shape inStrides = stridesOf(inShape);
  std::vector<int64_t> index;
  index.reserve(product(outShape));
  forEachCoord(outShape, [&](ArrayRef<int64_t> coord) {
    int64_t flat = 0;
    for (size_t d = 0; d < inShape.size(); ++d)
      if (inShape[d] != 1)
        flat += coord[offset + d] * inStrides[d];
    index.push_back(flat);
  });
  return index;
}

/// The integer elements of a 0-D/1-D input (axes, shapes, starts...).
std::optional<Shape> getInts(const std::optional<HostTensor> &t) {
  if (!t || t->isFloat() || t->shape.size() > 1)
    return std::nullopt;
  return Shape(t->ints.begin(), t->ints.end());
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

int64_t getIntAttr(Operation *op, StringRef name, int64_t defaultValue) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getValue().getSExtValue();
  return defaultValue;
}

std::optional<Shape> getIntsAttr(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<ArrayAttr>(name);
  if (!attr)
    return std::nullopt;
  Shape values;
  for (Attribute a : attr) {
    auto i = llvm::dyn_cast<IntegerAttr>(a);
    if (!i)
      return std::nullopt;
    values.push_back(i.getValue().getSExtValue());
  }
  return values;
}

/// The element type of result `i` (shape inference has run), or null.
Type resultElementType(Operation *op, unsigned i = 0) {
  auto type = llvm::dyn_cast<RankedTensorType>(op->getResult(i).getType());
  return type ? type.getElementType() : Type();
}

HostTensor makeInts(Type elementType, Shape shape, std::vector<int64_t> ints) {
  HostTensor t;
  t.elementType = elementType;
  t.shape = std::move(shape);
  t.ints = std::move(ints);
  return t;
}

/// Evaluation state of one op: its inputs, the element limit, its results.
struct Eval {
  Operation *op;
  ArrayRef<std::optional<HostTensor>> inputs;
  int64_t maxElements;
  SmallVectorImpl<HostTensor> &results;

  bool has(unsigned i) const { return i < inputs.size() && inputs[i]; }
  const HostTensor &in(unsigned i) const { return *inputs[i]; }

  /// Fails with TooLarge when a result of `shape` would exceed the limit.
  bool fits(ArrayRef<int64_t> shape) const {
    for (int64_t d : shape)
      if (d < 0)
        return false;
    // Overflow-safe product against the limit.
    int64_t n = 1;
    for (int64_t d : shape) {
      if (d != 0 && n > maxElements / d)
        return false;
      n *= d;
    }
    return n <= maxElements;
  }

  EvalStatus done(HostTensor t) {
    results.push_back(std::move(t));
    return EvalStatus::Folded;
  }
};

constexpr EvalStatus kUnsupported = EvalStatus::Unsupported;
constexpr EvalStatus kTooLarge = EvalStatus::TooLarge;

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// Applies `fn` to broadcast element tuples of all inputs. `isFloat` picks
/// the double or the integer version of the op; the result gets
/// `outElementType`.
EvalStatus
elementwise(Eval &e, Type outElementType,
            llvm::function_ref<std::optional<double>(ArrayRef<double>)> floatFn,
            llvm::function_ref<std::optional<int64_t>(ArrayRef<int64_t>)> intFn,
            bool computeInFloat) {
  SmallVector<Shape> shapes;
  for (unsigned i = 0; i < e.inputs.size(); ++i) {
    if (!e.has(i))
      return kUnsupported;
    shapes.push_back(e.in(i).shape);
  }
  std::optional<Shape> outShape = broadcastShapes(shapes);
  if (!outShape)
    return kUnsupported;
  if (!e.fits(*outShape))
    return kTooLarge;
  SmallVector<std::vector<int64_t>> index;
  for (const Shape &s : shapes)
    index.push_back(broadcastIndex(s, *outShape));
  HostTensor out;
  out.elementType = outElementType;
  out.shape = *outShape;
  int64_t n = product(*outShape);
  bool outFloat = out.isFloat();
  SmallVector<double> fargs(shapes.size());
  SmallVector<int64_t> iargs(shapes.size());
  for (int64_t i = 0; i < n; ++i) {
    if (computeInFloat) {
      for (unsigned k = 0; k < shapes.size(); ++k)
        fargs[k] = e.in(k).getFloat(index[k][i]);
      std::optional<double> v = floatFn(fargs);
      if (!v)
        return kUnsupported;
      if (outFloat)
        out.floats.push_back(*v);
      else
        out.ints.push_back(int64_t(*v));
    } else {
      for (unsigned k = 0; k < shapes.size(); ++k)
        iargs[k] = e.in(k).getInt(index[k][i]);
      std::optional<int64_t> v = intFn(iargs);
      if (!v)
        return kUnsupported;
      if (outFloat)
        out.floats.push_back(double(*v));
      else
        out.ints.push_back(*v);
    }
  }
  return e.done(std::move(out));
}

/// Arithmetic whose result has the inputs' element type.
EvalStatus arithmetic(Eval &e, StringRef name) {
  if (!e.has(0))
    return kUnsupported;
  Type elementType = e.in(0).elementType;
  for (unsigned i = 1; i < e.inputs.size(); ++i)
    if (!e.has(i) || e.in(i).elementType != elementType)
      return kUnsupported;
  bool isFloat = e.in(0).isFloat();
  bool isUnsigned = elementType.isUnsignedInteger();
  using FloatFn = std::function<std::optional<double>(ArrayRef<double>)>;
  using IntFn = std::function<std::optional<int64_t>(ArrayRef<int64_t>)>;
  FloatFn f;
  IntFn g;
  if (name == "Add") {
    f = [](ArrayRef<double> a) { return a[0] + a[1]; };
    g = [](ArrayRef<int64_t> a) {
      return int64_t(uint64_t(a[0]) + uint64_t(a[1]));
    };
  } else if (name == "Sub") {
    f = [](ArrayRef<double> a) { return a[0] - a[1]; };
    g = [](ArrayRef<int64_t> a) {
      return int64_t(uint64_t(a[0]) - uint64_t(a[1]));
    };
  } else if (name == "Mul") {
    f = [](ArrayRef<double> a) { return a[0] * a[1]; };
    g = [](ArrayRef<int64_t> a) {
      return int64_t(uint64_t(a[0]) * uint64_t(a[1]));
    };
  } else if (name == "Div") {
    f = [](ArrayRef<double> a) { return a[0] / a[1]; };
    // Integer division truncates (as C and ONNX Runtime do); by zero it is
    // undefined, so such an op stays for run time.
    g = [isUnsigned](ArrayRef<int64_t> a) -> std::optional<int64_t> {
      if (a[1] == 0 || (!isUnsigned && a[1] == -1 && a[0] == INT64_MIN))
        return std::nullopt;
      if (isUnsigned)
        return int64_t(uint64_t(a[0]) / uint64_t(a[1]));
      return a[0] / a[1];
    };
  } else if (name == "Min" || name == "Max") {
    bool isMax = name == "Max";
    f = [isMax](ArrayRef<double> a) -> std::optional<double> {
      double r = a[0];
      for (double v : a.drop_front()) {
        if (std::isnan(v) || std::isnan(r))
          return std::nan("");
        r = isMax ? std::max(r, v) : std::min(r, v);
      }
      return r;
    };
    g = [isMax, isUnsigned](ArrayRef<int64_t> a) -> std::optional<int64_t> {
      int64_t r = a[0];
      for (int64_t v : a.drop_front()) {
        bool greater = isUnsigned ? uint64_t(v) > uint64_t(r) : v > r;
        if (greater == isMax && v != r)
          r = v;
      }
      return r;
    };
  } else if (name == "Neg") {
    f = [](ArrayRef<double> a) { return -a[0]; };
    g = [](ArrayRef<int64_t> a) { return int64_t(0 - uint64_t(a[0])); };
  } else if (name == "Abs") {
    f = [](ArrayRef<double> a) { return std::fabs(a[0]); };
    g = [isUnsigned](ArrayRef<int64_t> a) {
      return isUnsigned ? a[0]
                        : (a[0] < 0 ? int64_t(0 - uint64_t(a[0])) : a[0]);
    };
  } else if (name == "Sqrt" || name == "Reciprocal" || name == "Floor" ||
             name == "Ceil") {
    if (!isFloat)
      return kUnsupported;
    f = llvm::StringSwitch<FloatFn>(name)
            .Case("Sqrt", [](ArrayRef<double> a) { return std::sqrt(a[0]); })
            .Case("Reciprocal", [](ArrayRef<double> a) { return 1.0 / a[0]; })
            .Case("Floor", [](ArrayRef<double> a) { return std::floor(a[0]); })
            .Default([](ArrayRef<double> a) { return std::ceil(a[0]); });
  } else if (name == "Sign") {
    f = [](ArrayRef<double> a) {
      return std::isnan(a[0]) ? a[0] : double((a[0] > 0) - (a[0] < 0));
    };
    g = [](ArrayRef<int64_t> a) { return int64_t((a[0] > 0) - (a[0] < 0)); };
  } else {
    return kUnsupported;
  }
  if ((isFloat && !f) || (!isFloat && !g))
    return kUnsupported;
  // A ui64 above INT64_MAX would compare and divide wrongly as int64.
  if (elementType.isUnsignedInteger(64) && name != "Add" && name != "Sub" &&
      name != "Mul")
    return kUnsupported;
  return elementwise(e, elementType, f ? f : FloatFn(), g ? g : IntFn(),
                     isFloat);
}

/// Comparisons and logic ops: bool results.
EvalStatus predicate(Eval &e, StringRef name) {
  if (!e.has(0) || !e.has(1) || e.in(0).elementType != e.in(1).elementType)
    return kUnsupported;
  Type boolType = IntegerType::get(e.op->getContext(), 1);
  bool isFloat = e.in(0).isFloat();
  if (e.in(0).elementType.isUnsignedInteger(64))
    return kUnsupported;
  auto cmp = [&](auto a, auto b) -> std::optional<bool> {
    if (name == "Equal")
      return a == b;
    if (name == "Less")
      return a < b;
    if (name == "LessOrEqual")
      return a <= b;
    if (name == "Greater")
      return a > b;
    if (name == "GreaterOrEqual")
      return a >= b;
    if (name == "And")
      return a != 0 && b != 0;
    if (name == "Or")
      return a != 0 || b != 0;
    if (name == "Xor")
      return (a != 0) != (b != 0);
    return std::nullopt;
  };
  return elementwise(
      e, boolType,
      [&](ArrayRef<double> a) -> std::optional<double> {
        std::optional<bool> r = cmp(a[0], a[1]);
        return r ? std::optional<double>(*r) : std::nullopt;
      },
      [&](ArrayRef<int64_t> a) -> std::optional<int64_t> {
        std::optional<bool> r = cmp(a[0], a[1]);
        return r ? std::optional<int64_t>(*r) : std::nullopt;
      },
      isFloat);
}

EvalStatus evalNot(Eval &e) {
  if (!e.has(0) || !e.in(0).elementType.isInteger(1))
    return kUnsupported;
  HostTensor out = e.in(0);
  for (int64_t &v : out.ints)
    v = !v;
  return e.done(std::move(out));
}

EvalStatus evalWhere(Eval &e) {
  if (!e.has(0) || !e.has(1) || !e.has(2) ||
      e.in(1).elementType != e.in(2).elementType)
    return kUnsupported;
  std::optional<Shape> outShape =
      broadcastShapes({e.in(0).shape, e.in(1).shape, e.in(2).shape});
  if (!outShape)
    return kUnsupported;
  if (!e.fits(*outShape))
    return kTooLarge;
  std::vector<int64_t> c = broadcastIndex(e.in(0).shape, *outShape);
  std::vector<int64_t> x = broadcastIndex(e.in(1).shape, *outShape);
  std::vector<int64_t> y = broadcastIndex(e.in(2).shape, *outShape);
  HostTensor out;
  out.elementType = e.in(1).elementType;
  out.shape = *outShape;
  for (size_t i = 0; i < c.size(); ++i) {
    bool pick = e.in(0).getInt(c[i]) != 0;
    const HostTensor &src = pick ? e.in(1) : e.in(2);
    int64_t j = pick ? x[i] : y[i];
    if (out.isFloat())
      out.floats.push_back(src.floats[j]);
    else
      out.ints.push_back(src.ints[j]);
  }
  return e.done(std::move(out));
}

/// Cast (and CastLike): C conversions, float to int truncating toward zero.
EvalStatus evalCast(Eval &e) {
  Type to = resultElementType(e.op);
  if (!to || !e.has(0))
    return kUnsupported;
  auto intType = llvm::dyn_cast<IntegerType>(to);
  auto floatType = llvm::dyn_cast<FloatType>(to);
  // float8 targets saturate by an attribute; leave them to the kernels.
  if ((!intType && !floatType) || (floatType && floatType.getWidth() == 8) ||
      (intType && intType.getWidth() > 64))
    return kUnsupported;
  const HostTensor &src = e.in(0);
  HostTensor out;
  out.elementType = to;
  out.shape = src.shape;
  int64_t n = src.getNumElements();
  for (int64_t i = 0; i < n; ++i) {
    if (floatType) {
      out.floats.push_back(src.getFloat(i));
      continue;
    }
    if (to.isInteger(1)) {
      out.ints.push_back(src.isFloat() ? src.floats[i] != 0.0
                                       : src.ints[i] != 0);
      continue;
    }
    if (src.isFloat()) {
      double v = src.floats[i];
      // Out-of-range and NaN conversions are undefined in ONNX.
      if (!(v > -9.2e18 && v < 9.2e18))
        return kUnsupported;
      out.ints.push_back(int64_t(v));
    } else {
      out.ints.push_back(src.ints[i]);
    }
  }
  // Integers wrap to the target width; unsigned values must read back
  // zero-extended and signed ones sign-extended.
  if (intType) {
    unsigned w = intType.getWidth();
    for (int64_t &v : out.ints) {
      if (w == 64 || to.isInteger(1))
        continue;
      uint64_t mask = (uint64_t(1) << w) - 1;
      uint64_t u = uint64_t(v) & mask;
      if (!isUnsignedOrBool(intType) && (u >> (w - 1)))
        u |= ~mask;
      v = int64_t(u);
    }
  }
  return e.done(std::move(out));
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

EvalStatus evalShape(Eval &e) {
  auto type = llvm::dyn_cast<RankedTensorType>(e.op->getOperand(0).getType());
  if (!type || !type.hasStaticShape())
    return kUnsupported;
  Type i64 = IntegerType::get(e.op->getContext(), 64);
  int64_t rank = type.getRank();
  if (e.op->getName().getStringRef() == "onnx.Size")
    return e.done(makeInts(i64, {}, {type.getNumElements()}));
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += rank;
    return std::clamp<int64_t>(v, 0, rank);
  };
  int64_t start = clamp(getIntAttr(e.op, "start", 0));
  int64_t end = clamp(getIntAttr(e.op, "end", rank));
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(type.getDimSize(i));
  int64_t n = int64_t(dims.size());
  return e.done(makeInts(i64, {n}, std::move(dims)));
}

EvalStatus evalConstantOfShape(Eval &e) {
  std::optional<Shape> shape = getInts(e.inputs[0]);
  if (!shape || e.in(0).shape.size() != 1)
    return kUnsupported;
  if (!e.fits(*shape))
    return kTooLarge;
  HostTensor fill;
  if (auto value = e.op->getAttrOfType<DenseElementsAttr>("value")) {
    std::optional<HostTensor> v = HostTensor::fromAttr(value);
    if (!v || v->getNumElements() != 1)
      return kUnsupported;
    fill = std::move(*v);
  } else {
    fill.elementType = Float32Type::get(e.op->getContext());
    fill.floats = {0.0};
  }
  std::vector<int64_t> index(product(*shape), 0);
  return e.done(gatherElements(fill, *shape, index));
}

EvalStatus evalRange(Eval &e) {
  if (!e.has(0) || !e.has(1) || !e.has(2))
    return kUnsupported;
  for (unsigned i = 0; i < 3; ++i)
    if (e.in(i).getNumElements() != 1)
      return kUnsupported;
  HostTensor out;
  out.elementType = e.in(0).elementType;
  // A float Range accumulates rounding the way its kernel does; only the
  // integer ranges of shape computations are folded.
  if (out.isFloat())
    return kUnsupported;
  int64_t start = e.in(0).ints[0], limit = e.in(1).ints[0],
          delta = e.in(2).ints[0];
  if (delta == 0)
    return kUnsupported;
  double count =
      std::max(std::ceil((double(limit) - double(start)) / double(delta)), 0.0);
  if (count > double(e.maxElements))
    return kTooLarge;
  out.shape = {int64_t(count)};
  for (int64_t i = 0; i < int64_t(count); ++i)
    out.ints.push_back(start + i * delta);
  return e.done(std::move(out));
}

EvalStatus evalReshape(Eval &e) {
  std::optional<Shape> target = getInts(e.inputs[1]);
  if (!e.has(0) || !target)
    return kUnsupported;
  const HostTensor &data = e.in(0);
  bool allowZero = getIntAttr(e.op, "allowzero", 0) != 0;
  Shape shape;
  int64_t inferAt = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*target)) {
    if (d == 0 && !allowZero) {
      if (i >= data.shape.size())
        return kUnsupported;
      d = data.shape[i];
    }
    if (d == -1) {
      if (inferAt >= 0)
        return kUnsupported;
      inferAt = int64_t(i);
      d = 1;
    } else if (d < 0) {
      return kUnsupported;
    }
    shape.push_back(d);
    known *= d;
  }
  int64_t n = data.getNumElements();
  if (inferAt >= 0) {
    if (known == 0 || n % known != 0)
      return kUnsupported;
    shape[inferAt] = n / known;
  } else if (known != n) {
    return kUnsupported;
  }
  HostTensor out = data;
  out.shape = shape;
  return e.done(std::move(out));
}

EvalStatus evalFlatten(Eval &e) {
  if (!e.has(0))
    return kUnsupported;
  HostTensor out = e.in(0);
  int64_t rank = int64_t(out.shape.size());
  int64_t axis = getIntAttr(e.op, "axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return kUnsupported;
  int64_t outer = product(ArrayRef<int64_t>(out.shape).take_front(axis));
  out.shape = {outer, product(ArrayRef<int64_t>(out.shape).drop_front(axis))};
  return e.done(std::move(out));
}

EvalStatus evalUnsqueeze(Eval &e) {
  std::optional<Shape> axes = getInts(e.inputs[1]);
  if (!e.has(0) || !axes)
    return kUnsupported;
  HostTensor out = e.in(0);
  int64_t rank = int64_t(out.shape.size() + axes->size());
  SmallVector<bool> inserted(rank, false);
  for (int64_t a : *axes) {
    std::optional<int64_t> axis = normalizeAxis(a, rank);
    if (!axis || inserted[*axis])
      return kUnsupported;
    inserted[*axis] = true;
  }
  Shape shape;
  unsigned next = 0;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(inserted[d] ? 1 : out.shape[next++]);
  out.shape = shape;
  return e.done(std::move(out));
}

EvalStatus evalSqueeze(Eval &e) {
  if (!e.has(0))
    return kUnsupported;
  HostTensor out = e.in(0);
  int64_t rank = int64_t(out.shape.size());
  SmallVector<bool> removed(rank, false);
  if (e.has(1)) {
    std::optional<Shape> axes = getInts(e.inputs[1]);
    if (!axes)
      return kUnsupported;
    for (int64_t a : *axes) {
      std::optional<int64_t> axis = normalizeAxis(a, rank);
      if (!axis || out.shape[*axis] != 1)
        return kUnsupported;
      removed[*axis] = true;
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      removed[d] = out.shape[d] == 1;
  }
  Shape shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!removed[d])
      shape.push_back(out.shape[d]);
  out.shape = shape;
  return e.done(std::move(out));
}

EvalStatus evalTranspose(Eval &e) {
  if (!e.has(0))
    return kUnsupported;
  const HostTensor &src = e.in(0);
  int64_t rank = int64_t(src.shape.size());
  Shape perm;
  if (std::optional<Shape> p = getIntsAttr(e.op, "perm")) {
    perm = *p;
  } else {
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  }
  if (int64_t(perm.size()) != rank)
    return kUnsupported;
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return kUnsupported;
    seen[p] = true;
  }
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(src.shape[p]);
  Shape strides = stridesOf(src.shape);
  std::vector<int64_t> index;
  index.reserve(src.getNumElements());
  forEachCoord(shape, [&](ArrayRef<int64_t> coord) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat += coord[d] * strides[perm[d]];
    index.push_back(flat);
  });
  return e.done(gatherElements(src, shape, index));
}

EvalStatus evalConcat(Eval &e) {
  if (e.inputs.empty())
    return kUnsupported;
  for (unsigned i = 0; i < e.inputs.size(); ++i)
    if (!e.has(i) || e.in(i).elementType != e.in(0).elementType ||
        e.in(i).shape.size() != e.in(0).shape.size())
      return kUnsupported;
  int64_t rank = int64_t(e.in(0).shape.size());
  std::optional<int64_t> axis =
      normalizeAxis(getIntAttr(e.op, "axis", 0), rank);
  if (!axis)
    return kUnsupported;
  Shape shape = e.in(0).shape;
  shape[*axis] = 0;
  for (unsigned i = 0; i < e.inputs.size(); ++i) {
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && e.in(i).shape[d] != shape[d])
        return kUnsupported;
    shape[*axis] += e.in(i).shape[*axis];
  }
  if (!e.fits(shape))
    return kTooLarge;
  HostTensor out;
  out.elementType = e.in(0).elementType;
  out.shape = shape;
  int64_t outer = product(ArrayRef<int64_t>(shape).take_front(*axis));
  for (int64_t o = 0; o < outer; ++o) {
    for (unsigned i = 0; i < e.inputs.size(); ++i) {
      const HostTensor &src = e.in(i);
      int64_t chunk = product(ArrayRef<int64_t>(src.shape).drop_front(*axis));
      if (out.isFloat())
        out.floats.insert(out.floats.end(), src.floats.begin() + o * chunk,
                          src.floats.begin() + (o + 1) * chunk);
      else
        out.ints.insert(out.ints.end(), src.ints.begin() + o * chunk,
                        src.ints.begin() + (o + 1) * chunk);
    }
  }
  return e.done(std::move(out));
}

EvalStatus evalGather(Eval &e) {
  if (!e.has(0) || !e.has(1) || e.in(1).isFloat())
    return kUnsupported;
  const HostTensor &data = e.in(0);
  const HostTensor &indices = e.in(1);
  int64_t rank = int64_t(data.shape.size());
  std::optional<int64_t> axis =
      normalizeAxis(getIntAttr(e.op, "axis", 0), rank);
  if (!axis)
    return kUnsupported;
  Shape shape(data.shape.begin(), data.shape.begin() + *axis);
  shape.append(indices.shape.begin(), indices.shape.end());
  shape.append(data.shape.begin() + *axis + 1, data.shape.end());
  if (!e.fits(shape))
    return kTooLarge;
  int64_t outer = product(ArrayRef<int64_t>(data.shape).take_front(*axis));
  int64_t inner = product(ArrayRef<int64_t>(data.shape).drop_front(*axis + 1));
  int64_t dim = data.shape[*axis];
  std::vector<int64_t> index;
  index.reserve(product(shape));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k : indices.ints) {
      if (k < -dim || k >= dim)
        return kUnsupported;
      if (k < 0)
        k += dim;
      for (int64_t i = 0; i < inner; ++i)
        index.push_back((o * dim + k) * inner + i);
    }
  }
  return e.done(gatherElements(data, shape, index));
}

EvalStatus evalSlice(Eval &e) {
  std::optional<Shape> starts = getInts(e.inputs[1]);
  std::optional<Shape> ends = getInts(e.inputs[2]);
  if (!e.has(0) || !starts || !ends || starts->size() != ends->size())
    return kUnsupported;
  const HostTensor &data = e.in(0);
  int64_t rank = int64_t(data.shape.size());
  Shape axes, steps(starts->size(), 1);
  if (e.has(3)) {
    std::optional<Shape> a = getInts(e.inputs[3]);
    if (!a || a->size() != starts->size())
      return kUnsupported;
    axes = *a;
  } else {
    for (int64_t i = 0; i < int64_t(starts->size()); ++i)
      axes.push_back(i);
  }
  if (e.has(4)) {
    std::optional<Shape> s = getInts(e.inputs[4]);
    if (!s || s->size() != starts->size())
      return kUnsupported;
    steps = *s;
  }
  Shape begin(rank, 0), step(rank, 1), shape = data.shape;
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    std::optional<int64_t> axis = normalizeAxis(axes[i], rank);
    if (!axis || seen[*axis] || steps[i] == 0)
      return kUnsupported;
    seen[*axis] = true;
    int64_t dim = data.shape[*axis];
    int64_t s = (*starts)[i], en = (*ends)[i], st = steps[i];
    if (s < 0)
      s += dim;
    if (en < 0)
      en += dim;
    int64_t count;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      en = std::clamp<int64_t>(en, 0, dim);
      count = en > s ? (en - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      en = std::clamp<int64_t>(en, -1, dim - 1);
      count = s > en ? (s - en - st - 1) / -st : 0;
    }
    begin[*axis] = s;
    step[*axis] = st;
    shape[*axis] = count;
  }
  Shape strides = stridesOf(data.shape);
  std::vector<int64_t> index;
  forEachCoord(shape, [&](ArrayRef<int64_t> coord) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat += (begin[d] + coord[d] * step[d]) * strides[d];
    index.push_back(flat);
  });
  return e.done(gatherElements(data, shape, index));
}

EvalStatus evalExpand(Eval &e) {
  std::optional<Shape> target = getInts(e.inputs[1]);
  if (!e.has(0) || !target)
    return kUnsupported;
  for (int64_t d : *target)
    if (d < 0)
      return kUnsupported;
  std::optional<Shape> shape = broadcastShapes({e.in(0).shape, *target});
  if (!shape)
    return kUnsupported;
  if (!e.fits(*shape))
    return kTooLarge;
  return e.done(
      gatherElements(e.in(0), *shape, broadcastIndex(e.in(0).shape, *shape)));
}

/// Where a Quantize/DequantizeLinear's scale (and zero point) applies over
/// `x`: one value, or one per step of the `axis` attribute. Element i then
/// takes value (i / inner) % length (inner = length = 1 per tensor); false
/// when the scale fits neither form.
bool quantizationAxis(Eval &e, const HostTensor &x, const HostTensor &scale,
                      int64_t &inner, int64_t &length) {
  int64_t rank = x.shape.size(), count = scale.getNumElements();
  auto axisAttr = e.op->getAttrOfType<IntegerAttr>("axis");
  int64_t axis = axisAttr ? axisAttr.getInt() : 1;
  axis = axis < 0 ? axis + rank : axis;
  inner = 1;
  length = 1;
  if (count == 1)
    return true;
  if (scale.shape.size() != 1 || axis < 0 || axis >= rank ||
      x.shape[axis] != count)
    return false;
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= x.shape[d];
  length = count;
  return true;
}

/// QuantizeLinear of a float constant (a weight a quantizer left as float
/// behind a QuantizeLinear): y = saturate(round(x / scale) + zero_point),
/// the division in f32 and rounding half to even, as ONNX Runtime's kernel.
/// Per tensor or per `axis`; not blocked, and only to 8- or 16-bit integers.
EvalStatus evalQuantizeLinear(Eval &e) {
  auto to = llvm::dyn_cast_or_null<IntegerType>(resultElementType(e.op));
  auto blockSize = e.op->getAttrOfType<IntegerAttr>("block_size");
  if (!to || (to.getWidth() != 8 && to.getWidth() != 16) || !e.has(0) ||
      !e.has(1) || !e.in(0).isFloat() || !e.in(1).isFloat() ||
      (blockSize && blockSize.getInt() != 0))
    return kUnsupported;
  const HostTensor &x = e.in(0), &scale = e.in(1);
  int64_t count = scale.getNumElements(), inner, length;
  if (!quantizationAxis(e, x, scale, inner, length))
    return kUnsupported;
  bool hasZero = e.has(2);
  if (hasZero && e.in(2).getNumElements() != count)
    return kUnsupported;
  int64_t lo = to.isUnsigned() ? 0 : -(int64_t(1) << (to.getWidth() - 1));
  int64_t hi = to.isUnsigned() ? (int64_t(1) << to.getWidth()) - 1
                               : (int64_t(1) << (to.getWidth() - 1)) - 1;
  HostTensor out;
  out.elementType = to;
  out.shape = x.shape;
  int64_t n = x.getNumElements();
  for (int64_t i = 0; i < n; ++i) {
    int64_t c = count == 1 ? 0 : (i / inner) % length;
    float s = static_cast<float>(scale.getFloat(c));
    if (!(s > 0.0f) || std::isnan(x.floats[i]))
      return kUnsupported; // a zero or negative scale, NaN: left to run time
    double q = std::nearbyint(static_cast<float>(x.floats[i]) / s) +
               (hasZero ? e.in(2).getInt(c) : 0);
    out.ints.push_back(
        static_cast<int64_t>(std::min<double>(hi, std::max<double>(lo, q))));
  }
  return e.done(std::move(out));
}

/// DequantizeLinear of an integer constant to f32: y = (x - zero_point) *
/// scale, per tensor or per `axis` (not blocked), as ONNX Runtime's kernel:
/// the difference is exact and the double product of two f32 values rounds
/// to the f32 product once.
EvalStatus evalDequantizeLinear(Eval &e) {
  auto blockSize = e.op->getAttrOfType<IntegerAttr>("block_size");
  if (!resultElementType(e.op) || !resultElementType(e.op).isF32() ||
      !e.has(0) || !e.has(1) || e.in(0).isFloat() || !e.in(1).isFloat() ||
      (blockSize && blockSize.getInt() != 0))
    return kUnsupported;
  const HostTensor &x = e.in(0), &scale = e.in(1);
  int64_t count = scale.getNumElements(), inner, length;
  if (!quantizationAxis(e, x, scale, inner, length))
    return kUnsupported;
  bool hasZero = e.has(2);
  if (hasZero && e.in(2).getNumElements() != count)
    return kUnsupported;
  if (!e.fits(x.shape))
    return kTooLarge;
  HostTensor out;
  out.elementType = resultElementType(e.op);
  out.shape = x.shape;
  int64_t n = x.getNumElements();
  out.floats.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t c = count == 1 ? 0 : (i / inner) % length;
    int64_t q = x.getInt(i) - (hasZero ? e.in(2).getInt(c) : 0);
    out.floats.push_back(static_cast<double>(static_cast<float>(q)) *
                         static_cast<float>(scale.getFloat(c)));
  }
  return e.done(std::move(out));
}

EvalStatus evalIdentity(Eval &e) {
  if (!e.has(0))
    return kUnsupported;
  return e.done(e.in(0));
}

using Evaluator = EvalStatus (*)(Eval &);

const llvm::StringMap<Evaluator> &getEvaluators() {
  static const llvm::StringMap<Evaluator> table = [] {
    llvm::StringMap<Evaluator> t;
    for (StringRef name :
         {"Add", "Sub", "Mul", "Div", "Min", "Max", "Neg", "Abs", "Sqrt",
          "Reciprocal", "Floor", "Ceil", "Sign"})
      t[(llvm::Twine("onnx.") + name).str()] = [](Eval &e) {
        return arithmetic(e, e.op->getName().stripDialect());
      };
    for (StringRef name : {"Equal", "Less", "LessOrEqual", "Greater",
                           "GreaterOrEqual", "And", "Or", "Xor"})
      t[(llvm::Twine("onnx.") + name).str()] = [](Eval &e) {
        return predicate(e, e.op->getName().stripDialect());
      };
    t["onnx.Not"] = evalNot;
    t["onnx.Where"] = evalWhere;
    t["onnx.Cast"] = evalCast;
    t["onnx.CastLike"] = evalCast;
    t["onnx.Shape"] = evalShape;
    t["onnx.Size"] = evalShape;
    t["onnx.ConstantOfShape"] = evalConstantOfShape;
    t["onnx.Range"] = evalRange;
    t["onnx.Reshape"] = evalReshape;
    t["onnx.Flatten"] = evalFlatten;
    t["onnx.Unsqueeze"] = evalUnsqueeze;
    t["onnx.Squeeze"] = evalSqueeze;
    t["onnx.Transpose"] = evalTranspose;
    t["onnx.Concat"] = evalConcat;
    t["onnx.Gather"] = evalGather;
    t["onnx.Slice"] = evalSlice;
    t["onnx.Expand"] = evalExpand;
    t["onnx.Identity"] = evalIdentity;
    t["onnx.QuantizeLinear"] = evalQuantizeLinear;
    t["onnx.DequantizeLinear"] = evalDequantizeLinear;
    return t;
  }();
  return table;
}

} // namespace

bool canEvaluate(Operation *op) {
  return getEvaluators().count(op->getName().getStringRef()) != 0;
}

EvalStatus evaluate(Operation *op, ArrayRef<std::optional<HostTensor>> inputs,
                    int64_t maxElements, SmallVectorImpl<HostTensor> &results) {
  Evaluator fn = getEvaluators().lookup(op->getName().getStringRef());
  if (!fn)
    return kUnsupported;
  // CastLike's second input only gives the type; Cast and CastLike both
  // read the target from the (inferred) result type.
  ArrayRef<std::optional<HostTensor>> used = inputs;
  if (op->getName().getStringRef() == "onnx.CastLike")
    used = inputs.take_front(1);
  Eval e{op, used, maxElements, results};
  EvalStatus status = fn(e);
  if (status != EvalStatus::Folded) {
    results.clear();
    return status;
  }
  for (const HostTensor &t : results)
    if (!e.fits(t.shape))
      return results.clear(), kTooLarge;
  return status;
}

} // namespace onnxc::constfold
