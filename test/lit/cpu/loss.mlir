// RUN: onnxc-opt --split-input-file --verify-diagnostics --convert-onnx-to-linalg %s | FileCheck %s

// NLL with weights and ignore_index, mean: per-target weights (0 where
// ignored), the picked -x[n, t] scaled by them, then sum(loss) / sum(w).
// CHECK-LABEL: func.func @nll_mean
// CHECK: %[[W:.+]] = linalg.generic {{.*}} ins(%arg1 : tensor<3xi64>)
// CHECK: tensor.extract %arg2[%{{.+}}] : tensor<5xf32>
// CHECK: arith.cmpi eq, %{{.+}}, %c-1_i64
// CHECK: %[[L:.+]] = linalg.generic {{.*}} ins(%arg1, %[[W]] :
// CHECK: tensor.extract %arg0[%{{.+}}, %{{.+}}] : tensor<3x5xf32>
// CHECK-NEXT: arith.negf
// CHECK-NEXT: arith.mulf
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[L]] :
// CHECK: %[[TOTAL:.+]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[W]] :
// CHECK: linalg.generic {{.*}} ins(%[[SUM]], %[[TOTAL]] :
// CHECK: arith.divf
func.func @nll_mean(%x: tensor<3x5xf32>, %t: tensor<3xi64>, %w: tensor<5xf32>) -> tensor<f32> {
  %0 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %w) <{ignore_index = -1 : i64}> : (tensor<3x5xf32>, tensor<3xi64>, tensor<5xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// SoftmaxCrossEntropyLoss: a log-softmax over the class dim feeds the pick;
// reduction none returns the per-element losses, log_prob the log-softmax.
// CHECK-LABEL: func.func @sce_none
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: %[[LP:.+]] = linalg.generic
// CHECK: math.log
// CHECK: tensor.extract %[[LP]][%{{.+}}, %{{.+}}, %{{.+}}] : tensor<2x4x3xf32>
// CHECK: return %{{.+}}, %[[LP]] : tensor<2x3xf32>, tensor<2x4x3xf32>
func.func @sce_none(%x: tensor<2x4x3xf32>, %t: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x4x3xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %0:2 = "onnx.SoftmaxCrossEntropyLoss"(%x, %t, %n) <{reduction = "none"}> : (tensor<2x4x3xf32>, tensor<2x3xi32>, none) -> (tensor<2x3xf32>, tensor<2x4x3xf32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x4x3xf32>
}

