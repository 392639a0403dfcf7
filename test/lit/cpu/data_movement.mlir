// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// The lowered IR also bufferizes and reaches the LLVM dialect.
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @constant_unsigned
// LLVM: llvm.func @range_f16

// Unsigned data is reinterpreted as signless of the same width.
// CHECK-LABEL: func.func @constant_unsigned
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1, 2], [3, -6]]> : tensor<2x2xi8>
// CHECK: return %[[C]]
func.func @constant_unsigned() -> tensor<2x2xui8> {
  %0 = "onnx.Constant"() <{value = dense<[[1, 2], [3, 250]]> : tensor<2x2xui8>}> : () -> tensor<2x2xui8>
  return %0 : tensor<2x2xui8>
}

// A splat stays a splat (no per-element expansion of large constants).
// CHECK-LABEL: func.func @constant_splat
// CHECK: arith.constant dense<1.500000e+00> : tensor<1000x1000xf32>
func.func @constant_splat() -> tensor<1000x1000xf32> {
  %0 = "onnx.Constant"() <{value = dense<1.5> : tensor<1000x1000xf32>}> : () -> tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}

// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x4xf32>
// CHECK-NEXT: return %[[X]]
func.func @identity(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "onnx.Identity"(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// Inference Dropout: the data, and an all-true mask.
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x4xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x4xi1>
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: %[[M:.*]] = linalg.fill ins(%[[T]] : i1) outs(%[[E]] : tensor<?x4xi1>)
// CHECK: return %[[X]], %[[M]]
func.func @dropout(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xi1>) {
  %none = "onnx.NoValue"() : () -> none
  %0:2 = "onnx.Dropout"(%x, %none, %none) : (tensor<?x4xf32>, none, none) -> (tensor<?x4xf32>, tensor<?x4xi1>)
  return %0#0, %0#1 : tensor<?x4xf32>, tensor<?x4xi1>
}

// CHECK-LABEL: func.func @dropout_not_training
// CHECK-SAME: (%[[X:[^:]+]]: tensor<3xf32>
// CHECK-NOT: linalg
// CHECK: return %[[X]]
func.func @dropout_not_training(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %t = "onnx.Constant"() <{value = dense<false> : tensor<i1>}> : () -> tensor<i1>
  %0:2 = "onnx.Dropout"(%x, %r, %t) : (tensor<3xf32>, tensor<f32>, tensor<i1>) -> (tensor<3xf32>, none)
  return %0#0 : tensor<3xf32>
}

// Static dims: a constant.
// CHECK-LABEL: func.func @shape_static
// CHECK: %[[C:.*]] = arith.constant dense<[3, 4]> : tensor<2xi64>
// CHECK: return %[[C]]
func.func @shape_static(%x: tensor<2x3x4xf32>) -> tensor<2xi64> {
  %0 = "onnx.Shape"(%x) <{start = -2 : i64}> : (tensor<2x3x4xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// Dynamic dims: tensor.dim into tensor.from_elements; start/end clamp.
// CHECK-LABEL: func.func @shape_dynamic
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x3x?xf32>
// CHECK: %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x?xf32>
// CHECK: %[[I0:.*]] = arith.index_cast %[[D0]] : index to i64
// CHECK: %[[I1:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[S:.*]] = tensor.from_elements %[[I0]], %[[I1]] : tensor<2xi64>
// CHECK: return %[[S]]
func.func @shape_dynamic(%x: tensor<?x3x?xf32>) -> tensor<2xi64> {
  %0 = "onnx.Shape"(%x) <{start = -7 : i64, end = -1 : i64}> : (tensor<?x3x?xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// CHECK-LABEL: func.func @size_dynamic
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x3xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: %[[N:.*]] = arith.muli %[[D]], %{{.*}} : index
// CHECK: %[[I:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: tensor.from_elements %[[I]] : tensor<i64>
func.func @size_dynamic(%x: tensor<?x3xf32>) -> tensor<i64> {
  %0 = "onnx.Size"(%x) : (tensor<?x3xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// CHECK-LABEL: func.func @size_static
// CHECK: arith.constant dense<12> : tensor<i64>
func.func @size_static(%x: tensor<4x3xf32>) -> tensor<i64> {
  %0 = "onnx.Size"(%x) : (tensor<4x3xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// A run-time shape: sizes read with tensor.extract; the value is unsigned.
// CHECK-LABEL: func.func @constant_of_shape_runtime
// CHECK-SAME: (%[[S:[^:]+]]: tensor<2xi64>
// CHECK: %[[A:.*]] = tensor.extract %[[S]][%{{.*}}] : tensor<2xi64>
// CHECK: %[[AI:.*]] = arith.index_cast %[[A]] : i64 to index
// CHECK: %[[B:.*]] = tensor.extract %[[S]][%{{.*}}] : tensor<2xi64>
// CHECK: %[[BI:.*]] = arith.index_cast %[[B]] : i64 to index
// CHECK: %[[E:.*]] = tensor.empty(%[[AI]], %[[BI]]) : tensor<?x?xi8>
// CHECK: %[[V:.*]] = arith.constant -56 : i8
// CHECK: linalg.fill ins(%[[V]] : i8) outs(%[[E]] : tensor<?x?xi8>)
func.func @constant_of_shape_runtime(%s: tensor<2xi64>) -> tensor<?x?xui8> {
  %0 = "onnx.ConstantOfShape"(%s) <{value = dense<200> : tensor<1xui8>}> : (tensor<2xi64>) -> tensor<?x?xui8>
  return %0 : tensor<?x?xui8>
}

// The default value is a float 0.
// CHECK-LABEL: func.func @constant_of_shape_default
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<2x3xf32>)
func.func @constant_of_shape_default() -> tensor<2x3xf32> {
  %s = "onnx.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %0 = "onnx.ConstantOfShape"(%s) : (tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Integer Range: the length ceil((limit - start) / delta) (0 for delta 0),
// then start + i * delta.
// CHECK-LABEL: func.func @range_int
// CHECK-SAME: (%[[START:[^:]+]]: tensor<i32>{{.*}}, %[[LIMIT:[^:]+]]: tensor<i32>{{.*}}, %[[DELTA:[^:]+]]: tensor<i32>
// CHECK-DAG: %[[S:.*]] = tensor.extract %[[START]][] : tensor<i32>
// CHECK-DAG: %[[D:.*]] = tensor.extract %[[DELTA]][] : tensor<i32>
// CHECK: arith.ceildivsi
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xi32>
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<?xi32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[II:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK: %[[M:.*]] = arith.muli %[[II]], %[[D]] : i32
// CHECK: %[[V:.*]] = arith.addi %[[S]], %[[M]] : i32
// CHECK: linalg.yield %[[V]] : i32
func.func @range_int(%start: tensor<i32>, %limit: tensor<i32>, %delta: tensor<i32>) -> tensor<?xi32> {
  %0 = "onnx.Range"(%start, %limit, %delta) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}

// float16 computes in f32 (stash_type 1).
// CHECK-LABEL: func.func @range_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: math.ceil
// CHECK: linalg.generic
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @range_f16(%start: tensor<f16>, %limit: tensor<f16>, %delta: tensor<f16>) -> tensor<?xf16> {
  %0 = "onnx.Range"(%start, %limit, %delta) : (tensor<f16>, tensor<f16>, tensor<f16>) -> tensor<?xf16>
  return %0 : tensor<?xf16>
}
