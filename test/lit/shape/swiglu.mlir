// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// SwiGLU's result has A's type (A and B share one shape).
// CHECK-LABEL: func.func @swiglu
// CHECK-SAME: -> tensor<2x?xf16>
func.func @swiglu(%a: tensor<2x?xf16>, %b: tensor<2x?xf16>) -> !onnx.unknown {
  // CHECK: "onnx.SwiGLU"{{.*}} -> tensor<2x?xf16>
  %0 = "onnx.SwiGLU"(%a, %b) : (tensor<2x?xf16>, tensor<2x?xf16>) -> !onnx.unknown
  return %0 : !onnx.unknown
}
