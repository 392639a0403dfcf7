// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @trilu_lower
// LLVM: llvm.func @one_hot

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[NOAXIS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>

// Lower triangle with a run-time k: keep where col - row <= k.
// CHECK-LABEL: func.func @trilu_lower
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x4x5xf32>{{.*}}, %[[K:[^:]+]]: tensor<i64>
// CHECK: %[[KV:.*]] = tensor.extract %[[K]][] : tensor<i64>
// CHECK: %[[KI:.*]] = arith.index_cast %[[KV]] : i64 to index
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], {{.*}} ins(%[[X]] : tensor<?x4x5xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ROW:.*]] = linalg.index 1 : index
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: %[[DIFF:.*]] = arith.subi %[[COL]], %[[ROW]] : index
// CHECK: %[[KEEP:.*]] = arith.cmpi sle, %[[DIFF]], %[[KI]] : index
// CHECK: arith.select %[[KEEP]], %[[IN]], %{{.*}} : f32
func.func @trilu_lower(%x: tensor<?x4x5xf32>, %k: tensor<i64>) -> tensor<?x4x5xf32> {
  %0 = "onnx.Trilu"(%x, %k) <{upper = 0 : i64}> : (tensor<?x4x5xf32>, tensor<i64>) -> tensor<?x4x5xf32>
  return %0 : tensor<?x4x5xf32>
}

// Upper triangle, default k = 0.
// CHECK-LABEL: func.func @trilu_upper
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: linalg.generic
// CHECK: arith.cmpi sge, %{{.*}}, %[[ZERO]] : index
func.func @trilu_upper(%x: tensor<3x3xi32>) -> tensor<3x3xi32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Trilu"(%x, %none) : (tensor<3x3xi32>, none) -> tensor<3x3xi32>
  return %0 : tensor<3x3xi32>
}

// The new axis 1 has the run-time depth; negative indices count from depth.
// CHECK-LABEL: func.func @one_hot
// CHECK-SAME: (%[[I:[^:]+]]: tensor<2x3xi64>{{.*}}, %[[D:[^:]+]]: tensor<i64>{{.*}}, %[[V:[^:]+]]: tensor<2xf32>
// CHECK: %[[DV:.*]] = tensor.extract %[[D]][] : tensor<i64>
// CHECK: %[[DI:.*]] = arith.index_cast %[[DV]] : i64 to index
// CHECK: %[[DEPTH:.*]] = arith.maxsi %[[DI]], %{{.*}} : index
// CHECK: %[[OFF:.*]] = tensor.extract %[[V]][%{{.*}}] : tensor<2xf32>
// CHECK: %[[ON:.*]] = tensor.extract %[[V]][%{{.*}}] : tensor<2xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[DEPTH]]) : tensor<2x?x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[NOAXIS]], #[[ID]]], {{.*}} ins(%[[I]] : tensor<2x3xi64>) outs(%[[E]] : tensor<2x?x3xf32>)
// CHECK: ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[POS:.*]] = linalg.index 1 : index
// CHECK: %[[IDX:.*]] = arith.index_cast %[[IN]] : i64 to index
// CHECK: arith.addi %[[IDX]], %[[DEPTH]] : index
// CHECK: %[[W:.*]] = arith.select
// CHECK: %[[HIT:.*]] = arith.cmpi eq, %[[W]], %[[POS]] : index
// CHECK: arith.select %[[HIT]], %[[ON]], %[[OFF]] : f32
func.func @one_hot(%i: tensor<2x3xi64>, %d: tensor<i64>, %v: tensor<2xf32>) -> tensor<2x?x3xf32> {
  %0 = "onnx.OneHot"(%i, %d, %v) <{axis = 1 : i64}> : (tensor<2x3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<2x?x3xf32>
  return %0 : tensor<2x?x3xf32>
}
