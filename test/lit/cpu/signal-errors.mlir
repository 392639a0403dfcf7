// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Errors name the node (its location) and say what is wrong.

// CHECK: error: loc("dft_components"): needs a static last dim of 1 (real) or 2 (complex) samples, got 'tensor<4x?xf32>'
func.func @components(%x: tensor<4x?xf32>) -> tensor<4x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.DFT"(%x, %none, %none) : (tensor<4x?xf32>, none, none) -> tensor<4x2xf32> loc("dft_components")
  return %0 : tensor<4x2xf32>
}

// -----

// CHECK: error: loc("dft_axis"): axis -4 is out of range for a 3-D signal
func.func @axis(%x: tensor<2x4x1xf32>) -> tensor<2x4x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %axis = "onnx.Constant"() <{value = dense<-4> : tensor<i64>}> : () -> tensor<i64>
  %0 = "onnx.DFT"(%x, %none, %axis) : (tensor<2x4x1xf32>, none, tensor<i64>) -> tensor<2x4x2xf32> loc("dft_axis")
  return %0 : tensor<2x4x2xf32>
}

// -----

// CHECK: error: loc("stft_window"): expects a 1-D float window, got 'tensor<4x4xf32>'
func.func @window(%x: tensor<1x64x1xf32>, %step: tensor<i64>, %w: tensor<4x4xf32>) -> tensor<1x?x?x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.STFT"(%x, %step, %w, %none) : (tensor<1x64x1xf32>, tensor<i64>, tensor<4x4xf32>, none) -> tensor<1x?x?x2xf32> loc("stft_window")
  return %0 : tensor<1x?x?x2xf32>
}
