// RUN: onnxc-opt --split-input-file --verify-diagnostics --convert-onnx-to-linalg %s | FileCheck %s

// TopK: a generic counts, for every element, the elements along the axis
// that sort before it (larger, or equal at a lower index); a loop nest then
// writes the elements whose place is below K (clamped) to that place.
// CHECK-DAG: #[[SELF:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OTHER:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @topk
// CHECK: %[[PLACES:.+]] = linalg.generic {indexing_maps = [#[[SELF]], #[[OTHER]], #[[SELF]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg0 : tensor<3x4xf32>, tensor<3x4xf32>) outs(%{{.+}} : tensor<3x4xindex>)
// CHECK: ^bb0(%[[MINE:.+]]: f32, %[[THEIRS:.+]]: f32, %[[ACC:.+]]: index):
// CHECK: arith.cmpf ogt, %[[THEIRS]], %[[MINE]]
// CHECK: arith.cmpf oeq, %[[THEIRS]], %[[MINE]]
// CHECK: %[[I:.+]] = linalg.index 1
// CHECK: %[[J:.+]] = linalg.index 2
// CHECK: arith.cmpi ult, %[[J]], %[[I]]
// CHECK: arith.addi %[[ACC]]
// CHECK: %[[K:.+]] = arith.minsi
// CHECK: arith.minsi %[[K]], %c2
// CHECK: scf.for
// CHECK: scf.for %[[C:.+]] = {{.*}} iter_args(%[[V:.+]] = %{{.+}}, %[[X:.+]] = %{{.+}})
// CHECK: %[[PLACE:.+]] = tensor.extract %[[PLACES]]
// CHECK: %[[KEPT:.+]] = arith.cmpi ult, %[[PLACE]]
// CHECK: scf.if %[[KEPT]]
// CHECK: tensor.insert %{{.+}} into %[[V]][%{{.+}}, %[[PLACE]]] : tensor<3x2xf32>
// CHECK: tensor.insert %{{.+}} into %[[X]][%{{.+}}, %[[PLACE]]] : tensor<3x2xi64>
func.func @topk(%x: tensor<3x4xf32>, %k: tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %0:2 = "onnx.TopK"(%x, %k) {axis = 1 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %0#0, %0#1 : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// Smallest first on unsigned integers: the element itself must be above the
// other one (unsigned compare) for the other to come first.
// CHECK-LABEL: func.func @bottomk_unsigned
// CHECK: ^bb0(%[[MINE:.+]]: i64, %[[THEIRS:.+]]: i64, %{{.+}}: index):
// CHECK: arith.cmpi ugt, %[[MINE]], %[[THEIRS]]
func.func @bottomk_unsigned(%x: tensor<?xui64>, %k: tensor<1xi64>) -> (tensor<?xui64>, tensor<?xi64>) {
  %0:2 = "onnx.TopK"(%x, %k) {largest = 0 : i64} : (tensor<?xui64>, tensor<1xi64>) -> (tensor<?xui64>, tensor<?xi64>)
  return %0#0, %0#1 : tensor<?xui64>, tensor<?xi64>
}

// -----

func.func @bad_axis(%x: tensor<3x4xf32>, %k: tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>) {
  // expected-error @+2 {{axis 2 is out of range for a rank-2 input}}
  // expected-error @+1 {{the cpu target cannot lower this 'TopK' node}}
  %0:2 = "onnx.TopK"(%x, %k) {axis = 2 : i64} : (tensor<3x4xf32>, tensor<1xi64>) -> (tensor<3x?xf32>, tensor<3x?xi64>)
  return %0#0, %0#1 : tensor<3x?xf32>, tensor<3x?xi64>
}
