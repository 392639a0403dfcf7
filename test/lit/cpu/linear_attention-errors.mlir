// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Errors name the node (its location) and say what is wrong.

// CHECK: error: loc("la_decay"): update_rule 'gated' requires the decay input
func.func @missing_decay(%q: tensor<1x2x8xf32>, %k: tensor<1x2x8xf32>, %v: tensor<1x2x8xf32>) -> tensor<1x2x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %o, %s = "onnx.LinearAttention"(%q, %k, %v, %none, %none, %none) <{q_num_heads = 2 : i64, kv_num_heads = 2 : i64, update_rule = "gated"}> : (tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, none, none, none) -> (tensor<1x2x8xf32>, tensor<1x2x4x4xf32>) loc("la_decay")
  return %o : tensor<1x2x8xf32>
}

// -----

// CHECK: error: loc("la_heads"): q_num_heads (3) must be a positive multiple of kv_num_heads (2)
func.func @bad_heads(%q: tensor<1x2x12xf32>, %k: tensor<1x2x8xf32>, %v: tensor<1x2x8xf32>) -> tensor<1x2x12xf32> {
  %none = "onnx.NoValue"() : () -> none
  %o, %s = "onnx.LinearAttention"(%q, %k, %v, %none, %none, %none) <{q_num_heads = 3 : i64, kv_num_heads = 2 : i64, update_rule = "linear"}> : (tensor<1x2x12xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, none, none, none) -> (tensor<1x2x12xf32>, tensor<1x2x4x4xf32>) loc("la_heads")
  return %o : tensor<1x2x12xf32>
}

// -----

// CHECK: error: loc("la_beta"): beta's last dim 3 must be kv_num_heads (2) or 1
func.func @bad_beta(%q: tensor<1x2x8xf32>, %k: tensor<1x2x8xf32>, %v: tensor<1x2x8xf32>, %b: tensor<1x2x3xf32>) -> tensor<1x2x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %o, %s = "onnx.LinearAttention"(%q, %k, %v, %none, %none, %b) <{q_num_heads = 2 : i64, kv_num_heads = 2 : i64, update_rule = "delta"}> : (tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, none, none, tensor<1x2x3xf32>) -> (tensor<1x2x8xf32>, tensor<1x2x4x4xf32>) loc("la_beta")
  return %o : tensor<1x2x8xf32>
}

// -----

// CHECK: error: loc("la_seq"): the inputs disagree on the sequence size (2 vs 3)
func.func @bad_seq(%q: tensor<1x2x8xf32>, %k: tensor<1x2x8xf32>, %v: tensor<1x3x8xf32>) -> tensor<1x2x8xf32> {
  %none = "onnx.NoValue"() : () -> none
  %o, %s = "onnx.LinearAttention"(%q, %k, %v, %none, %none, %none) <{q_num_heads = 2 : i64, kv_num_heads = 2 : i64, update_rule = "linear"}> : (tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x3x8xf32>, none, none, none) -> (tensor<1x2x8xf32>, tensor<1x2x4x4xf32>) loc("la_seq")
  return %o : tensor<1x2x8xf32>
}
