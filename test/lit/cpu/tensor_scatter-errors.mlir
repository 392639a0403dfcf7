// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Errors name the node (its location) and say what is wrong.

// CHECK: error: loc("ts_mode"): unknown mode 'ring'
func.func @bad_mode(%c: tensor<2x4x5xf32>, %u: tensor<2x1x5xf32>) -> tensor<2x4x5xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.TensorScatter"(%c, %u, %n) <{mode = "ring"}> : (tensor<2x4x5xf32>, tensor<2x1x5xf32>, none) -> tensor<2x4x5xf32> loc("ts_mode")
  return %y : tensor<2x4x5xf32>
}

// -----

// CHECK: error: loc("ts_axis"): axis 0 must name a non-batch dim of rank 3
func.func @batch_axis(%c: tensor<2x4x5xf32>, %u: tensor<1x4x5xf32>) -> tensor<2x4x5xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.TensorScatter"(%c, %u, %n) <{axis = 0 : i64}> : (tensor<2x4x5xf32>, tensor<1x4x5xf32>, none) -> tensor<2x4x5xf32> loc("ts_axis")
  return %y : tensor<2x4x5xf32>
}
