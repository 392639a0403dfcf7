// RUN: onnxc-opt --onnxc-decompose-conv-transpose --split-input-file %s | FileCheck %s

// k = s = 2, a bias: a 1x1 Conv into M*4 channels, W'[(m*2 + a)*2 + b, c] =
// W[c, m, a, b] and the bias repeated per block, then DepthToSpace(2, CRD).
// CHECK-LABEL: func.func @upsample
// CHECK-DAG: %[[W:.+]] = "onnx.Constant"() <{value = dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}5.000000e+00]]], {{\[\[\[}}2.000000e+00]], {{\[\[}}6.000000e+00]]], {{\[\[\[}}3.000000e+00]], {{\[\[}}7.000000e+00]]], {{\[\[\[}}4.000000e+00]], {{\[\[}}8.000000e+00]]]]> : tensor<4x2x1x1xf32>}>
// CHECK-DAG: %[[B:.+]] = "onnx.Constant"() <{value = dense<5.000000e-01> : tensor<4xf32>}>
// CHECK: %[[C:.+]] = "onnx.Conv"(%arg0, %[[W]], %[[B]]) <{{{.*}}kernel_shape = [1, 1]}> : (tensor<1x2x?x?xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x?x?xf32>
// CHECK: "onnx.DepthToSpace"(%[[C]]) <{blocksize = 2 : i64, mode = "CRD"}> : (tensor<1x4x?x?xf32>) -> tensor<1x1x?x?xf32>
// CHECK-NOT: onnx.ConvTranspose
func.func @upsample(%x: tensor<1x2x?x?xf32>) -> tensor<1x1x?x?xf32> {
  %w = "onnx.Constant"() <{value = dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]> : tensor<2x1x2x2xf32>}> : () -> tensor<2x1x2x2xf32>
  %b = "onnx.Constant"() <{value = dense<0.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = "onnx.ConvTranspose"(%x, %w, %b) <{strides = [2, 2]}> : (tensor<1x2x?x?xf32>, tensor<2x1x2x2xf32>, tensor<1xf32>) -> tensor<1x1x?x?xf32>
  return %y : tensor<1x1x?x?xf32>
}

// -----

// Overlapping windows (k = 3 > s = 2), pads, groups and a W that is not
// constant keep the ConvTranspose.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-4: "onnx.ConvTranspose"
// CHECK-NOT: onnx.DepthToSpace
func.func @left_alone(%x: tensor<1x2x4x4xf32>, %wv: tensor<2x1x2x2xf32>) -> (tensor<1x1x9x9xf32>, tensor<1x1x6x6xf32>, tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %w3 = "onnx.Constant"() <{value = dense<1.0> : tensor<2x1x3x3xf32>}> : () -> tensor<2x1x3x3xf32>
  %w2 = "onnx.Constant"() <{value = dense<1.0> : tensor<2x1x2x2xf32>}> : () -> tensor<2x1x2x2xf32>
  %a = "onnx.ConvTranspose"(%x, %w3, %n) <{strides = [2, 2]}> : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>, none) -> tensor<1x1x9x9xf32>
  %b = "onnx.ConvTranspose"(%x, %w2, %n) <{strides = [2, 2], pads = [1, 1, 1, 1]}> : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>, none) -> tensor<1x1x6x6xf32>
  %c = "onnx.ConvTranspose"(%x, %w2, %n) <{strides = [2, 2], group = 2 : i64}> : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>, none) -> tensor<1x2x8x8xf32>
  %d = "onnx.ConvTranspose"(%x, %wv, %n) <{strides = [2, 2]}> : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>, none) -> tensor<1x1x8x8xf32>
  return %a, %b, %c, %d : tensor<1x1x9x9xf32>, tensor<1x1x6x6xf32>, tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>
}
