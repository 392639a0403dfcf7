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
  // QDQ first: the float Conv/MatMul between DQ and Q must still be bare.
  funcPm.addPass(createFuseQdqPass());
  // Then the pairs around data movement (Resize, MaxPool, Reshape...): the
  // quantized ops it leaves read and write 8-bit tensors directly.
  funcPm.addPass(createDropQdqAroundDataMovementPass());
  // Attention next: it reads the scale and mask off the Q*K^T MatMul before
  // the MatMul scale fusion would fold them away.
  funcPm.addPass(createFuseAttentionPass());
  funcPm.addPass(createFuseMatMulScalePass());
  // Residual before activation: FusedConv adds Z before its activation.
  funcPm.addPass(createFuseConvResidualPass());
  funcPm.addPass(createFuseActivationPass());
  funcPm.addPass(createFuseBiasGeluPass());
  // After attention, which absorbs the masks of the blocks it recognizes.
  funcPm.addPass(createFuseBiasSoftmaxPass());
  // Embeddings before SkipLayerNorm: with a static batch of 1 the position
  // lookup has the sum's type and would pass for a residual add.
  funcPm.addPass(createFuseEmbedLayerNormPass());
  funcPm.addPass(createFuseSkipLayerNormPass());
}

void registerFusionPasses() { registerOnnxcFusionPasses(); }

} // namespace onnxc
