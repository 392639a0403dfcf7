//===- RuntimeHelpers.h - Runtime functions that lowerings call -*- C++ -*-===//
//
// A few ops (NonMaxSuppression, Unique) are lowered to calls into the C
// runtime (runtime/cpu/*.c, linked into every artifact). Their callees are
// declared by the module pass `onnxc-declare-runtime-helpers`, which runs
// before convert-onnx-to-linalg: a pass on one function may not add symbols
// to the module. Both read the name and signature from runtimeHelperFor.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_LOWERING_RUNTIMEHELPERS_H
#define ONNXC_TARGETS_CPU_LOWERING_RUNTIMEHELPERS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace onnxc::cpu {

/// A runtime function: its symbol (the C side defines `_mlir_ciface_<name>`,
/// MLIR's C interface) and its signature on converted (signless) types.
struct RuntimeHelper {
  std::string name;
  mlir::FunctionType type;
};

/// The runtime function the lowering of `op` calls, if it calls one and the
/// op's types are ones it handles.
std::optional<RuntimeHelper> runtimeHelperFor(mlir::Operation *op);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_RUNTIMEHELPERS_H
