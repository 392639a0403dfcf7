// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Errors name the node (its location) and say what is wrong.

// CHECK: error: loc("nll"): expects an input [N, C, d...] and a target [N, d...]
func.func @bad_target(%x: tensor<2x4x3xf32>, %t: tensor<2xi64>) -> tensor<f32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %n) : (tensor<2x4x3xf32>, tensor<2xi64>, none) -> tensor<f32> loc("nll")
  return %0 : tensor<f32>
}

// -----

// CHECK: error: loc("resize"): unknown coordinate_transformation_mode 'bogus'
func.func @bad_mode(%x: tensor<1x1x2x2xf32>, %s: tensor<4xf32>) -> tensor<1x1x4x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Resize"(%x, %n, %s, %n) <{coordinate_transformation_mode = "bogus"}> : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32> loc("resize")
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// CHECK: error: loc("gs"): unknown padding_mode 'wrap'
func.func @bad_padding(%x: tensor<1x1x4x4xf32>, %g: tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %0 = "onnx.GridSample"(%x, %g) <{padding_mode = "wrap"}> : (tensor<1x1x4x4xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32> loc("gs")
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// CHECK: error: loc("einsum"): output label 'k' is not an input label
func.func @bad_label(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = "onnx.Einsum"(%a) <{equation = "ij->k"}> : (tensor<2x3xf32>) -> tensor<2xf32> loc("einsum")
  return %0 : tensor<2xf32>
}
