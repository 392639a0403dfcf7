// RUN: onnxc-opt --onnxc-fuse-conv-residual --split-input-file %s | FileCheck %s

// Conv + Add(same-type tensor), either operand order -> FusedConv with Z.
// CHECK-LABEL: func.func @residual
// CHECK: %[[F:.*]] = "onnxc.FusedConv"(%arg0, %{{.*}}, %{{.*}}, %arg1) <{activation = "", auto_pad = "NOTSET", group = 1 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NOT: onnx.Add
// CHECK: return %[[F]]
func.func @residual(%x: tensor<1x2x4x4xf32>, %r: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x3x3xf32>}> : () -> tensor<2x2x3x3xf32>
  %b = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) <{activation = "", auto_pad = "NOTSET", group = 1 : i64, pads = [1, 1, 1, 1]}> : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = "onnx.Add"(%r, %c) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Not fused: an addend that broadcasts (per channel), a Conv result used
// twice.
// CHECK-LABEL: func.func @negative
// CHECK-NOT: onnxc.FusedConv
// CHECK-COUNT-2: onnx.Add
func.func @negative(%x: tensor<1x2x4x4xf32>, %t: tensor<2x1x1xf32>, %r: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x1x1xf32>}> : () -> tensor<2x2x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c0 = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %y0 = "onnx.Add"(%c0, %t) : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %c1 = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %y1 = "onnx.Add"(%c1, %r) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y0, %y1, %c1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
