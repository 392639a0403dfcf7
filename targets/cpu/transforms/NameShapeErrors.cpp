//===- NameShapeErrors.cpp - Pass the node name to shape-error reports ----===//
//
// Lowerings report a failed run-time shape check by calling
// `onnxc_rt_shape_error_at(kind, a, b)` (lowering/RuntimeHelpers.h): a
// pattern on one function may not add the module symbol a node name needs.
// Once everything is in the LLVM dialect, this pass gives each call its
// node's name (from the call's location, which is the ONNX node's) as a
// private constant string and calls the runtime's
// `onnxc_rt_shape_error(node, kind, a, b)` instead.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"
#include "targets/cpu/lowering/RuntimeHelpers.h"
#include "targets/cpu/transforms/NodeLocations.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringMap.h"

namespace onnxc::cpu {
#define GEN_PASS_DEF_NAMESHAPEERRORS
#include "targets/cpu/Passes.h.inc"
} // namespace onnxc::cpu

using namespace mlir;

namespace onnxc::cpu {
namespace {

/// The ONNX node name in `loc` (the importer's NameLoc; the first one in a
/// fused location), or "" when there is none.
std::string nodeName(Location loc) {
  std::string first;
  forEachNodeName(loc, [&](StringRef name, StringRef) {
    if (first.empty())
      first = name.str();
  });
  return first;
}

struct NameShapeErrorsPass : impl::NameShapeErrorsBase<NameShapeErrorsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto site = module.lookupSymbol<LLVM::LLVMFuncOp>(kShapeErrorCallee);
    if (!site)
      return;
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      if (call.getCallee() == kShapeErrorCallee)
        calls.push_back(call);
    });
    if (calls.empty()) {
      site.erase();
      return;
    }
    MLIRContext *ctx = module.getContext();
    OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
    auto reportType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                                  {ptrType, i32, i64, i64});
    auto report = module.lookupSymbol<LLVM::LLVMFuncOp>(kShapeErrorFunction);
    if (!report)
      report = builder.create<LLVM::LLVMFuncOp>(
          module.getLoc(), kShapeErrorFunction, reportType);
    // One string per node name: "\0"-terminated, private, unnamed_addr.
    llvm::StringMap<LLVM::GlobalOp> names;
    SymbolTable symbols(module);
    for (LLVM::CallOp call : calls) {
      if (call.getNumOperands() != 3) {
        call.emitError() << kShapeErrorCallee << " takes 3 operands";
        return signalPassFailure();
      }
      std::string name = nodeName(call.getLoc());
      LLVM::GlobalOp &global = names[name];
      if (!global) {
        std::string value = name + '\0';
        auto type =
            LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), value.size());
        global = builder.create<LLVM::GlobalOp>(
            module.getLoc(), type, /*isConstant=*/true, LLVM::Linkage::Private,
            "onnxc_node_name", builder.getStringAttr(value));
        global.setUnnamedAddr(LLVM::UnnamedAddr::Global);
        symbols.insert(global); // uniques the symbol name
      }
      OpBuilder at(call);
      Value address = at.create<LLVM::AddressOfOp>(call.getLoc(), global);
      SmallVector<Value> operands{address};
      llvm::append_range(operands, call.getOperands());
      at.create<LLVM::CallOp>(call.getLoc(), report, operands);
      call.erase();
    }
    if (site.getSymbolUses(module) && !site.getSymbolUses(module)->empty()) {
      site.emitError() << kShapeErrorCallee << " is still referenced";
      return signalPassFailure();
    }
    site.erase();
  }
};

} // namespace
} // namespace onnxc::cpu
