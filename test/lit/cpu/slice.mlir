// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @slice_static
// LLVM: llvm.func @pad_reflect

// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>

// Constant positive steps: one extract_slice (negative start counted from
// the end, INT64_MAX end clamped to the dim).
// CHECK-LABEL: func.func @slice_static
// CHECK: tensor.extract_slice %{{.*}}[3, 0] [2, 3] [1, 2] : tensor<5x6xf32> to tensor<2x3xf32>
func.func @slice_static(%x: tensor<5x6xf32>) -> tensor<2x3xf32> {
  %starts = "onnx.Constant"() <{value = dense<[-2, 0]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %ends = "onnx.Constant"() <{value = dense<[9223372036854775807, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %axes = "onnx.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %steps = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.Slice"(%x, %starts, %ends, %axes, %steps) : (tensor<5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Run-time starts/ends on a dynamic dim: wrapped and clamped at run time.
// CHECK-LABEL: func.func @slice_runtime
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x6xf32>{{.*}}, %[[S:[^:]+]]: tensor<1xi64>{{.*}}, %[[E:[^:]+]]: tensor<1xi64>
// CHECK: %[[DIM:.*]] = tensor.dim %[[X]]
// CHECK: %[[START:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: arith.cmpi slt, %[[START]]
// CHECK: arith.addi %[[START]], %[[DIM]]
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: %[[DIFF:.*]] = arith.subi
// CHECK: %[[LEN:.*]] = arith.maxsi %[[DIFF]], %{{.*}} : index
// CHECK: tensor.extract_slice %[[X]][%{{.*}}, 0] [%[[LEN]], 6] [1, 1] : tensor<?x6xf32> to tensor<?x6xf32>
func.func @slice_runtime(%x: tensor<?x6xf32>, %s: tensor<1xi64>, %e: tensor<1xi64>) -> tensor<?x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Slice"(%x, %s, %e, %none, %none) : (tensor<?x6xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// A negative step reads data[start + i * step] in a generic: start 4 (5
// clamped to dim - 1), length ceil((0 - 4) / -2) = 2.
// CHECK-LABEL: func.func @slice_negative_step
// CHECK-SAME: (%[[X:[^:]+]]: tensor<5xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<2xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[M:.*]] = arith.muli %[[I]], %c-2{{(_[0-9]+)?}} : index
// CHECK: %[[J:.*]] = arith.addi %[[M]], %c4{{(_[0-9]+)?}} : index
// CHECK: tensor.extract %[[X]][%[[J]]] : tensor<5xf32>
func.func @slice_negative_step(%x: tensor<5xf32>) -> tensor<2xf32> {
  %starts = "onnx.Constant"() <{value = dense<5> : tensor<1xi64>}> : () -> tensor<1xi64>
  %ends = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> : () -> tensor<1xi64>
  %steps = "onnx.Constant"() <{value = dense<-2> : tensor<1xi64>}> : () -> tensor<1xi64>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Slice"(%x, %starts, %ends, %none, %steps) : (tensor<5xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// A constant scalar index: a slice without the axis dim.
// CHECK-LABEL: func.func @gather_scalar_constant
// CHECK: %[[S:.*]] = tensor.extract_slice %{{.*}}[0, 2, 0] [4, 1, 3] [1, 1, 1] : tensor<4x5x3xf32> to tensor<4x1x3xf32>
// CHECK: tensor.collapse_shape %[[S]] {{\[}}[0], [1, 2]] : tensor<4x1x3xf32> into tensor<4x3xf32>
func.func @gather_scalar_constant(%x: tensor<4x5x3xf32>) -> tensor<4x3xf32> {
  %i = "onnx.Constant"() <{value = dense<-3> : tensor<i64>}> : () -> tensor<i64>
  %0 = "onnx.Gather"(%x, %i) <{axis = 1 : i64}> : (tensor<4x5x3xf32>, tensor<i64>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// Run-time indices: the generic reads them through a map over the index
// dims, wraps negatives and clamps into bounds.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x5xf32>{{.*}}, %[[I:[^:]+]]: tensor<2x3xi32>
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #{{.*}}], {{.*}} ins(%[[I]] : tensor<2x3xi32>)
// CHECK: ^bb0(%[[V:.*]]: i32, %{{.*}}: f32):
// CHECK: %[[D0:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = arith.index_cast %[[V]] : i32 to index
// CHECK: arith.cmpi slt, %[[C]]
// CHECK: arith.select
// CHECK: arith.minsi
// CHECK: %[[J:.*]] = arith.maxsi
// CHECK: tensor.extract %[[X]][%[[D0]], %[[J]]] : tensor<?x5xf32>
func.func @gather(%x: tensor<?x5xf32>, %i: tensor<2x3xi32>) -> tensor<?x2x3xf32> {
  %0 = "onnx.Gather"(%x, %i) <{axis = -1 : i64}> : (tensor<?x5xf32>, tensor<2x3xi32>) -> tensor<?x2x3xf32>
  return %0 : tensor<?x2x3xf32>
}

// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3x4xf32>{{.*}}, %[[I:[^:]+]]: tensor<2x4xi64>
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<2x4xi64>)
// CHECK: %[[D1:.*]] = linalg.index 1 : index
// CHECK: %[[J:.*]] = arith.maxsi
// CHECK: tensor.extract %[[X]][%[[J]], %[[D1]]] : tensor<3x4xf32>
func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>) -> tensor<2x4xf32> {
  %0 = "onnx.GatherElements"(%x, %i) <{axis = 0 : i64}> : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// batch_dims 1: out[b, i, k] = data[b, indices[b, i, 0], k].
// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3x4xf32>{{.*}}, %[[I:[^:]+]]: tensor<2x5x1xi64>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x5x4xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<2x5x4xf32>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[N:.*]] = linalg.index 1 : index
// CHECK: %[[K:.*]] = linalg.index 2 : index
// CHECK: %[[V:.*]] = tensor.extract %[[I]][%[[B]], %[[N]], %{{.*}}] : tensor<2x5x1xi64>
// CHECK: arith.index_cast %[[V]] : i64 to index
// CHECK: %[[J:.*]] = arith.maxsi
// CHECK: tensor.extract %[[X]][%[[B]], %[[J]], %[[K]]] : tensor<2x3x4xf32>
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<2x5x1xi64>) -> tensor<2x5x4xf32> {
  %0 = "onnx.GatherND"(%x, %i) <{batch_dims = 1 : i64}> : (tensor<2x3x4xf32>, tensor<2x5x1xi64>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// An insert_slice chain at running offsets; a statically empty input is
// skipped.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:[^:]+]]: tensor<?x3xf32>{{.*}}, %[[B:[^:]+]]: tensor<0x3xf32>{{.*}}, %[[C:[^:]+]]: tensor<2x?xf32>
// CHECK: %[[CC:.*]] = tensor.cast %[[C]] : tensor<2x?xf32> to tensor<2x3xf32>
// CHECK: %[[DA:.*]] = tensor.dim %[[A]]
// CHECK: %[[N:.*]] = arith.addi %[[DA]], %c2 : index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [%{{.*}}, 3] [1, 1] : tensor<?x3xf32> into tensor<?x3xf32>
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[CC]] into %[[I0]][%{{.*}}, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<?x3xf32>
// CHECK: return %[[I1]]
func.func @concat(%a: tensor<?x3xf32>, %b: tensor<0x3xf32>, %c: tensor<2x?xf32>) -> tensor<?x3xf32> {
  %0 = "onnx.Concat"(%a, %b, %c) <{axis = 0 : i64}> : (tensor<?x3xf32>, tensor<0x3xf32>, tensor<2x?xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// num_outputs 3 over 7: chunks of 3, 3, 1.
// CHECK-LABEL: func.func @split_uneven
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [3, 4] [1, 1] : tensor<7x4xf32> to tensor<3x4xf32>
// CHECK: tensor.extract_slice %{{.*}}[3, 0] [3, 4] [1, 1] : tensor<7x4xf32> to tensor<3x4xf32>
// CHECK: tensor.extract_slice %{{.*}}[6, 0] [1, 4] [1, 1] : tensor<7x4xf32> to tensor<1x4xf32>
func.func @split_uneven(%x: tensor<7x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<1x4xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %0:3 = "onnx.Split"(%x, %none) <{axis = 0 : i64, num_outputs = 3 : i64}> : (tensor<7x4xf32>, none) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<1x4xf32>)
  return %0#0, %0#1, %0#2 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<1x4xf32>
}

// Run-time split sizes along a dynamic dim.
// CHECK-LABEL: func.func @split_runtime
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x?xf32>{{.*}}, %[[S:[^:]+]]: tensor<2xi64>
// CHECK: tensor.extract %[[S]]
// CHECK: %[[S0:.*]] = arith.maxsi
// CHECK: tensor.extract %[[S]]
// CHECK: %[[S1:.*]] = arith.maxsi
// CHECK: tensor.extract_slice %[[X]][0, 0] [2, %[[S0]]] [1, 1]
// CHECK: tensor.extract_slice %[[X]][0, %[[S0]]] [2, %[[S1]]] [1, 1]
func.func @split_runtime(%x: tensor<2x?xf32>, %s: tensor<2xi64>) -> (tensor<2x?xf32>, tensor<2x?xf32>) {
  %0:2 = "onnx.Split"(%x, %s) <{axis = 1 : i64}> : (tensor<2x?xf32>, tensor<2xi64>) -> (tensor<2x?xf32>, tensor<2x?xf32>)
  return %0#0, %0#1 : tensor<2x?xf32>, tensor<2x?xf32>
}

// Constant mode: fill with the value, insert the (cropped) data. A negative
// pad crops first.
// CHECK-LABEL: func.func @pad_constant
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3x4xf32>{{.*}}, %[[V:[^:]+]]: tensor<f32>
// CHECK: %[[CROP:.*]] = tensor.extract_slice %[[X]][1, 0] [2, 4] [1, 1] : tensor<3x4xf32> to tensor<2x4xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x7xf32>
// CHECK: %[[PV:.*]] = tensor.extract %[[V]][] : tensor<f32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[PV]] : f32) outs(%[[E]] : tensor<3x7xf32>)
// CHECK: tensor.insert_slice %[[CROP]] into %[[F]][0, 2] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<3x7xf32>
func.func @pad_constant(%x: tensor<3x4xf32>, %v: tensor<f32>) -> tensor<3x7xf32> {
  %pads = "onnx.Constant"() <{value = dense<[-1, 2, 1, 1]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Pad"(%x, %pads, %v, %none) <{mode = "constant"}> : (tensor<3x4xf32>, tensor<4xi64>, tensor<f32>, none) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}

// Reflect along the one padded axis (axes input): index i = o - 1 mirrored
// with period 2 * (dim - 1); the other axis reads straight through.
// CHECK-LABEL: func.func @pad_reflect
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3x4xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x7xf32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<3x7xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[S:.*]] = arith.subi %[[I1]], %c1{{(_[0-9]+)?}} : index
// CHECK: arith.remsi %[[S]], %c6{{(_[0-9]+)?}} : index
// CHECK: %[[J:.*]] = arith.maxsi
// CHECK: tensor.extract %[[X]][%[[I0]], %[[J]]] : tensor<3x4xf32>
func.func @pad_reflect(%x: tensor<3x4xf32>) -> tensor<3x7xf32> {
  %pads = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %axes = "onnx.Constant"() <{value = dense<[-1]> : tensor<1xi64>}> : () -> tensor<1xi64>
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.Pad"(%x, %pads, %none, %axes) <{mode = "reflect"}> : (tensor<3x4xf32>, tensor<2xi64>, none, tensor<1xi64>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}
