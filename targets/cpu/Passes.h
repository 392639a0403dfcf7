//===- Passes.h - CPU target passes -----------------------------*- C++ -*-===//

#ifndef ONNXC_TARGETS_CPU_PASSES_H
#define ONNXC_TARGETS_CPU_PASSES_H

#include <cstdint>
#include <memory>

namespace mlir {
class Pass;
class OpPassManager;
class RewritePatternSet;
} // namespace mlir

namespace onnxc::cpu {

/// onnx -> linalg/tensor/arith/math on tensors (see Passes.td).
std::unique_ptr<mlir::Pass> createConvertOnnxToLinalgPass();

/// Declares the runtime functions lowerings call (see Passes.td and
/// lowering/RuntimeHelpers.h); runs before convert-onnx-to-linalg.
std::unique_ptr<mlir::Pass> createDeclareRuntimeHelpersPass(bool gemmKernel = true);

/// Constant GEMM weights packed at compile time for the runtime ISA `isa`
/// (see transforms/PrepackGemmWeights.cpp; 0 packs nothing).
std::unique_ptr<mlir::Pass> createPrepackGemmWeights();
std::unique_ptr<mlir::Pass> createPrepackGemmWeightsPass(int32_t isa);

/// Winograd weights for the constant 3x3 convolutions the runtime computes
/// by Winograd F(2x2, 3x3) (see transforms/WinogradConvWeights.cpp).
std::unique_ptr<mlir::Pass> createWinogradConvWeightsPass();
std::unique_ptr<mlir::Pass> createDecomposeConvTransposePass();
std::unique_ptr<mlir::Pass> createConv1dAsConv2dPass();

/// tensor.expand_shape with dynamic dims -> tensor.reshape (see
/// transforms/DynamicExpandShapeToReshape.cpp); defined by the generated
/// pass base.
std::unique_ptr<mlir::Pass> createDynamicExpandShapeToReshape();

/// Constant memref.globals of rank > 1 -> 1-D globals plus expand_shape views
/// (see transforms/FlattenConstantGlobals.cpp).
std::unique_ptr<mlir::Pass> createFlattenConstantGlobals();

/// Elementwise linalg fusion that never recomputes expensive producers (see
/// transforms/FuseElementwise.cpp).
std::unique_ptr<mlir::Pass> createFuseElementwise();

/// Marks float reduction combiners reassociable, so they vectorize (see
/// transforms/ReassociateReductions.cpp).
std::unique_ptr<mlir::Pass> createReassociateReductions();

/// f32 exp/erf/tanh as vectorizable polynomials (see
/// transforms/ApproximateMath.cpp).
std::unique_ptr<mlir::Pass> createApproximateMath();

/// arith-expand that keeps f32/f64 min/max for LLVM's intrinsics (see
/// transforms/ExpandArith.cpp).
std::unique_ptr<mlir::Pass> createExpandArith();

/// One filled init tensor per in-place consumer, after CSE (see
/// transforms/UnshareFills.cpp).
std::unique_ptr<mlir::Pass> createUnshareFills();

/// One to_memref (and casts) per op that reads a tensor through them,
/// after CSE (see transforms/UnshareTensorReads.cpp); defined by the
/// generated pass base.
std::unique_ptr<mlir::Pass> createUnshareTensorReads();

/// Elementwise linalg.generic on buffers -> explicit vector loops (see
/// transforms/VectorizeElementwise.cpp).
std::unique_ptr<mlir::Pass> createVectorizeElementwise();

/// Transposing linalg.generic on buffers -> loops over tiles (see
/// transforms/TileTransposedLoops.cpp).
std::unique_ptr<mlir::Pass> createTileTransposedLoops();

/// Static intermediate buffers of main_graph -> views of one workspace
/// argument (see transforms/PlanWorkspace.cpp); `requireNoHeap` makes any
/// allocation left an error (--emit static).
std::unique_ptr<mlir::Pass> createPlanWorkspace();
std::unique_ptr<mlir::Pass> createPlanWorkspace(bool requireNoHeap);

/// For `onnxc compile --profile`: op types into locations before lowering,
/// then per-node timers on buffers (see transforms/TagOpTypes.cpp and
/// transforms/InstrumentNodes.cpp); defined by the generated pass bases.
std::unique_ptr<mlir::Pass> createTagOpTypes();
std::unique_ptr<mlir::Pass> createInstrumentNodes();

/// Shape-error reports get their node names, on the LLVM dialect (see
/// transforms/NameShapeErrors.cpp); defined by the generated pass base.
std::unique_ptr<mlir::Pass> createNameShapeErrors();

/// Big outermost scf.parallel nests -> tasks of the runtime thread pool
/// (see transforms/ParallelizeLoops.cpp); defined by the generated pass base.
std::unique_ptr<mlir::Pass> createParallelizeLoops();

/// Everything after convert-onnx-to-linalg: bufferization, deallocation,
/// the workspace plan, loops, and the conversion to the LLVM dialect
/// (CpuPipeline.cpp). With `staticMemory`, a graph that would still allocate
/// while it runs fails to compile. With `profile`, the graph times each of
/// its nodes (run createTagOpTypes before convert-onnx-to-linalg).
void buildCpuLoweringPipeline(mlir::OpPassManager &pm, int optLevel,
                              bool staticMemory = false, bool profile = false);

/// Registers the passes above for onnxc-opt.
void registerCpuPasses();

} // namespace onnxc::cpu

#endif // ONNXC_TARGETS_CPU_PASSES_H
