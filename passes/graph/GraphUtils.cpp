//===- GraphUtils.cpp - Helpers shared by the graph passes ----------------===//

#include "passes/graph/GraphUtils.h"

#include "compiler/dialect/OnnxDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace onnxc {

static bool isGraphOp(Operation *op) {
  Dialect *dialect = op->getDialect();
  return dialect && (llvm::isa<onnx::ONNXDialect>(dialect) ||
                     dialect->getNamespace() == "onnxc");
}

int64_t eraseDeadOps(func::FuncOp func) {
  llvm::SetVector<Operation *> worklist;
  func.walk([&](Operation *op) {
    if (isGraphOp(op))
      worklist.insert(op);
  });
  int64_t erased = 0;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!op->use_empty() || !isMemoryEffectFree(op) ||
        op->hasTrait<OpTrait::IsTerminator>())
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (isGraphOp(def))
          worklist.insert(def);
    // Ops nested in a dead op's regions go with it.
    op->walk([&](Operation *nested) { worklist.remove(nested); });
    op->erase();
    ++erased;
  }
  return erased;
}

void syncFunctionResultTypes(func::FuncOp func) {
  if (func.isExternal())
    return;
  auto ret =
      llvm::dyn_cast<func::ReturnOp>(func.getBody().back().getTerminator());
  if (!ret)
    return;
  SmallVector<Type> types(ret.getOperandTypes());
  if (func.getFunctionType().getResults() != ArrayRef<Type>(types))
    func.setType(
        FunctionType::get(func.getContext(), func.getArgumentTypes(), types));
}

bool replacementChangesInterface(Value from, Value to) {
  bool fromReturned = llvm::any_of(from.getUsers(), [](Operation *user) {
    return llvm::isa<func::ReturnOp>(user);
  });
  if (!fromReturned)
    return false;
  if (from.getType() != to.getType() || llvm::isa<BlockArgument>(to) ||
      to.getDefiningOp<onnx::ConstantOp>())
    return true;
  return llvm::any_of(to.getUsers(), [](Operation *user) {
    return llvm::isa<func::ReturnOp>(user);
  });
}

int64_t countNodes(func::FuncOp func) {
  int64_t count = 0;
  func.walk([&](Operation *op) {
    if (op == func.getOperation() || op->hasTrait<OpTrait::IsTerminator>() ||
        llvm::isa<onnx::ConstantOp, onnx::NoValueOp>(op))
      return;
    ++count;
  });
  return count;
}

} // namespace onnxc
