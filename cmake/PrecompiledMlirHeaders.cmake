# Precompiled MLIR headers for the compiler's libraries.
#
# A lowering or pass file spends most of its compile time parsing the same
# MLIR headers (the dialects, the conversion framework, onnx's generated op
# classes); one precompiled header that the libraries share parses them once. The build
# time this saves is in docs/build-time.md.
#
# The header is compiled once, by the object library OnnxcMlirPch
# (compiler/dialect), and every library that calls
# onnxc_use_mlir_headers(TARGET) reuses it: every target gets the same
# compile flags and include directories (the top-level CMakeLists.txt sets
# them for the whole tree), which reuse needs.
option(ONNXC_PCH "precompile the MLIR headers the compiler's libraries share" ON)

set(ONNXC_MLIR_PCH_HEADERS
  <mlir/IR/Builders.h>
  <mlir/IR/BuiltinTypes.h>
  <mlir/IR/PatternMatch.h>
  <mlir/Dialect/Arith/IR/Arith.h>
  <mlir/Dialect/Func/IR/FuncOps.h>
  <mlir/Dialect/Linalg/IR/Linalg.h>
  <mlir/Dialect/Math/IR/Math.h>
  <mlir/Dialect/MemRef/IR/MemRef.h>
  <mlir/Dialect/SCF/IR/SCF.h>
  <mlir/Dialect/Tensor/IR/Tensor.h>
  <mlir/Dialect/Utils/StaticValueUtils.h>
  <mlir/Transforms/DialectConversion.h>
  "${PROJECT_SOURCE_DIR}/compiler/dialect/OnnxDialect.h"
)

function(onnxc_add_mlir_pch_target)
  if(ONNXC_PCH)
    add_library(OnnxcMlirPch OBJECT
      ${PROJECT_SOURCE_DIR}/compiler/dialect/MlirPch.cpp)
    add_dependencies(OnnxcMlirPch OnnxcOnnxOpsIncGen)
    target_precompile_headers(OnnxcMlirPch PRIVATE ${ONNXC_MLIR_PCH_HEADERS})
  endif()
endfunction()

function(onnxc_use_mlir_headers target)
  if(ONNXC_PCH)
    target_precompile_headers(${target} REUSE_FROM OnnxcMlirPch)
  endif()
endfunction()
