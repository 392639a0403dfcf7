// RUN: onnxc-opt --split-input-file --verify-diagnostics --onnx-shape-inference %s | FileCheck %s

// BitCast keeps the shape and takes `to`'s element type of the same width.
// CHECK-LABEL: func.func @bitcast
// CHECK: "onnx.BitCast"{{.*}} -> tensor<2x3xi32>
// CHECK: "onnx.BitCast"{{.*}} -> tensor<2x3xf8E4M3FN>
func.func @bitcast(%x: tensor<2x3xf32>, %y: tensor<2x3xui8>) -> (!onnx.unknown, !onnx.unknown) {
  %0 = "onnx.BitCast"(%x) <{to = 6 : i64}> : (tensor<2x3xf32>) -> !onnx.unknown
  %1 = "onnx.BitCast"(%y) <{to = 17 : i64}> : (tensor<2x3xui8>) -> !onnx.unknown
  return %0, %1 : !onnx.unknown, !onnx.unknown
}

// -----

func.func @bitcast_width(%x: tensor<2x3xf32>) -> !onnx.unknown {
  // expected-error @+1 {{(the bit widths must be equal)}}
  %0 = "onnx.BitCast"(%x) <{to = 7 : i64}> : (tensor<2x3xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}
