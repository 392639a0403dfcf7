//===- DimOrigin.cpp - Where a dynamic dim was copied from ----------------===//
//
// A dynamic dim has no name in the IR, but most ops only pass dims through:
// Add's result dim is its operands' dim, MatMul's batch and row dims are its
// lhs's, Transpose permutes them. Following such ops back finds the dim a
// size was first made in (a graph input's dim, a Reshape's -1, ...). Reshape
// uses this to cancel `Shape(x)[i]` against the data's own dims when the data
// is not `x` itself but computed from it (BERT: Reshape(MatMul(x, W) + b,
// [Shape(x)[0], Shape(x)[1], -1, 64])).
//
// Only dims that are copied unchanged are followed. Where several operands
// could supply a broadcast dim, they must all trace to one origin.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

/// Bounds one walk back (answers are cached, so this only guards against
/// pathological graphs).
constexpr int kMaxSteps = 1 << 16;

/// Ops whose first result has the shape of their first operand.
bool keepsShapeOfFirstOperand(StringRef name) {
  static const llvm::StringSet<> names = {"Abs",
                                          "Neg",
                                          "Exp",
                                          "Log",
                                          "Sqrt",
                                          "Reciprocal",
                                          "Floor",
                                          "Ceil",
                                          "Round",
                                          "Sin",
                                          "Cos",
                                          "Tan",
                                          "Asin",
                                          "Acos",
                                          "Atan",
                                          "Sinh",
                                          "Cosh",
                                          "Asinh",
                                          "Acosh",
                                          "Atanh",
                                          "Tanh",
                                          "Erf",
                                          "Sigmoid",
                                          "Relu",
                                          "LeakyRelu",
                                          "Elu",
                                          "Selu",
                                          "Celu",
                                          "Gelu",
                                          "HardSigmoid",
                                          "HardSwish",
                                          "Softplus",
                                          "Softsign",
                                          "Sign",
                                          "Not",
                                          "BitwiseNot",
                                          "Identity",
                                          "Clip",
                                          "Mish",
                                          "ThresholdedRelu",
                                          "Shrink",
                                          "Swish",
                                          "IsNaN",
                                          "IsInf",
                                          "Cast",
                                          "CastLike",
                                          "Softmax",
                                          "LogSoftmax",
                                          "Hardmax",
                                          "LayerNormalization",
                                          "BatchNormalization",
                                          "InstanceNormalization",
                                          "GroupNormalization",
                                          "RMSNormalization",
                                          "LpNormalization",
                                          "MeanVarianceNormalization",
                                          "LRN",
                                          "Dropout",
                                          "QuantizeLinear",
                                          "DequantizeLinear",
                                          "CumSum",
                                          "Trilu",
                                          "ScatterElements",
                                          "ScatterND",
                                          "RotaryEmbedding"};
  return names.contains(name);
}

/// Ops that broadcast all their operands (multidirectionally).
bool broadcastsOperands(StringRef name) {
  static const llvm::StringSet<> names = {
      "Add",        "Sub",         "Mul",
      "Div",        "Mod",         "Pow",
      "Sum",        "Mean",        "Max",
      "Min",        "And",         "Or",
      "Xor",        "Equal",       "Less",
      "Greater",    "LessOrEqual", "GreaterOrEqual",
      "Where",      "PRelu",       "BitShift",
      "BitwiseAnd", "BitwiseOr",   "BitwiseXor"};
  return names.contains(name);
}

RankedTensorType rankedType(Value v) {
  return llvm::dyn_cast<RankedTensorType>(v.getType());
}

/// Dim `dim` (of `rank` dims, aligned right) of a broadcast of `operands`:
/// the one operand with a dynamic dim there, or the common origin of all of
/// them.
std::optional<DimRef> traceBroadcast(ArrayRef<DimRef> candidates,
                                     InferenceState &state) {
  if (candidates.empty())
    return std::nullopt;
  if (candidates.size() == 1)
    return candidates.front();
  DimRef first = traceDimOrigin(candidates[0].value, candidates[0].dim, state);
  for (const DimRef &c : candidates.drop_front())
    if (!(traceDimOrigin(c.value, c.dim, state) == first))
      return std::nullopt;
  return first;
}

/// Collects, for result dim `dim` of rank `rank`, the operand dims aligned to
/// it (from the right) that are dynamic.
void addAligned(SmallVectorImpl<DimRef> &candidates, Value operand,
                ArrayRef<int64_t> shape, int64_t dim, int64_t rank,
                int64_t offset = 0) {
  int64_t j = dim - (rank - int64_t(shape.size()));
  if (j >= 0 && ShapedType::isDynamic(shape[j]))
    candidates.push_back({operand, j + offset});
}

/// The known axes of operand `i` of `op`, normalized against `rank`.
std::optional<SmallVector<int64_t>>
knownAxes(Operation *op, unsigned i, int64_t rank, InferenceState &state) {
  if (i >= op->getNumOperands())
    return std::nullopt;
  const KnownInts *elements = lookupKnown(op->getOperand(i), state);
  if (!elements)
    return std::nullopt;
  SmallVector<int64_t> axes;
  for (const IntElem &e : *elements) {
    if (!e.value || *e.value < -rank || *e.value >= rank)
      return std::nullopt;
    axes.push_back(*e.value < 0 ? *e.value + rank : *e.value);
  }
  return axes;
}

/// One step back from dim `dim` of `value`, or nullopt at an origin.
std::optional<DimRef> traceStep(Value value, int64_t dim,
                                InferenceState &state) {
  auto result = llvm::dyn_cast<OpResult>(value);
  RankedTensorType type = rankedType(value);
  if (!result || !type || dim < 0 || dim >= type.getRank() ||
      !type.isDynamicDim(dim))
    return std::nullopt;
  Operation *op = result.getOwner();
  StringRef name = op->getName().getStringRef();
  // A fused op's result has its core op's shape (passes/fusion): an
  // optimized model that is imported again traces through them too.
  name = llvm::StringSwitch<StringRef>(name)
             .Case("onnxc.FusedMatMul", "onnx.MatMul")
             .Case("onnxc.FusedGemm", "onnx.Gemm")
             .Case("onnxc.FusedConv", "onnx.Conv")
             .Case("onnxc.SkipLayerNorm", "onnx.LayerNormalization")
             .Case("onnxc.BiasGelu", "onnx.Gelu")
             .Case("onnxc.BiasSoftmax", "onnx.Softmax")
             .Default(name);
  if (!name.consume_front("onnx."))
    return std::nullopt;
  // Every rule below reads operand 0; MatMul and Gather also operand 1.
  if (op->getNumOperands() == 0 || !rankedType(op->getOperand(0)) ||
      ((name == "MatMul" || name == "Gather") &&
       (op->getNumOperands() < 2 || !rankedType(op->getOperand(1)))))
    return std::nullopt;
  int64_t rank = type.getRank();
  auto operandShape = [&](unsigned i) {
    return rankedType(op->getOperand(i)).getShape();
  };
  auto intAttr = [&](StringRef attr, int64_t dflt) {
    auto a = op->getAttrOfType<IntegerAttr>(attr);
    return a ? a.getValue().getSExtValue() : dflt;
  };

  if (result.getResultNumber() == 0 && op->getNumOperands() > 0 &&
      keepsShapeOfFirstOperand(name) && operandShape(0).size() == size_t(rank))
    return DimRef{op->getOperand(0), dim};

  // The ai.onnx.ml scorers keep their features' rows: every result's dim 0
  // is X's dim 0.
  if (dim == 0 && name.starts_with("ml.") &&
      llvm::is_contained({"ml.TreeEnsembleClassifier",
                          "ml.TreeEnsembleRegressor", "ml.TreeEnsemble",
                          "ml.SVMClassifier", "ml.SVMRegressor",
                          "ml.LinearClassifier", "ml.LinearRegressor"},
                         name) &&
      operandShape(0).size() == 2)
    return DimRef{op->getOperand(0), 0};

  if (broadcastsOperands(name)) {
    SmallVector<DimRef> candidates;
    for (Value operand : op->getOperands())
      if (auto t = rankedType(operand))
        addAligned(candidates, operand, t.getShape(), dim, rank);
    return traceBroadcast(candidates, state);
  }

  if (name == "MatMul") {
    ArrayRef<int64_t> a = operandShape(0), b = operandShape(1);
    int64_t ra = a.size(), rb = b.size();
    if (rb >= 2 && dim == rank - 1)
      return DimRef{op->getOperand(1), rb - 1};
    if (ra >= 2 && dim == rank - (rb >= 2 ? 2 : 1))
      return DimRef{op->getOperand(0), ra - 2};
    int64_t batchRank = rank - (ra >= 2) - (rb >= 2);
    if (dim >= batchRank)
      return std::nullopt;
    SmallVector<DimRef> candidates;
    if (ra > 2)
      addAligned(candidates, op->getOperand(0), a.drop_back(2), dim, batchRank);
    if (rb > 2)
      addAligned(candidates, op->getOperand(1), b.drop_back(2), dim, batchRank);
    return traceBroadcast(candidates, state);
  }

  if (name == "Transpose") {
    SmallVector<int64_t> perm;
    if (auto attr = op->getAttrOfType<ArrayAttr>("perm")) {
      for (Attribute p : attr) {
        auto index = llvm::dyn_cast<IntegerAttr>(p);
        if (!index)
          return std::nullopt;
        perm.push_back(index.getInt());
      }
    } else {
      for (int64_t i = rank - 1; i >= 0; --i)
        perm.push_back(i);
    }
    if (perm.size() != size_t(rank))
      return std::nullopt;
    return DimRef{op->getOperand(0), perm[dim]};
  }

  if (name == "Reshape") {
    const KnownInts *elements = lookupKnown(op->getOperand(1), state);
    if (!elements || elements->size() != size_t(rank))
      return std::nullopt;
    const IntElem &e = (*elements)[dim];
    if (e.isSymbol())
      return DimRef{e.dimOf, e.dim};
    if (e.value == 0 && intAttr("allowzero", 0) == 0)
      return DimRef{op->getOperand(0), dim};
    return std::nullopt;
  }

  if (name == "Unsqueeze" || name == "Squeeze") {
    bool unsqueeze = name == "Unsqueeze";
    int64_t inputRank = operandShape(0).size();
    std::optional<SmallVector<int64_t>> axes =
        knownAxes(op, 1, unsqueeze ? rank : inputRank, state);
    if (!axes)
      return std::nullopt;
    // Walk the dims of the wider side, skipping the axes.
    int64_t wide = unsqueeze ? rank : inputRank, narrowIndex = 0;
    for (int64_t i = 0; i < wide; ++i) {
      if (llvm::is_contained(*axes, i))
        continue;
      if (unsqueeze && i == dim)
        return DimRef{op->getOperand(0), narrowIndex};
      if (!unsqueeze && narrowIndex == dim)
        return DimRef{op->getOperand(0), i};
      ++narrowIndex;
    }
    return std::nullopt;
  }

  if (name == "Concat" || name == "Split") {
    int64_t axis = intAttr("axis", 0);
    if (axis < 0)
      axis += rank;
    if (dim == axis)
      return std::nullopt;
    return DimRef{op->getOperand(0), dim};
  }

  if (name == "Gather") {
    int64_t axis = intAttr("axis", 0);
    int64_t dataRank = operandShape(0).size();
    int64_t q = operandShape(1).size();
    if (axis < 0)
      axis += dataRank;
    if (dim < axis)
      return DimRef{op->getOperand(0), dim};
    if (dim < axis + q)
      return DimRef{op->getOperand(1), dim - axis};
    return DimRef{op->getOperand(0), dim - q + 1};
  }

  if (name == "Expand") {
    // Each dim broadcasts the data's dim with the target element.
    const KnownInts *target = lookupKnown(op->getOperand(1), state);
    if (!target || target->size() > size_t(rank))
      return std::nullopt;
    SmallVector<DimRef> candidates;
    addAligned(candidates, op->getOperand(0), operandShape(0), dim, rank);
    int64_t j = dim - (rank - int64_t(target->size()));
    if (j >= 0) {
      const IntElem &e = (*target)[j];
      if (e.isSymbol())
        candidates.push_back({e.dimOf, e.dim});
      else if (e.value != 1)
        return std::nullopt;
    }
    return traceBroadcast(candidates, state);
  }

  if (name == "Range") {
    // Range(0, n, 1) has n elements.
    const KnownInts *start = lookupKnown(op->getOperand(0), state);
    const KnownInts *limit = lookupKnown(op->getOperand(1), state);
    const KnownInts *delta = lookupKnown(op->getOperand(2), state);
    if (start && limit && delta && start->size() == 1 && limit->size() == 1 &&
        delta->size() == 1 && start->front().value == 0 &&
        delta->front().value == 1 && limit->front().isSymbol())
      return DimRef{limit->front().dimOf, limit->front().dim};
    return std::nullopt;
  }

  // The batch dim of convolutions and pools.
  if (dim == 0 &&
      (name == "Conv" || name == "ConvTranspose" || name == "MaxPool" ||
       name == "AveragePool" || name == "LpPool" || name.starts_with("Global")))
    return DimRef{op->getOperand(0), 0};
  return std::nullopt;
}

} // namespace

DimRef traceDimOrigin(Value value, int64_t dim, InferenceState &state) {
  // Walk back to an origin or to a dim answered before, then remember the
  // answer for every dim on the way.
  SmallVector<std::pair<Value, int64_t>> path;
  DimRef origin = {value, dim};
  for (int step = 0; step < kMaxSteps; ++step) {
    auto cached = state.dimOrigins.find({origin.value, origin.dim});
    if (cached != state.dimOrigins.end()) {
      origin = cached->second;
      break;
    }
    path.push_back({origin.value, origin.dim});
    std::optional<DimRef> next = traceStep(origin.value, origin.dim, state);
    if (!next)
      break;
    origin = *next;
  }
  for (const auto &key : path)
    state.dimOrigins[key] = origin;
  return origin;
}

} // namespace onnxc::shape
