// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Errors name the node (its location) and say what is wrong.

// CHECK: error: loc("dc_offset"): offset has 4 channels, expected offset_group * taps * spatial dims = 8
func.func @bad_offset(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>, %off: tensor<1x4x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.DeformConv"(%x, %w, %off, %n, %n) : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x4x2x2xf32>, none, none) -> tensor<1x1x2x2xf32> loc("dc_offset")
  return %y : tensor<1x1x2x2xf32>
}

// -----

// CHECK: error: loc("dc_kernel"): kernel_shape differs from W's shape
func.func @bad_kernel(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>, %off: tensor<1x8x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.DeformConv"(%x, %w, %off, %n, %n) <{kernel_shape = [3, 3]}> : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x8x2x2xf32>, none, none) -> tensor<1x1x2x2xf32> loc("dc_kernel")
  return %y : tensor<1x1x2x2xf32>
}

// -----

// CHECK: error: loc("dc_groups"): 3 channels are not divisible by offset_group 2
func.func @bad_offset_group(%x: tensor<1x3x3x3xf32>, %w: tensor<1x3x2x2xf32>, %off: tensor<1x16x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.DeformConv"(%x, %w, %off, %n, %n) <{offset_group = 2 : i64}> : (tensor<1x3x3x3xf32>, tensor<1x3x2x2xf32>, tensor<1x16x2x2xf32>, none, none) -> tensor<1x1x2x2xf32> loc("dc_groups")
  return %y : tensor<1x1x2x2xf32>
}

// -----

// CHECK: error: loc("dc_grid"): offset has 3 positions in spatial dim 1 but the output has 2
func.func @bad_offset_grid(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>, %off: tensor<1x8x2x3xf32>) -> tensor<1x1x2x2xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.DeformConv"(%x, %w, %off, %n, %n) : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x8x2x3xf32>, none, none) -> tensor<1x1x2x2xf32> loc("dc_grid")
  return %y : tensor<1x1x2x2xf32>
}
