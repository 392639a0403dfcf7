//===- OnnxDialect.h - The onnx dialect -------------------------*- C++ -*-===//
//
// One MLIR op per ONNX operator (generated from the ONNX schemas into
// OnnxOps.td). Include this header to use the ops; it is heavy, so keep it out
// of headers that other components include.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_DIALECT_ONNXDIALECT_H
#define ONNXC_DIALECT_ONNXDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/dialect/OnnxDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialect/OnnxTypes.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialect/OnnxOps.h.inc"

namespace onnxc::onnx {

/// True if `v` is an omitted optional input (a value of type `none`).
inline bool isNoValue(mlir::Value v) {
  return !v || llvm::isa<mlir::NoneType>(v.getType());
}

} // namespace onnxc::onnx

#endif // ONNXC_DIALECT_ONNXDIALECT_H
