//===- BufferUtils.h - Small queries on memrefs ----------------*- C++ -*-===//
//
// What the buffer-level transforms (VectorizeElementwise, TileTransposedLoops)
// ask of a memref's layout.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_TARGETS_CPU_TRANSFORMS_BUFFERUTILS_H
#define ONNXC_TARGETS_CPU_TRANSFORMS_BUFFERUTILS_H

#include "mlir/IR/BuiltinTypes.h"

namespace onnxc::cpu {

/// The innermost stride of `type` is 1 (its rows are contiguous).
inline bool hasUnitInnerStride(mlir::MemRefType type) {
  llvm::SmallVector<int64_t> strides;
  int64_t offset;
  if (mlir::failed(mlir::getStridesAndOffset(type, strides, offset)))
    return false;
  return !strides.empty() && strides.back() == 1;
}

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_TRANSFORMS_BUFFERUTILS_H
