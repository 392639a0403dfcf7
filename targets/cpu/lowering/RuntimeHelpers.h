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
  /// When set, `name` is not the C function but a small wrapper the pass
  /// defines: it casts its ranked memref arguments to unranked ones and
  /// calls `target` (the C function, of type `targetType`). The casts then
  /// take their stack in the wrapper's frame, not in a loop of the caller.
  std::string target;
  mlir::FunctionType targetType;
};

/// The runtime function the lowering of `op` calls, if it calls one and the
/// op's types are ones it handles.
std::optional<RuntimeHelper> runtimeHelperFor(mlir::Operation *op);

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_LOWERING_RUNTIMEHELPERS_H
