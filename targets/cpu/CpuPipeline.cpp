//===- CpuPipeline.cpp - linalg on tensors -> LLVM dialect ----------------===//
//
// The cpu target's lowering after convert-onnx-to-linalg, top to bottom:
// fuse elementwise chains, bufferize (function boundaries included, identity
// layouts so the runtime sees dense buffers), free intermediate buffers, lower
// linalg to loops, and convert everything to the LLVM dialect. Math functions
// LLVM has no intrinsic for (erf, ...) become libm calls, which is why a CPU
// artifact needs libm.
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

void buildCpuLoweringPipeline(OpPassManager &pm, int optLevel) {
  // Dynamic tensor.expand_shapes trip MLIR 19 twice (the canonicalizer's dim
  // folding and bufferization), so they become tensor.reshape before either
  // runs, and again after fusion, which can make new ones.
  pm.addNestedPass<func::FuncOp>(createDynamicExpandShapeToReshape());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  if (optLevel > 0) {
    pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
    pm.addNestedPass<func::FuncOp>(createDynamicExpandShapeToReshape());
  }
  pm.addNestedPass<func::FuncOp>(createCSEPass());

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
  // Weights as flat 1-D globals, for compile memory (the pass says why).
  pm.addPass(createFlattenConstantGlobals());

  // Loops, then the LLVM dialect.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  // bf16 <-> f32 conversions as integer ops: LLVM would call
  // __truncsfbf2, which not every libgcc has.
  arith::ArithExpandOpsPassOptions expandOptions;
  expandOptions.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expandOptions));
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
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
        buildCpuLoweringPipeline(pm, options.optLevel);
      });
}

} // namespace onnxc::cpu
