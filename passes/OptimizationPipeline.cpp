//===- OptimizationPipeline.cpp - The graph optimizer by -O level ---------===//
//
// What each optimization level runs on the shape-inferred onnx graph, in
// order. The levels follow ONNX Runtime's:
//
//   -O0  none      the graph as imported
//   -O1  basic     constant folding, redundant-node elimination, CSE,
//                  Conv+BatchNorm folding, MatMul+bias (Gemm, or FusedMatMul
//                  above 2-D), GELU and LayerNorm recognition
//   -O2  extended  + QDQ -> QLinearConv/QLinearMatMul, attention, MatMul
//                  scale, the epilogue fusions into the `onnxc` dialect's
//                  fused ops (residual add, activations, Gelu/FastGelu),
//                  and ONNX Runtime's transformer fusions BiasGelu,
//                  BiasSoftmax, EmbedLayerNorm, SkipLayerNorm; the default:
//                  kDefaultOptLevel
//   -O3  layout    + the NCHWc layout: chains of f32 convolutions (and the
//                  activations, residual adds and pools between them) run
//                  on channel-blocked tensors, reordered only at the
//                  chain's ends (onnxc-nchwc-layout)
//
// Shape inference runs again at the end: folding and fusion can make types
// more precise (a Reshape whose target became a constant), and later stages
// rely on every value having its most precise type.
//
//===----------------------------------------------------------------------===//

#include "passes/OptimizationPipeline.h"

#include "compiler/dialect/ShapeInference.h"
#include "passes/Passes.h"
#include "passes/fusion/FusionPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace onnxc {

/// The cleanups every level from -O1 runs, and runs again after fusions
/// (a fusion can leave a Reshape pair or a duplicate constant behind).
static void addCleanups(OpPassManager &funcPm) {
  funcPm.addPass(createConstantFoldingPass());
  funcPm.addPass(createRedundantNodeEliminationPass());
  funcPm.addPass(createCommonSubexpressionEliminationPass());
}

void buildGraphOptimizationPipeline(OpPassManager &pm, int level) {
  if (level <= 0)
    return;
  OpPassManager &funcPm = pm.nest<func::FuncOp>();

  // -O1, basic.
  addCleanups(funcPm);
  // Shape inference again: constants folded out of Shape/Gather chains can
  // make more types static, which the redundant-node rules key on.
  funcPm.addPass(createShapeInferencePass());
  funcPm.addPass(createRedundantNodeEliminationPass());
  // Fusions into onnx ops (Conv+BatchNorm folding, MatMul+Add, GELU and
  // LayerNorm recognition; passes/fusion/).
  addBasicFusionPasses(funcPm);

  if (level >= 2) {
    // -O2, extended: QDQ to quantized ops, attention, and fusions into the
    // onnxc dialect's fused ops (Conv/Gemm/MatMul + bias, residual add,
    // activation, the transformer fusions).
    addExtendedFusionPasses(funcPm);
    // What the QDQ fusions left dequantized for float ops (a convolution
    // with a float bias, ConvTranspose, Add) becomes float constants, not a
    // dequantization on every run, and their weights get packed.
    funcPm.addPass(createDequantizeFoldingPass());
  }

  if (level >= 3) {
    // -O3, layout: after the fusions, so that a convolution comes with its
    // bias, residual add and activation and the blocked form keeps them.
    funcPm.addPass(createNchwcLayoutPass());
  }

  addCleanups(funcPm);
  funcPm.addPass(createShapeInferencePass());
}

namespace {
struct OptimizationPipelineOptions
    : PassPipelineOptions<OptimizationPipelineOptions> {
  Option<int> level{*this, "level", llvm::cl::desc("optimization level 0..3"),
                    llvm::cl::init(kDefaultOptLevel)};
};
} // namespace

void registerGraphOptimizationPipeline() {
  PassPipelineRegistration<OptimizationPipelineOptions>(
      "onnxc-optimize", "The graph optimizer of onnxc -O<level>",
      [](OpPassManager &pm, const OptimizationPipelineOptions &options) {
        buildGraphOptimizationPipeline(pm, options.level);
      });
}

} // namespace onnxc
