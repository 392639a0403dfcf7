//===- OnnxcDialect.cpp - The onnxc dialect of fused ops ------------------===//

#include "compiler/dialect/onnxc/OnnxcDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace onnxc::fused;

#include "compiler/dialect/onnxc/OnnxcDialect.cpp.inc"

void OnnxcDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/dialect/onnxc/OnnxcOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "compiler/dialect/onnxc/OnnxcOps.cpp.inc"
