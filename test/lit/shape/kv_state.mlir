// RUN: onnxc-opt --onnx-shape-inference -split-input-file -verify-diagnostics %s | FileCheck %s
// Expected shapes agree with onnx.shape_inference (onnx 1.23).

// LinearAttention: output [B, T, Hq * dv], present_state [B, Hkv, dk, dv] of
// past_state's type (query's without one). TensorScatter: past_cache's type.
// CHECK-LABEL: func.func @shapes
// CHECK: "onnx.LinearAttention"{{.*}} -> (tensor<2x?x64xf16>, tensor<2x4x8x8xf16>)
// CHECK: "onnx.LinearAttention"{{.*}} -> (tensor<?x5x12xf16>, tensor<?x2x4x6xf32>)
// CHECK: "onnx.TensorScatter"{{.*}} -> tensor<2x1x4x5xf32>
// CHECK: "onnx.TensorScatter"{{.*}} -> tensor<3x?x5xui8>
func.func @shapes(%q: tensor<2x?x64xf16>, %k: tensor<2x?x32xf16>, %v: tensor<2x?x32xf16>,
                  %q2: tensor<?x5x8xf16>, %k2: tensor<?x5x8xf16>, %v2: tensor<?x5x12xf16>, %past: tensor<?x2x4x6xf32>,
                  %c: tensor<2x1x4x5xf32>, %u: tensor<2x1x2x5xf32>, %w: tensor<2xi64>,
                  %c2: tensor<3x?x5xui8>, %u2: tensor<3x2x5xui8>)
    -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %0:2 = "onnx.LinearAttention"(%q, %k, %v, %n, %n, %n) <{q_num_heads = 8 : i64, kv_num_heads = 4 : i64, update_rule = "linear"}> : (tensor<2x?x64xf16>, tensor<2x?x32xf16>, tensor<2x?x32xf16>, none, none, none) -> (!onnx.unknown, !onnx.unknown)
  %1:2 = "onnx.LinearAttention"(%q2, %k2, %v2, %past, %n, %n) <{q_num_heads = 2 : i64, kv_num_heads = 2 : i64, update_rule = "linear"}> : (tensor<?x5x8xf16>, tensor<?x5x8xf16>, tensor<?x5x12xf16>, tensor<?x2x4x6xf32>, none, none) -> (!onnx.unknown, !onnx.unknown)
  %2 = "onnx.TensorScatter"(%c, %u, %w) <{mode = "circular"}> : (tensor<2x1x4x5xf32>, tensor<2x1x2x5xf32>, tensor<2xi64>) -> !onnx.unknown
  %3 = "onnx.TensorScatter"(%c2, %u2, %n) <{axis = 1 : i64}> : (tensor<3x?x5xui8>, tensor<3x2x5xui8>, none) -> !onnx.unknown
  return %0#0, %0#1, %1#0, %1#1, %2, %3 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// -----

func.func @heads(%q: tensor<1x2x12xf32>, %k: tensor<1x2x8xf32>, %v: tensor<1x2x8xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{q_num_heads (3) must be a positive multiple of kv_num_heads (2)}}
  %0:2 = "onnx.LinearAttention"(%q, %k, %v, %n, %n, %n) <{q_num_heads = 3 : i64, kv_num_heads = 2 : i64}> : (tensor<1x2x12xf32>, tensor<1x2x8xf32>, tensor<1x2x8xf32>, none, none, none) -> (!onnx.unknown, !onnx.unknown)
  return %0#0 : !onnx.unknown
}

// -----

func.func @scatter_too_long(%c: tensor<2x4x5xf32>, %u: tensor<2x6x5xf32>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{update 'tensor<2x6x5xf32>' does not fit past_cache 'tensor<2x4x5xf32>' in dim 1}}
  %0 = "onnx.TensorScatter"(%c, %u, %n) : (tensor<2x4x5xf32>, tensor<2x6x5xf32>, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}
