//===- NodeLocations.h - ONNX node names in op locations --------*- C++ -*-===//
//
// The importer gives every op the NameLoc of its ONNX node; fusions combine
// them in FusedLocs, and TagOpTypes (onnxc compile --profile) wraps each in a
// FusedLoc whose metadata is the op type. The passes that report nodes at
// run time (NameShapeErrors, InstrumentNodes) read them back through this.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_TRANSFORMS_NODELOCATIONS_H
#define ONNXC_TARGETS_CPU_TRANSFORMS_NODELOCATIONS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace onnxc::cpu {

/// Calls `visit(name, opType)` for every node NameLoc in `loc`, first to
/// last, with the op type of the innermost TagOpTypes tag around it ("" when
/// untagged).
inline void forEachNodeName(
    mlir::Location loc,
    llvm::function_ref<void(llvm::StringRef, llvm::StringRef)> visit,
    llvm::StringRef opType = "") {
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc)) {
    visit(name.getName().getValue(), opType);
  } else if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc)) {
    if (auto tag =
            llvm::dyn_cast_or_null<mlir::StringAttr>(fused.getMetadata()))
      opType = tag.getValue();
    for (mlir::Location part : fused.getLocations())
      forEachNodeName(part, visit, opType);
  } else if (auto callSite = llvm::dyn_cast<mlir::CallSiteLoc>(loc)) {
    forEachNodeName(callSite.getCallee(), visit, opType);
  }
}

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_TRANSFORMS_NODELOCATIONS_H
