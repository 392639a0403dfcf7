// RUN: onnxc-opt --onnx-shape-inference -split-input-file -verify-diagnostics %s | FileCheck %s

// Reduction "none" keeps the target's shape (dynamic target dims are taken
// from the input); sum and mean give a scalar; log_prob has the scores' type.
// CHECK-LABEL: func.func @losses
func.func @losses(%x: tensor<3x5x?x2xf32>, %t: tensor<3x?x2xi64>, %w: tensor<5xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  %n = "onnx.NoValue"() : () -> none
  // CHECK: "onnx.NegativeLogLikelihoodLoss"{{.*}} -> tensor<3x?x2xf32>
  %0 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %w) <{reduction = "none"}> : (tensor<3x5x?x2xf32>, tensor<3x?x2xi64>, tensor<5xf32>) -> !onnx.unknown
  // CHECK: "onnx.NegativeLogLikelihoodLoss"{{.*}} -> tensor<f32>
  %1 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %n) : (tensor<3x5x?x2xf32>, tensor<3x?x2xi64>, none) -> !onnx.unknown
  // CHECK: "onnx.SoftmaxCrossEntropyLoss"{{.*}} -> (tensor<f32>, tensor<3x5x?x2xf32>)
  %2:2 = "onnx.SoftmaxCrossEntropyLoss"(%x, %t, %w) <{reduction = "sum"}> : (tensor<3x5x?x2xf32>, tensor<3x?x2xi64>, tensor<5xf32>) -> (!onnx.unknown, !onnx.unknown)
  return %0, %1, %2#0, %2#1 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// -----

// CHECK-LABEL: func.func @col2im
func.func @col2im(%x: tensor<1x10x12xf32>) -> !onnx.unknown {
  %image = "onnx.Constant"() <{value = dense<[5, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %block = "onnx.Constant"() <{value = dense<[1, 5]> : tensor<2xi64>}> : () -> tensor<2xi64>
  // CHECK: "onnx.Col2Im"{{.*}} -> tensor<1x2x5x5xf32>
  %0 = "onnx.Col2Im"(%x, %image, %block) : (tensor<1x10x12xf32>, tensor<2xi64>, tensor<2xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @target_mismatch(%x: tensor<3x5x4xf32>, %t: tensor<3x6xi64>) -> !onnx.unknown {
  %n = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{target [3, 6] does not match input [3, 5, 4]}}
  %0 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %n) : (tensor<3x5x4xf32>, tensor<3x6xi64>, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @bad_weight(%x: tensor<3x5xf32>, %t: tensor<3xi64>, %w: tensor<4xf32>) -> !onnx.unknown {
  // expected-error @+1 {{expects a weight of shape [C] = [5]}}
  %0 = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %w) : (tensor<3x5xf32>, tensor<3xi64>, tensor<4xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}
