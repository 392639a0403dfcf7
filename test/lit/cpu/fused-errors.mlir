// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// CHECK: unknown activation 'Swish'
func.func @unknown_activation(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.FusedMatMul"(%a, %b, %none) <{activation = "Swish"}> : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// CHECK: activation 'Clip' takes 2 activation_params, got 1
func.func @clip_params(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.FusedMatMul"(%a, %b, %none) <{activation = "Clip", activation_params = [1.0 : f32]}> : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// CHECK: 'onnxc.SkipLayerNorm' op skip 'tensor<3x8xf32>' must have the shape of input 'tensor<2x3x8xf32>'
func.func @skip_layernorm_broadcast(%x: tensor<2x3x8xf32>, %skip: tensor<3x8xf32>, %g: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.SkipLayerNorm"(%x, %skip, %g, %none, %none) : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<8xf32>, none, none) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// CHECK: bias 'tensor<4x16xf32>' does not broadcast to 'tensor<1x16xf32>'
func.func @bias_gelu_grows(%x: tensor<1x16xf32>, %b: tensor<4x16xf32>) -> tensor<1x16xf32> {
  %y = "onnxc.BiasGelu"(%x, %b) : (tensor<1x16xf32>, tensor<4x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}

// -----

// CHECK: 'onnxc.BiasGelu' op approximate must be "none" or "tanh", got "sigmoid"
func.func @bias_gelu_approximate(%x: tensor<2x16xf32>, %b: tensor<16xf32>) -> tensor<2x16xf32> {
  %y = "onnxc.BiasGelu"(%x, %b) <{approximate = "sigmoid"}> : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  return %y : tensor<2x16xf32>
}

// -----

// CHECK: 'onnxc.EmbedLayerNorm' op position_embedding has hidden size 4, another table 8
func.func @embed_hidden_mismatch(%ids: tensor<2x3xi64>, %w: tensor<30x8xf32>, %p: tensor<16x4xf32>, %g: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnxc.EmbedLayerNorm"(%ids, %none, %ids, %w, %p, %none, %g, %none) : (tensor<2x3xi64>, none, tensor<2x3xi64>, tensor<30x8xf32>, tensor<16x4xf32>, none, tensor<8xf32>, none) -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// CHECK: 'onnxc.BiasSoftmax' op axis 3 is out of range for 'tensor<2x5xf32>'
func.func @bias_softmax_axis(%x: tensor<2x5xf32>, %b: tensor<5xf32>) -> tensor<2x5xf32> {
  %y = "onnxc.BiasSoftmax"(%x, %b) <{axis = 3 : i64}> : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}
