// RUN: onnxc-opt --onnx-shape-inference -split-input-file -verify-diagnostics %s | FileCheck %s
// Expected shapes agree with onnx.shape_inference (onnx 1.23).

// DeformConv follows Conv's window rule (the bias is operand 3);
// CausalConvWithState keeps the input's shape and carries K - 1 positions.
// CHECK-LABEL: func.func @shapes
// CHECK: "onnx.DeformConv"{{.*}} -> tensor<1x1x4x4xf32>
// CHECK: "onnx.DeformConv"{{.*}} -> tensor<?x6x2x3xf16>
// CHECK: "onnx.CausalConvWithState"{{.*}} -> (tensor<2x4x?xf16>, tensor<2x4x3xf16>)
// CHECK: "onnx.CausalConvWithState"{{.*}} -> (tensor<2x4x8xf32>, tensor<2x4x0xf32>)
// CHECK: "onnx.CausalConvWithState"{{.*}} -> (tensor<2x4x8xf32>, tensor<2x4x2xf32>)
func.func @shapes(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>, %off: tensor<1x8x4x4xf32>,
                  %x2: tensor<?x4x5x7xf16>, %w2: tensor<6x2x3x3xf16>, %off2: tensor<?x18x2x3xf16>, %b2: tensor<6xf16>,
                  %in: tensor<2x4x?xf16>, %k: tensor<4x1x4xf16>, %in1: tensor<2x4x8xf32>, %k1: tensor<4x1x1xf32>,
                  %kd: tensor<4x1x?xf32>, %past: tensor<2x4x2xf32>)
    -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.DeformConv"(%x, %w, %off, %n, %n) <{pads = [1, 1, 1, 1]}> : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x8x4x4xf32>, none, none) -> !onnx.unknown
  %1 = "onnx.DeformConv"(%x2, %w2, %off2, %b2, %n) <{group = 2 : i64, strides = [2, 2]}> : (tensor<?x4x5x7xf16>, tensor<6x2x3x3xf16>, tensor<?x18x2x3xf16>, tensor<6xf16>, none) -> !onnx.unknown
  %2:2 = "onnx.CausalConvWithState"(%in, %k, %n, %n) : (tensor<2x4x?xf16>, tensor<4x1x4xf16>, none, none) -> (!onnx.unknown, !onnx.unknown)
  %3:2 = "onnx.CausalConvWithState"(%in1, %k1, %n, %n) : (tensor<2x4x8xf32>, tensor<4x1x1xf32>, none, none) -> (!onnx.unknown, !onnx.unknown)
  // A dynamic kernel length takes the carried length from past_state.
  %4:2 = "onnx.CausalConvWithState"(%in1, %kd, %n, %past) : (tensor<2x4x8xf32>, tensor<4x1x?xf32>, none, tensor<2x4x2xf32>) -> (!onnx.unknown, !onnx.unknown)
  return %0, %1, %2#0, %2#1, %3#0, %3#1, %4#0, %4#1 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// -----

func.func @deform_channels(%x: tensor<1x3x3x3xf32>, %w: tensor<1x2x2x2xf32>, %off: tensor<1x8x2x2xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{X has 3 channels but W expects 2 x group 1}}
  %0 = "onnx.DeformConv"(%x, %w, %off, %n, %n) : (tensor<1x3x3x3xf32>, tensor<1x2x2x2xf32>, tensor<1x8x2x2xf32>, none, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @causal_past(%x: tensor<2x4x8xf32>, %w: tensor<4x1x4xf32>, %past: tensor<2x4x2xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{past_state holds 2 positions, the kernel needs 3}}
  %0:2 = "onnx.CausalConvWithState"(%x, %w, %n, %past) : (tensor<2x4x8xf32>, tensor<4x1x4xf32>, none, tensor<2x4x2xf32>) -> (!onnx.unknown, !onnx.unknown)
  return %0#0 : !onnx.unknown
}
