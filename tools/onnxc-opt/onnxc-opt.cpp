//===- onnxc-opt.cpp - The pass driver for lit tests ----------------------===//
//
// mlir-opt with the onnx dialect and onnxc's passes registered, so every pass
// can be tested on its own: `onnxc-opt --onnx-shape-inference in.mlir`.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/OnnxDialect.h"
#include "compiler/dialect/ShapeInference.h"
#include "compiler/dialect/onnxc/OnnxcDialect.h"
#include "passes/OptimizationPipeline.h"
#include "passes/Passes.h"
#include "passes/fusion/FusionPasses.h"
#include "targets/cpu/Passes.h"
#include "targets/cuda/DevicePipeline.h"
#include "tools/onnxc-opt/TestTargets.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  onnxc::registerShapeInferencePasses();
  onnxc::registerGraphPasses();
  onnxc::registerGraphOptimizationPipeline();
  onnxc::registerFusionPasses();
  onnxc::cpu::registerCpuPasses();
  onnxc::cuda::registerCudaPasses();
  onnxc::registerTestTargets();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR (the cuda target).
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<onnxc::onnx::ONNXDialect, onnxc::fused::OnnxcDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "onnxc pass driver\n", registry));
}
