// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s
// Expected shapes agree with onnx.shape_inference (onnx 1.23).

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>,
                %x2: tensor<2x8x17x20xf32>, %w2: tensor<16x4x3x5xf32>,
                %x1: tensor<1x4x10xf32>, %w1: tensor<6x4x3xf32>,
                %x3: tensor<1x2x5x6x7xf32>, %w3: tensor<4x2x2x2x2xf32>,
                %xd: tensor<?x3x?x32xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.Conv"{{.*}} -> tensor<1x16x16x16xf32>
  %0 = "onnx.Conv"(%x, %w, %b) <{strides = [2, 2], pads = [1, 1, 1, 1]}> : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> !onnx.unknown
  // Groups, dilations, auto_pad.
  // CHECK: "onnx.Conv"{{.*}} -> tensor<2x16x9x7xf32>
  %1 = "onnx.Conv"(%x2, %w2, %n) <{group = 2 : i64, strides = [2, 3], dilations = [2, 1], auto_pad = "SAME_UPPER"}> : (tensor<2x8x17x20xf32>, tensor<16x4x3x5xf32>, none) -> !onnx.unknown
  // CHECK: "onnx.Conv"{{.*}} -> tensor<2x16x7x6xf32>
  %2 = "onnx.Conv"(%x2, %w2, %n) <{group = 2 : i64, strides = [2, 3], dilations = [2, 1], auto_pad = "VALID"}> : (tensor<2x8x17x20xf32>, tensor<16x4x3x5xf32>, none) -> !onnx.unknown
  // 1-D with asymmetric pads, 3-D with defaults.
  // CHECK: "onnx.Conv"{{.*}} -> tensor<1x6x4xf32>
  %3 = "onnx.Conv"(%x1, %w1, %n) <{strides = [3], pads = [0, 2]}> : (tensor<1x4x10xf32>, tensor<6x4x3xf32>, none) -> !onnx.unknown
  // CHECK: "onnx.Conv"{{.*}} -> tensor<1x4x4x5x6xf32>
  %4 = "onnx.Conv"(%x3, %w3, %n) : (tensor<1x2x5x6x7xf32>, tensor<4x2x2x2x2xf32>, none) -> !onnx.unknown
  // Dynamic batch and height stay dynamic.
  // CHECK: "onnx.Conv"{{.*}} -> tensor<?x16x?x16xf32>
  %5 = "onnx.Conv"(%xd, %w, %n) <{strides = [2, 2], pads = [1, 1, 1, 1], kernel_shape = [3, 3]}> : (tensor<?x3x?x32xf32>, tensor<16x3x3x3xf32>, none) -> !onnx.unknown
  return %0, %1, %2, %3, %4, %5 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x: tensor<1x3x8x8xf32>, %w: tensor<3x6x3x3xf32>,
                          %x2: tensor<1x4x5x5xf32>, %w2: tensor<4x3x3x3xf32>,
                          %x1: tensor<1x4x5xf32>, %w1: tensor<4x3x3xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.ConvTranspose"{{.*}} -> tensor<1x6x16x16xf32>
  %0 = "onnx.ConvTranspose"(%x, %w, %n) <{strides = [2, 2], pads = [1, 1, 1, 1], output_padding = [1, 1]}> : (tensor<1x3x8x8xf32>, tensor<3x6x3x3xf32>, none) -> !onnx.unknown
  // CHECK: "onnx.ConvTranspose"{{.*}} -> tensor<1x6x10x10xf32>
  %1 = "onnx.ConvTranspose"(%x2, %w2, %n) <{group = 2 : i64, strides = [2, 2], auto_pad = "SAME_UPPER"}> : (tensor<1x4x5x5xf32>, tensor<4x3x3x3xf32>, none) -> !onnx.unknown
  // CHECK: "onnx.ConvTranspose"{{.*}} -> tensor<1x3x12xf32>
  %2 = "onnx.ConvTranspose"(%x1, %w1, %n) <{output_shape = [12]}> : (tensor<1x4x5xf32>, tensor<4x3x3xf32>, none) -> !onnx.unknown
  return %0, %1, %2 : !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// CHECK-LABEL: func.func @pool
func.func @pool(%a: tensor<1x1x2x2xf32>, %b: tensor<1x3x32x32xf32>, %c: tensor<1x3x6x6xf32>,
                %d: tensor<1x3x7x9xf32>, %e: tensor<1x3x7xf32>, %f: tensor<?x3x?x9xf16>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // ceil_mode drops a window that would start in the right padding.
  // CHECK: "onnx.MaxPool"{{.*}} -> (tensor<1x1x1x1xf32>, none)
  %0:2 = "onnx.MaxPool"(%a) <{kernel_shape = [1, 1], strides = [2, 2], ceil_mode = 1 : i64}> : (tensor<1x1x2x2xf32>) -> (!onnx.unknown, none)
  // The Indices output is i64.
  // CHECK: "onnx.MaxPool"{{.*}} -> (tensor<1x3x16x16xf32>, tensor<1x3x16x16xi64>)
  %1:2 = "onnx.MaxPool"(%b) <{kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]}> : (tensor<1x3x32x32xf32>) -> (!onnx.unknown, !onnx.unknown)
  // CHECK: "onnx.MaxPool"{{.*}} -> (tensor<1x3x3x3xf32>, none)
  %2:2 = "onnx.MaxPool"(%c) <{kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1 : i64}> : (tensor<1x3x6x6xf32>) -> (!onnx.unknown, none)
  // CHECK: "onnx.MaxPool"{{.*}} -> (tensor<1x3x4x3xf32>, none)
  %3:2 = "onnx.MaxPool"(%d) <{kernel_shape = [2, 3], strides = [2, 2], dilations = [2, 2], ceil_mode = 1 : i64, pads = [1, 0, 1, 0]}> : (tensor<1x3x7x9xf32>) -> (!onnx.unknown, none)
  // CHECK: "onnx.AveragePool"{{.*}} -> tensor<1x3x4x5xf32>
  %4 = "onnx.AveragePool"(%d) <{kernel_shape = [3, 3], strides = [2, 2], auto_pad = "SAME_LOWER"}> : (tensor<1x3x7x9xf32>) -> !onnx.unknown
  // CHECK: "onnx.AveragePool"{{.*}} -> tensor<1x3x3x4xf32>
  %5 = "onnx.AveragePool"(%d) <{kernel_shape = [3, 3], strides = [2, 2], auto_pad = "VALID"}> : (tensor<1x3x7x9xf32>) -> !onnx.unknown
  // CHECK: "onnx.AveragePool"{{.*}} -> tensor<1x3x4xf32>
  %6 = "onnx.AveragePool"(%e) <{kernel_shape = [2], strides = [2], ceil_mode = 1 : i64}> : (tensor<1x3x7xf32>) -> !onnx.unknown
  // CHECK: "onnx.AveragePool"{{.*}} -> tensor<?x3x?x4xf16>
  %7 = "onnx.AveragePool"(%f) <{kernel_shape = [3, 3], strides = [2, 2]}> : (tensor<?x3x?x9xf16>) -> !onnx.unknown
  // CHECK: "onnx.GlobalAveragePool"{{.*}} -> tensor<1x3x1x1xf32>
  %8 = "onnx.GlobalAveragePool"(%b) : (tensor<1x3x32x32xf32>) -> !onnx.unknown
  // CHECK: "onnx.GlobalMaxPool"{{.*}} -> tensor<?x3x1x1xf16>
  %9 = "onnx.GlobalMaxPool"(%f) : (tensor<?x3x?x9xf16>) -> !onnx.unknown
  // CHECK: "onnx.GlobalAveragePool"{{.*}} -> tensor<1x3x1xf32>
  %10 = "onnx.GlobalAveragePool"(%e) : (tensor<1x3x7xf32>) -> !onnx.unknown
  return %0#0, %1#0, %1#1, %2#0, %3#0, %4, %5, %6, %7, %8, %9 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}
