// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>, %v: tensor<4xf32>, %w: tensor<3xf32>,
                  %c: tensor<?x1x8x4xf32>, %d: tensor<6x4x?xf32>, %e: tensor<?x?xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.MatMul"{{.*}} -> tensor<2x3x5xf32>
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> !onnx.unknown
  // A 1-D right operand is a column; its dim is dropped.
  // CHECK: "onnx.MatMul"{{.*}} -> tensor<2x3xf32>
  %1 = "onnx.MatMul"(%a, %v) : (tensor<2x3x4xf32>, tensor<4xf32>) -> !onnx.unknown
  // A 1-D left operand is a row.
  // CHECK: "onnx.MatMul"{{.*}} -> tensor<2x4xf32>
  %2 = "onnx.MatMul"(%w, %a) : (tensor<3xf32>, tensor<2x3x4xf32>) -> !onnx.unknown
  // Batch dims broadcast, dynamic ones included.
  // CHECK: "onnx.MatMul"{{.*}} -> tensor<?x6x8x?xf32>
  %3 = "onnx.MatMul"(%c, %d) : (tensor<?x1x8x4xf32>, tensor<6x4x?xf32>) -> !onnx.unknown
  // CHECK: "onnx.MatMul"{{.*}} -> tensor<f32>
  %4 = "onnx.MatMul"(%v, %v) : (tensor<4xf32>, tensor<4xf32>) -> !onnx.unknown
  // CHECK: "onnx.MatMul"{{.*}} -> tensor<?x5xf32>
  %5 = "onnx.MatMul"(%e, %b) : (tensor<?x?xf32>, tensor<4x5xf32>) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @gemm
func.func @gemm(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %bias: tensor<5xf32>, %x: tensor<?x3xf32>,
                %w: tensor<3x7xf32>, %c: tensor<4x1xf32>, %u: tensor<2x3xi8>, %v: tensor<3x4xi8>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.Gemm"{{.*}} -> tensor<3x5xf32>
  %0 = "onnx.Gemm"(%a, %b, %bias) <{transA = 1 : i64, transB = 1 : i64}> : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<5xf32>) -> !onnx.unknown
  // CHECK: "onnx.Gemm"{{.*}} -> tensor<?x7xf32>
  %1 = "onnx.Gemm"(%x, %w, %n) : (tensor<?x3xf32>, tensor<3x7xf32>, none) -> !onnx.unknown
  // C refines a dynamic M.
  // CHECK: "onnx.Gemm"{{.*}} -> tensor<4x7xf32>
  %2 = "onnx.Gemm"(%x, %w, %c) : (tensor<?x3xf32>, tensor<3x7xf32>, tensor<4x1xf32>) -> !onnx.unknown
  // CHECK: "onnx.MatMulInteger"{{.*}} -> tensor<2x4xi32>
  %3 = "onnx.MatMulInteger"(%u, %v, %n, %n) : (tensor<2x3xi8>, tensor<3x4xi8>, none, none) -> !onnx.unknown
  return %0, %1, %2, %3 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}
