// RUN: onnxc-opt --onnxc-fold-conv-affine --split-input-file %s | FileCheck %s

// Conv + BatchNormalization: s = scale / sqrt(var + eps) = [1, 0.5],
// W' = W * s = [1, 1], B' = (B - mean) * s + beta = [1, 0].
// CHECK-LABEL: func.func @conv_bn
// CHECK-DAG: %[[W:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2x1x1x1xf32>}>
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>}>
// CHECK: %[[C:.*]] = "onnx.Conv"(%arg0, %[[W]], %[[B]]) <{auto_pad = "NOTSET", group = 1 : i64, pads = [0, 0, 0, 0]}>
// CHECK-NOT: BatchNormalization
// CHECK: return %[[C]]
func.func @conv_bn(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %b = "onnx.Constant"() <{value = dense<[0.5, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %scale = "onnx.Constant"() <{value = dense<[2.0, 1.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %beta = "onnx.Constant"() <{value = dense<[1.0, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %mean = "onnx.Constant"() <{value = dense<[0.5, 1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %var = "onnx.Constant"() <{value = dense<[3.0, 8.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) <{pads = [0, 0, 0, 0]}> : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y, %rm, %rv = "onnx.BatchNormalization"(%c, %scale, %beta, %mean, %var) <{epsilon = 1.0 : f32}> : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, none, none)
  return %y : tensor<1x2x4x4xf32>
}

// -----

// Conv without bias, then Mul by a per-channel constant [1, C, 1, 1] and Add
// of a scalar: both fold (W' = W * [2, 3], B' = [0, 0] * s + 1).
// CHECK-LABEL: func.func @conv_mul_add
// CHECK-DAG: %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}6.000000e+00]]]]> : tensor<2x1x1x1xf32>}>
// CHECK-DAG: %[[B:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<2xf32>}>
// CHECK: %[[C:.*]] = "onnx.Conv"(%arg0, %[[W]], %[[B]])
// CHECK-NOT: onnx.Mul
// CHECK-NOT: onnx.Add
// CHECK: return %[[C]]
func.func @conv_mul_add(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Constant"() <{value = dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %s = "onnx.Constant"() <{value = dense<[[[2.0]], [[3.0]]]> : tensor<2x1x1xf32>}> : () -> tensor<2x1x1xf32>
  %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %m = "onnx.Mul"(%c, %s) : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %a = "onnx.Add"(%one, %m) : (tensor<f32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %a : tensor<1x2x4x4xf32>
}

// -----

// The Conv result has a second user: folding would compute both.
// CHECK-LABEL: func.func @conv_used_twice
// CHECK: onnx.Conv
// CHECK: onnx.BatchNormalization
func.func @conv_used_twice(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %p = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %y, %rm, %rv = "onnx.BatchNormalization"(%c, %p, %p, %p, %p) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, none, none)
  return %y, %c : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Non-constant weights, and non-constant BatchNormalization parameters.
// CHECK-LABEL: func.func @not_constant
// CHECK-COUNT-2: onnx.BatchNormalization
func.func @not_constant(%x: tensor<1x1x4x4xf32>, %w: tensor<2x1x1x1xf32>, %mean: tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %wc = "onnx.Constant"() <{value = dense<1.0> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %p = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %y, %rm, %rv = "onnx.BatchNormalization"(%c, %p, %p, %p, %p) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, none, none)
  %c2 = "onnx.Conv"(%x, %wc, %none) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %y2, %rm2, %rv2 = "onnx.BatchNormalization"(%c2, %p, %p, %mean, %p) : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, none, none)
  return %y, %y2 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Constants that are not per channel: one varies along the width, one
// broadcasts the result to a larger shape.
// CHECK-LABEL: func.func @not_per_channel
// CHECK: onnx.Mul
// CHECK: onnx.Add
func.func @not_per_channel(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<3x1x2x4x4xf32>) {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %s = "onnx.Constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %t = "onnx.Constant"() <{value = dense<1.0> : tensor<3x1x1x1x1xf32>}> : () -> tensor<3x1x1x1x1xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %m = "onnx.Mul"(%c, %s) : (tensor<1x2x4x4xf32>, tensor<4xf32>) -> tensor<1x2x4x4xf32>
  %c2 = "onnx.Conv"(%x, %w, %none) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %a = "onnx.Add"(%c2, %t) : (tensor<1x2x4x4xf32>, tensor<3x1x1x1x1xf32>) -> tensor<3x1x2x4x4xf32>
  return %m, %a : tensor<1x2x4x4xf32>, tensor<3x1x2x4x4xf32>
}

// -----

// Training-mode BatchNormalization is left alone.
// CHECK-LABEL: func.func @training
// CHECK: onnx.BatchNormalization
func.func @training(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
  %p = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %y, %rm, %rv = "onnx.BatchNormalization"(%c, %p, %p, %p, %p) <{training_mode = 1 : i64}> : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>)
  return %y : tensor<1x2x4x4xf32>
}
