// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// Bad trees are compile-time errors naming the node.

// CHECK: error: loc("tree_cycle"): the tree at root 0 has a cycle
func.func @cycle(%x: tensor<3x2xf32>) -> tensor<3x1xf32> {
  %0 = "onnx.ml.TreeEnsemble"(%x) <{leaf_targetids = [0], leaf_weights = dense<1.0> : tensor<1xf32>, nodes_falseleafs = [1, 0], nodes_falsenodeids = [0, 0], nodes_featureids = [0, 1], nodes_modes = dense<0> : tensor<2xui8>, nodes_splits = dense<0.5> : tensor<2xf32>, nodes_trueleafs = [0, 1], nodes_truenodeids = [1, 0], tree_roots = [0]}> : (tensor<3x2xf32>) -> tensor<3x1xf32> loc("tree_cycle")
  return %0 : tensor<3x1xf32>
}

// -----

// CHECK: error: loc("tree_feature"): node 0 reads feature 5 which is out of range
func.func @feature(%x: tensor<3x2xf32>) -> tensor<3x1xf32> {
  %0 = "onnx.ml.TreeEnsemble"(%x) <{leaf_targetids = [0, 0], leaf_weights = dense<1.0> : tensor<2xf32>, nodes_falseleafs = [1], nodes_falsenodeids = [1], nodes_featureids = [5], nodes_modes = dense<0> : tensor<1xui8>, nodes_splits = dense<0.5> : tensor<1xf32>, nodes_trueleafs = [1], nodes_truenodeids = [0], tree_roots = [0]}> : (tensor<3x2xf32>) -> tensor<3x1xf32> loc("tree_feature")
  return %0 : tensor<3x1xf32>
}
