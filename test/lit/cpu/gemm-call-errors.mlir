// RUN: not onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Shapes that are wrong at compile time are left to the linalg lowering,
// which names the problem.
// CHECK: MatMul inner dims differ (4 vs 5)
func.func @inner_mismatch(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) -> tensor<3x6xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// CHECK: unknown activation 'Swish'
func.func @bad_activation(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.FusedGemm"(%a, %b, %none) <{activation = "Swish"}> : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}
