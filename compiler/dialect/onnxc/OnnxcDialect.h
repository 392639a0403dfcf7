//===- OnnxcDialect.h - The onnxc dialect of fused ops ----------*- C++ -*-===//
//
// Fused ops the graph optimizer produces (OnnxcOps.td). Like OnnxDialect.h,
// keep this out of widely included headers.
//
//===----------------------------------------------------------------------===//

#ifndef ONNXC_DIALECT_ONNXC_ONNXCDIALECT_H
#define ONNXC_DIALECT_ONNXC_ONNXCDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/dialect/onnxc/OnnxcDialect.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialect/onnxc/OnnxcOps.h.inc"

#endif // ONNXC_DIALECT_ONNXC_ONNXCDIALECT_H
