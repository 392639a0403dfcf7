// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Errors name the node (its location) and say what is wrong.

// CHECK: error: loc("mm_k"): MatMul inner dims differ (8 vs 9)
func.func @inner_mismatch(%a: tensor<4x8xf32>, %b: tensor<9x5xf32>) -> tensor<4x5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<4x8xf32>, tensor<9x5xf32>) -> tensor<4x5xf32> loc("mm_k")
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK: error: loc("mm_batch"): MatMul batch dims cannot broadcast (2 vs 3)
func.func @batch_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<3x4x5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x4x8xf32>, tensor<3x8x5xf32>) -> tensor<3x4x5xf32> loc("mm_batch")
  return %0 : tensor<3x4x5xf32>
}

// -----

// CHECK: error: loc("mm_scalar"): MatMul operands must have rank >= 1
func.func @scalar(%a: tensor<f32>, %b: tensor<8x5xf32>) -> tensor<5xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<f32>, tensor<8x5xf32>) -> tensor<5xf32> loc("mm_scalar")
  return %0 : tensor<5xf32>
}

// -----

// CHECK: error: loc("gemm_rank"): Gemm expects 2-D A, B and Y
func.func @gemm_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x5xf32>) -> tensor<4x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Gemm"(%a, %b, %none) : (tensor<2x4x8xf32>, tensor<8x5xf32>, none) -> tensor<4x5xf32> loc("gemm_rank")
  return %0 : tensor<4x5xf32>
}

// -----

// A bool MatMul is not supported: the pass names the node.
// CHECK: error: loc("mm_bool"): the cpu target cannot lower this 'MatMul' node
func.func @bool_matmul(%a: tensor<4x8xi1>, %b: tensor<8x5xi1>) -> tensor<4x5xi1> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<4x8xi1>, tensor<8x5xi1>) -> tensor<4x5xi1> loc("mm_bool")
  return %0 : tensor<4x5xi1>
}
