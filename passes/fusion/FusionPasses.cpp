//===- FusionPasses.cpp - The fusion passes by optimization level ---------===//

#include "passes/fusion/FusionPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace onnxc {
namespace {
#define GEN_PASS_REGISTRATION
#include "passes/fusion/Passes.h.inc"
} // namespace

void addBasicFusionPasses(mlir::OpPassManager &funcPm) {
  funcPm.addPass(createFoldConvAffinePass());
  funcPm.addPass(createFuseGeluPass());
  funcPm.addPass(createFuseLayerNormPass());
  funcPm.addPass(createFuseMatMulBiasPass());
}

void addExtendedFusionPasses(mlir::OpPassManager &funcPm) {
  // Attention first: it reads the scale and mask off the Q*K^T MatMul before
  // the MatMul scale fusion would fold them away.
  funcPm.addPass(createFuseAttentionPass());
  funcPm.addPass(createFuseMatMulScalePass());
  // Residual before activation: FusedConv adds Z before its activation.
  funcPm.addPass(createFuseConvResidualPass());
  funcPm.addPass(createFuseActivationPass());
}

void registerFusionPasses() { registerOnnxcFusionPasses(); }

} // namespace onnxc
