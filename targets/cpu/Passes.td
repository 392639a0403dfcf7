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
    for the module's onnx ops (NonMaxSuppression, Unique). Runs before it: a
    pass on one function may not add symbols to the module.
  }];
  let constructor = "onnxc::cpu::createDeclareRuntimeHelpersPass()";
  let dependentDialects = ["mlir::func::FuncDialect"];
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

#endif
