//===- PassRegistration.cpp - The graph passes for onnxc-opt --------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace onnxc {
namespace {
#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"
} // namespace

void registerGraphPasses() { registerOnnxcGraphPasses(); }

} // namespace onnxc
