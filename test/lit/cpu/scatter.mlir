// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg. \
// RUN:     --implicit-check-not=scf.

// LLVM: llvm.func @scatter_elements_add
// LLVM: llvm.func @scatter_nd_max_unsigned

// A loop nest over the updates carries the output; each step reads the
// index (wrapped, clamped), adds to the current element and inserts.
// CHECK-LABEL: func.func @scatter_elements_add
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x5xf32>{{.*}}, %[[I:[^:]+]]: tensor<2x?xi64>{{.*}}, %[[U:[^:]+]]: tensor<2x?xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[U]]
// CHECK: %[[R:.*]] = scf.for %[[A:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC0:.*]] = %[[X]]) -> (tensor<4x5xf32>)
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]]) -> (tensor<4x5xf32>)
// CHECK: %[[IV:.*]] = tensor.extract %[[I]][%[[A]], %[[B]]] : tensor<2x?xi64>
// CHECK: arith.index_cast %[[IV]] : i64 to index
// CHECK: %[[COL:.*]] = arith.maxsi
// CHECK: %[[UV:.*]] = tensor.extract %[[U]][%[[A]], %[[B]]] : tensor<2x?xf32>
// CHECK: %[[CUR:.*]] = tensor.extract %[[ACC]][%[[A]], %[[COL]]] : tensor<4x5xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[CUR]], %[[UV]] : f32
// CHECK: %[[INS:.*]] = tensor.insert %[[SUM]] into %[[ACC]][%[[A]], %[[COL]]] : tensor<4x5xf32>
// CHECK: scf.yield %[[INS]] : tensor<4x5xf32>
// CHECK: return %[[R]]
func.func @scatter_elements_add(%x: tensor<4x5xf32>, %i: tensor<2x?xi64>, %u: tensor<2x?xf32>) -> tensor<4x5xf32> {
  %0 = "onnx.ScatterElements"(%x, %i, %u) <{axis = -1 : i64, reduction = "add"}> : (tensor<4x5xf32>, tensor<2x?xi64>, tensor<2x?xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// ScatterND writes rows; max on unsigned data compares unsigned.
// CHECK-LABEL: func.func @scatter_nd_max_unsigned
// CHECK-SAME: (%[[X:[^:]+]]: tensor<4x3xi8>{{.*}}, %[[I:[^:]+]]: tensor<2x1xi64>{{.*}}, %[[U:[^:]+]]: tensor<2x3xi8>
// CHECK: scf.for %[[A:.*]] = {{.*}} iter_args(%{{.*}} = %[[X]])
// CHECK: scf.for %[[B:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[IV:.*]] = tensor.extract %[[I]][%[[A]], %{{.*}}] : tensor<2x1xi64>
// CHECK: %[[ROW:.*]] = arith.maxsi
// CHECK: %[[UV:.*]] = tensor.extract %[[U]][%[[A]], %[[B]]] : tensor<2x3xi8>
// CHECK: %[[CUR:.*]] = tensor.extract %[[ACC]][%[[ROW]], %[[B]]] : tensor<4x3xi8>
// CHECK: %[[M:.*]] = arith.maxui %[[CUR]], %[[UV]] : i8
// CHECK: tensor.insert %[[M]] into %[[ACC]][%[[ROW]], %[[B]]] : tensor<4x3xi8>
func.func @scatter_nd_max_unsigned(%x: tensor<4x3xui8>, %i: tensor<2x1xi64>, %u: tensor<2x3xui8>) -> tensor<4x3xui8> {
  %0 = "onnx.ScatterND"(%x, %i, %u) <{reduction = "max"}> : (tensor<4x3xui8>, tensor<2x1xi64>, tensor<2x3xui8>) -> tensor<4x3xui8>
  return %0 : tensor<4x3xui8>
}

// Without a reduction the update replaces the element.
// CHECK-LABEL: func.func @scatter_nd_none
// CHECK: %[[UV:.*]] = tensor.extract %{{.*}} : tensor<4xf32>
// CHECK-NOT: tensor.extract
// CHECK: tensor.insert %[[UV]]
func.func @scatter_nd_none(%x: tensor<2x3xf32>, %i: tensor<4x2xi64>, %u: tensor<4xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.ScatterND"(%x, %i, %u) : (tensor<2x3xf32>, tensor<4x2xi64>, tensor<4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
