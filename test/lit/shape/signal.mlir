// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// DFT: the axis dim becomes the transform length (n / 2 + 1 one-sided), the
// last dim 2 (1 for the inverse one-sided transform).
// CHECK-LABEL: func.func @dft
func.func @dft(%x: tensor<2x10x8x1xf32>, %c: tensor<2x6x8x2xf32>, %axis: tensor<i64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %none = "onnx.NoValue"() : () -> none
  %one = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %n = "onnx.Constant"() <{value = dense<16> : tensor<i64>}> : () -> tensor<i64>
  // CHECK: "onnx.DFT"{{.*}} -> tensor<2x10x8x2xf32>
  %0 = "onnx.DFT"(%x, %none, %one) : (tensor<2x10x8x1xf32>, none, tensor<i64>) -> !onnx.unknown
  // CHECK: "onnx.DFT"{{.*}} -> tensor<2x6x8x2xf32>
  %1 = "onnx.DFT"(%x, %none, %one) <{onesided = 1 : i64}> : (tensor<2x10x8x1xf32>, none, tensor<i64>) -> !onnx.unknown
  // CHECK: "onnx.DFT"{{.*}} -> tensor<2x10x8x1xf32>
  %2 = "onnx.DFT"(%c, %none, %one) <{inverse = 1 : i64, onesided = 1 : i64}> : (tensor<2x6x8x2xf32>, none, tensor<i64>) -> !onnx.unknown
  // The default axis is -2; dft_length pads.
  // CHECK: "onnx.DFT"{{.*}} -> tensor<2x10x16x2xf32>
  %3 = "onnx.DFT"(%x, %n, %none) : (tensor<2x10x8x1xf32>, tensor<i64>, none) -> !onnx.unknown
  // A run-time axis: unchanged dims when the length cannot change...
  // CHECK: "onnx.DFT"{{.*}} -> tensor<2x10x8x2xf32>
  %4 = "onnx.DFT"(%x, %none, %axis) : (tensor<2x10x8x1xf32>, none, tensor<i64>) -> !onnx.unknown
  // ... and dynamic ones when it can.
  // CHECK: "onnx.DFT"{{.*}} -> tensor<?x?x?x2xf32>
  %5 = "onnx.DFT"(%x, %none, %axis) <{onesided = 1 : i64}> : (tensor<2x10x8x1xf32>, none, tensor<i64>) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// STFT: [batch, 1 + (length - frame_length) / step, bins, 2].
// CHECK-LABEL: func.func @stft
func.func @stft(%x: tensor<1x128x1xf32>, %w: tensor<16xf32>, %step: tensor<i64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %none = "onnx.NoValue"() : () -> none
  %eight = "onnx.Constant"() <{value = dense<8> : tensor<i64>}> : () -> tensor<i64>
  // CHECK: "onnx.STFT"{{.*}} -> tensor<1x15x9x2xf32>
  %0 = "onnx.STFT"(%x, %eight, %w, %none) : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>, none) -> !onnx.unknown
  // CHECK: "onnx.STFT"{{.*}} -> tensor<1x16x8x2xf32>
  %1 = "onnx.STFT"(%x, %eight, %none, %eight) <{onesided = 0 : i64}> : (tensor<1x128x1xf32>, tensor<i64>, none, tensor<i64>) -> !onnx.unknown
  // CHECK: "onnx.STFT"{{.*}} -> tensor<1x?x9x2xf32>
  %2 = "onnx.STFT"(%x, %step, %w, %none) : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>, none) -> !onnx.unknown
  return %0, %1, %2 : !onnx.unknown, !onnx.unknown, !onnx.unknown
}
