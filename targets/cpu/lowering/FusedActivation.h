//===- FusedActivation.h - The activations of the onnxc ops -----*- C++ -*-===//
//
// The `activation` / `activation_params` epilogue the onnxc fused ops share
// (OnnxcOps.td), defined in Fused.cpp and used by every lowering of an op
// that carries one (Fused.cpp, BlockedLayout.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_FUSEDACTIVATION_H
#define ONNXC_TARGETS_CPU_LOWERING_FUSEDACTIVATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <optional>

namespace onnxc::cpu {

/// Checks activation `name` and the number of its parameters; reports a bad
/// one on `op` and fails.
mlir::LogicalResult verifyActivation(mlir::Operation *op, llvm::StringRef name,
                                     std::optional<mlir::ArrayAttr> params);

/// Applies activation `name` ("" for none) to scalar `x`.
mlir::Value applyActivation(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x, llvm::StringRef name,
                            std::optional<mlir::ArrayAttr> params);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_FUSEDACTIVATION_H
