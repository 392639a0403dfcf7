// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// CHECK: error: loc("gru"): unsupported activation 'Gelu'
func.func @bad_activation(%x: tensor<5x3x2xf32>, %w: tensor<1x12x2xf32>, %r: tensor<1x12x4xf32>) -> tensor<1x3x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.GRU"(%x, %w, %r, %none, %none, %none) <{activations = ["Sigmoid", "Gelu"]}> : (tensor<5x3x2xf32>, tensor<1x12x2xf32>, tensor<1x12x4xf32>, none, none, none) -> (none, tensor<1x3x4xf32>) loc("gru")
  return %yh : tensor<1x3x4xf32>
}

// -----

// CHECK: error: loc("lstm"): W 'tensor<1x12x2xf32>' and R 'tensor<1x16x4xf32>' do not fit X 'tensor<5x3x2xf32>' with 1 direction(s) and 4 gate(s)
func.func @bad_weights(%x: tensor<5x3x2xf32>, %w: tensor<1x12x2xf32>, %r: tensor<1x16x4xf32>) -> tensor<1x3x4xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %r, %none, %none, %none, %none, %none) : (tensor<5x3x2xf32>, tensor<1x12x2xf32>, tensor<1x16x4xf32>, none, none, none, none, none) -> (none, tensor<1x3x4xf32>, none) loc("lstm")
  return %yh : tensor<1x3x4xf32>
}

// -----

// Integer recurrences are not lowered: the node is reported.
// CHECK: error: loc("rnn"): the cpu target cannot lower this 'RNN' node
func.func @integer(%x: tensor<5x3x2xi32>, %w: tensor<1x4x2xi32>, %r: tensor<1x4x4xi32>) -> tensor<1x3x4xi32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %yh = "onnx.RNN"(%x, %w, %r, %none, %none, %none) : (tensor<5x3x2xi32>, tensor<1x4x2xi32>, tensor<1x4x4xi32>, none, none, none) -> (none, tensor<1x3x4xi32>) loc("rnn")
  return %yh : tensor<1x3x4xi32>
}
