// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// CHECK: unknown activation 'Swish'
func.func @unknown_activation(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.FusedMatMul"(%a, %b, %none) <{activation = "Swish"}> : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// CHECK: activation 'Clip' takes 2 activation_params, got 1
func.func @clip_params(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.FusedMatMul"(%a, %b, %none) <{activation = "Clip", activation_params = [1.0 : f32]}> : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}
