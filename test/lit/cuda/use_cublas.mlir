// RUN: onnxc-opt --onnxc-cuda-use-cublas %s | FileCheck %s

// A product into a zero fill is one cuBLAS call into a fresh buffer.
// CHECK-LABEL: func.func @plain
// CHECK: %[[C:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?x8xf32>
// CHECK: %[[OUT:.*]] = memref.cast %[[C]] : memref<?x8xf32> to memref<*xf32>
// CHECK: %[[TA:.*]] = arith.constant 0 : i64
// CHECK: %[[TB:.*]] = arith.constant 0 : i64
// CHECK: call @onnxc_cuda_matmul_f32(%{{.*}}, %{{.*}}, %[[OUT]], %[[TA]], %[[TB]], %{{.*}}) : (memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, f32) -> i32
// CHECK: bufferization.to_tensor %[[C]] restrict writable
// CHECK-NOT: linalg.matmul
func.func @plain(%a: tensor<?x4xf32>, %b: tensor<4x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %p = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %p : tensor<?x8xf32>
}

// A transposed B sets transB; an accumulator that is not a zero fill (a
// bias) is added after the call.
// CHECK-LABEL: func.func @bias
// CHECK: arith.constant 0 : i64
// CHECK: arith.constant 1 : i64
// CHECK: call @onnxc_cuda_matmul_f32
// CHECK: linalg.generic
// CHECK: arith.addf
func.func @bias(%a: tensor<2x4xf32>, %b: tensor<8x4xf32>, %acc: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %p = linalg.matmul_transpose_b ins(%a, %b : tensor<2x4xf32>, tensor<8x4xf32>) outs(%acc : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %p : tensor<2x8xf32>
}

// Integer products keep their generated kernel.
// CHECK-LABEL: func.func @integer
// CHECK: linalg.matmul
func.func @integer(%a: tensor<2x4xi32>, %b: tensor<4x8xi32>, %acc: tensor<2x8xi32>) -> tensor<2x8xi32> {
  %p = linalg.matmul ins(%a, %b : tensor<2x4xi32>, tensor<4x8xi32>) outs(%acc : tensor<2x8xi32>) -> tensor<2x8xi32>
  return %p : tensor<2x8xi32>
}
