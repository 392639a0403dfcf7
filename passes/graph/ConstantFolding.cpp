//===- ConstantFolding.cpp - The onnxc-constant-folding pass --------------===//
//
// One forward walk: an op whose operands are all onnx.Constant (or omitted)
// is evaluated (ConstantEvaluator.cpp) and its results become new
// onnx.Constants at the op's location, so the next op of a chain
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) sees constants in turn.
// Ops left without users are erased afterwards.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "passes/Passes.h"
#include "passes/RewriteCounts.h"
#include "passes/graph/ConstantEvaluator.h"
#include "passes/graph/GraphUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
#define GEN_PASS_DECL_CONSTANTFOLDING
#define GEN_PASS_DEF_CONSTANTFOLDING
#include "passes/Passes.h.inc"
} // namespace onnxc

using namespace mlir;
using onnxc::constfold::EvalStatus;
using onnxc::constfold::HostTensor;

namespace onnxc {
namespace {

/// The value of `v` if an onnx.Constant with a dense value defines it.
DenseElementsAttr getConstantValue(Value v) {
  auto constant = v.getDefiningOp<onnx::ConstantOp>();
  if (!constant)
    return {};
  return llvm::dyn_cast_if_present<DenseElementsAttr>(constant.getValueAttr());
}

/// True if the folded value `attr` may stand for `result`: same element type
/// and rank, and every static dim of the result's type agrees.
bool agreesWithType(DenseElementsAttr attr, Value result) {
  auto type = llvm::dyn_cast<RankedTensorType>(result.getType());
  if (!type)
    return false;
  auto folded = llvm::cast<RankedTensorType>(attr.getType());
  if (type.getElementType() != folded.getElementType() ||
      type.getRank() != folded.getRank())
    return false;
  for (auto [a, b] : llvm::zip(type.getShape(), folded.getShape()))
    if (!ShapedType::isDynamic(a) && a != b)
      return false;
  return true;
}

struct ConstantFoldingPass : impl::ConstantFoldingBase<ConstantFoldingPass> {
  using ConstantFoldingBase::ConstantFoldingBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    numTooLarge = 0;
    OpBuilder builder(&getContext());
    // Ops are visited in order, so a constant a fold creates is seen by the
    // ops that use it; nested If/Loop bodies are folded as well.
    SmallVector<Operation *> folded;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (tryFold(op, builder))
        folded.push_back(op);
    });
    for (Operation *op : folded)
      op->erase();
    int64_t erased = eraseDeadOps(func);
    syncFunctionResultTypes(func);
    addRewriteCount(getArgument(), "folded-ops", int64_t(folded.size()));
    addRewriteCount(getArgument(), "skipped-too-large", numTooLarge);
    addRewriteCount(getArgument(), "erased-dead-ops", erased);
  }

  /// Ops not folded because a result would exceed maxElements.
  int64_t numTooLarge = 0;

  /// Folds `op` if it can; returns true when its uses were replaced.
  bool tryFold(Operation *op, OpBuilder &builder) {
    if (!llvm::isa<onnx::ONNXDialect>(op->getDialect()) ||
        op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
        !constfold::canEvaluate(op) ||
        (llvm::isa<onnx::DequantizeLinearOp>(op) && !foldDequantize))
      return false;
    // A graph output stays the result of its node: main_graph's interface
    // (and the buffers the cpu target hands to the caller) stay as they are.
    if (llvm::any_of(op->getUsers(), [](Operation *user) {
          return llvm::isa<func::ReturnOp>(user);
        }))
      return false;
    bool readsTypeOnly = llvm::isa<onnx::ShapeOp, onnx::SizeOp>(op);
    SmallVector<std::optional<HostTensor>> inputs;
    for (Value operand : op->getOperands()) {
      if (onnx::isNoValue(operand) || readsTypeOnly) {
        inputs.push_back(std::nullopt);
        continue;
      }
      DenseElementsAttr value = getConstantValue(operand);
      if (!value || value.getNumElements() > maxElements)
        return false;
      std::optional<HostTensor> tensor = HostTensor::fromAttr(value);
      if (!tensor)
        return false;
      inputs.push_back(std::move(tensor));
    }
    SmallVector<HostTensor> results;
    EvalStatus status = constfold::evaluate(op, inputs, maxElements, results);
    if (status == EvalStatus::TooLarge)
      ++numTooLarge;
    if (status != EvalStatus::Folded || results.size() != op->getNumResults())
      return false;
    SmallVector<DenseElementsAttr> values;
    for (auto [result, tensor] : llvm::zip(op->getResults(), results)) {
      values.push_back(tensor.toAttr());
      if (!agreesWithType(values.back(), result))
        return false;
    }
    builder.setInsertionPoint(op);
    for (auto [result, value] : llvm::zip(op->getResults(), values)) {
      auto constant = builder.create<onnx::ConstantOp>(
          op->getLoc(), TypeRange{value.getType()}, ValueRange{},
          ArrayRef<NamedAttribute>{builder.getNamedAttr("value", value)});
      result.replaceAllUsesWith(constant.getResult());
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createConstantFoldingPass() {
  return std::make_unique<ConstantFoldingPass>();
}

std::unique_ptr<Pass> createConstantFoldingPass(int64_t maxElements) {
  ConstantFoldingOptions options;
  options.maxElements = maxElements;
  return std::make_unique<ConstantFoldingPass>(options);
}

std::unique_ptr<Pass> createDequantizeFoldingPass() {
  ConstantFoldingOptions options;
  options.foldDequantize = true;
  return std::make_unique<ConstantFoldingPass>(options);
}

} // namespace onnxc
