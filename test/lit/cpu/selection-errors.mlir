// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// CHECK: error: loc("rs"): batch_axis and time_axis must be 0 and 1 (either way)
func.func @bad_axes(%x: tensor<4x5x2xf32>, %l: tensor<4xi64>) -> tensor<4x5x2xf32> {
  %0 = "onnx.ReverseSequence"(%x, %l) <{batch_axis = 0 : i64, time_axis = 2 : i64}> : (tensor<4x5x2xf32>, tensor<4xi64>) -> tensor<4x5x2xf32> loc("rs")
  return %0 : tensor<4x5x2xf32>
}

// -----

// CHECK: error: loc("compress"): axis 3 is out of range
func.func @bad_compress(%x: tensor<3x4xf32>, %c: tensor<?xi1>) -> tensor<3x?xf32> {
  %0 = "onnx.Compress"(%x, %c) <{axis = 3 : i64}> : (tensor<3x4xf32>, tensor<?xi1>) -> tensor<3x?xf32> loc("compress")
  return %0 : tensor<3x?xf32>
}

// -----

// Bitwise ops take integers only.
// CHECK: error: loc("band"): the cpu target cannot lower this 'BitwiseAnd' node
func.func @bitwise_float(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "onnx.BitwiseAnd"(%a, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> loc("band")
  return %0 : tensor<3xf32>
}
