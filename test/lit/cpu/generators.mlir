// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @eye_like
// LLVM: llvm.func @hann
// LLVM: llvm.func @mel

// Ones where col - row == k.
// CHECK-LABEL: func.func @eye_like
// CHECK: linalg.generic
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[COL:.*]] = linalg.index 1 : index
// CHECK: %[[DIFF:.*]] = arith.subi %[[COL]], %[[ROW]] : index
// CHECK: %[[K:.*]] = arith.constant 1 : index
// CHECK: %[[ON:.*]] = arith.cmpi eq, %[[DIFF]], %[[K]] : index
// CHECK: arith.select %[[ON]], %{{.*}}, %{{.*}} : i32
func.func @eye_like(%x: tensor<3x4xf32>) -> tensor<3x4xi32> {
  %0 = "onnx.EyeLike"(%x) <{k = 1 : i64, dtype = 6 : i64}> : (tensor<3x4xf32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// A run-time size: the result length is read from the input; symmetric
// windows divide by size - 1.
// CHECK-LABEL: func.func @hann
// CHECK: %[[S:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
// CHECK: %[[N:.*]] = arith.index_cast %[[S]] : i64 to index
// CHECK: arith.subf
// CHECK: tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: linalg.generic
// CHECK: math.cos
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @hann(%size: tensor<i64>) -> tensor<?xf32> {
  %0 = "onnx.HannWindow"(%size) <{periodic = 0 : i64}> : (tensor<i64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Blackman adds the second cosine term.
// CHECK-LABEL: func.func @blackman
// CHECK: linalg.generic
// CHECK: math.cos
// CHECK: math.cos
func.func @blackman(%size: tensor<i32>) -> tensor<?xf32> {
  %0 = "onnx.BlackmanWindow"(%size) : (tensor<i32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// CHECK-LABEL: func.func @mel
// CHECK: math.log1p
// CHECK: linalg.generic
// CHECK: math.expm1
// CHECK: math.floor
func.func @mel(%bins: tensor<i32>, %dft: tensor<i32>, %rate: tensor<i32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<?x?xf32> {
  %0 = "onnx.MelWeightMatrix"(%bins, %dft, %rate, %lo, %hi) : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
