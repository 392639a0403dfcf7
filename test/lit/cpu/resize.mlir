// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s

// Linear resize with run-time scales: one generic per axis (N, C, H, W in
// order; N and C may be copies at run time), each output element summing two
// taps of the previous axis' result.
// CHECK-LABEL: func.func @linear
// CHECK: %[[S2:.+]] = tensor.extract %arg1[%c2] : tensor<4xf32>
// CHECK: %[[N:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x2x4xf32>)
// CHECK: %[[C:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x2x4xf32>)
// CHECK: %[[H:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x4x4xf32>)
// CHECK: math.floor
// CHECK: tensor.extract %[[C]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x1x2x4xf32>
// CHECK: tensor.extract %[[C]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x1x2x4xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x4x8xf32>)
// CHECK: tensor.extract %[[H]]
func.func @linear(%x: tensor<1x1x2x4xf32>, %s: tensor<4xf32>) -> tensor<1x1x4x8xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Resize"(%x, %n, %s, %n) <{mode = "linear"}> : (tensor<1x1x2x4xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// Cubic along the given axes only: four taps.
// CHECK-LABEL: func.func @cubic_axes
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x3x2xf32>)
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK: return
func.func @cubic_axes(%x: tensor<1x1x4x2xf32>, %sizes: tensor<1xi64>) -> tensor<1x1x3x2xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Resize"(%x, %n, %n, %sizes) <{mode = "cubic", axes = [2]}> : (tensor<1x1x4x2xf32>, none, none, tensor<1xi64>) -> tensor<1x1x3x2xf32>
  return %0 : tensor<1x1x3x2xf32>
}

// Antialiased linear downscaling 8 -> 4: the kernel is stretched by 2, so
// each output element sums four taps, normalized by their total weight.
// CHECK-LABEL: func.func @linear_antialias
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<1x4xf32>)
// CHECK-COUNT-4: math.absf
// CHECK-COUNT-4: arith.divf
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK: return
func.func @linear_antialias(%x: tensor<1x8xf32>, %sizes: tensor<1xi64>) -> tensor<1x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %0 = "onnx.Resize"(%x, %n, %n, %sizes) <{mode = "linear", antialias = 1 : i64, axes = [1]}> : (tensor<1x8xf32>, none, none, tensor<1xi64>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
