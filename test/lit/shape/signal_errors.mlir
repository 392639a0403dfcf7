// RUN: onnxc-opt --onnx-shape-inference -split-input-file -verify-diagnostics %s

func.func @dft_components(%x: tensor<4x3xf32>) -> !onnx.unknown {
  %none = "onnx.NoValue"() : () -> none
  // expected-error @+1 {{the last dim of the signal must be 1 (real) or 2 (complex), got 3}}
  %0 = "onnx.DFT"(%x, %none, %none) : (tensor<4x3xf32>, none, none) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @dft_axis(%x: tensor<2x4x1xf32>) -> !onnx.unknown {
  %none = "onnx.NoValue"() : () -> none
  %axis = "onnx.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  // expected-error @+1 {{axis 2 is out of range for a 3-D signal}}
  %0 = "onnx.DFT"(%x, %none, %axis) : (tensor<2x4x1xf32>, none, tensor<i64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}

// -----

func.func @tree_features(%x: tensor<4xf32>) -> !onnx.unknown {
  // expected-error @+1 {{expects 2-D features [N, F], got 'tensor<4xf32>'}}
  %0 = "onnx.ml.TreeEnsemble"(%x) <{leaf_targetids = [0], leaf_weights = dense<1.0> : tensor<1xf32>, nodes_falseleafs = [1], nodes_falsenodeids = [0], nodes_featureids = [0], nodes_modes = dense<0> : tensor<1xui8>, nodes_splits = dense<0.5> : tensor<1xf32>, nodes_trueleafs = [1], nodes_truenodeids = [0], tree_roots = [0]}> : (tensor<4xf32>) -> !onnx.unknown
  return %0 : !onnx.unknown
}
