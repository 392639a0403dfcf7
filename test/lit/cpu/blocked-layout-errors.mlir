// RUN: not onnxc-opt --split-input-file --verify-each=0 %s 2>&1 | FileCheck %s

// The verifiers of the blocked-layout ops name what is wrong.

// CHECK: error: 'onnxc.ReorderToBlocked' op result 'tensor<1x2x4x4x8xf32>' is not the blocked form of 'tensor<1x20x4x4xf32>'
func.func @wrong_blocks(%x: tensor<1x20x4x4xf32>) -> tensor<1x2x4x4x8xf32> {
  %y = "onnxc.ReorderToBlocked"(%x) <{block_size = 8 : i64}> : (tensor<1x20x4x4xf32>) -> tensor<1x2x4x4x8xf32>
  return %y : tensor<1x2x4x4x8xf32>
}

// -----

// CHECK: error: 'onnxc.ReorderFromBlocked' op X 'tensor<1x2x4x4x16xf32>' does not hold 40 channels
func.func @too_many_channels(%x: tensor<1x2x4x4x16xf32>) -> tensor<1x40x4x4xf32> {
  %y = "onnxc.ReorderFromBlocked"(%x) <{channels = 40 : i64}> : (tensor<1x2x4x4x16xf32>) -> tensor<1x40x4x4xf32>
  return %y : tensor<1x40x4x4xf32>
}

// -----

// CHECK: error: 'onnxc.BlockedConv' op weights 'tensor<1x2x3x3x16x16xf32>' must be [Mb, Cb, K..., b, b] for X 'tensor<1x1x8x8x16xf32>'
func.func @channel_blocks(%x: tensor<1x1x8x8x16xf32>, %w: tensor<1x2x3x3x16x16xf32>) -> tensor<1x1x6x6x16xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{in_channels = 16 : i64, out_channels = 16 : i64}> : (tensor<1x1x8x8x16xf32>, tensor<1x2x3x3x16x16xf32>, none, none) -> tensor<1x1x6x6x16xf32>
  return %y : tensor<1x1x6x6x16xf32>
}

// -----

// CHECK: error: 'onnxc.BlockedConv' op unknown activation 'Swish'
func.func @activation(%x: tensor<1x1x8x8x16xf32>, %w: tensor<1x1x1x1x16x16xf32>) -> tensor<1x1x8x8x16xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{activation = "Swish", in_channels = 16 : i64, out_channels = 16 : i64}> : (tensor<1x1x8x8x16xf32>, tensor<1x1x1x1x16x16xf32>, none, none) -> tensor<1x1x8x8x16xf32>
  return %y : tensor<1x1x8x8x16xf32>
}

// -----

// CHECK: error: 'onnxc.BlockedConv' op depthwise weights 'tensor<1x3x3x16xf32>' must be [ceil(group/b), K..., b] for X 'tensor<1x2x8x8x16xf32>'
func.func @depthwise_group(%x: tensor<1x2x8x8x16xf32>, %w: tensor<1x3x3x16xf32>) -> tensor<1x2x8x8x16xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{group = 20 : i64, in_channels = 20 : i64, out_channels = 20 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x2x8x8x16xf32>, tensor<1x3x3x16xf32>, none, none) -> tensor<1x2x8x8x16xf32>
  return %y : tensor<1x2x8x8x16xf32>
}

// -----

// CHECK: error: 'onnxc.BlockedConv' op weights 'tensor<2x2x1x1x16x16xf32>' do not hold 24 x 40 channels
func.func @channel_counts(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x2x1x1x16x16xf32>) -> tensor<1x2x8x8x16xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{in_channels = 40 : i64, out_channels = 24 : i64}> : (tensor<1x2x8x8x16xf32>, tensor<2x2x1x1x16x16xf32>, none, none) -> tensor<1x2x8x8x16xf32>
  return %y : tensor<1x2x8x8x16xf32>
}

// -----

// CHECK: error: 'onnxc.BlockedConv' op depthwise (group 20) needs in_channels = out_channels = group, got 20 and 24
func.func @depthwise_channels(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x3x3x16xf32>) -> tensor<1x2x8x8x16xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{group = 20 : i64, in_channels = 20 : i64, out_channels = 24 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x2x8x8x16xf32>, tensor<2x3x3x16xf32>, none, none) -> tensor<1x2x8x8x16xf32>
  return %y : tensor<1x2x8x8x16xf32>
}

// -----

// CHECK: error: 'onnxc.BlockedConv' op result 'tensor<1x1x8x8x16xf32>' does not hold 24 channels
func.func @result_channels(%x: tensor<1x2x8x8x16xf32>, %w: tensor<2x2x1x1x16x16xf32>) -> tensor<1x1x8x8x16xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) <{in_channels = 20 : i64, out_channels = 24 : i64}> : (tensor<1x2x8x8x16xf32>, tensor<2x2x1x1x16x16xf32>, none, none) -> tensor<1x1x8x8x16xf32>
  return %y : tensor<1x1x8x8x16xf32>
}

// -----

// CHECK: error: 'onnxc.BlockedConv' op requires attribute 'in_channels'
func.func @missing_channels(%x: tensor<1x1x8x8x16xf32>, %w: tensor<1x1x1x1x16x16xf32>) -> tensor<1x1x8x8x16xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %none, %none) : (tensor<1x1x8x8x16xf32>, tensor<1x1x1x1x16x16xf32>, none, none) -> tensor<1x1x8x8x16xf32>
  return %y : tensor<1x1x8x8x16xf32>
}
