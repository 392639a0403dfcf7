// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Errors name the node (its location) and say what is wrong.

// CHECK: error: loc("attn_groups"): 3 query heads cannot be grouped over 2 key/value heads
func.func @bad_groups(%q: tensor<1x3x2x4xf32>, %k: tensor<1x2x2x4xf32>, %v: tensor<1x2x2x4xf32>) -> tensor<1x3x2x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %a, %b, %c = "onnx.Attention"(%q, %k, %v, %none, %none, %none, %none) : (tensor<1x3x2x4xf32>, tensor<1x2x2x4xf32>, tensor<1x2x2x4xf32>, none, none, none, none) -> (tensor<1x3x2x4xf32>, none, none, none) loc("attn_groups")
  return %y : tensor<1x3x2x4xf32>
}

// -----

// CHECK: error: loc("attn_3d"): 3-D inputs need positive q_num_heads and kv_num_heads
func.func @missing_heads(%q: tensor<1x3x8xf32>, %k: tensor<1x5x8xf32>, %v: tensor<1x5x8xf32>) -> tensor<1x3x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %a, %b, %c = "onnx.Attention"(%q, %k, %v, %none, %none, %none, %none) : (tensor<1x3x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>, none, none, none, none) -> (tensor<1x3x8xf32>, none, none, none) loc("attn_3d")
  return %y : tensor<1x3x8xf32>
}

// -----

// CHECK: error: loc("rope_dim"): rotary_embedding_dim 3 must be even and at most the head size 8
func.func @rope_odd(%x: tensor<1x2x3x8xf32>, %c: tensor<1x3x1xf32>, %s: tensor<1x3x1xf32>) -> tensor<1x2x3x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.RotaryEmbedding"(%x, %c, %s, %none) {rotary_embedding_dim = 3 : i64} : (tensor<1x2x3x8xf32>, tensor<1x3x1xf32>, tensor<1x3x1xf32>, none) -> tensor<1x2x3x8xf32> loc("rope_dim")
  return %y : tensor<1x2x3x8xf32>
}

// -----

// CHECK: error: loc("gn"): 6 channels cannot be split into 4 groups
func.func @group_norm(%x: tensor<1x6x2xf32>, %s: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<1x6x2xf32> {
  %y = "onnx.GroupNormalization"(%x, %s, %b) {num_groups = 4 : i64} : (tensor<1x6x2xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<1x6x2xf32> loc("gn")
  return %y : tensor<1x6x2xf32>
}
