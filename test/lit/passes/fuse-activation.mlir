// RUN: onnxc-opt --onnxc-fuse-activation --split-input-file %s | FileCheck %s

// Conv + Relu, MatMul + LeakyRelu, Gemm + Clip(0, 6) (ReLU6), and an existing
// FusedConv (residual) + Sigmoid.
// CHECK-LABEL: func.func @fused
// CHECK: %[[C:.*]] = "onnxc.FusedConv"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) <{activation = "Relu", auto_pad = "NOTSET", group = 1 : i64, pads = [0, 0, 0, 0]}> : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none, none) -> tensor<1x2x4x4xf32>
// CHECK: %[[M:.*]] = "onnxc.FusedMatMul"(%arg1, %arg2, %{{.*}}) <{activation = "LeakyRelu", activation_params = [1.000000e-01 : f32], alpha = 1.000000e+00 : f32}>
// CHECK: %[[G:.*]] = "onnxc.FusedGemm"(%arg1, %arg2, %{{.*}}) <{activation = "Clip", activation_params = [0.000000e+00 : f32, 6.000000e+00 : f32], alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 0 : i64}>
// CHECK: %[[R:.*]] = "onnxc.FusedConv"(%arg0, %{{.*}}, %{{.*}}, %arg0) <{activation = "Sigmoid", auto_pad = "NOTSET", group = 1 : i64}>
// CHECK-NOT: onnx.Relu
// CHECK-NOT: onnx.LeakyRelu
// CHECK-NOT: onnx.Clip
// CHECK-NOT: onnx.Sigmoid
// CHECK: return %[[C]], %[[M]], %[[G]], %[[R]]
func.func @fused(%x: tensor<1x2x4x4xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> (tensor<1x2x4x4xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<1x2x4x4xf32>) {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x1x1xf32>}> : () -> tensor<2x2x1x1xf32>
  %lo = "onnx.Constant"() <{value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %hi = "onnx.Constant"() <{value = dense<6.0> : tensor<f32>}> : () -> tensor<f32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) <{pads = [0, 0, 0, 0]}> : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %l = "onnx.LeakyRelu"(%m) <{alpha = 0.1 : f32}> : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %g = "onnx.Gemm"(%a, %b, %none) : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  %cl = "onnx.Clip"(%g, %lo, %hi) : (tensor<3x5xf32>, tensor<f32>, tensor<f32>) -> tensor<3x5xf32>
  %f = "onnxc.FusedConv"(%x, %w, %none, %x) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %s = "onnx.Sigmoid"(%f) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %r, %l, %cl, %s : tensor<1x2x4x4xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<1x2x4x4xf32>
}

// -----

// Not fused: the Conv result used twice, Clip with a non-constant bound, an
// activation on a non-fusable producer, a fused op that already has one.
// CHECK-LABEL: func.func @negative
// CHECK: onnx.Conv
// CHECK: onnx.Relu
// CHECK: onnx.MatMul
// CHECK: onnx.Clip
// CHECK: onnx.Add
// CHECK: onnx.Relu
// CHECK: onnxc.FusedMatMul
// CHECK-SAME: activation = "Relu"
// CHECK: onnx.Tanh
func.func @negative(%x: tensor<1x2x4x4xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %hi: tensor<f32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x1x1xf32>}> : () -> tensor<2x2x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %cl = "onnx.Clip"(%m, %none, %hi) : (tensor<3x5xf32>, none, tensor<f32>) -> tensor<3x5xf32>
  %s = "onnx.Add"(%a, %a) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %sr = "onnx.Relu"(%s) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %f = "onnxc.FusedMatMul"(%sr, %b, %none) <{activation = "Relu"}> : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  %t = "onnx.Tanh"(%f) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  return %r, %c, %cl, %t : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}
