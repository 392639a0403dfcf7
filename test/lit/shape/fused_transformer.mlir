// RUN: onnxc-opt --onnx-shape-inference --split-input-file --verify-diagnostics %s | FileCheck %s

// The transformer fusions as an optimized model imports them (results
// !onnx.unknown): SkipLayerNorm, BiasGelu and BiasSoftmax have their first
// operand's type; EmbedLayerNorm the broadcast index shape + hidden.
// CHECK-LABEL: func.func @fused
func.func @fused(%x: tensor<?x5x8xf32>, %ids: tensor<?x5xi64>, %pos: tensor<1x5xi64>, %m: tensor<?x1x1x5xf32>, %s: tensor<?x2x5x5xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %g = "onnx.Constant"() <{value = dense<1.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<30x8xf32>}> : () -> tensor<30x8xf32>
  %p = "onnx.Constant"() <{value = dense<1.0> : tensor<16x8xf32>}> : () -> tensor<16x8xf32>
  %none = "onnx.NoValue"() : () -> none
  // CHECK: "onnxc.SkipLayerNorm"{{.*}} -> tensor<?x5x8xf32>
  %0 = "onnxc.SkipLayerNorm"(%x, %x, %g, %none, %none) : (tensor<?x5x8xf32>, tensor<?x5x8xf32>, tensor<8xf32>, none, none) -> !onnx.unknown
  // CHECK: "onnxc.BiasGelu"{{.*}} -> tensor<?x5x8xf32>
  %1 = "onnxc.BiasGelu"(%x, %g) : (tensor<?x5x8xf32>, tensor<8xf32>) -> !onnx.unknown
  // CHECK: "onnxc.BiasSoftmax"{{.*}} -> tensor<?x2x5x5xf32>
  %2 = "onnxc.BiasSoftmax"(%s, %m) : (tensor<?x2x5x5xf32>, tensor<?x1x1x5xf32>) -> !onnx.unknown
  // CHECK: "onnxc.EmbedLayerNorm"{{.*}} -> tensor<?x5x8xf32>
  %3 = "onnxc.EmbedLayerNorm"(%ids, %none, %pos, %w, %p, %none, %g, %none) : (tensor<?x5xi64>, none, tensor<1x5xi64>, tensor<30x8xf32>, tensor<16x8xf32>, none, tensor<8xf32>, none) -> !onnx.unknown
  return %0, %1, %2, %3 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// -----

func.func @embed_ids_conflict(%ids: tensor<2x5xi64>, %pos: tensor<3x5xi64>) -> !onnx.unknown {
  %g = "onnx.Constant"() <{value = dense<1.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<30x8xf32>}> : () -> tensor<30x8xf32>
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{index shapes 'tensor<2x5xi64>' and 'tensor<3x5xi64>' do not broadcast}}
  %0 = "onnxc.EmbedLayerNorm"(%ids, %none, %pos, %w, %w, %none, %g, %none) : (tensor<2x5xi64>, none, tensor<3x5xi64>, tensor<30x8xf32>, tensor<30x8xf32>, none, tensor<8xf32>, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @embed_no_position(%ids: tensor<2x5xi64>) -> !onnx.unknown {
  %g = "onnx.Constant"() <{value = dense<1.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<30x8xf32>}> : () -> tensor<30x8xf32>
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{required input #2 is missing}}
  %0 = "onnxc.EmbedLayerNorm"(%ids, %none, %none, %w, %w, %none, %g, %none) : (tensor<2x5xi64>, none, none, tensor<30x8xf32>, tensor<30x8xf32>, none, tensor<8xf32>, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}
