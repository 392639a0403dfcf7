// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// CHECK: error: loc("q_scale"): the scale must be a scalar or a vector without block_size
func.func @matrix_scale(%x: tensor<2x4xf32>, %s: tensor<2x2xf32>) -> tensor<2x4xui8> {
  %none = "onnx.NoValue"() : () -> none
  %0 = "onnx.QuantizeLinear"(%x, %s, %none) : (tensor<2x4xf32>, tensor<2x2xf32>, none) -> tensor<2x4xui8> loc("q_scale")
  return %0 : tensor<2x4xui8>
}
