//===- FusionPasses.h - The fusion passes of the graph optimizer -*- C++ -*-===//

#ifndef ONNXC_PASSES_FUSION_FUSIONPASSES_H
#define ONNXC_PASSES_FUSION_FUSIONPASSES_H

#include <memory>

namespace mlir {
class OpPassManager;
class Pass;
} // namespace mlir

namespace onnxc {

std::unique_ptr<mlir::Pass> createFoldConvAffinePass();
std::unique_ptr<mlir::Pass> createFuseMatMulBiasPass();
std::unique_ptr<mlir::Pass> createFuseMatMulScalePass();
std::unique_ptr<mlir::Pass> createFuseConvResidualPass();
std::unique_ptr<mlir::Pass> createFuseActivationPass();
std::unique_ptr<mlir::Pass> createFuseGeluPass();
std::unique_ptr<mlir::Pass> createFuseLayerNormPass();
std::unique_ptr<mlir::Pass> createFuseAttentionPass();
std::unique_ptr<mlir::Pass> createFuseSkipLayerNormPass();
std::unique_ptr<mlir::Pass> createFuseBiasGeluPass();
std::unique_ptr<mlir::Pass> createFuseBiasSoftmaxPass();
std::unique_ptr<mlir::Pass> createFuseEmbedLayerNormPass();
std::unique_ptr<mlir::Pass> createFuseQdqPass();
std::unique_ptr<mlir::Pass> createDropQdqAroundDataMovementPass();

/// Level 1 (basic): Conv+BatchNorm/Mul/Add folding, MatMul+bias, GELU and
/// LayerNorm recognition. Adds to `funcPm`, a pass manager on func.func
/// (passes/OptimizationPipeline.cpp calls it).
void addBasicFusionPasses(mlir::OpPassManager &funcPm);

/// Level 2 (extended): QDQ -> QLinearConv/QLinearMatMul, attention, MatMul
/// scale, Conv residual add, the activation epilogues (Gelu/FastGelu too),
/// BiasGelu, BiasSoftmax, EmbedLayerNorm and SkipLayerNorm, on func.func.
/// Run after addBasicFusionPasses.
void addExtendedFusionPasses(mlir::OpPassManager &funcPm);

/// Registers the fusion passes for onnxc-opt.
void registerFusionPasses();

} // namespace onnxc

#endif // ONNXC_PASSES_FUSION_FUSIONPASSES_H
