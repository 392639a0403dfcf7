// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// Without hidden_size and with a dynamic W gate dim, the hidden size comes
// from R's last dim; RNN has no Y_c.
// CHECK-LABEL: func.func @hidden_from_r
// CHECK: "onnx.RNN"{{.*}} -> (tensor<?x1x3x7xf32>, tensor<1x3x7xf32>)
func.func @hidden_from_r(%x: tensor<?x3x4xf32>, %w: tensor<1x?x4xf32>, %r: tensor<1x7x7xf32>) -> (!onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  %0:2 = "onnx.RNN"(%x, %w, %r, %n, %n, %n) : (tensor<?x3x4xf32>, tensor<1x?x4xf32>, tensor<1x7x7xf32>, none, none, none) -> (!onnx.unknown, !onnx.unknown)
  return %0#0, %0#1 : !onnx.unknown, !onnx.unknown
}
