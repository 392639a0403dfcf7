// RUN: not onnxc-opt --onnx-shape-inference %s 2>&1 | FileCheck %s

// Another element type than the model declares is a contradiction, not a
// stale shape.
// CHECK: error: loc("fc"): graph output 'probabilities' has inferred type 'tensor<?x8xf32>', incompatible with its declared type 'tensor<?x8xf16>'
func.func @main_graph(%x: tensor<?x4xf32>) -> (!onnx.unknown {onnxc.name = "probabilities", onnxc.declared_type = tensor<?x8xf16>}) {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<4x8xf32>}> : () -> tensor<4x8xf32>
  %y = "onnx.MatMul"(%x, %w) : (tensor<?x4xf32>, tensor<4x8xf32>) -> !onnx.unknown loc("fc")
  return %y : !onnx.unknown
}
