// RUN: not onnxc-opt --onnxc-partition="targets=nope,cpu" %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not onnxc-opt --onnxc-partition="targets=test-host,test-host" %s 2>&1 | FileCheck %s --check-prefix=TWICE

// UNKNOWN: unknown target 'nope' (this onnxc has: cpu
// UNKNOWN-SAME: test-host, test-device)
// TWICE: target 'test-host' is listed twice
func.func @main_graph(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = "onnx.Sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
