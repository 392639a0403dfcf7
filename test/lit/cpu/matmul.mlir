// RUN: onnxc-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// Plain 2-D MatMul: a zero-filled accumulator and linalg.matmul.
// CHECK-LABEL: func.func @matmul_2d
// CHECK: %[[ZERO:.*]] = arith.constant 0.0
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<7x5xf32>)
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<7x13xf32>, tensor<13x5xf32>) outs(%[[ACC]] : tensor<7x5xf32>)
func.func @matmul_2d(%a: tensor<7x13xf32>, %b: tensor<13x5xf32>) -> tensor<7x5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<7x13xf32>, tensor<13x5xf32>) -> tensor<7x5xf32>
  return %0 : tensor<7x5xf32>
}

// -----

// Dynamic batch on A only: the batch folds into the rows of one matmul.
// CHECK-LABEL: func.func @matmul_dynamic_batch
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2], [3]] : tensor<?x3x4x8xf32> into tensor<?x8xf32>
// CHECK: %[[PROD:.*]] = linalg.matmul ins(%[[ROWS]], %arg1 : tensor<?x8xf32>, tensor<8x5xf32>)
// CHECK: tensor.expand_shape %[[PROD]] {{\[\[}}0, 1, 2], [3]] output_shape [%[[N]], 3, 4, 5] : tensor<?x5xf32> into tensor<?x3x4x5xf32>
func.func @matmul_dynamic_batch(%a: tensor<?x3x4x8xf32>, %b: tensor<8x5xf32>) -> tensor<?x3x4x5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x3x4x8xf32>, tensor<8x5xf32>) -> tensor<?x3x4x5xf32>
  return %0 : tensor<?x3x4x5xf32>
}

// -----

// Equal batch dims (two dynamic ones are checked at run time first, see
// runtime_broadcast.mlir): collapsed into one for linalg.batch_matmul; f16
// accumulates in f32 and is rounded once.
// CHECK-LABEL: func.func @matmul_same_batch_f16
// CHECK: scf.if
// CHECK-DAG: %[[A:.*]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2], [3]] : tensor<?x3x4x8xf16> into tensor<?x4x8xf16>
// CHECK-DAG: %[[B:.*]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2], [3]] : tensor<?x3x8x5xf16> into tensor<?x8x5xf16>
// CHECK: linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<?x4x8xf16>, tensor<?x8x5xf16>) outs(%{{.*}} : tensor<?x4x5xf32>)
// CHECK: tensor.expand_shape
// CHECK: linalg.generic
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_same_batch_f16(%a: tensor<?x3x4x8xf16>, %b: tensor<?x3x8x5xf16>) -> tensor<?x3x4x5xf16> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x3x4x8xf16>, tensor<?x3x8x5xf16>) -> tensor<?x3x4x5xf16>
  return %0 : tensor<?x3x4x5xf16>
}

// -----

// Broadcasting batch dims: a contraction whose maps read index 0 of the
// unit dims. Integers multiply-add with arith.muli/addi.
// CHECK-DAG: #[[MAPA:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[MAPB:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[MAPC:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast_i32
// CHECK: linalg.generic {indexing_maps = [#[[MAPA]], #[[MAPB]], #[[MAPC]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<2x3x4x5xi32>)
// CHECK: arith.muli
// CHECK: arith.addi
func.func @matmul_broadcast_i32(%a: tensor<2x1x4x8xi32>, %b: tensor<3x8x5xi32>) -> tensor<2x3x4x5xi32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x1x4x8xi32>, tensor<3x8x5xi32>) -> tensor<2x3x4x5xi32>
  return %0 : tensor<2x3x4x5xi32>
}

// -----

// 1-D operands are promoted to matrices and the unit dims dropped again;
// unsigned integers are signless after conversion.
// CHECK-LABEL: func.func @matmul_vectors
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK: tensor.expand_shape %arg1 {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
// CHECK: linalg.matmul
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
func.func @matmul_vectors(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @matmul_matrix_vector_ui32
// CHECK-SAME: tensor<2x4x8xi32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x8xi32>, tensor<8x1xi32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<2x4x1xi32> into tensor<2x4xi32>
func.func @matmul_matrix_vector_ui32(%a: tensor<2x4x8xui32>, %b: tensor<8xui32>) -> tensor<2x4xui32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x4x8xui32>, tensor<8xui32>) -> tensor<2x4xui32>
  return %0 : tensor<2x4xui32>
}

// -----

// Gemm with transB and alpha = beta = 1: C broadcast is the accumulator of
// linalg.matmul_transpose_b.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm_bias
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ID]]], {{.*}}} ins(%arg2 : tensor<1x5xf32>) outs(%{{.*}} : tensor<?x5xf32>)
// CHECK: linalg.matmul_transpose_b ins(%arg0, %arg1 : tensor<?x8xf32>, tensor<5x8xf32>) outs(%[[INIT]] : tensor<?x5xf32>)
func.func @gemm_bias(%a: tensor<?x8xf32>, %b: tensor<5x8xf32>, %c: tensor<1x5xf32>) -> tensor<?x5xf32> {
  %0 = "onnx.Gemm"(%a, %b, %c) <{transB = 1 : i64}> : (tensor<?x8xf32>, tensor<5x8xf32>, tensor<1x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// Both operands transposed, alpha != 1: a generic contraction then an
// epilogue alpha * acc + beta * C with C[M, 1] broadcast along columns.
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @gemm_transposed
// CHECK-DAG: %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[BETA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[AT]], #[[BT]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[COL]], #{{.*}}], {{.*}}} ins(%[[ACC]], %arg2 : tensor<7x5xf32>, tensor<7x1xf32>)
// CHECK: arith.mulf %{{.*}}, %[[ALPHA]]
// CHECK: arith.mulf %{{.*}}, %[[BETA]]
// CHECK: arith.addf
func.func @gemm_transposed(%a: tensor<13x7xf32>, %b: tensor<5x13xf32>, %c: tensor<7x1xf32>) -> tensor<7x5xf32> {
  %0 = "onnx.Gemm"(%a, %b, %c) <{transA = 1 : i64, transB = 1 : i64, alpha = 0.5 : f32, beta = 2.0 : f32}> : (tensor<13x7xf32>, tensor<5x13xf32>, tensor<7x1xf32>) -> tensor<7x5xf32>
  return %0 : tensor<7x5xf32>
}

// -----

// Gemm without C and transA: matmul_transpose_a into zeros.
// CHECK-LABEL: func.func @gemm_no_c
// CHECK: linalg.matmul_transpose_a ins(%arg0, %arg1 : tensor<13x7xf32>, tensor<13x5xf32>)
// CHECK-NOT: linalg.generic
func.func @gemm_no_c(%a: tensor<13x7xf32>, %b: tensor<13x5xf32>) -> tensor<7x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Gemm"(%a, %b, %none) <{transA = 1 : i64}> : (tensor<13x7xf32>, tensor<13x5xf32>, none) -> tensor<7x5xf32>
  return %0 : tensor<7x5xf32>
}

// -----

// MatMulInteger widens to i32 (sign per the ONNX type) minus the zero
// points, then multiplies with linalg.matmul.
// CHECK-LABEL: func.func @matmul_integer
// CHECK: linalg.generic
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: linalg.generic
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xi32>, tensor<8x5xi32>)
func.func @matmul_integer(%a: tensor<4x8xui8>, %b: tensor<8x5xi8>, %az: tensor<ui8>, %bz: tensor<5xi8>) -> tensor<4x5xi32> {
  %0 = "onnx.MatMulInteger"(%a, %b, %az, %bz) : (tensor<4x8xui8>, tensor<8x5xi8>, tensor<ui8>, tensor<5xi8>) -> tensor<4x5xi32>
  return %0 : tensor<4x5xi32>
}

// -----

// Two dynamic batch dims would need an expand_shape with two dynamic sizes
// in one group, which LLVM 19 cannot bufferize: the generic contraction
// reads the 4-D operands (checked at run time) directly.
// CHECK-LABEL: func.func @matmul_two_dynamic_batch_dims
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%{{.+}}, %{{.+}} : tensor<?x?x7x13xf32>, tensor<?x?x13x5xf32>)
func.func @matmul_two_dynamic_batch_dims(%a: tensor<?x?x7x13xf32>, %b: tensor<?x?x13x5xf32>) -> tensor<?x?x7x5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x?x7x13xf32>, tensor<?x?x13x5xf32>) -> tensor<?x?x7x5xf32>
  return %0 : tensor<?x?x7x5xf32>
}
