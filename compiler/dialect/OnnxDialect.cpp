//===- OnnxDialect.cpp - The onnx dialect ---------------------------------===//

#include "compiler/dialect/OnnxDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace onnxc::onnx;

#include "compiler/dialect/OnnxDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialect/OnnxTypes.cpp.inc"

void ONNXDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "compiler/dialect/OnnxTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "compiler/dialect/OnnxOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "compiler/dialect/OnnxOps.cpp.inc"
