// RUN: onnxc-opt --onnxc-conv1d-as-conv2d --split-input-file %s | FileCheck %s

// A 1-D Conv over an open length: X and W unsqueezed at axis 2, the window
// on two dims (pads [0, b, 0, e]), the result squeezed back.
// CHECK-LABEL: func.func @conv1d
// CHECK: %[[AXIS:.+]] = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}>
// CHECK: %[[X:.+]] = "onnx.Unsqueeze"(%arg0, %[[AXIS]]) : (tensor<1x4x?xf32>, tensor<1xi64>) -> tensor<1x4x1x?xf32>
// CHECK: %[[W:.+]] = "onnx.Unsqueeze"(%arg1, %[[AXIS]]) : (tensor<6x4x3xf32>, tensor<1xi64>) -> tensor<6x4x1x3xf32>
// CHECK: %[[C:.+]] = "onnx.Conv"(%[[X]], %[[W]], %arg2) <{{{.*}}dilations = [1, 2]{{.*}}pads = [0, 1, 0, 2], strides = [1, 3]}> : (tensor<1x4x1x?xf32>, tensor<6x4x1x3xf32>, tensor<6xf32>) -> tensor<1x6x1x?xf32>
// CHECK: "onnx.Squeeze"(%[[C]], %[[AXIS]]) : (tensor<1x6x1x?xf32>, tensor<1xi64>) -> tensor<1x6x?xf32>
func.func @conv1d(%x: tensor<1x4x?xf32>, %w: tensor<6x4x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x?xf32> {
  %y = "onnx.Conv"(%x, %w, %b) <{dilations = [2], pads = [1, 2], strides = [3]}> : (tensor<1x4x?xf32>, tensor<6x4x3xf32>, tensor<6xf32>) -> tensor<1x6x?xf32>
  return %y : tensor<1x6x?xf32>
}

// -----

// FusedConv's residual Z is unsqueezed too; its activation stays.
// CHECK-LABEL: func.func @fused
// CHECK: %[[Z:.+]] = "onnx.Unsqueeze"(%arg3, %{{.+}}) : (tensor<1x6x8xf32>, tensor<1xi64>) -> tensor<1x6x1x8xf32>
// CHECK: "onnxc.FusedConv"(%{{.+}}, %{{.+}}, %arg2, %[[Z]]) <{activation = "Relu"{{.*}}kernel_shape = [1, 3]{{.*}}}> : {{.*}} -> tensor<1x6x1x8xf32>
// CHECK: "onnx.Squeeze"
func.func @fused(%x: tensor<1x4x8xf32>, %w: tensor<6x4x3xf32>, %b: tensor<6xf32>, %z: tensor<1x6x8xf32>) -> tensor<1x6x8xf32> {
  %y = "onnxc.FusedConv"(%x, %w, %b, %z) <{activation = "Relu", kernel_shape = [3], pads = [1, 1]}> : (tensor<1x4x8xf32>, tensor<6x4x3xf32>, tensor<6xf32>, tensor<1x6x8xf32>) -> tensor<1x6x8xf32>
  return %y : tensor<1x6x8xf32>
}

// -----

// 2-D convolutions are left alone.
// CHECK-LABEL: func.func @conv2d
// CHECK-NOT: onnx.Unsqueeze
func.func @conv2d(%x: tensor<1x4x5x5xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<6xf32>) -> tensor<1x6x3x3xf32> {
  %y = "onnx.Conv"(%x, %w, %b) : (tensor<1x4x5x5xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<1x6x3x3xf32>
  return %y : tensor<1x6x3x3xf32>
}
