// RUN: onnxc-opt --onnxc-unshare-fills %s | FileCheck %s
// RUN: onnxc-opt --onnxc-unshare-fills --one-shot-bufferize=bufferize-function-boundaries %s | FileCheck %s --check-prefix=BUF

// Two matmuls accumulating into one zero-filled tensor: each gets its own
// empty + fill, so bufferization allocates and fills twice instead of
// copying the shared buffer.
// CHECK-LABEL: func @two_accumulators
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F1:.*]] = linalg.fill {{.*}} outs(%[[E1]]
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F2:.*]] = linalg.fill {{.*}} outs(%[[E2]]
// CHECK-DAG: linalg.matmul {{.*}} outs(%[[F1]]
// CHECK-DAG: linalg.matmul {{.*}} outs(%[[F2]]
// BUF-LABEL: func @two_accumulators
// BUF-NOT: memref.copy
// BUF: return
func.func @two_accumulators(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.matmul ins(%b, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// A fill that is also read keeps that read; the in-place user gets a copy
// of its own.
// CHECK-LABEL: func @read_and_accumulate
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[F2:.*]] = linalg.fill
// CHECK: linalg.matmul {{.*}} outs(%[[F2]]
// CHECK: return %{{.*}}, %[[F]]
func.func @read_and_accumulate(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %f : tensor<4x4xf32>, tensor<4x4xf32>
}
