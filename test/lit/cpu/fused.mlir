// RUN: onnxc-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// FusedConv: the convolution (with its bias) and one epilogue generic that
// adds Z and applies Relu.
// CHECK-LABEL: func.func @fused_conv
// CHECK: %[[CONV:.*]] = linalg.conv_2d_nchw_fchw
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %arg1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: onnxc.
func.func @fused_conv(%x: tensor<1x2x4x4xf32>, %z: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x3x3xf32>}> : () -> tensor<2x2x3x3xf32>
  %b = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y = "onnxc.FusedConv"(%x, %w, %b, %z) <{pads = [1, 1, 1, 1], activation = "Relu"}> : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// FusedMatMul: the matmul, then alpha * acc + bias (broadcast along the last
// dim) and LeakyRelu in one generic.
// CHECK-LABEL: func.func @fused_matmul
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %arg2 : tensor<?x3x5xf32>, tensor<5xf32>)
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.addf
// CHECK: arith.cmpf olt
// CHECK: arith.select
func.func @fused_matmul(%a: tensor<?x3x4xf32>, %b: tensor<4x5xf32>, %bias: tensor<5xf32>) -> tensor<?x3x5xf32> {
  %y = "onnxc.FusedMatMul"(%a, %b, %bias) <{alpha = 0.5 : f32, activation = "LeakyRelu", activation_params = [0.1 : f32]}> : (tensor<?x3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<?x3x5xf32>
  return %y : tensor<?x3x5xf32>
}

// -----

// FusedGemm with Clip(0, 6), f16: computed in f32 and rounded once.
// CHECK-LABEL: func.func @fused_gemm_f16
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.extf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.truncf
func.func @fused_gemm_f16(%a: tensor<3x4xf16>, %b: tensor<4x5xf16>) -> tensor<3x5xf16> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.FusedGemm"(%a, %b, %none) <{activation = "Clip", activation_params = [0.0 : f32, 6.0 : f32]}> : (tensor<3x4xf16>, tensor<4x5xf16>, none) -> tensor<3x5xf16>
  return %y : tensor<3x5xf16>
}
