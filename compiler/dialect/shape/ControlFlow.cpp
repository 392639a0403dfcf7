//===- ControlFlow.cpp - Shape inference of If, Loop and Scan -------------===//
//
// Ops with subgraph bodies. Their bodies are inferred first (outer values they
// capture are already typed, since the pass walks in order), then the results
// are derived from the values the bodies yield:
//   - If: each result joins the two branches' types (dims that differ become
//     dynamic).
//   - Loop/Scan: untyped state arguments of the body start with the initial
//     values' types; while a yielded state differs from its argument, the
//     argument is generalized (differing dims become dynamic) and the body
//     re-inferred. Scan outputs get a leading (or scan_output_axes) dim of the
//     trip count.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/shape/ShapeRules.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace onnxc::shape {
namespace {

constexpr int64_t kDynamic = ShapedType::kDynamic;
/// Bounds the generalize-and-retry loop (each round makes a dim dynamic, so
/// it converges long before this).
constexpr int kMaxLoopRounds = 8;

/// The common type of two values that may be either: differing dims become
/// dynamic. Null when element types or ranks differ.
RankedTensorType joinTypes(Type a, Type b) {
  auto x = llvm::dyn_cast<RankedTensorType>(a);
  auto y = llvm::dyn_cast<RankedTensorType>(b);
  if (!x || !y || x.getElementType() != y.getElementType() ||
      x.getRank() != y.getRank())
    return {};
  SmallVector<int64_t> dims;
  for (auto [p, q] : llvm::zip_equal(x.getShape(), y.getShape()))
    dims.push_back(p == q ? p : kDynamic);
  return RankedTensorType::get(dims, x.getElementType());
}

/// The onnx.Yield ending a region's body, or null.
Operation *getYield(Region &region) {
  if (region.empty() || region.front().empty())
    return nullptr;
  Operation *last = &region.front().back();
  return last->getName().getStringRef() == "onnx.Yield" ? last : nullptr;
}

LogicalResult inferRegions(Operation *op, InferenceState &state,
                           Type unknownType) {
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (failed(inferBlock(block, state, unknownType)))
        return failure();
  return success();
}

/// Forgets what the pass inferred inside a body, so it can be inferred again
/// from more general argument types.
void resetBody(Block &body, InferenceState &state, Type unknownType) {
  body.walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (!name.starts_with("onnx.") || name == "onnx.Constant" ||
        name == "onnx.NoValue")
      return;
    for (OpResult result : op->getResults()) {
      state.knownValues.erase(result);
      if (llvm::isa<RankedTensorType>(result.getType()))
        result.setType(unknownType);
    }
  });
}

/// Whether `op` is inside a Loop or Scan body, whose values may change when
/// the body is re-inferred with more general argument types.
bool isInLoopBody(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    StringRef name = parent->getName().getStringRef();
    if (name == "onnx.Loop" || name == "onnx.Scan")
      return true;
  }
  return false;
}

/// Replaces an If whose condition is known by the ops of the branch taken
/// (inferred first). The other branch may not even be valid for these inputs:
/// expanded functions branch on the input's rank.
LogicalResult inlineTakenBranch(Operation *op, Region &taken,
                                InferenceState &state, Type unknownType) {
  Operation *yield = getYield(taken);
  if (!yield || !llvm::hasSingleElement(taken) ||
      taken.front().getNumArguments() != 0 ||
      yield->getNumOperands() != op->getNumResults())
    return op->emitError() << "the branch taken must take no inputs and "
                              "yield one value per output";
  if (failed(inferBlock(taken.front(), state, unknownType)))
    return failure();
  for (OpResult result : op->getResults())
    result.replaceAllUsesWith(yield->getOperand(result.getResultNumber()));
  yield->erase();
  op->getBlock()->getOperations().splice(Block::iterator(op),
                                         taken.front().getOperations());
  op->erase();
  return success();
}

LogicalResult inferIf(Operation *op, InferenceState &state, Type unknownType) {
  if (op->getNumRegions() == 2 && op->getNumOperands() == 1 &&
      llvm::isa<RankedTensorType>(op->getOperand(0).getType()) &&
      !isInLoopBody(op)) {
    RuleContext rules(op, state);
    // Region 1 is then_branch, region 0 else_branch (schema order).
    if (std::optional<int64_t> cond = rules.getKnownScalar(0))
      return inlineTakenBranch(op, op->getRegion(*cond ? 1 : 0), state,
                               unknownType);
  }
  if (failed(inferRegions(op, state, unknownType)))
    return failure();
  if (op->getNumRegions() != 2)
    return success();
  Operation *first = getYield(op->getRegion(0));
  Operation *second = getYield(op->getRegion(1));
  if (!first || !second)
    return success();
  if (first->getNumOperands() != op->getNumResults() ||
      second->getNumOperands() != op->getNumResults())
    return op->emitError() << "the branches yield " << first->getNumOperands()
                           << " and " << second->getNumOperands()
                           << " values for " << op->getNumResults()
                           << " outputs";
  for (OpResult result : op->getResults()) {
    unsigned i = result.getResultNumber();
    auto a = llvm::dyn_cast<RankedTensorType>(first->getOperand(i).getType());
    auto b = llvm::dyn_cast<RankedTensorType>(second->getOperand(i).getType());
    if (!a || !b)
      continue;
    if (a.getElementType() != b.getElementType())
      return op->emitError() << "the branches yield different element types "
                             << a.getElementType() << " and "
                             << b.getElementType() << " for output #" << i;
    // Branches of different ranks give an output of unknown rank.
    if (RankedTensorType joined = joinTypes(a, b))
      if (failed(refineResult(result, joined)))
        return failure();
  }
  return success();
}

/// Infers a loop body whose state arguments [argBegin, argBegin + count) are
/// fed back by the yield's operands [yieldBegin, yieldBegin + count). Only the
/// arguments in `owned` (those the pass typed) are generalized.
LogicalResult inferLoopBody(Operation *op, Block &body, unsigned argBegin,
                            unsigned yieldBegin, unsigned count,
                            const llvm::SmallBitVector &owned,
                            InferenceState &state, Type unknownType) {
  for (int round = 0;; ++round) {
    if (failed(inferBlock(body, state, unknownType)))
      return failure();
    Operation *yield = body.empty() ? nullptr : &body.back();
    if (!yield || yield->getName().getStringRef() != "onnx.Yield" ||
        yield->getNumOperands() < yieldBegin + count)
      return success();
    bool changed = false;
    for (unsigned j = 0; j < count; ++j) {
      BlockArgument arg = body.getArgument(argBegin + j);
      Type yielded = yield->getOperand(yieldBegin + j).getType();
      if (!owned[argBegin + j] || yielded == arg.getType())
        continue;
      RankedTensorType joined = joinTypes(arg.getType(), yielded);
      // A state whose rank changes (or stays unknown) keeps its argument
      // type; the loop's result for it is left untyped.
      if (!joined || joined == arg.getType())
        continue;
      arg.setType(joined);
      changed = true;
    }
    if (!changed)
      return success();
    if (round == kMaxLoopRounds)
      return op->emitError() << "loop state types do not converge";
    resetBody(body, state, unknownType);
    // Dims inside the body may have become dynamic.
    state.dimOrigins.clear();
  }
}

/// Gives untyped body arguments [begin, begin + types.size()) the given types.
void typeArguments(Block &body, unsigned begin, ArrayRef<Type> types,
                   llvm::SmallBitVector &owned) {
  for (auto [j, type] : llvm::enumerate(types)) {
    if (begin + j >= body.getNumArguments() || !type)
      continue;
    BlockArgument arg = body.getArgument(begin + j);
    if (llvm::isa<RankedTensorType>(arg.getType()) ||
        !llvm::isa<RankedTensorType>(type))
      continue;
    arg.setType(type);
    owned.set(begin + j);
  }
}

/// The type of a scan output: the per-iteration value with the trip count
/// inserted at `axis`.
RankedTensorType stackType(Type perIteration, int64_t tripCount, int64_t axis) {
  auto type = llvm::dyn_cast<RankedTensorType>(perIteration);
  if (!type)
    return {};
  int64_t rank = type.getRank() + 1;
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return {};
  SmallVector<int64_t> dims(type.getShape());
  dims.insert(dims.begin() + axis, tripCount);
  return RankedTensorType::get(dims, type.getElementType());
}

/// Loop(M, cond, v_initial...): body (iteration, cond, v...) yields
/// (cond, v..., scan outputs...).
LogicalResult inferLoop(Operation *op, InferenceState &state,
                        Type unknownType) {
  if (op->getNumRegions() != 1 || op->getRegion(0).empty() ||
      op->getNumOperands() < 2)
    return inferRegions(op, state, unknownType);
  Block &body = op->getRegion(0).front();
  unsigned numStates = op->getNumOperands() - 2;
  if (body.getNumArguments() != numStates + 2)
    return op->emitError() << "the body takes " << body.getNumArguments()
                           << " arguments for " << numStates
                           << " loop-carried values";
  MLIRContext *ctx = op->getContext();
  SmallVector<Type> argTypes = {
      RankedTensorType::get({}, IntegerType::get(ctx, 64)),
      RankedTensorType::get({}, IntegerType::get(ctx, 1))};
  for (Value initial : op->getOperands().drop_front(2))
    argTypes.push_back(initial.getType());
  llvm::SmallBitVector owned(body.getNumArguments());
  typeArguments(body, 0, argTypes, owned);
  if (failed(
          inferLoopBody(op, body, 2, 1, numStates, owned, state, unknownType)))
    return failure();

  Operation *yield = getYield(op->getRegion(0));
  if (!yield)
    return success();
  if (yield->getNumOperands() != 1 + op->getNumResults() ||
      op->getNumResults() < numStates)
    return op->emitError() << "the body yields " << yield->getNumOperands()
                           << " values for " << op->getNumResults()
                           << " outputs";
  // The trip count is M when no condition can end the loop early.
  int64_t tripCount = kDynamic;
  RuleContext rules(op, state);
  if (llvm::isa<NoneType>(op->getOperand(1).getType()) && rules.hasInput(0) &&
      llvm::isa<RankedTensorType>(op->getOperand(0).getType()))
    if (std::optional<int64_t> m = rules.getKnownScalar(0))
      tripCount = *m;
  for (OpResult result : op->getResults()) {
    unsigned i = result.getResultNumber();
    Type yielded = yield->getOperand(1 + i).getType();
    RankedTensorType type =
        i < numStates ? joinTypes(op->getOperand(2 + i).getType(), yielded)
                      : stackType(yielded, tripCount, 0);
    if (type && failed(refineResult(result, type)))
      return failure();
  }
  return success();
}

/// Scan(states..., scan inputs...): body (states..., scan slices...) yields
/// (states..., scan output slices...).
LogicalResult inferScan(Operation *op, InferenceState &state,
                        Type unknownType) {
  RuleContext rules(op, state);
  int64_t numScanInputs = rules.getIntAttr("num_scan_inputs", -1);
  int64_t numInputs = op->getNumOperands();
  if (op->getNumRegions() != 1 || op->getRegion(0).empty() ||
      numScanInputs < 0 || numScanInputs > numInputs)
    return inferRegions(op, state, unknownType);
  Block &body = op->getRegion(0).front();
  int64_t numStates = numInputs - numScanInputs;
  if (int64_t(body.getNumArguments()) != numInputs)
    return op->emitError() << "the body takes " << body.getNumArguments()
                           << " arguments for " << numInputs << " inputs";
  SmallVector<int64_t> inputAxes(numScanInputs, 0), outputAxes;
  if (std::optional<SmallVector<int64_t>> axes =
          rules.getIntsAttr("scan_input_axes"))
    if (int64_t(axes->size()) == numScanInputs)
      inputAxes = *axes;
  if (std::optional<SmallVector<int64_t>> axes =
          rules.getIntsAttr("scan_output_axes"))
    outputAxes = *axes;

  SmallVector<Type> argTypes;
  int64_t tripCount = kDynamic;
  for (int64_t i = 0; i < numInputs; ++i) {
    Type type = op->getOperand(i).getType();
    auto ranked = llvm::dyn_cast<RankedTensorType>(type);
    if (i < numStates || !ranked) {
      argTypes.push_back(type);
      continue;
    }
    int64_t rank = ranked.getRank(), axis = inputAxes[i - numStates];
    if (axis < -rank || axis >= rank)
      return op->emitError()
             << "scan input axis " << axis << " is out of range for " << ranked;
    if (axis < 0)
      axis += rank;
    if (tripCount == kDynamic)
      tripCount = ranked.getDimSize(axis);
    SmallVector<int64_t> slice(ranked.getShape());
    slice.erase(slice.begin() + axis);
    argTypes.push_back(RankedTensorType::get(slice, ranked.getElementType()));
  }
  llvm::SmallBitVector owned(body.getNumArguments());
  typeArguments(body, 0, argTypes, owned);
  if (failed(
          inferLoopBody(op, body, 0, 0, numStates, owned, state, unknownType)))
    return failure();

  Operation *yield = getYield(op->getRegion(0));
  if (!yield)
    return success();
  if (yield->getNumOperands() != op->getNumResults() ||
      int64_t(op->getNumResults()) < numStates)
    return op->emitError() << "the body yields " << yield->getNumOperands()
                           << " values for " << op->getNumResults()
                           << " outputs";
  for (OpResult result : op->getResults()) {
    int64_t i = result.getResultNumber();
    Type yielded = yield->getOperand(i).getType();
    RankedTensorType type;
    if (i < numStates) {
      type = joinTypes(op->getOperand(i).getType(), yielded);
    } else {
      int64_t k = i - numStates;
      type = stackType(yielded, tripCount,
                       k < int64_t(outputAxes.size()) ? outputAxes[k] : 0);
    }
    if (type && failed(refineResult(result, type)))
      return failure();
  }
  return success();
}

} // namespace

LogicalResult inferControlFlowOp(Operation *op, InferenceState &state,
                                 Type unknownType) {
  StringRef name = op->getName().getStringRef();
  if (name == "onnx.If")
    return inferIf(op, state, unknownType);
  if (name == "onnx.Loop")
    return inferLoop(op, state, unknownType);
  if (name == "onnx.Scan")
    return inferScan(op, state, unknownType);
  return inferRegions(op, state, unknownType);
}

} // namespace onnxc::shape
