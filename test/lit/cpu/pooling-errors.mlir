// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Errors name the node (its location) and say what is wrong.

// CHECK: error: loc("pool_kernel"): kernel has 1 dims but the input has 2 spatial dims
func.func @kernel_rank(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x7x8xf32> {
  %0, %1 = "onnx.MaxPool"(%x) <{kernel_shape = [2]}> : (tensor<1x3x8x8xf32>) -> (tensor<1x3x7x8xf32>, none) loc("pool_kernel")
  return %0 : tensor<1x3x7x8xf32>
}

// -----

// CHECK: error: loc("pool_out"): spatial dim 0 of the output is 5 but the attributes give 4
func.func @output_size(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x5x4xf32> {
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [2, 2], strides = [2, 2]}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x4xf32> loc("pool_out")
  return %0 : tensor<1x3x5x4xf32>
}

// -----

// CHECK: error: loc("pool_stride"): kernel sizes, strides and dilations must be positive
func.func @zero_stride(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %0, %1 = "onnx.MaxPool"(%x) <{kernel_shape = [2, 2], strides = [0, 2]}> : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, none) loc("pool_stride")
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// CHECK: error: loc("pool_rank"): expects an input of rank >= 3 (N x C x D1 ...)
func.func @rank2(%x: tensor<3x8xf32>) -> tensor<3x4xf32> {
  %0, %1 = "onnx.MaxPool"(%x) <{kernel_shape = [2]}> : (tensor<3x8xf32>) -> (tensor<3x4xf32>, none) loc("pool_rank")
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK: error: loc("lp_p"): LpPool's p must be >= 1
func.func @lp_p(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32> {
  %0 = "onnx.LpPool"(%x) <{kernel_shape = [2, 2], p = 0 : i64}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32> loc("lp_p")
  return %0 : tensor<1x3x7x7xf32>
}

// -----

// AveragePool takes float tensors only.
// CHECK: error: loc("avg_int"): the cpu target cannot lower this 'AveragePool' node
func.func @avg_int(%x: tensor<1x3x8x8xi32>) -> tensor<1x3x7x7xi32> {
  %0 = "onnx.AveragePool"(%x) <{kernel_shape = [2, 2]}> : (tensor<1x3x8x8xi32>) -> tensor<1x3x7x7xi32> loc("avg_int")
  return %0 : tensor<1x3x7x7xi32>
}
