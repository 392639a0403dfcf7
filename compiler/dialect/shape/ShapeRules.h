//===- ShapeRules.h - Shape rules of the onnx ops (internal) ----*- C++ -*-===//
//
// The interface between the shape inference pass (ShapeInferencePass.cpp) and
// the per-family rule files of this folder. A rule reads its op's operand
// types, attributes and the integer values the pass knows at compile time, and
// sets the result types (and, for shape computations, the known values of its
// results). Rules name attributes by their ONNX name and operands by position,
// so they do not need the (heavy) generated op classes.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_DIALECT_SHAPE_SHAPERULES_H
#define ONNXC_DIALECT_SHAPE_SHAPERULES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace onnxc::shape {

/// One element of a small integer tensor as far as compile time knows it: a
/// value, or unknown. An unknown element that is the run-time size of a dim
/// (from Shape) remembers which dim of which value (a symbol), so that Reshape
/// can cancel it against a dim of its data with the same origin.
struct IntElem {
  std::optional<int64_t> value;
  mlir::Value dimOf;
  int64_t dim = 0;

  static IntElem known(int64_t v) { return {v, {}, 0}; }
  static IntElem unknown() { return {}; }
  static IntElem sizeOf(mlir::Value v, int64_t d) { return {{}, v, d}; }
  bool isSymbol() const { return !value && dimOf; }
};
using KnownInts = llvm::SmallVector<IntElem, 4>;

/// Known values are tracked for 0-D/1-D integer tensors up to this size.
constexpr int64_t kMaxKnownElements = 64;

/// A dynamic dim: dim `dim` of `value`.
struct DimRef {
  mlir::Value value;
  int64_t dim;
  bool operator==(const DimRef &other) const {
    return value == other.value && dim == other.dim;
  }
};

/// What the pass knows beyond the IR's types while it walks a function.
struct InferenceState {
  /// The compile-time elements of small integer tensors.
  llvm::DenseMap<mlir::Value, KnownInts> knownValues;
  /// traceDimOrigin's answers (residual graphs reach one dim many ways).
  llvm::DenseMap<std::pair<mlir::Value, int64_t>, DimRef> dimOrigins;
};

/// The tracked elements of `value` (computed, or read from a small integer
/// onnx.Constant), or null.
const KnownInts *lookupKnown(mlir::Value value, InferenceState &state);

/// The dim that dynamic dim `dim` of `value` is a copy of, following ops that
/// pass dims through unchanged (elementwise ops, MatMul, Transpose, the
/// copied dims of Reshape, ...) back to where the size was made
/// (DimOrigin.cpp). Two dims with the same origin have the same size at run
/// time.
DimRef traceDimOrigin(mlir::Value value, int64_t dim, InferenceState &state);

/// What a rule sees of the op it infers. The pass only calls a rule when every
/// operand is a ranked tensor or an omitted optional input (`none`), and the
/// required ones (see Rule) are present.
class RuleContext {
public:
  RuleContext(mlir::Operation *op, InferenceState &state)
      : op(op), state(state) {}

  mlir::Operation *getOp() const { return op; }
  mlir::InFlightDiagnostic emitError() const { return op->emitError(); }

  /// True if operand `i` exists and is not an omitted optional input.
  bool hasInput(unsigned i) const;
  unsigned getNumInputs() const { return op->getNumOperands(); }
  mlir::RankedTensorType getInputType(unsigned i) const;
  llvm::ArrayRef<int64_t> getInputShape(unsigned i) const {
    return getInputType(i).getShape();
  }
  int64_t getInputRank(unsigned i) const { return getInputType(i).getRank(); }
  mlir::Type getInputElementType(unsigned i) const {
    return getInputType(i).getElementType();
  }

  /// The tracked elements of operand `i` (from constants or computed), or
  /// null. A 0-D tensor has one element.
  const KnownInts *getKnown(unsigned i) const;
  /// The values of operand `i` when every element is known.
  std::optional<llvm::SmallVector<int64_t>> getKnownInts(unsigned i) const;
  /// The value of a one-element operand when known.
  std::optional<int64_t> getKnownScalar(unsigned i) const;
  /// The values of a small floating-point constant operand (Resize scales,
  /// Range bounds).
  std::optional<llvm::SmallVector<double>> getConstantFloats(unsigned i) const;
  /// The number of elements of a 1-D operand when static, else nullopt.
  std::optional<int64_t> getStaticLength(unsigned i) const;

  unsigned getNumResults() const { return op->getNumResults(); }
  /// Sets result `i` to `tensor<shape x elementType>`; omitted optional
  /// outputs (type `none`) are left as they are.
  void setResult(unsigned i, mlir::Type elementType,
                 llvm::ArrayRef<int64_t> shape);
  /// Records the compile-time elements of result `i`, a 0-D/1-D integer
  /// tensor (ignored beyond kMaxKnownElements).
  void setKnown(unsigned i, KnownInts values);

  int64_t getIntAttr(llvm::StringRef name, int64_t defaultValue) const;
  std::optional<llvm::SmallVector<int64_t>>
  getIntsAttr(llvm::StringRef name) const;
  llvm::StringRef getStrAttr(llvm::StringRef name,
                             llvm::StringRef defaultValue) const;

  /// Normalizes a possibly negative axis into [0, rank); emits an error
  /// naming `what` when it is out of range.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                         llvm::StringRef what = "axis") const;

  /// See traceDimOrigin.
  DimRef traceDim(mlir::Value value, int64_t dim) const {
    return traceDimOrigin(value, dim, state);
  }

  /// The result types set so far (null where none was set).
  llvm::ArrayRef<mlir::Type> getInferredResults() const { return inferred; }

private:
  mlir::Operation *op;
  InferenceState &state;
  llvm::SmallVector<mlir::Type, 2> inferred;
};

/// A shape rule. Returns failure only after emitting an error (the inputs
/// violate the op's rule); returns success without setting a result when it
/// cannot tell the result type.
using ShapeRule = mlir::LogicalResult (*)(RuleContext &);
/// A registered rule and how many leading operands the op requires (the rest
/// are optional and may be `none`).
struct Rule {
  ShapeRule infer;
  unsigned numRequired;
};

/// Rules by full op name ("onnx.Add").
class RuleTable {
public:
  static constexpr unsigned kAllRequired = ~0u;
  /// Registers `infer` for `onnx.<name>`.
  void add(llvm::StringRef name, ShapeRule infer,
           unsigned numRequired = kAllRequired) {
    rules[("onnx." + name).str()] = {infer, numRequired};
  }
  /// Registers the rule of `existing` (a full name, "onnx.Conv") for the op
  /// `fullName` ("onnxc.FusedConv") whose leading operands and attributes
  /// are those of `existing`.
  void addAlias(llvm::StringRef fullName, llvm::StringRef existing,
                unsigned numRequired) {
    if (const Rule *rule = lookup(existing))
      rules[fullName] = {rule->infer, numRequired};
  }
  /// Registers `infer` for the op `fullName` of another dialect
  /// ("onnxc.EmbedLayerNorm").
  void addWithFullName(llvm::StringRef fullName, ShapeRule infer,
                       unsigned numRequired) {
    rules[fullName] = {infer, numRequired};
  }
  const Rule *lookup(llvm::StringRef opName) const {
    auto it = rules.find(opName);
    return it == rules.end() ? nullptr : &it->second;
  }

private:
  llvm::StringMap<Rule> rules;
};

/// Infers one op (not If/Loop/Scan) with its rule, merging the inferred types
/// into the results' current types.
mlir::LogicalResult inferOp(mlir::Operation *op, InferenceState &state);
/// Sets an op result's type to `inferred`, merged with the ranked type it may
/// already have; an error when the two contradict each other.
mlir::LogicalResult refineResult(mlir::OpResult result,
                                 mlir::RankedTensorType inferred);
/// Infers the ops of a block in order, regions first.
mlir::LogicalResult inferBlock(mlir::Block &block, InferenceState &state,
                               mlir::Type unknownType);
/// Infers the bodies and results of If, Loop and Scan (ControlFlow.cpp);
/// other ops with regions only get their bodies inferred.
mlir::LogicalResult inferControlFlowOp(mlir::Operation *op,
                                       InferenceState &state,
                                       mlir::Type unknownType);

void addElementwiseRules(RuleTable &rules);
void addMatMulRules(RuleTable &rules);
void addConvPoolRules(RuleTable &rules);
void addNormalizationRules(RuleTable &rules);
void addReductionRules(RuleTable &rules);
void addShapeOpRules(RuleTable &rules);
void addIndexingRules(RuleTable &rules);
void addQuantizationRules(RuleTable &rules);
void addRecurrentRules(RuleTable &rules);
void addResizeRules(RuleTable &rules);
void addRandomRules(RuleTable &rules);
void addAttentionRules(RuleTable &rules);
void addLossRules(RuleTable &rules);
void addCol2ImRules(RuleTable &rules);
void addSignalRules(RuleTable &rules);
void addClassicMlRules(RuleTable &rules);
void addTfIdfVectorizerRules(RuleTable &rules);
/// The onnxc fused ops: the rules of their core ops (Fused.cpp). Must be
/// added after those.
void addFusedRules(RuleTable &rules);
/// The onnxc blocked-layout ops (BlockedLayout.cpp).
void addBlockedLayoutRules(RuleTable &rules);

/// Multidirectional (numpy) broadcasting of two shapes with the dynamic-dim
/// policy of Elementwise.cpp. Returns false when two static dims conflict.
bool broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                     llvm::SmallVectorImpl<int64_t> &result);

/// The element type of an ONNX TensorProto data type number, or null.
mlir::Type getElementTypeFromOnnx(mlir::MLIRContext *ctx, int64_t dataType);

/// "[?, 128]": a shape for diagnostics.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// True for the types whose small tensors carry known values.
bool isTrackedIntType(mlir::Type elementType);

} // namespace onnxc::shape

#endif // ONNXC_DIALECT_SHAPE_SHAPERULES_H
