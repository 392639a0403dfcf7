// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Errors name the node (its location) and say what is wrong.

// CHECK: error: loc("cc_act"): unknown activation 'gelu'
func.func @bad_activation(%x: tensor<1x2x4xf32>, %w: tensor<2x1x2xf32>) -> tensor<1x2x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y, %s = "onnx.CausalConvWithState"(%x, %w, %n, %n) <{activation = "gelu"}> : (tensor<1x2x4xf32>, tensor<2x1x2xf32>, none, none) -> (tensor<1x2x4xf32>, tensor<1x2x1xf32>) loc("cc_act")
  return %y : tensor<1x2x4xf32>
}

// -----

// CHECK: error: loc("cc_weight"): the weight must be [C, 1, K] (depthwise)
func.func @not_depthwise(%x: tensor<1x2x4xf32>, %w: tensor<2x2x2xf32>) -> tensor<1x2x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y, %s = "onnx.CausalConvWithState"(%x, %w, %n, %n) : (tensor<1x2x4xf32>, tensor<2x2x2xf32>, none, none) -> (tensor<1x2x4xf32>, tensor<1x2x1xf32>) loc("cc_weight")
  return %y : tensor<1x2x4xf32>
}

// -----

// CHECK: error: loc("cc_past"): the weight, bias and past_state sizes do not fit the input (weight [C, 1, K], bias [C], past_state [B, C, K - 1])
func.func @bad_past(%x: tensor<1x2x4xf32>, %w: tensor<2x1x3xf32>, %p: tensor<1x2x3xf32>) -> tensor<1x2x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y, %s = "onnx.CausalConvWithState"(%x, %w, %n, %p) : (tensor<1x2x4xf32>, tensor<2x1x3xf32>, none, tensor<1x2x3xf32>) -> (tensor<1x2x4xf32>, tensor<1x2x2xf32>) loc("cc_past")
  return %y : tensor<1x2x4xf32>
}
