// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s

// One generic: labels are loops, labels missing from the output reduce.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[DIAG:.+]] = affine_map<(d0) -> (d0, d0)>
// CHECK-LABEL: func.func @batch_matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
func.func @batch_matmul(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = "onnx.Einsum"(%a, %b) <{equation = "bij, bjk -> bik"}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// A repeated label reads the diagonal.
// CHECK-LABEL: func.func @diagonal
// CHECK: linalg.generic {indexing_maps = [#[[DIAG]], #{{.+}}], iterator_types = ["parallel"]}
func.func @diagonal(%a: tensor<3x3xf32>) -> tensor<3xf32> {
  %0 = "onnx.Einsum"(%a) <{equation = "ii->i"}> : (tensor<3x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
