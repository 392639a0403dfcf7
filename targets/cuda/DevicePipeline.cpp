//===- DevicePipeline.cpp - cuda partitions -> LLVM IR --------------------===//
//
// A cuda partition leaves the host module for a device module of its own:
// the host graph keeps a declaration that takes and returns host buffers,
// and the device module's function does, top to bottom:
//
//   onnx -> linalg     the cpu target's lowerings, without its runtime
//                      kernels (so everything is linalg), elementwise chains
//                      fused, transcendental functions as the same
//                      polynomials the cpu uses
//   cuBLAS             linalg matrix products -> onnxc_cuda_matmul_f32
//   bufferize          identity layouts at the function's boundary
//   device buffers     the host arguments copied in, every buffer in device
//                      memory, the results copied out to host buffers
//   kernels            each top-level loop nest -> a 1-D grid of 256-thread
//                      blocks -> gpu.launch, outlined into a gpu.module
//   NVVM -> binary     the kernels through LLVM's NVPTX backend to PTX, and
//                      to a fatbin with the toolkit's ptxas when installed
//   host -> LLVM       launches and copies as calls of the mgpu* functions
//                      that runtime/cuda implements over the driver API
//
//===----------------------------------------------------------------------===//

#include "targets/cuda/DevicePipeline.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "targets/cpu/Passes.h"
#include "targets/cuda/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace mlir;

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace onnxc::cuda {
namespace {

/// The CUDA toolkit whose ptxas makes the fatbin and whose libdevice holds
/// the math functions the polynomials do not cover; empty when absent.
std::string findCudaToolkit() {
  for (const char *env : {"ONNXC_CUDA_PATH", "CUDA_PATH", "CUDA_HOME"})
    if (const char *path = std::getenv(env); path && *path)
      return path;
  if (llvm::sys::fs::exists("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda";
  return {};
}

std::string libdevicePath(llvm::StringRef toolkit) {
  if (toolkit.empty())
    return {};
  llvm::SmallString<256> path(toolkit);
  llvm::sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  return llvm::sys::fs::exists(path) ? path.str().str() : std::string();
}

MemRefType memrefOf(Type type) {
  auto tensor = llvm::cast<RankedTensorType>(type);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// The host side of a partition: the transfers around its calls are the
/// copies its device code makes, and the calls pass host buffers.
void rewriteHostCalls(ModuleOp module, func::FuncOp partition) {
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    if (call.getCallee() == partition.getSymName())
      calls.push_back(call);
  });
  FunctionType type = partition.getFunctionType();
  SmallVector<Type> inputs, results;
  for (Type t : type.getInputs())
    inputs.push_back(memrefOf(t));
  for (Type t : type.getResults())
    results.push_back(memrefOf(t));

  for (func::CallOp call : calls) {
    OpBuilder b(call);
    Location loc = call.getLoc();
    SmallVector<Value> operands;
    for (auto [operand, memrefType] : llvm::zip(call.getOperands(), inputs)) {
      Value source = operand;
      if (auto transfer = source.getDefiningOp<fused::TransferOp>())
        source = transfer.getX();
      operands.push_back(b.create<bufferization::ToMemrefOp>(
          loc, memrefType, source, /*read_only=*/b.getUnitAttr()));
    }
    auto launch =
        b.create<func::CallOp>(loc, partition.getSymName(), results, operands);
    launch->setDiscardableAttrs(call->getDiscardableAttrDictionary());
    for (auto [result, buffer] :
         llvm::zip(call.getResults(), launch.getResults())) {
      Value tensor = b.create<bufferization::ToTensorOp>(
          loc, result.getType(), buffer, /*restrict=*/true, /*writable=*/true);
      for (Operation *user : llvm::make_early_inc_range(result.getUsers()))
        if (auto transfer = llvm::dyn_cast<fused::TransferOp>(user)) {
          transfer.getY().replaceAllUsesWith(tensor);
          transfer.erase();
        }
      result.replaceAllUsesWith(tensor);
    }
    call.erase();
  }
  // Transfers into partitions no call reads any more.
  module.walk([](fused::TransferOp transfer) {
    if (transfer->use_empty())
      transfer.erase();
  });

  partition.eraseBody();
  partition.setFunctionType(
      FunctionType::get(module.getContext(), inputs, results));
  partition.setPrivate();
}

/// Moves every cuda partition of `module` into `device`.
SmallVector<func::FuncOp> extractPartitions(ModuleOp module, ModuleOp device) {
  SmallVector<func::FuncOp> partitions;
  for (auto func : module.getOps<func::FuncOp>())
    if (auto target = func->getAttrOfType<StringAttr>(kTargetAttr);
        target && target.getValue() == "cuda" && !func.isExternal())
      partitions.push_back(func);
  OpBuilder b = OpBuilder::atBlockEnd(device.getBody());
  for (func::FuncOp partition : partitions) {
    auto copy = llvm::cast<func::FuncOp>(b.clone(*partition));
    copy.setPublic();
    rewriteHostCalls(module, partition);
  }
  return partitions;
}

void initializeNvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

} // namespace

void buildDevicePipeline(OpPassManager &pm, const LoweringOptions &options) {
  // onnx -> linalg on tensors, fused.
  pm.addNestedPass<func::FuncOp>(cpu::createConvertOnnxToLinalgPass());
  pm.addNestedPass<func::FuncOp>(cpu::createDynamicExpandShapeToReshape());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(cpu::createFuseElementwise());
  pm.addNestedPass<func::FuncOp>(cpu::createApproximateMath());
  pm.addNestedPass<func::FuncOp>(cpu::createDynamicExpandShapeToReshape());
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  pm.addNestedPass<func::FuncOp>(cpu::createUnshareFills());
  pm.addPass(createUseCublasPass());
  pm.addNestedPass<func::FuncOp>(cpu::createUnshareTensorReads());

  // Buffers, then device buffers.
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  bufferization::OneShotBufferizationOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  pm.addPass(createBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
  bool tf32 = options.targetOption("gpu-math", "fp32") == "tf32";
  pm.addPass(createDeviceBuffersPass(tf32 ? kAllowTf32 : 0));

  // Loop nests -> kernels.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createMapLoopsToGridPass());
  pm.addNestedPass<func::FuncOp>(createParallelLoopToGpuPass());
  pm.addPass(createVerifyHostCodePass());
  pm.addPass(createGpuKernelOutliningPass());
  // Copies, allocations and launches as async ops on one stream (what
  // gpu-to-llvm lowers), with one wait at the end.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());

  std::string toolkit = findCudaToolkit();
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.targetOption("cuda-arch", kDefaultArch).str();
  attach.features = "+ptx80";
  attach.optLevel = 3;
  std::string libdevice = libdevicePath(toolkit);
  std::vector<std::string> libs;
  if (!libdevice.empty())
    libs.push_back(libdevice);
  attach.linkLibs = libs;
  pm.addPass(createGpuNVVMAttachTarget(attach));

  // Kernels -> NVVM; host -> LLVM with mgpu* calls; kernels -> binary.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  // ceildivsi and friends have no NVVM lowering of their own.
  pm.addPass(arith::createArithExpandOpsPass());
  pm.addPass(createDeviceConstantsToLLVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 64;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(nvvm));
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  // The host frees the result buffers as it frees its own.
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = toolkit;
  binary.compilationTarget = toolkit.empty() ? "isa" : "fatbin";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

llvm::Expected<std::unique_ptr<llvm::Module>>
lowerCudaPartitions(ModuleOp module, llvm::LLVMContext &context,
                    const LoweringOptions &options) {
  OwningOpRef<ModuleOp> device = ModuleOp::create(module.getLoc());
  for (NamedAttribute attr : module->getAttrs())
    if (attr.getName().strref().starts_with("llvm."))
      (*device)->setAttr(attr.getName(), attr.getValue());
  if (extractPartitions(module, *device).empty())
    return nullptr;

  // ONNXC_CUDA_DUMP=FILE keeps the device module as it enters the
  // pipeline, for `onnxc-opt --onnxc-cuda-lowering FILE`.
  if (const char *dump = std::getenv("ONNXC_CUDA_DUMP")) {
    std::error_code ec;
    llvm::raw_fd_ostream os(dump, ec);
    if (!ec)
      device->print(os);
  }
  initializeNvptx();
  PassManager pm(module.getContext());
  buildDevicePipeline(pm, options);
  if (failed(pm.run(*device)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the cuda target could not lower its "
                                   "partitions (see the errors above)");
  std::unique_ptr<llvm::Module> code =
      translateModuleToLLVMIR(*device, context, "onnxc_cuda");
  if (!code)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the cuda partitions' code could not be "
                                   "translated to LLVM IR");
  return code;
}

void registerCudaPasses() {
  registerPass([] { return createDeviceBuffersPass(); });
  for (auto create :
       {createUseCublasPass, createMapLoopsToGridPass, createVerifyHostCodePass,
        createDeviceConstantsToLLVMPass})
    registerPass(create);
  PassPipelineRegistration<>(
      "onnxc-cuda-lowering",
      "cuda partitions (public functions on tensors) -> LLVM dialect with "
      "the kernels as gpu.binary (sm_90)",
      [](OpPassManager &pm) {
        initializeNvptx();
        buildDevicePipeline(pm, LoweringOptions());
      });
}

} // namespace onnxc::cuda
