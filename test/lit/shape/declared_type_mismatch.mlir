// RUN: onnxc-opt --onnx-shape-inference %s 2>&1 | FileCheck %s

// Exporters leave stale output shapes; as ONNX Runtime, the inferred shape
// wins, with a warning said once, and the declared type is dropped.
// CHECK: warning: loc("fc"): graph output 'probabilities' has inferred type 'tensor<?x8xf32>', incompatible with its declared type 'tensor<?x10xf32>'; the inferred shape is used
// CHECK-NOT: warning
// CHECK: func.func @main_graph(%{{.*}}: tensor<?x4xf32>) -> (tensor<?x8xf32> {onnxc.name = "probabilities"})
func.func @main_graph(%x: tensor<?x4xf32>) -> (!onnx.unknown {onnxc.name = "probabilities", onnxc.declared_type = tensor<?x10xf32>}) {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
  %y = "onnx.MatMul"(%x, %w) : (tensor<?x4xf32>, tensor<4x8xf32>) -> !onnx.unknown loc("fc")
  return %y : !onnx.unknown
}
