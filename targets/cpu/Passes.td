//===- Passes.td - CPU target passes -----------------------*- tablegen -*-===//

#ifndef ONNXC_TARGETS_CPU_PASSES_TD
#define ONNXC_TARGETS_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertOnnxToLinalg : Pass<"convert-onnx-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lower onnx ops claimed by the cpu target to linalg/tensor/arith/math";
  let description = [{
    Rewrites every onnx op into ops on tensors of the linalg, tensor, arith,
    math and scf dialects (one pattern family per file in lowering/). Needs
    ranked result types: run onnx-shape-inference first. An op without a
    lowering fails the pass with an error naming the node.
  }];
  let constructor = "onnxc::cpu::createConvertOnnxToLinalgPass()";
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect",
    "mlir::scf::SCFDialect", "mlir::bufferization::BufferizationDialect",
    // The fused ops lower through onnx ops they create (lowering/Fused.cpp):
    // a function holding only onnxc ops must still get registered onnx ops.
    "::onnxc::onnx::ONNXDialect"
  ];
}

def DeclareRuntimeHelpers
    : Pass<"onnxc-declare-runtime-helpers", "mlir::ModuleOp"> {
  let summary = "Declare the runtime functions that lowered onnx ops call";
  let description = [{
    Adds a private `func.func` declaration (with `llvm.emit_c_interface`) for
    every runtime helper (runtime/cpu/) that convert-onnx-to-linalg will call
    for the module's onnx ops (NonMaxSuppression, Unique, the GEMM). Runs
    before it: a pass on one function may not add symbols to the module.
    With `gemm-kernel=false` the GEMM kernel is not declared, so f32
    MatMul/Gemm lower to loops instead: the kernel allocates its packing
    buffers, which an artifact that must not allocate (--emit static)
    cannot allow. The NCHWc convolution kernel (onnxc.BlockedConv) is left
    out with it, so static artifacts keep every kernel call out.
  }];
  let options = [
    Option<"gemmKernel", "gemm-kernel", "bool", "true",
           "declare the GEMM kernel (MatMul/Gemm become calls into it)">
  ];
  let constructor = "onnxc::cpu::createDeclareRuntimeHelpersPass()";
  let dependentDialects = ["mlir::func::FuncDialect"];
}

def PrepackGemmWeights
    : Pass<"onnxc-prepack-gemm-weights", "mlir::ModuleOp"> {
  let summary = "Pack constant GEMM weights at compile time for the target ISA";
  let description = [{
    Packs the constant 2-D B of f32 MatMul/Gemm (and the fused forms) into
    the layout the runtime's micro-kernel for `isa` reads
    (runtime/cpu/kernels/GemmPackedLayout.h), as a new constant global, and
    marks the op so that the GEMM lowering passes the packed copy instead
    of B. The artifact's first run then packs nothing. Runs before
    onnxc-declare-runtime-helpers. See transforms/PrepackGemmWeights.cpp
    for what is left alone.
  }];
  let options = [
    Option<"isa", "isa", "int32_t", "0",
           "the runtime ISA whose layout to pack for (onnxc_sgemm_isa: 2 "
           "AVX2, 3 AVX-512, 4 NEON; 0: none, the runtime packs)">
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def WinogradConvWeights
    : Pass<"onnxc-winograd-conv-weights", "mlir::ModuleOp"> {
  let summary = "Winograd F(2x2, 3x3) weights for constant 3x3 convolutions";
  let description = [{
    Transforms the constant W of each f32 onnxc.BlockedConv that the
    runtime computes faster by Winograd F(2x2, 3x3) (3x3, unit strides and
    dilations, group 1, enough channels and output pixels) into U = G g G^T
    (runtime/cpu/kernels/ConvWinogradWeights.h), as a new constant global,
    and marks the op so that its lowering passes U instead of W. Runs
    before onnxc-declare-runtime-helpers. See
    transforms/WinogradConvWeights.cpp for what is left alone and why.
  }];
  let constructor = "onnxc::cpu::createWinogradConvWeightsPass()";
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def Conv1dAsConv2d
    : Pass<"onnxc-conv1d-as-conv2d", "mlir::func::FuncOp"> {
  let summary = "1-D f32 Conv/FusedConv as 2-D ones over a unit dim";
  let description = [{
    Rewrites each f32 onnx.Conv and onnxc.FusedConv over [N, C, L] into
    Unsqueeze (axis 2) of X, W and the residual, the 2-D convolution with
    its window attributes moved to two dims, and Squeeze of the result, so
    that it runs on the runtime's 2-D convolution kernels. Runs on the host
    graph before its lowering (transforms/Conv1dAsConv2d.cpp).
  }];
  let constructor = "onnxc::cpu::createConv1dAsConv2dPass()";
  let dependentDialects = ["::onnxc::onnx::ONNXDialect"];
}

def DecomposeConvTranspose
    : Pass<"onnxc-decompose-conv-transpose", "mlir::func::FuncOp"> {
  let summary = "Non-overlapping ConvTranspose as a 1x1 Conv and DepthToSpace";
  let description = [{
    Rewrites each f32 2-D ConvTranspose whose square kernel equals its
    strides, with a constant W, group 1 and no pads, dilations or output
    padding, into a 1x1 onnx.Conv into M*s*s channels (W and the bias
    rearranged at compile time) followed by onnx.DepthToSpace(s, CRD), so
    that it runs on the convolution kernels. Runs on the host graph before
    its lowering (transforms/DecomposeConvTranspose.cpp says why it is
    legal).
  }];
  let constructor = "onnxc::cpu::createDecomposeConvTransposePass()";
  let dependentDialects = ["::onnxc::onnx::ONNXDialect"];
}

def DynamicExpandShapeToReshape
    : Pass<"onnxc-dynamic-expand-shape-to-reshape", "mlir::func::FuncOp"> {
  let summary = "Rewrite tensor.expand_shape with dynamic dims to tensor.reshape";
  let description = [{
    Works around MLIR 19's bufferization of tensor.expand_shape, which crashes
    on dynamic result dims. Runs right before one-shot bufferization.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def FlattenConstantGlobals
    : Pass<"onnxc-flatten-constant-globals", "mlir::ModuleOp"> {
  let summary = "Give constant memref.globals of rank > 1 a 1-D type";
  let description = [{
    Keeps the LLVM translation of weights one flat constant array per global
    instead of millions of nested row constants (see
    transforms/FlattenConstantGlobals.cpp). Each memref.get_global expands the
    flat global back to its original shape.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def FuseElementwise : Pass<"onnxc-fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg.generics without recomputing "
                "expensive producers";
  let description = [{
    Upstream linalg-fuse-elementwise-ops (fusion, reshape propagation,
    constant folding), except that a producer whose consumer reads it through
    a non-permutation map (a reduction or broadcast, which would recompute it)
    fuses only when its payload is a few cheap arith ops
    (transforms/FuseElementwise.cpp).
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def ReassociateReductions
    : Pass<"onnxc-reassociate-reductions", "mlir::func::FuncOp"> {
  let summary = "Mark the combiner of float linalg reductions reassoc";
  let description = [{
    Sets the `reassoc` fast-math flag on the op of a reducing linalg.generic
    that folds a value into the accumulator (addf, mulf, min/max), so LLVM's
    loop vectorizer may keep partial sums; ONNX fixes no summation order
    (transforms/ReassociateReductions.cpp).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ApproximateMath : Pass<"onnxc-approximate-math", "mlir::func::FuncOp"> {
  let summary = "Rewrite f32 math.exp/erf/tanh into polynomial approximations";
  let description = [{
    Replaces the libm calls these would become by arith code the loop
    vectorizer can vectorize (transforms/ApproximateMath.cpp).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def ExpandArith : Pass<"onnxc-expand-arith", "mlir::ModuleOp"> {
  let summary = "Expand the arith ops arith-to-llvm lacks, keeping f32/f64 "
                "min/max";
  let description = [{
    Upstream arith-expand (ceil/floor division, bf16 conversions as integer
    ops) except that f32/f64 min/max stay arith ops, so they become LLVM
    min/max intrinsics whose reductions vectorize
    (transforms/ExpandArith.cpp).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def UnshareTensorReads : Pass<"onnxc-unshare-tensor-reads",
                              "mlir::func::FuncOp"> {
  let summary = "One bufferization.to_memref per op that reads a tensor";
  let description = [{
    After CSE: a to_memref (and its memref.casts) that several ops read
    through is copied right before each of them, so one-shot bufferization
    sees each read where it happens (transforms/UnshareTensorReads.cpp).
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def UnshareFills : Pass<"onnxc-unshare-fills", "mlir::func::FuncOp"> {
  let summary = "Give every in-place user of a shared linalg.fill its own";
  let description = [{
    Undoes CSE's merging of identical filled init tensors, which would make
    bufferization copy the shared buffer once per extra user
    (transforms/UnshareFills.cpp).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def VectorizeElementwise
    : Pass<"onnxc-vectorize-elementwise", "mlir::func::FuncOp"> {
  let summary = "Elementwise linalg.generic on buffers as explicit vector loops";
  let description = [{
    An all-parallel generic whose innermost loop is a static multiple of 16
    (else 8) becomes an scf.parallel whose body loads, computes and stores
    vectors of that loop's elements; LLVM could not vectorize these loops
    over slices of one workspace (transforms/VectorizeElementwise.cpp).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect"];
}

def TileTransposedLoops
    : Pass<"onnxc-tile-transposed-loops", "mlir::func::FuncOp"> {
  let summary = "Transposing linalg.generic on buffers as loops over square tiles";
  let description = [{
    An all-parallel generic writing its output in order while reading an
    input contiguous along another loop than the innermost (a Transpose, an
    NCHW <-> NHWC reorder) becomes an scf.parallel that steps that loop and
    the innermost by 64-byte tiles, with the tile's two loops inside, so
    that its strided reads stay in L1 (transforms/TileTransposedLoops.cpp).
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def PlanWorkspace : Pass<"onnxc-plan-workspace", "mlir::ModuleOp"> {
  let summary = "Place the graph's static intermediate buffers in one workspace";
  let description = [{
    Runs after bufferization and deallocation. Every memref.alloc of static
    size in the graph function whose views can all be followed (in the entry
    block, or in scf.for/while/if bodies without leaving its iteration)
    becomes a memref.view at a 64-byte-aligned offset of a workspace
    (an i8 memref appended as the function's last argument, marked
    `onnxc.workspace`); offsets come from the buffers' lifetimes, so buffers
    never live at the same time share bytes. Their deallocs are erased.
    Returned buffers are planned too (the runtime copies them out). Sets the
    module attributes `onnxc.workspace_size` and
    `onnxc.workspace_planned_bytes`. The buffers left on the heap (dynamic
    sizes) are freed after their last use: an entry-block alloc with one
    unconditional entry-block dealloc gets that dealloc moved there. With
    `require-no-heap`, any allocation left in the function is an error
    naming its node.
  }];
  let options = [
    Option<"functionName", "function", "std::string", "\"main_graph\"",
           "the graph function to plan">,
    Option<"requireNoHeap", "require-no-heap", "bool", "false",
           "fail when the function still allocates (for --emit static)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def TagOpTypes : Pass<"onnxc-tag-op-types", "mlir::func::FuncOp"> {
  let summary = "Record each node's op type in its location, for the profiler";
  let description = [{
    Runs before convert-onnx-to-linalg, only for `onnxc compile --profile`.
    Wraps the location of every onnx and onnxc op in a FusedLoc whose
    metadata is the op's type ("Conv", "FusedMatMul"), so the ops a node
    lowers to still say what it was when onnxc-instrument-nodes labels them
    (transforms/TagOpTypes.cpp).
  }];
}

def InstrumentNodes : Pass<"onnxc-instrument-nodes", "mlir::ModuleOp"> {
  let summary = "Time each node of the graph function (onnxc compile --profile)";
  let description = [{
    Runs on buffers, before loops. Splits the entry block of each public
    function into segments: maximal runs of top-level ops that do work
    (calls, linalg ops, copies, ops with regions) for the same node, going
    by their locations. Each segment boundary calls the runtime's
    `onnxc_rt_profile_lap`, which adds the time since the previous boundary
    to that segment's counter in the private global `onnxc_profile_ns`.
    The module attribute `onnxc.profile_nodes` lists, per counter, the node
    names and op types (transforms/InstrumentNodes.cpp).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
}

def NameShapeErrors : Pass<"onnxc-name-shape-errors", "mlir::ModuleOp"> {
  let summary = "Give run-time shape-error reports their node names";
  let description = [{
    Runs on the LLVM dialect. Replaces each call of
    `onnxc_rt_shape_error_at(i32 kind, i64 a, i64 b)` (emitted by lowerings
    for failed run-time shape checks, see lowering/RuntimeHelpers.h) with a
    call of the runtime's `onnxc_rt_shape_error(ptr node, i32 kind, i64 a,
    i64 b)`, where `node` is a private constant string holding the ONNX node
    name from the call's location.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def ParallelizeLoops : Pass<"onnxc-parallelize-loops", "mlir::ModuleOp"> {
  let summary = "Run big outermost scf.parallel nests on the runtime thread pool";
  let description = [{
    Outlines each outermost `scf.parallel` without reductions whose estimated
    work is at least `min-work` ops into a private task function
    `void(ptr context, i64 task, i32 worker)` and replaces it with a call of
    the runtime's `onnxc_parallel_for` (runtime/cpu/ThreadPool.h). Each task
    runs a contiguous chunk of the linearized leading parallel dims; the
    captured values travel in an LLVM struct on the caller's stack (memref
    descriptors through unrealized casts that fold away after the
    conversion to the LLVM dialect). Loops that call functions (a shape
    error report included), allocate, or store anywhere but at their own
    leading indices stay serial (transforms/ParallelizeLoops.cpp).
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", "1 << 17",
           "estimated ops (trip counts times body ops) below which a nest "
           "stays serial; checked at run time when sizes are dynamic">,
    Option<"tasksPerThread", "tasks-per-thread", "int64_t", "4",
           "chunks per thread, for load balance">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect", "mlir::scf::SCFDialect"];
}

#endif
