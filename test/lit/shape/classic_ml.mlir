// RUN: onnxc-opt --onnx-shape-inference %s | FileCheck %s

// CHECK-LABEL: func.func @classic_ml
func.func @classic_ml(%x: tensor<?x4xf32>, %v: tensor<5xi64>, %i: tensor<2x3xi64>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.ml.Binarizer"{{.*}} -> tensor<?x4xf32>
  %0 = "onnx.ml.Binarizer"(%x) <{threshold = 1.0 : f32}> : (tensor<?x4xf32>) -> !onnx.unknown
  // The last dim becomes the number of indices; 1-D data becomes one row.
  // CHECK: "onnx.ml.ArrayFeatureExtractor"{{.*}} -> tensor<?x6xf32>
  %1 = "onnx.ml.ArrayFeatureExtractor"(%x, %i) : (tensor<?x4xf32>, tensor<2x3xi64>) -> !onnx.unknown
  // CHECK: "onnx.ml.ArrayFeatureExtractor"{{.*}} -> tensor<1x6xi64>
  %2 = "onnx.ml.ArrayFeatureExtractor"(%v, %i) : (tensor<5xi64>, tensor<2x3xi64>) -> !onnx.unknown
  // n_targets absent: one more than the largest leaf target.
  // CHECK: "onnx.ml.TreeEnsemble"{{.*}} -> tensor<?x3xf32>
  %3 = "onnx.ml.TreeEnsemble"(%x) <{leaf_targetids = [0, 2], leaf_weights = dense<[1.0, 2.0]> : tensor<2xf32>, nodes_falseleafs = [1], nodes_falsenodeids = [1], nodes_featureids = [0], nodes_modes = dense<0> : tensor<1xui8>, nodes_splits = dense<0.5> : tensor<1xf32>, nodes_trueleafs = [1], nodes_truenodeids = [0], tree_roots = [0]}> : (tensor<?x4xf32>) -> !onnx.unknown
  return %0, %1, %2, %3 : !onnx.unknown, !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// Scaler keeps the shape in f32 (int features too); LinearRegressor maps
// [N, C] (or [C], one row) to [N, targets] of f32.
// CHECK-LABEL: func.func @scaler_and_regressor
func.func @scaler_and_regressor(%x: tensor<?x4xi64>, %v: tensor<4xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.ml.Scaler"{{.*}} -> tensor<?x4xf32>
  %0 = "onnx.ml.Scaler"(%x) <{offset = [1.0 : f32], scale = [2.0 : f32]}> : (tensor<?x4xi64>) -> !onnx.unknown
  // CHECK: "onnx.ml.LinearRegressor"{{.*}} -> tensor<?x2xf32>
  %1 = "onnx.ml.LinearRegressor"(%x) <{coefficients = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32, 7.0 : f32, 8.0 : f32], targets = 2 : i64}> : (tensor<?x4xi64>) -> !onnx.unknown
  // CHECK: "onnx.ml.LinearRegressor"{{.*}} -> tensor<1x1xf32>
  %2 = "onnx.ml.LinearRegressor"(%v) <{coefficients = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32]}> : (tensor<4xf32>) -> !onnx.unknown
  return %0, %1, %2 : !onnx.unknown, !onnx.unknown, !onnx.unknown
}

// LinearClassifier: int64 labels [N] and f32 scores [N, classes];
// Normalizer keeps the shape in f32.
// CHECK-LABEL: func.func @classifier_and_normalizer
func.func @classifier_and_normalizer(%x: tensor<?x2xf32>) -> (!onnx.unknown, !onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.ml.LinearClassifier"{{.*}} -> (tensor<?xi64>, tensor<?x3xf32>)
  %0:2 = "onnx.ml.LinearClassifier"(%x) <{classlabels_ints = [4, 5, 6], coefficients = [1.0 : f32, 2.0 : f32, 3.0 : f32, 4.0 : f32, 5.0 : f32, 6.0 : f32]}> : (tensor<?x2xf32>) -> (!onnx.unknown, !onnx.unknown)
  // CHECK: "onnx.ml.Normalizer"{{.*}} -> tensor<?x2xf32>
  %1 = "onnx.ml.Normalizer"(%x) <{norm = "L2"}> : (tensor<?x2xf32>) -> !onnx.unknown
  return %0#0, %0#1, %1 : !onnx.unknown, !onnx.unknown, !onnx.unknown
}
