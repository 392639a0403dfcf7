// RUN: onnxc-opt --onnxc-fuse-gelu --split-input-file %s | FileCheck %s

// The PyTorch erf form: (x * (erf(x / 1.4142135) + 1)) * 0.5.
// CHECK-LABEL: func.func @erf_torch
// CHECK: %[[G:.*]] = "onnx.Gelu"(%arg0) <{approximate = "none"}> : (tensor<2x?xf32>) -> tensor<2x?xf32>
// CHECK-NOT: onnx.Erf
// CHECK: return %[[G]]
func.func @erf_torch(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %sqrt2 = "onnx.Constant"() <{value = dense<1.41421354> : tensor<f32>}> : () -> tensor<f32>
  %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %0 = "onnx.Div"(%x, %sqrt2) : (tensor<2x?xf32>, tensor<f32>) -> tensor<2x?xf32>
  %1 = "onnx.Erf"(%0) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %2 = "onnx.Add"(%1, %one) : (tensor<2x?xf32>, tensor<f32>) -> tensor<2x?xf32>
  %3 = "onnx.Mul"(%x, %2) : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %4 = "onnx.Mul"(%3, %half) : (tensor<2x?xf32>, tensor<f32>) -> tensor<2x?xf32>
  return %4 : tensor<2x?xf32>
}

// -----

// The erf form with x * 0.70710677 and (0.5 * x) * (1 + erf(..)).
// CHECK-LABEL: func.func @erf_tf
// CHECK: "onnx.Gelu"(%arg0) <{approximate = "none"}>
// CHECK-NOT: onnx.Erf
func.func @erf_tf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %rsqrt2 = "onnx.Constant"() <{value = dense<0.707106769> : tensor<1xf32>}> : () -> tensor<1xf32>
  %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %0 = "onnx.Mul"(%rsqrt2, %x) : (tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = "onnx.Erf"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "onnx.Add"(%one, %1) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %h = "onnx.Mul"(%half, %x) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "onnx.Mul"(%h, %2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// The tanh approximation with Pow(x, 3), and with x * (x * x).
// CHECK-LABEL: func.func @tanh_forms
// CHECK: %[[A:.*]] = "onnx.Gelu"(%arg0) <{approximate = "tanh"}>
// CHECK: %[[B:.*]] = "onnx.Gelu"(%arg1) <{approximate = "tanh"}>
// CHECK-NOT: onnx.Tanh
// CHECK: return %[[A]], %[[B]]
func.func @tanh_forms(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %three = "onnx.Constant"() <{value = dense<3.0> : tensor<f32>}> : () -> tensor<f32>
  %c = "onnx.Constant"() <{value = dense<0.044715> : tensor<f32>}> : () -> tensor<f32>
  %k = "onnx.Constant"() <{value = dense<0.797884583> : tensor<f32>}> : () -> tensor<f32>
  %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %0 = "onnx.Pow"(%x, %three) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %1 = "onnx.Mul"(%c, %0) : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = "onnx.Add"(%x, %1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = "onnx.Mul"(%2, %k) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %4 = "onnx.Tanh"(%3) : (tensor<8xf32>) -> tensor<8xf32>
  %5 = "onnx.Add"(%4, %one) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %6 = "onnx.Mul"(%x, %half) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %7 = "onnx.Mul"(%6, %5) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %sq = "onnx.Mul"(%y, %y) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %cube = "onnx.Mul"(%y, %sq) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %11 = "onnx.Mul"(%cube, %c) : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %12 = "onnx.Add"(%11, %y) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %13 = "onnx.Mul"(%k, %12) : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %14 = "onnx.Tanh"(%13) : (tensor<8xf32>) -> tensor<8xf32>
  %15 = "onnx.Add"(%one, %14) : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %16 = "onnx.Mul"(%y, %15) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %17 = "onnx.Mul"(%half, %16) : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  return %7, %17 : tensor<8xf32>, tensor<8xf32>
}

// -----

// Not GELU: a wrong constant (x / 2), an intermediate (the erf) used twice,
// a non-constant divisor, and a product with something other than x.
// CHECK-LABEL: func.func @negative
// CHECK-NOT: onnx.Gelu
func.func @negative(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %sqrt2 = "onnx.Constant"() <{value = dense<1.41421354> : tensor<f32>}> : () -> tensor<f32>
  %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %a0 = "onnx.Div"(%x, %two) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a1 = "onnx.Erf"(%a0) : (tensor<4xf32>) -> tensor<4xf32>
  %a2 = "onnx.Add"(%a1, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %a3 = "onnx.Mul"(%x, %a2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %a4 = "onnx.Mul"(%a3, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b0 = "onnx.Div"(%x, %sqrt2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b1 = "onnx.Erf"(%b0) : (tensor<4xf32>) -> tensor<4xf32>
  %b2 = "onnx.Add"(%b1, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %b3 = "onnx.Mul"(%x, %b2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b4 = "onnx.Mul"(%b3, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %c0 = "onnx.Div"(%x, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %c1 = "onnx.Erf"(%c0) : (tensor<4xf32>) -> tensor<4xf32>
  %c2 = "onnx.Add"(%c1, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %c3 = "onnx.Mul"(%x, %c2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c4 = "onnx.Mul"(%c3, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %d0 = "onnx.Div"(%x, %sqrt2) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %d1 = "onnx.Erf"(%d0) : (tensor<4xf32>) -> tensor<4xf32>
  %d2 = "onnx.Add"(%d1, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %d3 = "onnx.Mul"(%z, %d2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d4 = "onnx.Mul"(%d3, %half) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %a4, %b4, %b1, %c4, %d4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
