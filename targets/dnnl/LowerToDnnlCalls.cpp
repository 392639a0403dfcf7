//===- LowerToDnnlCalls.cpp - dnnl partitions -> runtime calls ------------===//
//
// Lowers every node of the functions tagged onnxc.target = "dnnl" by its
// family's lowering (DnnlCalls.h). What is left in them are the cloned
// constants and absent inputs, which the host pipeline lowers once the
// partition is inlined.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "targets/dnnl/DnnlCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace onnxc::dnnl {
namespace {

LogicalResult lowerNode(Operation *op, DnnlCallBuilder &calls) {
  if (claimConv(op))
    return lowerConv(op, calls);
  if (claimQuantizedConv(op))
    return lowerQuantizedConv(op, calls);
  if (claimConvTranspose(op))
    return lowerConvTranspose(op, calls);
  if (claimMatMul(op))
    return lowerMatMul(op, calls);
  if (claimQuantizedMatMul(op))
    return lowerQuantizedMatMul(op, calls);
  if (claimPooling(op))
    return lowerPooling(op, calls);
  if (claimNormalization(op))
    return lowerNormalization(op, calls);
  return op->emitError() << "the dnnl target has no lowering for '"
                         << op->getName() << "'";
}

struct LowerToDnnlCallsPass
    : PassWrapper<LowerToDnnlCallsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerToDnnlCallsPass)

  StringRef getArgument() const final { return "onnxc-lower-to-dnnl-calls"; }
  StringRef getDescription() const final {
    return "Lower the nodes of dnnl partitions to oneDNN runtime calls";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry
        .insert<arith::ArithDialect, bufferization::BufferizationDialect,
                func::FuncDialect, memref::MemRefDialect, scf::SCFDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    DnnlCallBuilder calls(module);
    SmallVector<func::FuncOp> partitions;
    for (auto func : module.getOps<func::FuncOp>())
      if (auto target = func->getAttrOfType<StringAttr>(kTargetAttr);
          target && target.getValue() == "dnnl")
        partitions.push_back(func);
    for (func::FuncOp func : partitions) {
      SmallVector<Operation *> nodes;
      for (Operation &op : func.front().without_terminator())
        if (!llvm::isa<onnx::ConstantOp, onnx::NoValueOp>(op))
          nodes.push_back(&op);
      for (Operation *op : nodes)
        if (failed(lowerNode(op, calls)))
          return signalPassFailure();
    }
  }
};

} // namespace

std::unique_ptr<Pass> createLowerToDnnlCallsPass() {
  return std::make_unique<LowerToDnnlCallsPass>();
}

} // namespace onnxc::dnnl
