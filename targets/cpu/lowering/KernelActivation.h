//===- KernelActivation.h - Fused activations as runtime codes --*- C++ -*-===//
//
// The runtime kernels (runtime/cpu/kernels/Gemm.h's onnxc_activation) take
// a fused op's `activation` / `activation_params` as a code and two floats.
// Defined in GemmCall.cpp; used by every lowering that calls such a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_KERNELACTIVATION_H
#define ONNXC_TARGETS_CPU_LOWERING_KERNELACTIVATION_H

#include "mlir/IR/BuiltinAttributes.h"

#include <cstdint>
#include <optional>

namespace onnxc::cpu {

/// An onnxc_activation code and its parameters.
struct KernelActivation {
  int32_t kind = 0;
  float alpha = 0.0f, beta = 0.0f;
};

/// The runtime's code for activation `name` ("" for none) with `params`, or
/// nullopt for a name or parameter count the fused ops do not allow.
std::optional<KernelActivation>
kernelActivationFor(llvm::StringRef name,
                    std::optional<mlir::ArrayAttr> params);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_KERNELACTIVATION_H
