// RUN: onnxc-opt --split-input-file --convert-onnx-to-linalg %s | FileCheck %s

// Circular mode: each cache position p of batch row b reads update position
// (p - write_indices[b]) mod 4 when that is below the update length 2, and
// keeps the past cache otherwise; the update is only read where it lands.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-LABEL: func.func @circular
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %arg2 : tensor<2x1x4x5xf32>, tensor<2xi64>)
// CHECK: ^bb0(%[[PAST:.+]]: f32, %[[START:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[B:.+]] = linalg.index 0
// CHECK: %[[H:.+]] = linalg.index 1
// CHECK: %[[P:.+]] = linalg.index 2
// CHECK: %[[D:.+]] = linalg.index 3
// CHECK: %[[W:.+]] = arith.index_cast %[[START]] : i64 to index
// CHECK: %[[REL:.+]] = arith.subi %[[P]], %[[W]]
// CHECK: arith.remsi %[[REL]]
// CHECK: %[[SRC:.+]] = arith.select
// CHECK: %[[IN:.+]] = arith.andi
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK: tensor.extract %arg1[%[[B]], %[[H]], %[[SRC]], %[[D]]] : tensor<2x1x2x5xf32>
// CHECK: } else {
// CHECK: scf.yield %[[PAST]] : f32
func.func @circular(%c: tensor<2x1x4x5xf32>, %u: tensor<2x1x2x5xf32>, %w: tensor<2xi64>) -> tensor<2x1x4x5xf32> {
  %y = "onnx.TensorScatter"(%c, %u, %w) <{mode = "circular"}> : (tensor<2x1x4x5xf32>, tensor<2x1x2x5xf32>, tensor<2xi64>) -> tensor<2x1x4x5xf32> loc("ts")
  return %y : tensor<2x1x4x5xf32>
}

// -----

// Linear mode on a dynamic cache without write_indices (all zero), axis 1,
// unsigned elements (signless after conversion): no modulo.
// CHECK-LABEL: func.func @linear_no_indices
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<3x?x5xi8>) outs(%{{.+}} : tensor<3x?x5xi8>)
// CHECK-NOT: arith.remsi
// CHECK: scf.if
// CHECK: tensor.extract %arg1[{{.+}}] : tensor<3x2x5xi8>
func.func @linear_no_indices(%c: tensor<3x?x5xui8>, %u: tensor<3x2x5xui8>) -> tensor<3x?x5xui8> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.TensorScatter"(%c, %u, %n) <{axis = 1 : i64}> : (tensor<3x?x5xui8>, tensor<3x2x5xui8>, none) -> tensor<3x?x5xui8> loc("ts2")
  return %y : tensor<3x?x5xui8>
}
