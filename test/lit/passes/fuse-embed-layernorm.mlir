// RUN: onnxc-opt --onnxc-fuse-embed-layernorm --split-input-file %s | FileCheck %s

// transformers' BERT: (word[input_ids] + token_type[type_ids]) +
// position[position_ids], position ids [1, seq] (a Slice of a constant
// buffer), then LayerNormalization over the hidden dim.
// CHECK-LABEL: func.func @bert
// CHECK-DAG: %[[W:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<30x8xf32>}>
// CHECK-DAG: %[[T:.*]] = "onnx.Constant"() <{value = dense<2.000000e+00> : tensor<2x8xf32>}>
// CHECK-DAG: %[[P:.*]] = "onnx.Constant"() <{value = dense<3.000000e+00> : tensor<16x8xf32>}>
// CHECK: %[[Y:.*]] = "onnxc.EmbedLayerNorm"(%arg0, %arg1, %arg2, %[[W]], %[[P]], %[[T]], %{{.*}}, %{{.*}}) <{epsilon = 9.99999996E-13 : f32}> : (tensor<?x?xi64>, tensor<?x?xi64>, tensor<1x?xi64>, tensor<30x8xf32>, tensor<16x8xf32>, tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
// CHECK-NOT: onnx.Gather
// CHECK: return %[[Y]]
func.func @bert(%ids: tensor<?x?xi64>, %types: tensor<?x?xi64>, %pos: tensor<1x?xi64>) -> tensor<?x?x8xf32> {
  %word = "onnx.Constant"() <{value = dense<1.0> : tensor<30x8xf32>}> : () -> tensor<30x8xf32>
  %type = "onnx.Constant"() <{value = dense<2.0> : tensor<2x8xf32>}> : () -> tensor<2x8xf32>
  %position = "onnx.Constant"() <{value = dense<3.0> : tensor<16x8xf32>}> : () -> tensor<16x8xf32>
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %beta = "onnx.Constant"() <{value = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
  %w = "onnx.Gather"(%word, %ids) : (tensor<30x8xf32>, tensor<?x?xi64>) -> tensor<?x?x8xf32>
  %t = "onnx.Gather"(%type, %types) : (tensor<2x8xf32>, tensor<?x?xi64>) -> tensor<?x?x8xf32>
  %wt = "onnx.Add"(%w, %t) : (tensor<?x?x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %p = "onnx.Gather"(%position, %pos) : (tensor<16x8xf32>, tensor<1x?xi64>) -> tensor<1x?x8xf32>
  %e = "onnx.Add"(%wt, %p) : (tensor<?x?x8xf32>, tensor<1x?x8xf32>) -> tensor<?x?x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%e, %gamma, %beta) <{axis = -1 : i64, epsilon = 1.0e-12 : f32}> : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<?x?x8xf32>, none, none)
  return %y : tensor<?x?x8xf32>
}

// -----

// Two lookups, the position lookup first and its ids a constant: the
// lookup whose ids are a graph input is the word embedding.
// CHECK-LABEL: func.func @word_and_position
// CHECK: %[[POS:.*]] = "onnx.Constant"() <{value = dense<[0, 1, 2]> : tensor<3xi64>}>
// CHECK: %[[N:.*]] = onnx.NoValue
// CHECK: "onnxc.EmbedLayerNorm"(%arg0, %[[N]], %[[POS]], %{{.*}}, %{{.*}}, %[[N]], %{{.*}}, %[[N]]) <{epsilon = 9.99999974E-6 : f32}> : (tensor<2x3xi32>, none, tensor<3xi64>, tensor<30x8xf32>, tensor<16x8xf32>, none, tensor<8xf32>, none) -> tensor<2x3x8xf32>
func.func @word_and_position(%ids: tensor<2x3xi32>) -> tensor<2x3x8xf32> {
  %word = "onnx.Constant"() <{value = dense<1.0> : tensor<30x8xf32>}> : () -> tensor<30x8xf32>
  %position = "onnx.Constant"() <{value = dense<3.0> : tensor<16x8xf32>}> : () -> tensor<16x8xf32>
  %pos = "onnx.Constant"() <{value = dense<[0, 1, 2]> : tensor<3xi64>}> : () -> tensor<3xi64>
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %p = "onnx.Gather"(%position, %pos) : (tensor<16x8xf32>, tensor<3xi64>) -> tensor<3x8xf32>
  %w = "onnx.Gather"(%word, %ids) : (tensor<30x8xf32>, tensor<2x3xi32>) -> tensor<2x3x8xf32>
  %e = "onnx.Add"(%p, %w) : (tensor<3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%e, %gamma, %none) : (tensor<2x3x8xf32>, tensor<8xf32>, none) -> (tensor<2x3x8xf32>, none, none)
  return %y : tensor<2x3x8xf32>
}

// -----

// Must not fire: the embedding sum is used twice.
// CHECK-LABEL: func.func @sum_used_twice
// CHECK-NOT: onnxc.EmbedLayerNorm
func.func @sum_used_twice(%ids: tensor<2x3xi64>, %pos: tensor<2x3xi64>) -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %word = "onnx.Constant"() <{value = dense<1.0> : tensor<30x8xf32>}> : () -> tensor<30x8xf32>
  %position = "onnx.Constant"() <{value = dense<3.0> : tensor<16x8xf32>}> : () -> tensor<16x8xf32>
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Gather"(%word, %ids) : (tensor<30x8xf32>, tensor<2x3xi64>) -> tensor<2x3x8xf32>
  %p = "onnx.Gather"(%position, %pos) : (tensor<16x8xf32>, tensor<2x3xi64>) -> tensor<2x3x8xf32>
  %e = "onnx.Add"(%w, %p) : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%e, %gamma, %none) : (tensor<2x3x8xf32>, tensor<8xf32>, none) -> (tensor<2x3x8xf32>, none, none)
  return %y, %e : tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// -----

// Must not fire: a table that is not a constant (a graph input).
// CHECK-LABEL: func.func @table_not_constant
// CHECK-NOT: onnxc.EmbedLayerNorm
func.func @table_not_constant(%ids: tensor<2x3xi64>, %pos: tensor<2x3xi64>, %word: tensor<30x8xf32>) -> tensor<2x3x8xf32> {
  %position = "onnx.Constant"() <{value = dense<3.0> : tensor<16x8xf32>}> : () -> tensor<16x8xf32>
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Gather"(%word, %ids) : (tensor<30x8xf32>, tensor<2x3xi64>) -> tensor<2x3x8xf32>
  %p = "onnx.Gather"(%position, %pos) : (tensor<16x8xf32>, tensor<2x3xi64>) -> tensor<2x3x8xf32>
  %e = "onnx.Add"(%w, %p) : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%e, %gamma, %none) : (tensor<2x3x8xf32>, tensor<8xf32>, none) -> (tensor<2x3x8xf32>, none, none)
  return %y : tensor<2x3x8xf32>
}

// -----

// Must not fire: a Gather on axis 1 (columns, not embedding rows).
// CHECK-LABEL: func.func @gather_axis_1
// CHECK-NOT: onnxc.EmbedLayerNorm
func.func @gather_axis_1(%ids: tensor<2x3xi64>, %pos: tensor<2x3xi64>) -> tensor<8x2x3xf32> {
  %word = "onnx.Constant"() <{value = dense<1.0> : tensor<8x30xf32>}> : () -> tensor<8x30xf32>
  %position = "onnx.Constant"() <{value = dense<3.0> : tensor<8x16xf32>}> : () -> tensor<8x16xf32>
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Gather"(%word, %ids) <{axis = 1 : i64}> : (tensor<8x30xf32>, tensor<2x3xi64>) -> tensor<8x2x3xf32>
  %p = "onnx.Gather"(%position, %pos) <{axis = 1 : i64}> : (tensor<8x16xf32>, tensor<2x3xi64>) -> tensor<8x2x3xf32>
  %e = "onnx.Add"(%w, %p) : (tensor<8x2x3xf32>, tensor<8x2x3xf32>) -> tensor<8x2x3xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%e, %gamma, %none) : (tensor<8x2x3xf32>, tensor<3xf32>, none) -> (tensor<8x2x3xf32>, none, none)
  return %y : tensor<8x2x3xf32>
}

// -----

// Must not fire: normalized over the last two axes.
// CHECK-LABEL: func.func @two_axes
// CHECK-NOT: onnxc.EmbedLayerNorm
func.func @two_axes(%ids: tensor<2x3xi64>, %pos: tensor<2x3xi64>) -> tensor<2x3x8xf32> {
  %word = "onnx.Constant"() <{value = dense<1.0> : tensor<30x8xf32>}> : () -> tensor<30x8xf32>
  %position = "onnx.Constant"() <{value = dense<3.0> : tensor<16x8xf32>}> : () -> tensor<16x8xf32>
  %gamma = "onnx.Constant"() <{value = dense<2.0> : tensor<3x8xf32>}> : () -> tensor<3x8xf32>
  %none = "onnx.NoValue"() : () -> none
  %w = "onnx.Gather"(%word, %ids) : (tensor<30x8xf32>, tensor<2x3xi64>) -> tensor<2x3x8xf32>
  %p = "onnx.Gather"(%position, %pos) : (tensor<16x8xf32>, tensor<2x3xi64>) -> tensor<2x3x8xf32>
  %e = "onnx.Add"(%w, %p) : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  %y, %m, %s = "onnx.LayerNormalization"(%e, %gamma, %none) <{axis = 1 : i64}> : (tensor<2x3x8xf32>, tensor<3x8xf32>, none) -> (tensor<2x3x8xf32>, none, none)
  return %y : tensor<2x3x8xf32>
}
