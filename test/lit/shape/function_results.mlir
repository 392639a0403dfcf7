// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// The function's result types become the returned values' types; a declared
// output type refines dims the inference left dynamic (here the batch of a
// Flatten whose input batch is dynamic).
// CHECK-LABEL: func.func @main_graph
// CHECK-SAME: (%{{.*}}: tensor<?x1x28x28xf32> {onnxc.name = "image"})
// CHECK-SAME: -> (tensor<?x8x28x28xf32> {onnxc.name = "features"}, tensor<4x6272xf32> {onnxc.declared_type = tensor<4x?xf32>, onnxc.name = "flat"}, tensor<?x1x28x28xf32> {onnxc.declared_type = tensor<?x1x28x28xf32>, onnxc.name = "passthrough"})
func.func @main_graph(%image: tensor<?x1x28x28xf32> {onnxc.name = "image"})
    -> (!onnx.unknown {onnxc.name = "features"},
        !onnx.unknown {onnxc.name = "flat", onnxc.declared_type = tensor<4x?xf32>},
        tensor<?x1x28x28xf32> {onnxc.name = "passthrough", onnxc.declared_type = tensor<?x1x28x28xf32>})
    attributes {llvm.emit_c_interface} {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<8x1x3x3xf32>}> : () -> tensor<8x1x3x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%image, %w, %none) <{pads = [1, 1, 1, 1]}> : (tensor<?x1x28x28xf32>, tensor<8x1x3x3xf32>, none) -> !onnx.unknown loc("conv")
  %r = "onnx.Relu"(%c) : (!onnx.unknown) -> !onnx.unknown
  // CHECK: "onnx.Flatten"{{.*}} -> tensor<4x6272xf32>
  %f = "onnx.Flatten"(%r) : (!onnx.unknown) -> !onnx.unknown
  // CHECK: return {{.*}} : tensor<?x8x28x28xf32>, tensor<4x6272xf32>, tensor<?x1x28x28xf32>
  return %r, %f, %image : !onnx.unknown, !onnx.unknown, tensor<?x1x28x28xf32>
}

// Running the pass twice changes nothing.
// CHECK-LABEL: func.func @idempotent
// CHECK-SAME: -> tensor<2x3xf32>
func.func @idempotent(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: "onnx.Neg"{{.*}} -> tensor<2x3xf32>
  %0 = "onnx.Neg"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Outputs without a rule keep !onnx.unknown, with where the rank was lost
// (the artifact's error says it).
// CHECK-LABEL: func.func @partial
// CHECK-SAME: -> (tensor<3xf32>, !onnx.unknown {onnxc.rank_lost_at = "the rank is lost at an unnamed StringNormalizer node"})
func.func @partial(%a: tensor<3xf32>) -> (!onnx.unknown, !onnx.unknown) {
  %0 = "onnx.Relu"(%a) : (tensor<3xf32>) -> !onnx.unknown
  %1 = "onnx.StringNormalizer"(%0) : (!onnx.unknown) -> !onnx.unknown
  return %0, %1 : !onnx.unknown, !onnx.unknown
}
