//===- FusionPasses.h - The fusion passes of the graph optimizer -*- C++
//-*-===//

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

/// Level 1 (basic): Conv+BatchNorm/Mul/Add folding, MatMul+bias, GELU and
/// LayerNorm recognition. Adds func.func passes to `pm` (a module pass
/// manager: nested on func.func).
void addBasicFusionPasses(mlir::OpPassManager &pm);

/// Level 2 (extended): attention, MatMul scale, Conv residual add, and the
/// activation epilogues. Run after addBasicFusionPasses.
void addExtendedFusionPasses(mlir::OpPassManager &pm);

/// Registers the fusion passes for onnxc-opt.
void registerFusionPasses();

} // namespace onnxc

#endif // ONNXC_PASSES_FUSION_FUSIONPASSES_H
