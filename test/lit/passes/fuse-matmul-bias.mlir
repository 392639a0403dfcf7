// RUN: onnxc-opt --onnxc-fuse-matmul-bias --split-input-file %s | FileCheck %s

// 2-D MatMul + bias [N] -> Gemm.
// CHECK-LABEL: func.func @matmul_bias_2d
// CHECK: %[[G:.*]] = "onnx.Gemm"(%arg0, %arg1, %{{.*}}) <{{.*}}> : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
// CHECK-NOT: onnx.Add
// CHECK: return %[[G]]
func.func @matmul_bias_2d(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %bias = "onnx.Constant"() <{value = dense<1.0> : tensor<5xf32>}> : () -> tensor<5xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %y = "onnx.Add"(%m, %bias) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// 3-D MatMul (dynamic batch) + bias seen through an Identity, bias first as
// the PyTorch exporter writes it -> onnxc.FusedMatMul.
// CHECK-LABEL: func.func @matmul_bias_3d
// CHECK: %[[B:.*]] = "onnx.Identity"
// CHECK: %[[F:.*]] = "onnxc.FusedMatMul"(%arg0, %arg1, %[[B]]) <{activation = "", alpha = 1.000000e+00 : f32}> : (tensor<?x7x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<?x7x5xf32>
// CHECK: return %[[F]]
func.func @matmul_bias_3d(%a: tensor<?x7x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x7x5xf32> {
  %c = "onnx.Constant"() <{value = dense<1.0> : tensor<5xf32>}> : () -> tensor<5xf32>
  %bias = "onnx.Identity"(%c) : (tensor<5xf32>) -> tensor<5xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<?x7x4xf32>, tensor<4x5xf32>) -> tensor<?x7x5xf32>
  %y = "onnx.Add"(%bias, %m) : (tensor<5xf32>, tensor<?x7x5xf32>) -> tensor<?x7x5xf32>
  return %y : tensor<?x7x5xf32>
}

// -----

// Not fused: a non-constant addend, a product used twice, and a bias that
// broadcasts the product to a larger shape.
// CHECK-LABEL: func.func @negative
// CHECK-NOT: onnx.Gemm
// CHECK-NOT: onnxc.FusedMatMul
// CHECK-COUNT-3: onnx.Add
func.func @negative(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %t: tensor<5xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<2x3x5xf32>) {
  %bias = "onnx.Constant"() <{value = dense<1.0> : tensor<5xf32>}> : () -> tensor<5xf32>
  %big = "onnx.Constant"() <{value = dense<1.0> : tensor<2x1x5xf32>}> : () -> tensor<2x1x5xf32>
  %m0 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %y0 = "onnx.Add"(%m0, %t) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %m1 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %y1 = "onnx.Add"(%m1, %bias) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %m2 = "onnx.MatMul"(%a, %b) : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %y2 = "onnx.Add"(%m2, %big) : (tensor<3x5xf32>, tensor<2x1x5xf32>) -> tensor<2x3x5xf32>
  return %y0, %y1, %m1, %y2 : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<2x3x5xf32>
}
