// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Errors name the node (its location) and say what is wrong.

// CHECK: error: loc("conv_channels"): X has 4 channels but W expects 3 (group 1)
func.func @channels(%x: tensor<1x4x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) : (tensor<1x4x8x8xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x6x6xf32> loc("conv_channels")
  return %0 : tensor<1x2x6x6xf32>
}

// -----

// CHECK: error: loc("conv_kernel"): kernel_shape differs from W's shape
func.func @kernel_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) <{kernel_shape = [2, 2]}> : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x6x6xf32> loc("conv_kernel")
  return %0 : tensor<1x2x6x6xf32>
}

// -----

// CHECK: error: loc("conv_out"): spatial dim 1 of the output is 7 but the attributes give 6
func.func @output_size(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x6x7xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x6x7xf32> loc("conv_out")
  return %0 : tensor<1x2x6x7xf32>
}

// -----

// CHECK: error: loc("conv_auto_pad"): unknown auto_pad 'SAME'
func.func @auto_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x8x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) <{auto_pad = "SAME"}> : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x8x8xf32> loc("conv_auto_pad")
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// CHECK: error: loc("conv_pads"): pads must be non-negative
func.func @negative_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) <{pads = [0, -1, 0, 1]}> : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x6x6xf32> loc("conv_pads")
  return %0 : tensor<1x2x6x6xf32>
}

// -----

// CHECK: error: loc("conv_strides"): strides, dilations and pads must have one value per spatial dim (two for pads)
func.func @strides_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x6x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) <{strides = [1, 1, 1]}> : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x6x6xf32> loc("conv_strides")
  return %0 : tensor<1x2x6x6xf32>
}

// -----

// A kernel whose size is only known at run time is not supported.
// CHECK: error: loc("conv_dyn_kernel"): the cpu target cannot lower this 'Conv' node
func.func @dynamic_kernel(%x: tensor<1x3x8x8xf32>, %w: tensor<2x3x?x?xf32>) -> tensor<1x2x?x?xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) : (tensor<1x3x8x8xf32>, tensor<2x3x?x?xf32>, none) -> tensor<1x2x?x?xf32> loc("conv_dyn_kernel")
  return %0 : tensor<1x2x?x?xf32>
}

// -----

// CHECK: error: loc("convt_channels"): W's first dim must equal X's channels
func.func @transpose_channels(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x3x6x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.ConvTranspose"(%x, %w, %none) : (tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x3x6x6xf32> loc("convt_channels")
  return %0 : tensor<1x3x6x6xf32>
}

// -----

// CHECK: error: loc("convt_out"): spatial dim 0 of the output is 5 but the attributes give 6
func.func @transpose_output(%x: tensor<1x2x4x4xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x3x5x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.ConvTranspose"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x3x5x6xf32> loc("convt_out")
  return %0 : tensor<1x3x5x6xf32>
}

// -----

// CHECK: error: loc("conv_big_kernel"): the kernel (extent 5) is larger than the padded input (4) in spatial dim 0
func.func @kernel_larger_than_input(%x: tensor<1x1x3xf32>, %w: tensor<1x1x5xf32>) -> tensor<1x1x1xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) <{pads = [1, 0], strides = [2]}> : (tensor<1x1x3xf32>, tensor<1x1x5xf32>, none) -> tensor<1x1x1xf32> loc("conv_big_kernel")
  return %0 : tensor<1x1x1xf32>
}
