// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @binarizer
// LLVM: llvm.func @array_feature_extractor
// LLVM: llvm.func @tree_ensemble
// LLVM: llvm.func @tree_ensemble_softmax

// CHECK-LABEL: func.func @binarizer
// CHECK: linalg.generic
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : f64
// CHECK: arith.select %[[ABOVE]], %{{.*}}, %{{.*}} : f32
func.func @binarizer(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "onnx.ml.Binarizer"(%x) <{threshold = 1.0 : f32}> : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// The indices are flattened; each output column gathers one data column.
// CHECK-LABEL: func.func @array_feature_extractor
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<1x2xi64> into tensor<2xi64>
// CHECK: linalg.generic {{.*}} ins(%[[FLAT]] : tensor<2xi64>) outs(%{{.*}} : tensor<?x2xf32>)
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[I:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: arith.cmpi slt, %[[I]]
// CHECK: %[[CLAMPED:.*]] = arith.maxsi
// CHECK: tensor.extract %{{.*}}[%[[ROW]], %[[CLAMPED]]] : tensor<?x4xf32>
func.func @array_feature_extractor(%x: tensor<?x4xf32>, %i: tensor<1x2xi64>) -> tensor<?x2xf32> {
  %0 = "onnx.ml.ArrayFeatureExtractor"(%x, %i) : (tensor<?x4xf32>, tensor<1x2xi64>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// Node 0 (x[1] <= 0.5) chooses leaf 0 or node 1 (x[0] in {1, 3}), which
// chooses leaf 1 or 2. The walk loops over the constant node table (feature,
// true and false branch as a node id or -(leaf + 1), mode, members) until it
// reaches a leaf, comparing in f32 (the thresholds are f32 values); the
// leaves are summed into their targets.
// CHECK-LABEL: func.func @tree_ensemble
// CHECK-DAG: arith.constant dense<{{\[\[}}1, -1, 1, 0, 0, 0], [0, -2, -3, 6, 0, 2]]> : tensor<2x6xi32>
// CHECK-DAG: arith.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK: %[[LEAVES:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x1xi64>)
// CHECK: scf.while
// CHECK: arith.cmpi sge
// CHECK: arith.cmpf ole
// CHECK: scf.for
// CHECK: arith.cmpf oeq
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[LEAVES]] : tensor<?x1xi64>) outs(%{{.*}} : tensor<?x2xf32>)
// CHECK: arith.addf {{.*}} : f32
func.func @tree_ensemble(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %0 = "onnx.ml.TreeEnsemble"(%x) <{leaf_targetids = [0, 1, 0], leaf_weights = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>, membership_values = dense<[1.0, 3.0, 0x7FC00000]> : tensor<3xf32>, n_targets = 2 : i64, nodes_falseleafs = [0, 1], nodes_falsenodeids = [1, 2], nodes_featureids = [1, 0], nodes_modes = dense<[0, 6]> : tensor<2xui8>, nodes_splits = dense<[0.5, 0.0]> : tensor<2xf32>, nodes_trueleafs = [1, 1], nodes_truenodeids = [0, 1], tree_roots = [0]}> : (tensor<?x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// post_transform SOFTMAX (1): each score reads its row for the max and the
// sum of exponentials.
// CHECK-LABEL: func.func @tree_ensemble_softmax
// CHECK: %[[SCORES:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}} ins(%[[SCORES]] : tensor<?x2xf32>)
// CHECK: %[[MAX:.*]] = scf.for
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: math.exp
// CHECK: %[[E:.*]] = math.exp
// CHECK: arith.divf %[[E]], %[[SUM]] : f32
func.func @tree_ensemble_softmax(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %0 = "onnx.ml.TreeEnsemble"(%x) <{leaf_targetids = [0, 1], leaf_weights = dense<[1.0, 2.0]> : tensor<2xf32>, n_targets = 2 : i64, nodes_falseleafs = [1], nodes_falsenodeids = [1], nodes_featureids = [1], nodes_modes = dense<0> : tensor<1xui8>, nodes_splits = dense<0.5> : tensor<1xf32>, nodes_trueleafs = [1], nodes_truenodeids = [0], post_transform = 1 : i64, tree_roots = [0]}> : (tensor<?x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}
