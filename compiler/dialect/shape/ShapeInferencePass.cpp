//===- ShapeInferencePass.cpp - The onnx-shape-inference pass -------------===//
//
// Walks a function's ops in order (nested If/Loop/Scan bodies first, see
// ControlFlow.cpp) and gives every onnx op result the ranked tensor type its
// rule (the other files of this folder) infers. Small integer tensors carry
// their compile-time elements (KnownValueMap) so that shapes computed at run
// time (Shape -> Gather -> Concat -> Reshape) still give static types.
//
// An op is left alone when one of its operands has no ranked type yet
// (`!onnx.unknown`) or when no rule exists for it: later stages report it.
// Finally the function's result types become the returned values' types,
// checked against and refined by the graph's declared output types.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/ShapeInference.h"
#include "compiler/dialect/shape/ShapeRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace onnxc {
#define GEN_PASS_DEF_ONNXSHAPEINFERENCE
#include "compiler/dialect/ShapeInferencePasses.h.inc"
} // namespace onnxc

using namespace mlir;

namespace onnxc::shape {

//===----------------------------------------------------------------------===//
// RuleContext
//===----------------------------------------------------------------------===//

bool RuleContext::hasInput(unsigned i) const {
  return i < op->getNumOperands() && !onnx::isNoValue(op->getOperand(i));
}

RankedTensorType RuleContext::getInputType(unsigned i) const {
  return llvm::cast<RankedTensorType>(op->getOperand(i).getType());
}

bool isTrackedIntType(Type elementType) {
  return llvm::isa<IntegerType>(elementType);
}

/// The elements of an integer constant small enough to track.
static std::optional<KnownInts> getConstantElements(Value value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() > 1 || !isTrackedIntType(type.getElementType()))
    return std::nullopt;
  Operation *def = value.getDefiningOp();
  if (!def || def->getName().getStringRef() != "onnx.Constant")
    return std::nullopt;
  auto attr = def->getAttrOfType<DenseIntElementsAttr>("value");
  if (!attr || attr.getNumElements() > kMaxKnownElements)
    return std::nullopt;
  KnownInts elements;
  bool isBool = attr.getElementType().isInteger(1);
  bool isUnsigned = attr.getElementType().isUnsignedInteger();
  for (const APInt &v : attr.getValues<APInt>())
    elements.push_back(IntElem::known(
        isBool || isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue()));
  return elements;
}

const KnownInts *lookupKnown(Value value, InferenceState &state) {
  auto it = state.knownValues.find(value);
  if (it != state.knownValues.end())
    return &it->second;
  if (std::optional<KnownInts> elements = getConstantElements(value))
    return &state.knownValues.try_emplace(value, std::move(*elements))
                .first->second;
  return nullptr;
}

const KnownInts *RuleContext::getKnown(unsigned i) const {
  if (!hasInput(i))
    return nullptr;
  return lookupKnown(op->getOperand(i), state);
}

std::optional<SmallVector<int64_t>>
RuleContext::getKnownInts(unsigned i) const {
  const KnownInts *known = getKnown(i);
  if (!known)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const IntElem &e : *known) {
    if (!e.value)
      return std::nullopt;
    values.push_back(*e.value);
  }
  return values;
}

std::optional<int64_t> RuleContext::getKnownScalar(unsigned i) const {
  std::optional<SmallVector<int64_t>> values = getKnownInts(i);
  if (!values || values->size() != 1)
    return std::nullopt;
  return values->front();
}

std::optional<SmallVector<double>>
RuleContext::getConstantFloats(unsigned i) const {
  if (!hasInput(i))
    return std::nullopt;
  Operation *def = op->getOperand(i).getDefiningOp();
  if (!def || def->getName().getStringRef() != "onnx.Constant")
    return std::nullopt;
  auto attr = def->getAttrOfType<DenseFPElementsAttr>("value");
  if (!attr || attr.getNumElements() > kMaxKnownElements)
    return std::nullopt;
  SmallVector<double> values;
  for (const APFloat &v : attr.getValues<APFloat>())
    values.push_back(v.convertToDouble());
  return values;
}

std::optional<int64_t> RuleContext::getStaticLength(unsigned i) const {
  if (!hasInput(i) || getInputRank(i) != 1 ||
      ShapedType::isDynamic(getInputShape(i)[0]))
    return std::nullopt;
  return getInputShape(i)[0];
}

void RuleContext::setResult(unsigned i, Type elementType,
                            ArrayRef<int64_t> shape) {
  if (i >= op->getNumResults() ||
      llvm::isa<NoneType>(op->getResult(i).getType()))
    return;
  if (inferred.size() < op->getNumResults())
    inferred.resize(op->getNumResults());
  inferred[i] = RankedTensorType::get(shape, elementType);
}

void RuleContext::setKnown(unsigned i, KnownInts values) {
  if (i >= op->getNumResults() || int64_t(values.size()) > kMaxKnownElements)
    return;
  state.knownValues[op->getResult(i)] = std::move(values);
}

int64_t RuleContext::getIntAttr(StringRef name, int64_t defaultValue) const {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getValue().getSExtValue();
  return defaultValue;
}

std::optional<SmallVector<int64_t>>
RuleContext::getIntsAttr(StringRef name) const {
  auto attr = op->getAttrOfType<ArrayAttr>(name);
  if (!attr)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (Attribute a : attr) {
    auto i = llvm::dyn_cast<IntegerAttr>(a);
    if (!i)
      return std::nullopt;
    values.push_back(i.getValue().getSExtValue());
  }
  return values;
}

StringRef RuleContext::getStrAttr(StringRef name,
                                  StringRef defaultValue) const {
  if (auto attr = op->getAttrOfType<StringAttr>(name))
    return attr.getValue();
  return defaultValue;
}

FailureOr<int64_t> RuleContext::normalizeAxis(int64_t axis, int64_t rank,
                                              StringRef what) const {
  if (axis < -rank || axis >= rank) {
    emitError() << what << " " << axis << " is out of range for rank " << rank;
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, dim] : llvm::enumerate(shape)) {
    if (i)
      text += ", ";
    text += ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
  }
  return text + "]";
}

Type getElementTypeFromOnnx(MLIRContext *ctx, int64_t dataType) {
  Builder b(ctx);
  auto uint = [&](unsigned w) {
    return IntegerType::get(ctx, w, IntegerType::Unsigned);
  };
  switch (dataType) {
  case 1:
    return b.getF32Type();
  case 2:
    return uint(8);
  case 3:
    return b.getIntegerType(8);
  case 4:
    return uint(16);
  case 5:
    return b.getIntegerType(16);
  case 6:
    return b.getIntegerType(32);
  case 7:
    return b.getIntegerType(64);
  case 9:
    return b.getI1Type();
  case 10:
    return b.getF16Type();
  case 11:
    return b.getF64Type();
  case 12:
    return uint(32);
  case 13:
    return uint(64);
  case 16:
    return b.getBF16Type();
  case 17:
    return b.getFloat8E4M3FNType();
  case 18:
    return b.getFloat8E4M3FNUZType();
  case 19:
    return b.getFloat8E5M2Type();
  case 20:
    return b.getFloat8E5M2FNUZType();
  case 21:
    return uint(4);
  case 22:
    return b.getIntegerType(4);
  case 25:
    return uint(2);
  case 26:
    return b.getIntegerType(2);
  default:
    return {};
  }
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static const RuleTable &getRuleTable() {
  static const RuleTable table = [] {
    RuleTable rules;
    addElementwiseRules(rules);
    addMatMulRules(rules);
    addConvPoolRules(rules);
    addNormalizationRules(rules);
    addReductionRules(rules);
    addShapeOpRules(rules);
    addIndexingRules(rules);
    addQuantizationRules(rules);
    addRecurrentRules(rules);
    addResizeRules(rules);
    addRandomRules(rules);
    addAttentionRules(rules);
    addLossRules(rules);
    addCol2ImRules(rules);
    addSignalRules(rules);
    addClassicMlRules(rules);
    addTfIdfVectorizerRules(rules);
    addFusedRules(rules);
    addBlockedLayoutRules(rules);
    return rules;
  }();
  return table;
}

/// The more refined of two types of one value: static dims from either.
/// Returns null when they contradict each other.
static RankedTensorType mergeTypes(RankedTensorType a, RankedTensorType b) {
  if (a.getElementType() != b.getElementType() || a.getRank() != b.getRank())
    return {};
  SmallVector<int64_t> dims;
  for (auto [x, y] : llvm::zip_equal(a.getShape(), b.getShape())) {
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return {};
    dims.push_back(ShapedType::isDynamic(x) ? y : x);
  }
  return RankedTensorType::get(dims, a.getElementType());
}

LogicalResult inferOp(Operation *op, InferenceState &state) {
  // onnx ops, and the graph optimizer's fused ops (dialect `onnxc`, rules in
  // Fused.cpp), which may come back from an exported optimized model.
  if ((!llvm::isa_and_nonnull<onnx::ONNXDialect>(op->getDialect()) &&
       op->getName().getDialectNamespace() != "onnxc") ||
      llvm::isa<onnx::NoValueOp, onnx::YieldOp>(op))
    return success();
  for (Type t : op->getOperandTypes())
    if (!llvm::isa<RankedTensorType, NoneType>(t))
      return success();
  const Rule *rule = getRuleTable().lookup(op->getName().getStringRef());
  if (!rule)
    return success();
  for (unsigned i = 0, e = std::min(rule->numRequired, op->getNumOperands());
       i < e; ++i)
    if (onnx::isNoValue(op->getOperand(i)))
      return op->emitError() << "required input #" << i << " is missing";

  RuleContext ctx(op, state);
  if (failed(rule->infer(ctx)))
    return failure();
  for (auto [result, type] :
       llvm::zip(op->getResults(), ctx.getInferredResults()))
    if (auto inferred = llvm::dyn_cast_if_present<RankedTensorType>(type))
      if (failed(refineResult(llvm::cast<OpResult>(result), inferred)))
        return failure();
  return success();
}

LogicalResult refineResult(OpResult result, RankedTensorType inferred) {
  if (auto current = llvm::dyn_cast<RankedTensorType>(result.getType())) {
    RankedTensorType merged = mergeTypes(current, inferred);
    if (!merged)
      return result.getOwner()->emitError()
             << "inferred type " << inferred << " of result #"
             << result.getResultNumber() << " contradicts its type " << current;
    inferred = merged;
  }
  // A static shape whose element count overflows would wrap every size
  // computation downstream (allocation, strides): refuse it here, where the
  // node is known.
  int64_t elements = 1;
  for (int64_t dim : inferred.getShape())
    if (!ShapedType::isDynamic(dim) &&
        (llvm::MulOverflow(elements, dim, elements) ||
         elements > (std::numeric_limits<int64_t>::max() >> 4)))
      return result.getOwner()->emitError()
             << "result #" << result.getResultNumber() << " would be "
             << inferred << ": more elements than fit in 64 bits";
  result.setType(inferred);
  return success();
}

} // namespace onnxc::shape

namespace onnxc {
namespace {
using namespace onnxc::shape;

bool isUnranked(Type type) {
  return llvm::isa<onnx::UnknownType, UnrankedTensorType>(type);
}

/// The node an unranked `value` lost its rank at: going back through
/// unranked operands, the first op whose operands all have ranks.
Operation *rankLossOrigin(Value value) {
  Operation *op = value.getDefiningOp();
  while (op) {
    auto unranked = llvm::find_if(op->getOperands(), [](Value operand) {
      return isUnranked(operand.getType()) && operand.getDefiningOp();
    });
    if (unranked == op->getOperands().end())
      return op;
    op = (*unranked).getDefiningOp();
  }
  return nullptr;
}

/// What the artifact's error says of an output whose rank is unknown:
/// where it was lost, and for an If, the usual cause and its fix.
std::string rankLossNote(Operation *origin) {
  std::string name;
  Location loc = origin->getLoc();
  if (auto fused = llvm::dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      loc = fused.getLocations().front();
  if (auto named = llvm::dyn_cast<NameLoc>(loc))
    name = named.getName().str();
  std::string op = origin->getName().stripDialect().str();
  std::string where = name.empty() ? "an unnamed " + op + " node"
                                   : "node '" + name + "' (" + op + ")";
  if (llvm::isa<onnx::IfOp>(origin))
    return where + " chooses between branches whose outputs have different "
                   "ranks on a condition known only at run time; fixing the "
                   "inputs' dims with --shape NAME=DIMS can decide it when "
                   "compiling";
  return "the rank is lost at " + where;
}

struct ShapeInferencePass : impl::OnnxShapeInferenceBase<ShapeInferencePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    InferenceState state;
    Type unknownType = onnx::UnknownType::get(&getContext());
    for (Block &block : func.getBody())
      if (failed(inferBlock(block, state, unknownType)))
        return signalPassFailure();
    if (failed(updateFunctionResults(func, state)))
      return signalPassFailure();
  }

  /// Returned values become the function's result types. A declared output
  /// type must agree with the inferred one and refines its dynamic dims,
  /// except a dim that is a copy of a graph input's dynamic dim: the
  /// caller's input sets that one (onnxmltools' LightGBM classifiers
  /// declare labels of [1] for [N] rows; ONNX Runtime warns and runs).
  /// `merged` with the dims `inferred` left dynamic that trace back to a
  /// dynamic dim of one of `func`'s inputs made dynamic again.
  static RankedTensorType keepInputDims(func::FuncOp func, Value value,
                                        RankedTensorType inferred,
                                        RankedTensorType merged,
                                        shape::InferenceState &state) {
    SmallVector<int64_t> dims(merged.getShape());
    for (int64_t d = 0; d < inferred.getRank(); ++d) {
      if (!inferred.isDynamicDim(d) || merged.isDynamicDim(d))
        continue;
      shape::DimRef origin = shape::traceDimOrigin(value, d, state);
      auto arg = llvm::dyn_cast_or_null<BlockArgument>(origin.value);
      if (arg && arg.getOwner() == &func.getBody().front())
        dims[d] = ShapedType::kDynamic;
    }
    return RankedTensorType::get(dims, merged.getElementType(),
                                 merged.getEncoding());
  }

  static LogicalResult updateFunctionResults(func::FuncOp func,
                                             shape::InferenceState &state) {
    auto ret =
        llvm::dyn_cast<func::ReturnOp>(func.getBody().back().getTerminator());
    if (!ret)
      return success();
    SmallVector<Type> resultTypes;
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      auto inferred = llvm::dyn_cast<RankedTensorType>(value.getType());
      auto declaredAttr =
          func.getResultAttrOfType<TypeAttr>(i, "onnxc.declared_type");
      auto declared =
          declaredAttr
              ? llvm::dyn_cast<RankedTensorType>(declaredAttr.getValue())
              : RankedTensorType();
      if (inferred && declared) {
        RankedTensorType merged = mergeTypes(inferred, declared);
        if (!merged) {
          Operation *def = value.getDefiningOp();
          auto nameAttr = func.getResultAttrOfType<StringAttr>(i, "onnxc.name");
          std::string name =
              nameAttr ? nameAttr.getValue().str() : "#" + std::to_string(i);
          // Exporters write stale output shapes (ddddocr's OCR model
          // declares [1, T] for a [T, 1, C] result); ONNX Runtime runs
          // such models and warns, so the inferred shape wins. Another
          // element type is a real contradiction.
          bool sameElements =
              inferred.getElementType() == declared.getElementType();
          InFlightDiagnostic diag =
              sameElements ? (def ? def->emitWarning() : func.emitWarning())
                           : (def ? def->emitError() : func.emitError());
          diag << "graph output '" << name << "' has inferred type " << inferred
               << ", incompatible with its declared type " << declared;
          if (!sameElements)
            return failure();
          diag << "; the inferred shape is used";
          // Said once: inference runs again after later passes.
          func.removeResultAttr(
              i, StringAttr::get(func.getContext(), "onnxc.declared_type"));
          resultTypes.push_back(value.getType());
          continue;
        }
        // Only an op result can be refined in place; a graph input returned
        // as an output keeps its own type.
        if (llvm::isa<OpResult>(value))
          value.setType(keepInputDims(func, value, inferred, merged, state));
      }
      if (!inferred)
        if (Operation *origin = rankLossOrigin(value))
          func.setResultAttr(
              i, "onnxc.rank_lost_at",
              StringAttr::get(func.getContext(), rankLossNote(origin)));
      resultTypes.push_back(value.getType());
    }
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   resultTypes));
    return success();
  }
};

} // namespace

namespace shape {
LogicalResult inferBlock(Block &block, InferenceState &state,
                         Type unknownType) {
  // A control-flow op may replace itself (an If with a known condition).
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (op.getNumRegions() != 0) {
      if (failed(inferControlFlowOp(&op, state, unknownType)))
        return failure();
      continue;
    }
    if (failed(inferOp(&op, state)))
      return failure();
  }
  return success();
}
} // namespace shape

std::unique_ptr<mlir::Pass> createShapeInferencePass() {
  return std::make_unique<ShapeInferencePass>();
}

LogicalResult inferShapes(Operation *op) {
  InferenceState state;
  return shape::inferOp(op, state);
}

namespace {
#define GEN_PASS_REGISTRATION
#include "compiler/dialect/ShapeInferencePasses.h.inc"
} // namespace

void registerShapeInferencePasses() { registerOnnxcShapeInferencePasses(); }

} // namespace onnxc
