// RUN: onnxc-opt --onnxc-fuse-matmul-scale --split-input-file %s | FileCheck %s

// MatMul / 8 -> alpha 0.125; MatMul * 0.5 (scalar first) -> alpha 0.5.
// CHECK-LABEL: func.func @scaled
// CHECK: %[[D:.*]] = "onnxc.FusedMatMul"(%arg0, %arg1, %{{.*}}) <{activation = "", alpha = 1.250000e-01 : f32}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, none) -> tensor<2x3x5xf32>
// CHECK: %[[M:.*]] = "onnxc.FusedMatMul"(%arg0, %arg1, %{{.*}}) <{activation = "", alpha = 5.000000e-01 : f32}>
// CHECK: return %[[D]], %[[M]]
func.func @scaled(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  %eight = "onnx.Constant"() <{value = dense<8.0> : tensor<f32>}> : () -> tensor<f32>
  %half = "onnx.Constant"() <{value = dense<0.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m0 = "onnx.MatMul"(%a, %b) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %y0 = "onnx.Div"(%m0, %eight) : (tensor<2x3x5xf32>, tensor<f32>) -> tensor<2x3x5xf32>
  %m1 = "onnx.MatMul"(%a, %b) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %y1 = "onnx.Mul"(%half, %m1) : (tensor<1xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %y0, %y1 : tensor<2x3x5xf32>, tensor<2x3x5xf32>
}

// -----

// Not fused: a non-scalar factor, a non-constant factor, a divisor that is
// the product (c / MatMul), and a product used twice.
// CHECK-LABEL: func.func @negative
// CHECK-NOT: onnxc.FusedMatMul
func.func @negative(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %s: tensor<f32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %vec = "onnx.Constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>}> : () -> tensor<5xf32>
  %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %m0 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %y0 = "onnx.Mul"(%m0, %vec) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %m1 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %y1 = "onnx.Mul"(%m1, %s) : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  %m2 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %y2 = "onnx.Div"(%two, %m2) : (tensor<f32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %m3 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %y3 = "onnx.Mul"(%m3, %two) : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
  return %y0, %y1, %y2, %y3, %m3 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}
