// RUN: onnxc-opt --onnxc-fuse-activation --split-input-file %s | FileCheck %s

// SiLU, Mul(x, Sigmoid(x)) in both operand orders, on a Conv, a MatMul, a
// Gemm and an existing FusedMatMul (bias): each becomes the op's "Silu"
// activation and the Sigmoid and Mul go away. HardSwish likewise.
// CHECK-LABEL: func.func @silu
// CHECK: %[[C:.*]] = "onnxc.FusedConv"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) <{activation = "Silu", auto_pad = "NOTSET", group = 1 : i64}>
// CHECK: %[[M:.*]] = "onnxc.FusedMatMul"(%arg1, %arg2, %{{.*}}) <{activation = "Silu", alpha = 1.000000e+00 : f32}>
// CHECK: %[[G:.*]] = "onnxc.FusedGemm"(%arg1, %arg2, %{{.*}}) <{activation = "Silu", alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 0 : i64}>
// CHECK: %[[B:.*]] = "onnxc.FusedMatMul"(%arg1, %arg2, %arg3) <{activation = "Silu", alpha = 1.000000e+00 : f32}>
// CHECK: %[[H:.*]] = "onnxc.FusedConv"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) <{activation = "HardSwish", auto_pad = "NOTSET", group = 1 : i64}>
// CHECK-NOT: onnx.Sigmoid
// CHECK-NOT: onnx.Mul
// CHECK-NOT: onnx.HardSwish
// CHECK: return %[[C]], %[[M]], %[[G]], %[[B]], %[[H]]
func.func @silu(%x: tensor<1x2x4x4xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %bias: tensor<5xf32>) -> (tensor<1x2x4x4xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<1x2x4x4xf32>) {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x1x1xf32>}> : () -> tensor<2x2x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %cs = "onnx.Sigmoid"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %cy = "onnx.Mul"(%c, %cs) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %ms = "onnx.Sigmoid"(%m) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %my = "onnx.Mul"(%ms, %m) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %g = "onnx.Gemm"(%a, %b, %none) : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  %gs = "onnx.Sigmoid"(%g) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %gy = "onnx.Mul"(%g, %gs) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %f = "onnxc.FusedMatMul"(%a, %b, %bias) : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %fs = "onnx.Sigmoid"(%f) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %fy = "onnx.Mul"(%fs, %f) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %h = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %hy = "onnx.HardSwish"(%h) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %cy, %my, %gy, %fy, %hy : tensor<1x2x4x4xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<1x2x4x4xf32>
}

// -----

// Not fused: x with a third user, the Sigmoid with another user, Sigmoid of
// a different value (a squeeze-and-excitation gate), a producer that is not
// Conv/MatMul/Gemm, and a fused op that already has an activation.
// CHECK-LABEL: func.func @negative
// CHECK: %[[C:.*]] = "onnx.Conv"
// CHECK: onnx.Sigmoid"(%[[C]])
// CHECK: onnx.Mul
// CHECK: %[[D:.*]] = "onnx.Conv"
// CHECK: %[[DS:.*]] = "onnx.Sigmoid"(%[[D]])
// CHECK: onnx.Mul
// CHECK: %[[E:.*]] = "onnx.Conv"
// CHECK: "onnx.Sigmoid"(%arg0)
// CHECK: onnx.Mul
// CHECK: onnx.Add
// CHECK: onnx.Sigmoid
// CHECK: onnx.Mul
// CHECK: "onnxc.FusedMatMul"{{.*}}activation = "Relu"
// CHECK: onnx.Sigmoid
// CHECK: onnx.Mul
// CHECK-NOT: Silu
func.func @negative(%x: tensor<1x2x4x4xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<3x4xf32>, tensor<3x5xf32>) {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x1x1xf32>}> : () -> tensor<2x2x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %cs = "onnx.Sigmoid"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %cy = "onnx.Mul"(%c, %cs) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %d = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %ds = "onnx.Sigmoid"(%d) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %dy = "onnx.Mul"(%ds, %d) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %e = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %es = "onnx.Sigmoid"(%x) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %ey = "onnx.Mul"(%e, %es) : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = "onnx.Add"(%a, %a) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %ss = "onnx.Sigmoid"(%s) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %sy = "onnx.Mul"(%s, %ss) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %f = "onnxc.FusedMatMul"(%a, %b, %none) <{activation = "Relu"}> : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  %fs = "onnx.Sigmoid"(%f) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %fy = "onnx.Mul"(%f, %fs) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return %cy, %c, %dy, %ds, %ey, %sy, %fy : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<3x4xf32>, tensor<3x5xf32>
}
