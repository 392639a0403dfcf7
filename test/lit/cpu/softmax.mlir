// RUN: onnxc-opt --split-input-file --verify-diagnostics --convert-onnx-to-linalg %s | FileCheck %s

// Softmax along a middle (dynamic) axis: max, sum of exp(x - max), then
// exp(x - max) / sum, each reading the reductions with the axis dropped.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[RED:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @softmax
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<2x5xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: outs(%[[INIT]] :
// CHECK: arith.maximumf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%arg0, %[[MAX]] :
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.addf
// CHECK: %[[DIM:.+]] = tensor.dim %arg0, %c1
// CHECK: %[[EMPTY:.+]] = tensor.empty(%[[DIM]]) : tensor<2x?x5xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[RED]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %[[MAX]], %[[SUM]] :
// CHECK: ^bb0(%[[X:.+]]: f32, %[[M:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[X]], %[[M]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[D]] : f32
// CHECK-NEXT: arith.divf %[[E]], %[[S]] : f32
func.func @softmax(%x: tensor<2x?x5xf32>) -> tensor<2x?x5xf32> {
  %0 = "onnx.Softmax"(%x) {axis = 1 : i64} : (tensor<2x?x5xf32>) -> tensor<2x?x5xf32>
  return %0 : tensor<2x?x5xf32>
}

// -----

// LogSoftmax on f16: statistics in f32, (x - max) - log(sum), rounded once.
// CHECK-LABEL: func.func @log_softmax
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<4xf32>)
// CHECK: ^bb0(%[[X:.+]]: f16, %[[M:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[W]], %[[M]] : f32
// CHECK-NEXT: %[[L:.+]] = math.log %[[S]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.subf %[[D]], %[[L]] : f32
// CHECK-NEXT: arith.truncf %[[R]] : f32 to f16
func.func @log_softmax(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = "onnx.LogSoftmax"(%x) : (tensor<4x8xf16>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

func.func @softmax_bad_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+2 {{axis 2 is out of range for a rank-2 input}}
  // expected-error @+1 {{the cpu target cannot lower this 'Softmax' node}}
  %0 = "onnx.Softmax"(%x) {axis = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_int(%x: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{the cpu target cannot lower this 'Softmax' node}}
  %0 = "onnx.Softmax"(%x) : (tensor<4x8xi32>) -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}
