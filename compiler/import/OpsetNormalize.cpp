//===- OpsetNormalize.cpp - Older opset versions -> the dialect's form ----===//
//
// One function per op family. Each says what changed in which ONNX version and
// rewrites a node of an older version into the newest form with the same
// meaning. A version bump not handled here only widened the op's types (or
// added an attribute whose default keeps the old behaviour), so a node of that
// version is already in the newest form.
//
// `node.version` is the op's since_version the model uses: the largest one not
// above the model's opset for the op's domain.
//
//===----------------------------------------------------------------------===//

#include "compiler/import/OpsetNormalize.h"

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/import/OpEmitter.h"
#include "compiler/import/OpSchemas.h"
#include "compiler/import/TensorConverter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace onnxc {
namespace {

using Replacement = std::optional<SmallVector<Value>>;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

StringRef opTypeOf(const PendingNode &node) { return node.schema->opType; }

InFlightDiagnostic unsupported(const PendingNode &node) {
  return emitError(node.loc) << "opset " << node.version << " of "
                             << opTypeOf(node) << " is not supported";
}

void setInput(PendingNode &node, unsigned index, Value value) {
  if (node.inputs.size() <= index)
    node.inputs.resize(index + 1);
  node.inputs[index] = value;
}

Value getInput(const PendingNode &node, unsigned index) {
  return index < node.inputs.size() ? node.inputs[index] : Value();
}

std::optional<int64_t> getInt(const PendingNode &node, StringRef name) {
  if (auto attr =
          llvm::dyn_cast_or_null<IntegerAttr>(node.attributes.get(name)))
    return attr.getInt();
  return std::nullopt;
}

std::optional<float> getFloat(const PendingNode &node, StringRef name) {
  if (auto attr = llvm::dyn_cast_or_null<FloatAttr>(node.attributes.get(name)))
    return static_cast<float>(attr.getValueAsDouble());
  return std::nullopt;
}

/// Removes the INTS attribute `name`; its values, or nothing if it is absent.
FailureOr<std::optional<SmallVector<int64_t>>> takeInts(PendingNode &node,
                                                        StringRef name) {
  Attribute attr = node.attributes.erase(name);
  if (!attr)
    return std::optional<SmallVector<int64_t>>();
  auto array = llvm::dyn_cast<ArrayAttr>(attr);
  SmallVector<int64_t> values;
  for (Attribute element : array ? array.getValue() : ArrayRef<Attribute>()) {
    auto value = llvm::dyn_cast<IntegerAttr>(element);
    if (!value)
      return emitError(node.loc) << "attribute '" << name << "' must be INTS";
    values.push_back(value.getInt());
  }
  if (!array)
    return emitError(node.loc) << "attribute '" << name << "' must be INTS";
  return std::optional<SmallVector<int64_t>>(values);
}

/// Moves the INTS attribute `name` to input `index` as a 1-D i64 constant.
/// An absent attribute leaves the input omitted; so does an empty one when
/// `emptyIsAbsent` (for `axes`, where both mean "all axes").
LogicalResult intsToInput(OpEmitter &emitter, PendingNode &node, StringRef name,
                          unsigned index, bool emptyIsAbsent = false) {
  auto values = takeInts(node, name);
  if (failed(values))
    return failure();
  if (!*values || ((*values)->empty() && emptyIsAbsent))
    return success();
  FailureOr<Value> constant = emitter.i64Constant(node.loc, **values);
  if (failed(constant))
    return failure();
  setInput(node, index, *constant);
  return success();
}

/// A 0-D constant `value` of `like`'s element type: typed directly when that
/// type is known now, else an f32 constant cast by CastLike at run time.
FailureOr<Value> scalarLike(OpEmitter &emitter, Location loc, double value,
                            Value like) {
  if (auto tensor = llvm::dyn_cast<TensorType>(like.getType()))
    if (auto floatType = llvm::dyn_cast<FloatType>(tensor.getElementType())) {
      auto type = RankedTensorType::get({}, floatType);
      return emitter.constant(
          loc, DenseElementsAttr::get(type, FloatAttr::get(floatType, value)));
    }
  FailureOr<Value> f32 =
      emitter.f32Constant(loc, {static_cast<float>(value)}, /*scalar=*/true);
  if (failed(f32))
    return failure();
  return emitter.createValue(loc, "onnx.CastLike", {*f32, like});
}

/// Makes the node build the dialect op `mlirName` instead.
LogicalResult retarget(PendingNode &node, StringRef mlirName) {
  const OnnxOpSchema *schema = lookupOpSchema(mlirName);
  if (!schema)
    return emitError(node.loc)
           << "op '" << mlirName << "' is not in the dialect";
  node.schema = schema;
  return success();
}

/// Outputs of an older version that the newest form does not produce are
/// dropped; a node that uses one fails to import as using an undefined name.
void dropOutputsFrom(PendingNode &node, unsigned first) {
  for (unsigned i = first; i < node.outputPresent.size(); ++i)
    node.outputPresent[i] = false;
}

//===----------------------------------------------------------------------===//
// Constant: value_float/value_floats/value_int/value_ints (opset 12) become
// `value`, the only form the dialect's users read. sparse_value (11) and the
// string forms are refused for now.
//===----------------------------------------------------------------------===//

LogicalResult normalizeConstant(PendingNode &node) {
  MLIRContext *ctx = node.loc.getContext();
  if (node.attributes.get("sparse_value"))
    return emitError(node.loc)
           << "Constant with sparse_value is not supported yet";
  if (node.attributes.get("value_string") ||
      node.attributes.get("value_strings"))
    return emitError(node.loc)
           << "Constant with value_string(s): string tensors are not "
              "supported yet";
  unsigned given = 0;
  for (StringRef name :
       {"value", "value_float", "value_floats", "value_int", "value_ints"})
    given += node.attributes.get(name) ? 1 : 0;
  if (given != 1)
    return emitError(node.loc)
           << "Constant needs exactly one of value, value_float, "
              "value_floats, value_int, value_ints (it has "
           << given << ")";
  if (node.attributes.get("value"))
    return success();

  auto f32 = Float32Type::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  DenseElementsAttr value;
  if (Attribute attr = node.attributes.erase("value_float")) {
    auto f = llvm::dyn_cast<FloatAttr>(attr);
    if (!f)
      return emitError(node.loc) << "attribute 'value_float' must be FLOAT";
    value = DenseElementsAttr::get(RankedTensorType::get({}, f32),
                                   static_cast<float>(f.getValueAsDouble()));
  } else if (Attribute attr = node.attributes.erase("value_int")) {
    auto i = llvm::dyn_cast<IntegerAttr>(attr);
    if (!i)
      return emitError(node.loc) << "attribute 'value_int' must be INT";
    value = DenseElementsAttr::get(RankedTensorType::get({}, i64), i.getInt());
  } else if (Attribute attr = node.attributes.erase("value_floats")) {
    auto array = llvm::dyn_cast<ArrayAttr>(attr);
    SmallVector<float> values;
    for (Attribute element : array ? array.getValue() : ArrayRef<Attribute>()) {
      auto f = llvm::dyn_cast<FloatAttr>(element);
      if (!f)
        return emitError(node.loc) << "attribute 'value_floats' must be FLOATS";
      values.push_back(static_cast<float>(f.getValueAsDouble()));
    }
    value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(values.size())}, f32),
        llvm::ArrayRef<float>(values));
  } else {
    auto values = takeInts(node, "value_ints");
    if (failed(values))
      return failure();
    value = DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>((*values)->size())}, i64),
        llvm::ArrayRef<int64_t>(**values));
  }
  node.attributes.set("value", value);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops before opset 7 (Add, Sub, Mul, Div, Pow, And, Or, Xor,
// Equal, Greater, Less): without `broadcast=1` both inputs had one shape; with
// it B was broadcast to A, its dims matching A's from `axis` on (A's trailing
// dims when `axis` is absent). Opset 7 made broadcasting numpy-style. A
// trailing match is the same under both; for an explicit `axis` B gets the
// trailing unit dims numpy needs: Unsqueeze when the ranks are known now,
// else B' = Reshape(B, Concat(Shape(B), ConstantOfShape(rank(A) - axis -
// rank(B), 1))).
//===----------------------------------------------------------------------===//

LogicalResult normalizeLegacyBroadcast(OpEmitter &emitter, PendingNode &node) {
  if (node.version >= 7)
    return success();
  std::optional<int64_t> broadcast = getInt(node, "broadcast");
  std::optional<int64_t> axis = getInt(node, "axis");
  node.attributes.erase("broadcast");
  node.attributes.erase("axis");
  if (!broadcast.value_or(0) || !axis)
    return success();
  Value a = getInput(node, 0), b = getInput(node, 1);
  if (!a || !b)
    return success();
  Location loc = node.loc;
  // With both ranks known now, B only needs trailing unit dims: Unsqueeze.
  auto rankedA = llvm::dyn_cast<RankedTensorType>(a.getType());
  auto rankedB = llvm::dyn_cast<RankedTensorType>(b.getType());
  if (rankedB && (rankedA || *axis < 0)) {
    int64_t rankB = rankedB.getRank();
    int64_t count =
        *axis < 0 ? -*axis - rankB : rankedA.getRank() - *axis - rankB;
    if (count < 0)
      return emitError(loc) << "input B (rank " << rankB
                            << ") does not fit input A at axis " << *axis;
    if (count == 0)
      return success();
    SmallVector<int64_t> axes;
    for (int64_t i = 0; i < count; ++i)
      axes.push_back(rankB + i);
    FailureOr<Value> axesValue = emitter.i64Constant(loc, axes);
    if (failed(axesValue))
      return failure();
    FailureOr<Value> unsqueezed =
        emitter.createValue(loc, "onnx.Unsqueeze", {b, *axesValue});
    if (failed(unsqueezed))
      return failure();
    setInput(node, 1, *unsqueezed);
    return success();
  }
  auto value = [](FailureOr<Value> v) { return succeeded(v) ? *v : Value(); };
  Value shapeB = value(emitter.createValue(loc, "onnx.Shape", {b}));
  Value rankB = shapeB ? value(emitter.createValue(loc, "onnx.Shape", {shapeB}))
                       : Value();
  Value ones;
  if (rankB) {
    // The count of trailing ones: rank(A) - axis - rank(B); a negative axis
    // counts from A's end, so the count is then -axis - rank(B).
    Value count;
    if (*axis < 0) {
      Value minusAxis = value(emitter.i64Constant(loc, {-*axis}));
      count =
          minusAxis
              ? value(emitter.createValue(loc, "onnx.Sub", {minusAxis, rankB}))
              : Value();
    } else {
      Value shapeA = value(emitter.createValue(loc, "onnx.Shape", {a}));
      Value rankA =
          shapeA ? value(emitter.createValue(loc, "onnx.Shape", {shapeA}))
                 : Value();
      Value axisValue = value(emitter.i64Constant(loc, {*axis}));
      Value tail =
          rankA && axisValue
              ? value(emitter.createValue(loc, "onnx.Sub", {rankA, axisValue}))
              : Value();
      count = tail ? value(emitter.createValue(loc, "onnx.Sub", {tail, rankB}))
                   : Value();
    }
    auto one = DenseElementsAttr::get(
        RankedTensorType::get({1}, emitter.getBuilder().getI64Type()),
        int64_t(1));
    ones = count ? value(emitter.createValue(
                       loc, "onnx.ConstantOfShape", {count},
                       {emitter.getBuilder().getNamedAttr("value", one)}))
                 : Value();
  }
  Value newShape =
      ones ? value(emitter.createValue(
                 loc, "onnx.Concat", {shapeB, ones},
                 {emitter.getBuilder().getNamedAttr(
                     "axis", emitter.getBuilder().getI64IntegerAttr(0))}))
           : Value();
  Value reshaped =
      newShape ? value(emitter.createValue(loc, "onnx.Reshape", {b, newShape}))
               : Value();
  if (!reshaped)
    return failure();
  setInput(node, 1, reshaped);
  return success();
}

/// Gemm before opset 7 had `broadcast` for C; opset 7 always broadcasts C
/// (unidirectionally), which agrees with both old settings on valid models.
LogicalResult normalizeGemm(PendingNode &node) {
  if (node.version < 7)
    node.attributes.erase("broadcast");
  return success();
}

//===----------------------------------------------------------------------===//
// BatchNormalization: is_test went in opset 7, spatial in 9 (spatial=1, the
// default, is the only meaning left), and in 14 the training outputs changed
// from (mean, var, saved_mean, saved_var) to (running_mean, running_var).
// Inference uses only Y, so the old extra outputs are dropped.
//===----------------------------------------------------------------------===//

LogicalResult normalizeBatchNormalization(PendingNode &node) {
  if (node.version < 7)
    node.attributes.erase("is_test");
  if (node.version < 9) {
    if (getInt(node, "spatial").value_or(1) != 1)
      return unsupported(node) << " with spatial=0";
    node.attributes.erase("spatial");
  }
  if (node.version < 14) {
    dropOutputsFrom(node, 1);
    node.outputPresent.resize(1);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Dropout: is_test went in opset 7; the mask became bool in 10 (it was T, so
// an old mask is dropped); `ratio` became an input in 12 (with training_mode,
// omitted: inference).
//===----------------------------------------------------------------------===//

LogicalResult normalizeDropout(OpEmitter &emitter, PendingNode &node) {
  if (node.version < 7)
    node.attributes.erase("is_test");
  if (node.version < 10)
    dropOutputsFrom(node, 1);
  if (node.version < 12) {
    std::optional<float> ratio = getFloat(node, "ratio");
    node.attributes.erase("ratio");
    if (ratio) {
      FailureOr<Value> constant =
          emitter.f32Constant(node.loc, {*ratio}, /*scalar=*/true);
      if (failed(constant))
        return failure();
      setInput(node, 1, *constant);
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax, Hardmax before opset 13 coerced the input to 2-D at
// `axis` (default 1) and normalized over the flattened trailing dims; 13
// normalizes over the one dim `axis` (default -1). When `axis` is the last dim
// the two agree; otherwise the old meaning is
// Reshape(Op(Flatten(X, axis), axis=-1), Shape(X)).
//===----------------------------------------------------------------------===//

LogicalResult normalizeCoercedSoftmax(OpEmitter &emitter, PendingNode &node,
                                      Replacement &replacement) {
  if (node.version >= 13)
    return success();
  int64_t axis = getInt(node, "axis").value_or(1);
  Builder &b = emitter.getBuilder();
  NamedAttribute lastAxis = b.getNamedAttr("axis", b.getI64IntegerAttr(-1));
  Value input = getInput(node, 0);
  if (!input)
    return success(); // reported by the schema check
  if (auto ranked = llvm::dyn_cast<RankedTensorType>(input.getType())) {
    int64_t rank = ranked.getRank();
    if (axis == -1 || axis == rank - 1) {
      node.attributes.set(lastAxis.getName(), lastAxis.getValue());
      return success();
    }
  }
  Location loc = node.loc;
  FailureOr<Value> flat =
      emitter.createValue(loc, "onnx.Flatten", {input},
                          {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))});
  if (failed(flat))
    return failure();
  FailureOr<Value> normalized =
      emitter.createValue(loc, node.schema->mlirName, {*flat}, {lastAxis});
  if (failed(normalized))
    return failure();
  FailureOr<Value> shape = emitter.createValue(loc, "onnx.Shape", {input});
  if (failed(shape))
    return failure();
  FailureOr<Value> reshaped =
      emitter.createValue(loc, "onnx.Reshape", {*normalized, *shape});
  if (failed(reshaped))
    return failure();
  replacement = SmallVector<Value>{*reshaped};
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions: `axes` moved from an attribute to an optional input in opset 13
// for ReduceSum and in 18 for the others (with noop_with_empty_axes, whose
// default 0 keeps "no axes: reduce all").
//===----------------------------------------------------------------------===//

LogicalResult normalizeReduce(OpEmitter &emitter, PendingNode &node) {
  int axesInputSince = opTypeOf(node) == "ReduceSum" ? 13 : 18;
  if (node.version >= axesInputSince)
    return success();
  return intsToInput(emitter, node, "axes", 1, /*emptyIsAbsent=*/true);
}

//===----------------------------------------------------------------------===//
// Squeeze, Unsqueeze: `axes` became an input in opset 13.
//===----------------------------------------------------------------------===//

LogicalResult normalizeSqueeze(OpEmitter &emitter, PendingNode &node) {
  if (node.version >= 13)
    return success();
  return intsToInput(emitter, node, "axes", 1,
                     /*emptyIsAbsent=*/opTypeOf(node) == "Squeeze");
}

//===----------------------------------------------------------------------===//
// Split: opset 1 took `split` as an attribute or a second input, 2 to 12 as
// an attribute, 13 as an input. Without `split` the outputs are equal parts;
// since 18 that needs `num_outputs`, which is the node's output count.
//===----------------------------------------------------------------------===//

LogicalResult normalizeSplit(OpEmitter &emitter, PendingNode &node) {
  if (node.version < 13 && failed(intsToInput(emitter, node, "split", 1)))
    return failure();
  if (node.version < 18 && !getInput(node, 1))
    node.attributes.set("num_outputs", emitter.getBuilder().getI64IntegerAttr(
                                           node.outputPresent.size()));
  return success();
}

//===----------------------------------------------------------------------===//
// Slice: starts, ends and axes became inputs (with steps) in opset 10.
//===----------------------------------------------------------------------===//

LogicalResult normalizeSlice(OpEmitter &emitter, PendingNode &node) {
  if (node.version >= 10)
    return success();
  if (failed(intsToInput(emitter, node, "starts", 1)) ||
      failed(intsToInput(emitter, node, "ends", 2)) ||
      failed(intsToInput(emitter, node, "axes", 3)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Clip: `min` and `max` became optional inputs of the input's type in opset 11.
//===----------------------------------------------------------------------===//

LogicalResult normalizeClip(OpEmitter &emitter, PendingNode &node) {
  if (node.version >= 11)
    return success();
  Value input = getInput(node, 0);
  for (auto [name, index] : {std::pair<StringRef, unsigned>{"min", 1},
                             std::pair<StringRef, unsigned>{"max", 2}}) {
    std::optional<float> bound = getFloat(node, name);
    node.attributes.erase(name);
    if (!bound || !input)
      continue;
    FailureOr<Value> constant = scalarLike(emitter, node.loc, *bound, input);
    if (failed(constant))
      return failure();
    setInput(node, index, *constant);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pad: opset 1 called `pads` `paddings`; in 11 `pads` and `value` became the
// inputs pads (i64) and constant_value (the data's type).
//===----------------------------------------------------------------------===//

LogicalResult normalizePad(OpEmitter &emitter, PendingNode &node) {
  if (node.version >= 11)
    return success();
  if (Attribute paddings = node.attributes.erase("paddings"))
    node.attributes.set("pads", paddings);
  if (failed(intsToInput(emitter, node, "pads", 1)))
    return failure();
  std::optional<float> value = getFloat(node, "value");
  node.attributes.erase("value");
  if (value && *value != 0.0f && getInput(node, 0)) {
    FailureOr<Value> constant =
        scalarLike(emitter, node.loc, *value, getInput(node, 0));
    if (failed(constant))
      return failure();
    setInput(node, 2, *constant);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TopK: `k` became a 1-element i64 input in opset 10.
//===----------------------------------------------------------------------===//

LogicalResult normalizeTopK(OpEmitter &emitter, PendingNode &node) {
  if (node.version >= 10)
    return success();
  std::optional<int64_t> k = getInt(node, "k");
  node.attributes.erase("k");
  if (!k)
    return emitError(node.loc) << "TopK needs attribute 'k'";
  FailureOr<Value> constant = emitter.i64Constant(node.loc, {*k});
  if (failed(constant))
    return failure();
  setInput(node, 1, *constant);
  return success();
}

//===----------------------------------------------------------------------===//
// Reshape: `shape` became an input in opset 5.
//===----------------------------------------------------------------------===//

LogicalResult normalizeReshape(OpEmitter &emitter, PendingNode &node) {
  if (node.version >= 5)
    return success();
  return intsToInput(emitter, node, "shape", 1);
}

//===----------------------------------------------------------------------===//
// Cast: `to` was a STRING ("FLOAT") before opset 6, a TensorProto.DataType
// since.
//===----------------------------------------------------------------------===//

LogicalResult normalizeCast(PendingNode &node) {
  if (node.version >= 6)
    return success();
  auto to = llvm::dyn_cast_or_null<StringAttr>(node.attributes.get("to"));
  if (!to)
    return success(); // reported by the schema check
  for (int32_t dataType = 1; dataType <= 16; ++dataType)
    if (to.getValue().equals_insensitive(dataTypeName(dataType))) {
      node.attributes.set(
          "to", Builder(node.loc.getContext()).getI64IntegerAttr(dataType));
      return success();
    }
  return emitError(node.loc)
         << "Cast to '" << to.getValue() << "' is not a known data type";
}

//===----------------------------------------------------------------------===//
// Concat: `axis` was optional (default 1) before opset 4.
//===----------------------------------------------------------------------===//

LogicalResult normalizeConcat(PendingNode &node) {
  if (node.version < 4 && !node.attributes.get("axis"))
    node.attributes.set("axis",
                        Builder(node.loc.getContext()).getI64IntegerAttr(1));
  return success();
}

//===----------------------------------------------------------------------===//
// Upsample (deprecated in opset 10) and Resize-10 become Resize: both scale
// with output = floor(input * scale) and map an output coordinate x to x /
// scale ("asymmetric"), the nearest pixel by rounding down (up when
// downsampling). Upsample-1 had
// height_scale/width_scale on NCHW and mode "bilinear"; 7 had `scales` as an
// attribute, 9 as an input.
//===----------------------------------------------------------------------===//

LogicalResult normalizeUpsample(OpEmitter &emitter, PendingNode &node) {
  Builder &b = emitter.getBuilder();
  Value scales = getInput(node, 1);
  if (opTypeOf(node) == "Upsample" && node.version < 7) {
    std::optional<float> height = getFloat(node, "height_scale");
    std::optional<float> width = getFloat(node, "width_scale");
    if (!height || !width)
      return emitError(node.loc)
             << "Upsample needs height_scale and width_scale";
    FailureOr<Value> constant =
        emitter.f32Constant(node.loc, {1.0f, 1.0f, *height, *width});
    if (failed(constant))
      return failure();
    scales = *constant;
  } else if (opTypeOf(node) == "Upsample" && node.version < 9) {
    auto array =
        llvm::dyn_cast_or_null<ArrayAttr>(node.attributes.get("scales"));
    if (!array)
      return emitError(node.loc) << "Upsample needs attribute 'scales'";
    SmallVector<float> values;
    for (Attribute element : array)
      if (auto f = llvm::dyn_cast<FloatAttr>(element))
        values.push_back(static_cast<float>(f.getValueAsDouble()));
    FailureOr<Value> constant = emitter.f32Constant(node.loc, values);
    if (failed(constant))
      return failure();
    scales = *constant;
  }
  auto mode = llvm::dyn_cast_or_null<StringAttr>(node.attributes.get("mode"));
  StringRef modeName = mode ? mode.getValue() : "nearest";
  if (modeName.equals_insensitive("bilinear") ||
      modeName.equals_insensitive("linear"))
    modeName = "linear";
  else if (modeName.equals_insensitive("nearest") ||
           modeName.equals_insensitive("nn"))
    modeName = "nearest";
  else
    return emitError(node.loc)
           << opTypeOf(node) << " mode '" << modeName << "' is not supported";

  // The nearest pixel of a downsampled axis was rounded up (ONNX Runtime's
  // reading of these versions), so the rounding follows constant scales;
  // scales known only at run time are taken as upsampling, by far the common
  // use.
  StringRef nearestMode = "floor";
  if (auto constant = scales ? scales.getDefiningOp() : nullptr)
    if (auto value = constant->getAttrOfType<DenseElementsAttr>("value");
        value && llvm::isa<FloatType>(value.getElementType())) {
      bool down = false, up = false;
      for (const APFloat &scale : value.getValues<APFloat>()) {
        down |= scale.convertToDouble() < 1.0;
        up |= scale.convertToDouble() > 1.0;
      }
      if (down && up && modeName == "nearest")
        return unsupported(node)
               << " in nearest mode with scales that both up- and downsample";
      if (down)
        nearestMode = "ceil";
    }

  Value input = getInput(node, 0);
  if (failed(retarget(node, "onnx.Resize")))
    return failure();
  node.inputs = {input, Value(), scales, Value()};
  node.attributes = NamedAttrList();
  node.attributes.set("mode", b.getStringAttr(modeName));
  node.attributes.set("coordinate_transformation_mode",
                      b.getStringAttr("asymmetric"));
  node.attributes.set("nearest_mode", b.getStringAttr(nearestMode));
  return success();
}

/// Resize-11 had coordinate_transformation_mode "tf_half_pixel_for_nn",
/// dropped in 13.
LogicalResult normalizeResize(OpEmitter &emitter, PendingNode &node) {
  if (node.version < 11)
    return normalizeUpsample(emitter, node);
  if (node.version < 13)
    if (auto mode = llvm::dyn_cast_or_null<StringAttr>(
            node.attributes.get("coordinate_transformation_mode"));
        mode && mode.getValue() == "tf_half_pixel_for_nn")
      return unsupported(node)
             << " with coordinate_transformation_mode=tf_half_pixel_for_nn";
  return success();
}

//===----------------------------------------------------------------------===//
// Smaller changes.
//===----------------------------------------------------------------------===//

/// Scatter (deprecated in opset 11) is ScatterElements under its old name.
LogicalResult normalizeScatter(PendingNode &node) {
  return retarget(node, "onnx.ScatterElements");
}

/// RoiAlign-16 added coordinate_transformation_mode with default half_pixel;
/// before, the behaviour was output_half_pixel.
LogicalResult normalizeRoiAlign(PendingNode &node) {
  if (node.version < 16 &&
      !node.attributes.get("coordinate_transformation_mode"))
    node.attributes.set(
        "coordinate_transformation_mode",
        Builder(node.loc.getContext()).getStringAttr("output_half_pixel"));
  return success();
}

/// GridSample-20 renamed the modes bilinear/bicubic to linear/cubic.
LogicalResult normalizeGridSample(PendingNode &node) {
  if (node.version >= 20)
    return success();
  if (auto mode =
          llvm::dyn_cast_or_null<StringAttr>(node.attributes.get("mode"))) {
    StringRef renamed = llvm::StringSwitch<StringRef>(mode.getValue())
                            .Case("bilinear", "linear")
                            .Case("bicubic", "cubic")
                            .Default(mode.getValue());
    node.attributes.set("mode",
                        Builder(node.loc.getContext()).getStringAttr(renamed));
  }
  return success();
}

/// DFT-20 made `axis` (default 1) an optional scalar input (default -2, the
/// same dim of a [batch, signal, 1|2] input).
LogicalResult normalizeDFT(OpEmitter &emitter, PendingNode &node) {
  if (node.version >= 20)
    return success();
  int64_t axis = getInt(node, "axis").value_or(1);
  node.attributes.erase("axis");
  FailureOr<Value> constant =
      emitter.i64Constant(node.loc, {axis}, /*scalar=*/true);
  if (failed(constant))
    return failure();
  setInput(node, 2, *constant);
  return success();
}

/// LpPool and GlobalLpPool took `p` as a FLOAT before opset 2, an INT since.
LogicalResult normalizeLpPool(PendingNode &node) {
  if (node.version >= 2)
    return success();
  std::optional<float> p = getFloat(node, "p");
  if (!p)
    return success();
  if (*p != static_cast<float>(static_cast<int64_t>(*p)))
    return unsupported(node) << " with a fractional p (" << *p << ")";
  node.attributes.set("p", Builder(node.loc.getContext())
                               .getI64IntegerAttr(static_cast<int64_t>(*p)));
  return success();
}

/// Selu-6 changed the defaults of alpha and gamma (to more digits); an old
/// node without them keeps the old values.
LogicalResult normalizeSelu(PendingNode &node) {
  if (node.version >= 6)
    return success();
  Builder b(node.loc.getContext());
  if (!node.attributes.get("alpha"))
    node.attributes.set("alpha", b.getF32FloatAttr(1.6732f));
  if (!node.attributes.get("gamma"))
    node.attributes.set("gamma", b.getF32FloatAttr(1.0507f));
  return success();
}

/// GRU, LSTM, RNN before opset 7 had output_sequence, which only said
/// whether Y is produced (the node's outputs say that too).
LogicalResult normalizeRecurrent(PendingNode &node) {
  if (node.version < 7)
    node.attributes.erase("output_sequence");
  return success();
}

/// Scan-8 scanned a batch: every input has a leading batch dim, the body sees
/// one batch element, and sequence_lens (the first input) could shorten each
/// element's sequences. Without sequence_lens it is a Scan over the batch
/// whose body is a newest-form Scan over one element: the node is built as
/// that inner Scan (`directions` became scan_input_directions), and
/// finishNormalizedNode wraps the outer one around it once its body is
/// imported.
LogicalResult normalizeScan(PendingNode &node) {
  if (node.version >= 9)
    return success();
  if (!node.inputs.empty() && node.inputs.front())
    return emitError(node.loc) << "Scan-8 with sequence_lens is not supported";
  if (llvm::is_contained(node.outputPresent, false))
    return emitError(node.loc) << "Scan-8 with omitted outputs is not "
                                  "supported";
  if (!node.inputs.empty())
    node.inputs.erase(node.inputs.begin());
  if (Attribute directions = node.attributes.erase("directions"))
    node.attributes.set("scan_input_directions", directions);
  return success();
}

/// Versions whose meaning differs from the newest and that are not rewritten:
/// Tile-1 (tiles + axis), and
/// GroupNormalization-18 (scale and bias per group, not per channel).
LogicalResult refuseOldVersion(PendingNode &node, int firstSupported) {
  if (node.version < firstSupported)
    return unsupported(node);
  return success();
}

LogicalResult normalizeDefaultDomain(OpEmitter &emitter, PendingNode &node,
                                     Replacement &replacement) {
  StringRef op = opTypeOf(node);
  if (op == "Constant")
    return normalizeConstant(node);
  if (llvm::is_contained({"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor",
                          "Equal", "Greater", "Less"},
                         op))
    return normalizeLegacyBroadcast(emitter, node);
  if (op == "Gemm")
    return normalizeGemm(node);
  if (op == "BatchNormalization")
    return normalizeBatchNormalization(node);
  if (op == "Dropout")
    return normalizeDropout(emitter, node);
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax")
    return normalizeCoercedSoftmax(emitter, node, replacement);
  if (op.starts_with("Reduce"))
    return normalizeReduce(emitter, node);
  if (op == "Squeeze" || op == "Unsqueeze")
    return normalizeSqueeze(emitter, node);
  if (op == "Split")
    return normalizeSplit(emitter, node);
  if (op == "Slice")
    return normalizeSlice(emitter, node);
  if (op == "Clip")
    return normalizeClip(emitter, node);
  if (op == "Pad")
    return normalizePad(emitter, node);
  if (op == "TopK")
    return normalizeTopK(emitter, node);
  if (op == "Reshape")
    return normalizeReshape(emitter, node);
  if (op == "Cast")
    return normalizeCast(node);
  if (op == "Concat")
    return normalizeConcat(node);
  if (op == "Upsample")
    return normalizeUpsample(emitter, node);
  if (op == "Resize")
    return normalizeResize(emitter, node);
  if (op == "Scatter")
    return normalizeScatter(node);
  if (op == "RoiAlign")
    return normalizeRoiAlign(node);
  if (op == "GridSample")
    return normalizeGridSample(node);
  if (op == "DFT")
    return normalizeDFT(emitter, node);
  if (op == "LpPool" || op == "GlobalLpPool")
    return normalizeLpPool(node);
  if (op == "Selu")
    return normalizeSelu(node);
  if (op == "GRU" || op == "LSTM" || op == "RNN")
    return normalizeRecurrent(node);
  if (op == "Scan")
    return normalizeScan(node);
  if (op == "Tile")
    return refuseOldVersion(node, 6);
  if (op == "GroupNormalization")
    return refuseOldVersion(node, 21);
  return success();
}

/// ai.onnx.ml: LabelEncoder-2 replaced classes_strings (an index <-> string
/// map) by explicit keys and values.
LogicalResult normalizeMlDomain(PendingNode &node) {
  if (StringRef(node.schema->opType) == "LabelEncoder")
    return refuseOldVersion(node, 2);
  return success();
}

} // namespace

LogicalResult normalizeNode(OpEmitter &emitter, PendingNode &node,
                            Replacement &replacement) {
  // consumed_inputs (an in-place hint of opset 1 ops) went in opset 6.
  if (!node.schema->findAttribute("consumed_inputs"))
    node.attributes.erase("consumed_inputs");
  if (StringRef(node.schema->domain).empty())
    return normalizeDefaultDomain(emitter, node, replacement);
  return normalizeMlDomain(node);
}

Operation *finishNormalizedNode(OpEmitter &emitter, const PendingNode &node,
                                Operation *op) {
  if (opTypeOf(node) != "Scan" || node.version >= 9)
    return op;
  // Scan-8: an outer Scan over the batch (every input scanned along dim 0,
  // every output stacked along dim 0) whose body runs `op` on one element.
  OpBuilder &builder = emitter.getBuilder();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  Location loc = op->getLoc();
  Type unknown = onnx::UnknownType::get(builder.getContext());
  OperationState state(loc, op->getName());
  state.addOperands(op->getOperands());
  state.addTypes(op->getResultTypes());
  state.addAttribute("num_scan_inputs",
                     builder.getI64IntegerAttr(op->getNumOperands()));
  Block *body = new Block();
  state.addRegion()->push_back(body);
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    body->addArgument(unknown, loc);
  Operation *outer = builder.create(state);
  op->moveBefore(body, body->end());
  op->setOperands(body->getArguments());
  builder.setInsertionPointToEnd(body);
  OperationState yield(loc, "onnx.Yield");
  yield.addOperands(op->getResults());
  builder.create(yield);
  return outer;
}

} // namespace onnxc
