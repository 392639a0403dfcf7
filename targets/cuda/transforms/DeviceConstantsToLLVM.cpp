//===- DeviceConstantsToLLVM.cpp - Weights read from their device copy ----===//
//
// A memref.get_global marked by DeviceBuffers names weights the kernels
// read. It becomes the device copy of the global: the global's host
// address goes to onnxc_cuda_constant (runtime/cuda), which uploads it on
// first use and returns the same device pointer from then on, and the
// memref is that pointer with the global's static shape. Weights are thus
// copied once per process, not per run. Built from LLVM-dialect ops and an
// unrealized cast, which the memref lowering later reconciles.
//
//===----------------------------------------------------------------------===//

#include "targets/cuda/Passes.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace onnxc::cuda {
namespace {

LLVM::LLVMFuncOp declareConstantCallee(ModuleOp module) {
  if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(kConstantCallee))
    return func;
  MLIRContext *ctx = module.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto type =
      LLVM::LLVMFunctionType::get(ptr, {ptr, IntegerType::get(ctx, 64)});
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  return b.create<LLVM::LLVMFuncOp>(module.getLoc(), kConstantCallee, type);
}

LogicalResult lowerToDeviceCopy(memref::GetGlobalOp global,
                                LLVM::LLVMFuncOp callee,
                                const LLVMTypeConverter &converter) {
  MemRefType type = global.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return global.emitError("weights the device reads need a static shape");
  OpBuilder b(global);
  b.setInsertionPointAfter(global);
  Location loc = global.getLoc();
  global->removeAttr(kDeviceConstantAttr);
  Value index = b.create<memref::ExtractAlignedPointerAsIndexOp>(loc, global);
  Value address = b.create<arith::IndexCastOp>(loc, b.getI64Type(), index);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  Value host = b.create<LLVM::IntToPtrOp>(loc, ptrType, address);
  int64_t bytes =
      type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
  Value size = b.create<LLVM::ConstantOp>(loc, b.getI64Type(),
                                          b.getI64IntegerAttr(bytes));
  Value device =
      b.create<LLVM::CallOp>(loc, callee, ValueRange{host, size}).getResult();
  Value descriptor =
      MemRefDescriptor::fromStaticShape(b, loc, converter, type, device);
  Value memref =
      b.create<UnrealizedConversionCastOp>(loc, type, descriptor).getResult(0);
  global.getResult().replaceUsesWithIf(memref, [&](OpOperand &use) {
    return use.getOwner() != index.getDefiningOp();
  });
  return success();
}

struct DeviceConstantsToLLVMPass
    : PassWrapper<DeviceConstantsToLLVMPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DeviceConstantsToLLVMPass)

  StringRef getArgument() const final {
    return "onnxc-cuda-device-constants-to-llvm";
  }
  StringRef getDescription() const final {
    return "Lower marked memref.get_global ops to the weights' device copy";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, LLVM::LLVMDialect,
                    memref::MemRefDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<memref::GetGlobalOp> globals;
    for (auto func : module.getOps<func::FuncOp>())
      func.walk([&](memref::GetGlobalOp global) {
        if (global->hasAttr(kDeviceConstantAttr))
          globals.push_back(global);
      });
    if (globals.empty())
      return;
    LLVM::LLVMFuncOp callee = declareConstantCallee(module);
    LLVMTypeConverter converter(&getContext());
    for (memref::GetGlobalOp global : globals)
      if (failed(lowerToDeviceCopy(global, callee, converter)))
        return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createDeviceConstantsToLLVMPass() {
  return std::make_unique<DeviceConstantsToLLVMPass>();
}

} // namespace onnxc::cuda
