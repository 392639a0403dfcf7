//===- CpuPipeline.cpp - linalg on tensors -> LLVM dialect ----------------===//
//
// The cpu target's lowering after convert-onnx-to-linalg, top to bottom:
// fuse elementwise chains, bufferize (function boundaries included, identity
// layouts so the runtime sees dense buffers), free intermediate buffers, place
// the static ones in one workspace, lower linalg to loops, and convert
// everything to the LLVM dialect. Math functions LLVM has no intrinsic for
// (erf, ...) become libm calls, which is why a CPU artifact needs libm.
//
//===----------------------------------------------------------------------===//

#include "targets/cpu/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace onnxc::cpu {

void buildCpuLoweringPipeline(OpPassManager &pm, int optLevel,
                              bool staticMemory, bool profile) {
  // Dynamic tensor.expand_shapes trip MLIR 19 twice (the canonicalizer's dim
  // folding and bufferization), so they become tensor.reshape before either
  // runs, and again after fusion, which can make new ones.
  pm.addNestedPass<func::FuncOp>(createDynamicExpandShapeToReshape());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  if (optLevel > 0) {
    // Upstream's elementwise fusion minus the fusions that recompute
    // expensive producers inside reductions and broadcasts.
    pm.addNestedPass<func::FuncOp>(createFuseElementwise());
    // Float reductions may vectorize (partial sums): ONNX fixes no order.
    pm.addNestedPass<func::FuncOp>(createReassociateReductions());
    // exp/erf/tanh as polynomials, not libm calls, so their loops vectorize.
    pm.addNestedPass<func::FuncOp>(createApproximateMath());
    pm.addNestedPass<func::FuncOp>(createDynamicExpandShapeToReshape());
  }
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  // CSE shares identical filled accumulators; bufferization would copy them.
  pm.addNestedPass<func::FuncOp>(createUnshareFills());
  // CSE also merges the to_memrefs through which kernel calls read a tensor,
  // hiding later reads from bufferization (the pass says why).
  pm.addNestedPass<func::FuncOp>(createUnshareTensorReads());

  // Tensors -> buffers. Function arguments and results get identity layouts:
  // the runtime passes and receives dense row-major buffers.
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  bufferization::OneShotBufferizationOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  // Loops lowered from Loop/Scan carry tensors whose new value is a fresh
  // buffer (a body result, a grown scan buffer), not the iteration's
  // argument updated in place.
  bufferization.allowReturnAllocsFromLoops = true;
  bufferization.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addPass(createBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
  // Intermediate buffers -> one workspace the runtime passes in. After the
  // deallocation pipeline, so its deallocs of planned buffers are known (and
  // erased) and it never sees views of the workspace it would have to own.
  pm.addPass(createPlanWorkspace(staticMemory));
  // Weights as flat 1-D globals, for compile memory (the pass says why).
  pm.addPass(createFlattenConstantGlobals());
  // Transposing loops over tiles, so that their strided reads stay in
  // cache; then elementwise loops over the workspace's slices, which LLVM
  // cannot tell apart, as explicit vectors (the passes say why).
  if (optLevel > 0) {
    pm.addNestedPass<func::FuncOp>(createTileTransposedLoops());
    pm.addNestedPass<func::FuncOp>(createVectorizeElementwise());
  }
  // --profile: timers between the graph's nodes, while it is still one
  // block of calls and linalg ops (the pass says why).
  if (profile)
    pm.addPass(createInstrumentNodes());

  // Loops, then the LLVM dialect.
  if (optLevel > 0 && !staticMemory) {
    // Parallel iterators become scf.parallel dims, and the big outermost
    // nests run on the runtime's thread pool (set_num_threads). Not in
    // `--emit static`: its run promises no allocation, and the pool's first
    // region would create the worker threads (which allocate); static code
    // runs on the caller's thread, as it calls no kernels either.
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
    pm.addPass(createParallelizeLoops());
  } else {
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  }
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  // bf16 <-> f32 conversions as integer ops: LLVM would call
  // __truncsfbf2, which not every libgcc has. f32/f64 min/max stay
  // intrinsics, so their reductions vectorize (the pass says why).
  pm.addPass(createExpandArith());
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertVectorToLLVMPass());
  // aligned_alloc, not malloc plus pointer arithmetic: LLVM's alias analysis
  // cannot see through the inttoptr of a manually aligned pointer, which
  // kept reduction accumulators in memory and loops unvectorized.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Failed run-time shape checks name their node (needs the LLVM dialect).
  pm.addPass(createNameShapeErrors());
  pm.addPass(createCanonicalizerPass());
}

namespace {
#define GEN_PASS_REGISTRATION
#include "targets/cpu/Passes.h.inc"
} // namespace

namespace {
/// Options of the `onnxc-cpu-lowering` pipeline (onnxc-opt only).
struct CpuLoweringPipelineOptions
    : PassPipelineOptions<CpuLoweringPipelineOptions> {
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("optimization level, as onnxc -O"),
                       llvm::cl::init(2)};
  Option<bool> staticMemory{
      *this, "static-memory",
      llvm::cl::desc("fail when the graph still allocates (--emit static)"),
      llvm::cl::init(false)};
  Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("time each node (onnxc compile --profile)"),
      llvm::cl::init(false)};
};
} // namespace

void registerCpuPasses() {
  registerOnnxcCpuPasses();
  // Everything after convert-onnx-to-linalg as one pipeline, so lit tests can
  // check that what the lowerings produce bufferizes and reaches LLVM.
  PassPipelineRegistration<CpuLoweringPipelineOptions>(
      "onnxc-cpu-lowering",
      "The cpu target's pipeline after convert-onnx-to-linalg",
      [](OpPassManager &pm, const CpuLoweringPipelineOptions &options) {
        buildCpuLoweringPipeline(pm, options.optLevel, options.staticMemory,
                                 options.profile);
      });
}

} // namespace onnxc::cpu
