//===- DevicePipeline.h - cuda partitions -> LLVM IR ------------*- C++ -*-===//

#ifndef ONNXC_TARGETS_CUDA_DEVICEPIPELINE_H
#define ONNXC_TARGETS_CUDA_DEVICEPIPELINE_H

#include "targets/Target.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace onnxc::cuda {

/// The GPU architecture kernels are compiled for without --cuda-arch (the
/// H200 the project can borrow).
inline constexpr const char *kDefaultArch = "sm_90";

/// Moves the cuda partitions of `module` into a device module, leaves the
/// host graph calling them on host buffers, and lowers the device module to
/// LLVM IR (host code with the kernels' binary embedded). Null when
/// `module` has no cuda partition.
llvm::Expected<std::unique_ptr<llvm::Module>>
lowerCudaPartitions(mlir::ModuleOp module, llvm::LLVMContext &context,
                    const LoweringOptions &options);

/// The passes from a device module of partitions on tensors (onnx ops) to
/// the LLVM dialect with gpu.binary kernels (onnxc-opt's
/// `onnxc-cuda-lowering` runs them on its input).
void buildDevicePipeline(mlir::OpPassManager &pm,
                         const LoweringOptions &options);

/// Registers the cuda passes and the `onnxc-cuda-lowering` pipeline.
void registerCudaPasses();

} // namespace onnxc::cuda

#endif // ONNXC_TARGETS_CUDA_DEVICEPIPELINE_H
