// RUN: onnxc-opt --convert-onnx-to-linalg --split-input-file %s | FileCheck %s

// The transformer fusions lower to their onnx decomposition: the adds as
// elementwise generics in front of the core op's loop nests (which the
// pipeline's elementwise fusion merges).

// SkipLayerNorm: input + skip, + bias, then the layer norm's reductions.
// CHECK-LABEL: func.func @skip_layernorm
// (Operands with two dynamic dims pass a run-time broadcast check first, see
// runtime_broadcast.mlir.)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x3x8xf32>, tensor<?x3x8xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x3x8xf32>, tensor<8xf32>)
// CHECK: arith.addf
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: math.sqrt
// CHECK-NOT: onnxc.
// CHECK-NOT: onnx.
func.func @skip_layernorm(%x: tensor<?x3x8xf32>, %skip: tensor<?x3x8xf32>) -> tensor<?x3x8xf32> {
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %bias = "onnx.Constant"() <{value = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.SkipLayerNorm"(%x, %skip, %gamma, %none, %bias) <{epsilon = 1.0e-12 : f32}> : (tensor<?x3x8xf32>, tensor<?x3x8xf32>, tensor<8xf32>, none, tensor<8xf32>) -> tensor<?x3x8xf32>
  return %y : tensor<?x3x8xf32>
}

// -----

// EmbedLayerNorm: three row lookups, (word + segment) + position with the
// [1, seq] position rows broadcast over the batch, then the layer norm.
// CHECK-LABEL: func.func @embed
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<?x?xi64>) outs(%{{.*}} : tensor<?x?x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<?x?xi64>) outs(%{{.*}} : tensor<?x?x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x?x8xf32>, tensor<?x?x8xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%arg2 : tensor<1x?xi64>) outs(%{{.*}} : tensor<1x?x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x?x8xf32>, tensor<1x?x8xf32>)
// CHECK: arith.addf
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-NOT: onnxc.
func.func @embed(%ids: tensor<?x?xi64>, %types: tensor<?x?xi64>, %pos: tensor<1x?xi64>) -> tensor<?x?x8xf32> {
  %word = "onnx.Constant"() <{value = dense<1.0> : tensor<30x8xf32>}> : () -> tensor<30x8xf32>
  %type = "onnx.Constant"() <{value = dense<2.0> : tensor<2x8xf32>}> : () -> tensor<2x8xf32>
  %position = "onnx.Constant"() <{value = dense<3.0> : tensor<16x8xf32>}> : () -> tensor<16x8xf32>
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %beta = "onnx.Constant"() <{value = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
  %y = "onnxc.EmbedLayerNorm"(%ids, %types, %pos, %word, %position, %type, %gamma, %beta) <{epsilon = 1.0e-12 : f32}> : (tensor<?x?xi64>, tensor<?x?xi64>, tensor<1x?xi64>, tensor<30x8xf32>, tensor<16x8xf32>, tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// BiasGelu (tanh): the bias add, then the tanh approximation.
// CHECK-LABEL: func.func @bias_gelu
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<?x16xf32>, tensor<16xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: math.tanh
func.func @bias_gelu(%x: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %bias = "onnx.Constant"() <{value = dense<0.5> : tensor<16xf32>}> : () -> tensor<16xf32>
  %y = "onnxc.BiasGelu"(%x, %bias) <{approximate = "tanh"}> : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

// BiasSoftmax: the [batch, 1, 1, seq] mask added with broadcasting, then
// max, sum of exp and the division over the last axis.
// CHECK-LABEL: func.func @bias_softmax
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x2x?x?xf32>, tensor<?x1x1x?xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: math.exp
func.func @bias_softmax(%x: tensor<?x2x?x?xf32>, %m: tensor<?x1x1x?xf32>) -> tensor<?x2x?x?xf32> {
  %y = "onnxc.BiasSoftmax"(%x, %m) <{axis = -1 : i64}> : (tensor<?x2x?x?xf32>, tensor<?x1x1x?xf32>) -> tensor<?x2x?x?xf32>
  return %y : tensor<?x2x?x?xf32>
}

// -----

// FusedMatMul with the Gelu (erf) activation in its epilogue.
// CHECK-LABEL: func.func @fused_matmul_gelu
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: math.erf
func.func @fused_matmul_gelu(%a: tensor<?x3x4xf32>, %b: tensor<4x5xf32>, %bias: tensor<5xf32>) -> tensor<?x3x5xf32> {
  %y = "onnxc.FusedMatMul"(%a, %b, %bias) <{activation = "Gelu"}> : (tensor<?x3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<?x3x5xf32>
  return %y : tensor<?x3x5xf32>
}
