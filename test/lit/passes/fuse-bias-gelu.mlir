// RUN: onnxc-opt --onnxc-fuse-bias-gelu --split-input-file %s | FileCheck %s

// BERT's intermediate layer: FusedMatMul with the Linear bias, then Gelu
// (erf): Gelu becomes the epilogue's activation.
// CHECK-LABEL: func.func @fused_matmul_gelu
// CHECK: %[[Y:.*]] = "onnxc.FusedMatMul"(%arg0, %arg1, %{{.*}}) <{activation = "Gelu", alpha = 1.000000e+00 : f32}>
// CHECK-NOT: onnx.Gelu
// CHECK: return %[[Y]]
func.func @fused_matmul_gelu(%a: tensor<?x?x8xf32>, %b: tensor<8x16xf32>) -> tensor<?x?x16xf32> {
  %bias = "onnx.Constant"() <{value = dense<0.5> : tensor<16xf32>}> : () -> tensor<16xf32>
  %m = "onnxc.FusedMatMul"(%a, %b, %bias) <{alpha = 1.0 : f32}> : (tensor<?x?x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<?x?x16xf32>
  %y = "onnx.Gelu"(%m) <{approximate = "none"}> : (tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  return %y : tensor<?x?x16xf32>
}

// -----

// The tanh approximation (FastGelu) on a 2-D Gemm.
// CHECK-LABEL: func.func @gemm_fast_gelu
// CHECK: "onnxc.FusedGemm"(%arg0, %arg1, %{{.*}}) <{activation = "FastGelu", {{.*}}transB = 1 : i64}>
// CHECK-NOT: onnx.Gelu
func.func @gemm_fast_gelu(%a: tensor<2x8xf32>, %b: tensor<4x8xf32>) -> tensor<2x4xf32> {
  %c = "onnx.Constant"() <{value = dense<0.5> : tensor<4xf32>}> : () -> tensor<4xf32>
  %m = "onnx.Gemm"(%a, %b, %c) <{transB = 1 : i64}> : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %y = "onnx.Gelu"(%m) <{approximate = "tanh"}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Add(x, constant bias) -> Gelu where x is no GEMM: onnxc.BiasGelu.
// CHECK-LABEL: func.func @add_bias_gelu
// CHECK: %[[Y:.*]] = "onnxc.BiasGelu"(%arg0, %{{.*}}) <{approximate = "tanh"}> : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
// CHECK: return %[[Y]]
func.func @add_bias_gelu(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %bias = "onnx.Constant"() <{value = dense<0.5> : tensor<16xf32>}> : () -> tensor<16xf32>
  %s = "onnx.Add"(%bias, %x) : (tensor<16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  %y = "onnx.Gelu"(%s) <{approximate = "tanh"}> : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

// Must not fire: the biased value is used twice.
// CHECK-LABEL: func.func @add_used_twice
// CHECK-NOT: onnxc.BiasGelu
// CHECK: onnx.Gelu
func.func @add_used_twice(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %bias = "onnx.Constant"() <{value = dense<0.5> : tensor<16xf32>}> : () -> tensor<16xf32>
  %s = "onnx.Add"(%x, %bias) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = "onnx.Gelu"(%s) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y, %s : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Must not fire: the bias is not a constant.
// CHECK-LABEL: func.func @bias_not_constant
// CHECK-NOT: onnxc.BiasGelu
func.func @bias_not_constant(%x: tensor<4x16xf32>, %bias: tensor<16xf32>) -> tensor<4x16xf32> {
  %s = "onnx.Add"(%x, %bias) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = "onnx.Gelu"(%s) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Must not fire: the "bias" grows x (x broadcasts).
// CHECK-LABEL: func.func @bias_grows_x
// CHECK-NOT: onnxc.BiasGelu
func.func @bias_grows_x(%x: tensor<1x16xf32>) -> tensor<4x16xf32> {
  %bias = "onnx.Constant"() <{value = dense<0.5> : tensor<4x16xf32>}> : () -> tensor<4x16xf32>
  %s = "onnx.Add"(%x, %bias) : (tensor<1x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = "onnx.Gelu"(%s) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Must not fire: the FusedMatMul already has an activation.
// CHECK-LABEL: func.func @has_activation
// CHECK: onnx.Gelu
func.func @has_activation(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %m = "onnxc.FusedMatMul"(%a, %b, %none) <{activation = "Relu"}> : (tensor<2x8xf32>, tensor<8x4xf32>, none) -> tensor<2x4xf32>
  %y = "onnx.Gelu"(%m) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// GPT-2's MLP: a 2-D Gemm reshaped to [batch, seq, n], then the tanh Gelu.
// The Gelu commutes with the Reshape: it becomes the Gemm's FastGelu
// epilogue and the Reshape reshapes the activated result.
// CHECK-LABEL: func.func @gemm_reshape_gelu
// CHECK: %[[G:.*]] = "onnxc.FusedGemm"(%arg0, %arg1, %arg2) <{activation = "FastGelu", alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : i64, transB = 0 : i64}> : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
// CHECK: %[[R:.*]] = "onnx.Reshape"(%[[G]], %{{.*}}) <{allowzero = 0 : i64}> : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<1x4x6xf32>
// CHECK-NOT: onnx.Gelu
// CHECK: return %[[R]]
func.func @gemm_reshape_gelu(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<6xf32>) -> tensor<1x4x6xf32> {
  %g = "onnx.Gemm"(%a, %b, %c) : (tensor<4x8xf32>, tensor<8x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %shape = "onnx.Constant"() <{value = dense<[1, 4, 6]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %r = "onnx.Reshape"(%g, %shape) : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<1x4x6xf32>
  %y = "onnx.Gelu"(%r) <{approximate = "tanh"}> : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  return %y : tensor<1x4x6xf32>
}

// -----

// Not through a Reshape whose input has another user, nor a Reshape of a
// Conv (only GEMM results).
// CHECK-LABEL: func.func @reshape_negative
// CHECK: "onnx.Gemm"
// CHECK: "onnx.Gelu"
// CHECK: "onnx.Conv"
// CHECK: "onnx.Gelu"
// CHECK-NOT: onnxc.Fused
func.func @reshape_negative(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %x: tensor<1x2x4x4xf32>) -> (tensor<1x4x6xf32>, tensor<4x6xf32>, tensor<1x32xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %g = "onnx.Gemm"(%a, %b, %none) : (tensor<4x8xf32>, tensor<8x6xf32>, none) -> tensor<4x6xf32>
  %shape = "onnx.Constant"() <{value = dense<[1, 4, 6]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %r = "onnx.Reshape"(%g, %shape) : (tensor<4x6xf32>, tensor<3xi64>) -> tensor<1x4x6xf32>
  %y = "onnx.Gelu"(%r) : (tensor<1x4x6xf32>) -> tensor<1x4x6xf32>
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x2x1x1xf32>}> : () -> tensor<2x2x1x1xf32>
  %c = "onnx.Conv"(%x, %w, %none) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %shape2 = "onnx.Constant"() <{value = dense<[1, 32]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %cr = "onnx.Reshape"(%c, %shape2) : (tensor<1x2x4x4xf32>, tensor<2xi64>) -> tensor<1x32xf32>
  %cy = "onnx.Gelu"(%cr) : (tensor<1x32xf32>) -> tensor<1x32xf32>
  return %y, %g, %cy : tensor<1x4x6xf32>, tensor<4x6xf32>, tensor<1x32xf32>
}
