// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --split-input-file %s | FileCheck %s
// RUN: onnxc-opt --onnxc-declare-runtime-helpers=gemm-kernel=false --convert-onnx-to-linalg --split-input-file %s \
// RUN:   | FileCheck %s --check-prefix=STATIC

// The "Silu" activation (x * sigmoid(x)): the kernels take it as code 9
// (runtime/cpu/kernels/Gemm.h), HardSwish as code 10 with alpha 1/6, beta
// 0.5; the linalg form (--emit static, no kernels) computes it in the
// epilogue generic.

// CHECK-LABEL: func.func @matmul_silu
// CHECK-DAG: %[[SILU:.*]] = arith.constant 9 : i32
// CHECK: call @onnxc_rt_matmul_f32_r2_2_1_2(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SILU]],
// CHECK-NOT: math.exp
// CHECK: return
// STATIC-LABEL: func.func @matmul_silu
// STATIC: linalg.matmul
// STATIC: linalg.generic
// STATIC: %[[E:.*]] = math.exp
// STATIC: %[[D:.*]] = arith.addf %{{.*}}, %[[E]]
// STATIC: %[[S:.*]] = arith.divf %{{.*}}, %[[D]]
// STATIC: arith.mulf %{{.*}}, %[[S]]
func.func @matmul_silu(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %bias: tensor<5xf32>) -> tensor<3x5xf32> {
  %y = "onnxc.FusedMatMul"(%a, %b, %bias) <{activation = "Silu"}> : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_hard_swish
// CHECK-DAG: %[[HS:.*]] = arith.constant 10 : i32
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: call @onnxc_rt_matmul_f32_r2_2_2_2(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[HS]], %[[SIXTH]], %[[HALF]])
func.func @gemm_hard_swish(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.FusedGemm"(%a, %b, %none) <{activation = "HardSwish"}> : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// The NCHWc convolution carries Silu into its epilogue (code 9).
// CHECK-LABEL: func.func @blocked_conv_silu
// CHECK: call @onnxc_rt_conv_nchwc_f32_r5_6_2_5(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c1_i32, %c20_i64, %c24_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c9_i32, %{{.*}}, %{{.*}})
// STATIC-LABEL: func.func @blocked_conv_silu
// STATIC: math.exp
// STATIC: arith.divf
// STATIC: arith.mulf
func.func @blocked_conv_silu(%x: tensor<1x2x8x8x16xf32>) -> tensor<1x2x4x4x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x2x3x3x16x16xf32>}> : () -> tensor<2x2x3x3x16x16xf32>
  %b = "onnx.Constant"() <{value = dense<0.5> : tensor<2x16xf32>}> : () -> tensor<2x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.BlockedConv"(%x, %w, %b, %none) <{activation = "Silu", dilations = [1, 1], group = 1 : i64, in_channels = 20 : i64, kernel_shape = [3, 3], out_channels = 24 : i64, pads = [1, 1, 1, 1], strides = [2, 2]}> : (tensor<1x2x8x8x16xf32>, tensor<2x2x3x3x16x16xf32>, tensor<2x16xf32>, none) -> tensor<1x2x4x4x16xf32>
  return %y : tensor<1x2x4x4x16xf32>
}

// -----

// A plain FusedConv (NCHW kernel) with Silu.
// CHECK-LABEL: func.func @conv_silu
// CHECK: %c9_i32
// CHECK-NOT: math.exp
// CHECK: return
// STATIC-LABEL: func.func @conv_silu
// STATIC: math.exp
// STATIC: arith.mulf
func.func @conv_silu(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x3x3xf32>}> : () -> tensor<2x2x3x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.FusedConv"(%x, %w, %none, %none) <{pads = [1, 1, 1, 1], activation = "Silu"}> : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>, none, none) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}
