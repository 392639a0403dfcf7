// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --onnxc-declare-runtime-helpers --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// One helper per element type; unsigned types get their own (signless
// memrefs, unsigned order).
// CHECK-DAG: func.func private @onnxc_rt_unique_f32(memref<?xf32>, i64, i64, i64, i32, memref<?xf32>, memref<?xi64>, memref<?xi64>, memref<?xi64>) -> i64 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @onnxc_rt_unique_u8(memref<?xi8>, i64, i64, i64, i32, memref<?xi8>, memref<?xi64>, memref<?xi64>, memref<?xi64>) -> i64 attributes {llvm.emit_c_interface}
// LLVM-DAG: llvm.func @_mlir_ciface_onnxc_rt_unique_f32(
// LLVM-DAG: llvm.func @_mlir_ciface_onnxc_rt_unique_u8(
// LLVM: llvm.func @unique_axis
// LLVM: llvm.func @unique_flat

// Along axis 1 of [2, 4, 3]: outer 2, len 4, inner 3; the values are the
// first 2 * U * 3 elements, reshaped to [2, U, 3].
// CHECK-LABEL: func.func @unique_axis
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %arg0 {{.+}} into tensor<24xf32>
// CHECK: %[[DYN:.+]] = tensor.cast %[[FLAT]] : tensor<24xf32> to tensor<?xf32>
// CHECK: %[[X:.+]] = bufferization.to_memref %[[DYN]] read_only : memref<?xf32>
// CHECK: %[[Y:.+]] = memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK: %[[I:.+]] = memref.alloc(%[[LEN:.+]]) : memref<?xi64>
// CHECK: %[[INV:.+]] = memref.alloc(%[[LEN]]) : memref<?xi64>
// CHECK: %[[C:.+]] = memref.alloc(%[[LEN]]) : memref<?xi64>
// CHECK: %[[OUTER:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: %[[LEN64:.+]] = arith.index_cast %[[LEN]] : index to i64
// CHECK: %[[INNER:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: %[[SORTED:.+]] = arith.constant 1 : i32
// CHECK: %[[U:.+]] = call @onnxc_rt_unique_f32(%[[X]], %[[OUTER]], %[[LEN64]], %[[INNER]], %[[SORTED]], %[[Y]], %[[I]], %[[INV]], %[[C]])
// CHECK: arith.index_cast %[[U]] : i64 to index
// CHECK: bufferization.to_tensor %[[Y]] restrict writable
// CHECK: tensor.extract_slice
// CHECK: tensor.reshape {{.*}} -> tensor<2x?x3xf32>
func.func @unique_axis(%x: tensor<2x4x3xf32>) -> (tensor<2x?x3xf32>, tensor<?xi64>, tensor<4xi64>, tensor<?xi64>) {
  %0:4 = "onnx.Unique"(%x) <{axis = -2 : i64, sorted = 1 : i64}> : (tensor<2x4x3xf32>) -> (tensor<2x?x3xf32>, tensor<?xi64>, tensor<4xi64>, tensor<?xi64>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<2x?x3xf32>, tensor<?xi64>, tensor<4xi64>, tensor<?xi64>
}

// No axis: the elements are the slices; unsorted passes 0; omitted outputs
// stay omitted.
// CHECK-LABEL: func.func @unique_flat
// CHECK: %[[UNSORTED:.+]] = arith.constant 0 : i32
// CHECK: call @onnxc_rt_unique_u8(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[UNSORTED]],
func.func @unique_flat(%x: tensor<?x5xui8>) -> (tensor<?xui8>, tensor<?xi64>) {
  %0:4 = "onnx.Unique"(%x) <{sorted = 0 : i64}> : (tensor<?x5xui8>) -> (tensor<?xui8>, tensor<?xi64>, none, none)
  return %0#0, %0#1 : tensor<?xui8>, tensor<?xi64>
}
