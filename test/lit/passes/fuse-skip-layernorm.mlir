// RUN: onnxc-opt --onnxc-fuse-skip-layernorm --split-input-file %s | FileCheck %s

// BERT's residual: Add(attention output, layer input) -> LayerNormalization.
// CHECK-LABEL: func.func @residual
// CHECK: %[[N:.*]] = onnx.NoValue
// CHECK: %[[Y:.*]] = "onnxc.SkipLayerNorm"(%arg0, %arg1, %{{.*}}, %{{.*}}, %[[N]]) <{epsilon = 9.99999996E-13 : f32}> : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>, none) -> tensor<?x?x8xf32>
// CHECK-NOT: onnx.LayerNormalization
// CHECK: return %[[Y]]
func.func @residual(%x: tensor<?x?x8xf32>, %skip: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %beta = "onnx.Constant"() <{value = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
  %sum = "onnx.Add"(%x, %skip) : (tensor<?x?x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%sum, %gamma, %beta) <{axis = -1 : i64, epsilon = 1.0e-12 : f32}> : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<?x?x8xf32>, none, none)
  return %y : tensor<?x?x8xf32>
}

// -----

// The bias of the dense layer added before the residual: it becomes the
// bias operand; beta is omitted; axis given as rank - 1.
// CHECK-LABEL: func.func @with_bias
// CHECK: %[[BIAS:.*]] = "onnx.Constant"() <{value = dense<1.000000e-01> : tensor<8xf32>}>
// CHECK: "onnxc.SkipLayerNorm"(%arg0, %arg1, %{{.*}}, %{{.*}}, %[[BIAS]]) <{epsilon = 9.99999974E-6 : f32}> : (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<8xf32>, none, tensor<8xf32>)
// CHECK-NOT: onnx.Add
func.func @with_bias(%x: tensor<2x3x8xf32>, %skip: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %bias = "onnx.Constant"() <{value = dense<0.1> : tensor<8xf32>}> : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %biased = "onnx.Add"(%bias, %x) : (tensor<8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %sum = "onnx.Add"(%skip, %biased) : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%sum, %gamma, %none) <{axis = 2 : i64}> : (tensor<2x3x8xf32>, tensor<8xf32>, none) -> (tensor<2x3x8xf32>, none, none)
  return %y : tensor<2x3x8xf32>
}

// -----

// Must not fire: the sum is also used by the next residual add.
// CHECK-LABEL: func.func @sum_used_twice
// CHECK-NOT: onnxc.SkipLayerNorm
// CHECK: onnx.LayerNormalization
func.func @sum_used_twice(%x: tensor<2x8xf32>, %skip: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %sum = "onnx.Add"(%x, %skip) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%sum, %gamma, %none) : (tensor<2x8xf32>, tensor<8xf32>, none) -> (tensor<2x8xf32>, none, none)
  return %y, %sum : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Must not fire: the add broadcasts skip (not a residual connection).
// CHECK-LABEL: func.func @broadcast_skip
// CHECK-NOT: onnxc.SkipLayerNorm
func.func @broadcast_skip(%x: tensor<2x3x8xf32>, %skip: tensor<3x8xf32>) -> tensor<2x3x8xf32> {
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %sum = "onnx.Add"(%x, %skip) : (tensor<2x3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%sum, %gamma, %none) : (tensor<2x3x8xf32>, tensor<8xf32>, none) -> (tensor<2x3x8xf32>, none, none)
  return %y : tensor<2x3x8xf32>
}

// -----

// Must not fire: normalizes the last two axes.
// CHECK-LABEL: func.func @two_axes
// CHECK-NOT: onnxc.SkipLayerNorm
func.func @two_axes(%x: tensor<2x3x8xf32>, %skip: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<3x8xf32>}> : () -> tensor<3x8xf32>
  %none = "onnx.NoValue"() : () -> none
  %sum = "onnx.Add"(%x, %skip) : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%sum, %gamma, %none) <{axis = 1 : i64}> : (tensor<2x3x8xf32>, tensor<3x8xf32>, none) -> (tensor<2x3x8xf32>, none, none)
  return %y : tensor<2x3x8xf32>
}

// -----

// Must not fire: the Mean output is used.
// CHECK-LABEL: func.func @mean_used
// CHECK-NOT: onnxc.SkipLayerNorm
func.func @mean_used(%x: tensor<2x8xf32>, %skip: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>) {
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %sum = "onnx.Add"(%x, %skip) : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%sum, %gamma, %none) : (tensor<2x8xf32>, tensor<8xf32>, none) -> (tensor<2x8xf32>, tensor<2x1xf32>, none)
  return %y, %m : tensor<2x8xf32>, tensor<2x1xf32>
}
