// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// [dft_length / 2 + 1, num_mel_bins] of output_datatype (f32 by default);
// run-time bin counts leave the dims dynamic.
// CHECK-LABEL: func.func @mel_weight_matrix
func.func @mel_weight_matrix(%rate: tensor<i32>, %lo: tensor<f32>, %hi: tensor<f32>, %n: tensor<i32>) -> (!onnx.unknown, !onnx.unknown) {
  %bins = "onnx.Constant"() <{value = dense<8> : tensor<i32>}> : () -> tensor<i32>
  %dft = "onnx.Constant"() <{value = dense<16> : tensor<i32>}> : () -> tensor<i32>
  // CHECK: "onnx.MelWeightMatrix"{{.*}} -> tensor<9x8xf32>
  %0 = "onnx.MelWeightMatrix"(%bins, %dft, %rate, %lo, %hi) : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> !onnx.unknown
  // CHECK: "onnx.MelWeightMatrix"{{.*}} -> tensor<?x8xf64>
  %1 = "onnx.MelWeightMatrix"(%bins, %n, %rate, %lo, %hi) <{output_datatype = 11 : i64}> : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<f32>, tensor<f32>) -> !onnx.unknown
  return %0, %1 : !onnx.unknown, !onnx.unknown
}
