//===- Passes.h - The cuda target's passes ----------------------*- C++ -*-===//
//
// The passes of the device pipeline (DevicePipeline.cpp), in the order it
// runs them. Each file in transforms/ says what it matches and why.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CUDA_PASSES_H
#define ONNXC_TARGETS_CUDA_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace onnxc::cuda {

/// The runtime functions (runtime/cuda) the device code calls.
inline constexpr llvm::StringLiteral kMatMulCallee = "onnxc_cuda_matmul_f32";
inline constexpr llvm::StringLiteral kConstantCallee = "onnxc_cuda_constant";
inline constexpr llvm::StringLiteral kBeginCallee = "onnxc_cuda_begin";
inline constexpr llvm::StringLiteral kEndCallee = "onnxc_cuda_end";
/// Marks a memref.get_global whose value the device reads: it lowers to the
/// weights' device copy (DeviceConstantsToLLVM.cpp).
inline constexpr llvm::StringLiteral kDeviceConstantAttr =
    "onnxc.device_constant";

/// linalg matrix products on tensors -> cuBLAS calls (UseCublas.cpp).
std::unique_ptr<mlir::Pass> createUseCublasPass();
/// Host buffers at the partition's boundary copied to and from device
/// buffers; every allocation in device memory (DeviceBuffers.cpp).
std::unique_ptr<mlir::Pass> createDeviceBuffersPass();
/// `callOptions`: onnxc_cuda_begin's (kAllowTf32).
std::unique_ptr<mlir::Pass> createDeviceBuffersPass(int32_t callOptions);
/// onnxc_cuda_begin's option bits (runtime/cuda/CudaRuntime.h).
inline constexpr int32_t kAllowTf32 = 1;
/// Every top-level loop nest of a partition -> one 1-D grid of 256-thread
/// blocks (MapLoopsToGrid.cpp).
std::unique_ptr<mlir::Pass> createMapLoopsToGridPass();
/// Fails on host code that would read or write device memory
/// (MapLoopsToGrid.cpp).
std::unique_ptr<mlir::Pass> createVerifyHostCodePass();
/// Marked memref.get_global -> the runtime's cached device copy
/// (DeviceConstantsToLLVM.cpp).
std::unique_ptr<mlir::Pass> createDeviceConstantsToLLVMPass();

} // namespace onnxc::cuda

#endif // ONNXC_TARGETS_CUDA_PASSES_H
