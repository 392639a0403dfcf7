// RUN: onnxc-opt --convert-onnx-to-linalg %s | FileCheck %s
// RUN: onnxc-opt --convert-onnx-to-linalg --onnxc-cpu-lowering %s \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=onnx. \
// RUN:     --implicit-check-not=tensor. --implicit-check-not=linalg.

// LLVM: llvm.func @tfidf
// LLVM: llvm.func @tfidf_idf_1d

// The pool's n-grams in a constant table (tokens padded, lengths, columns):
// the unigrams 5 (id 1 -> column 0) and 6 (id 2 -> column 2) and the bigram
// 5 6 (id 3 -> column 1). Counts over [row, entry, skip, start]; skips past
// the first only count n-grams longer than one token.
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-DAG: #[[SKIP:.+]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-DAG: #[[COUNT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @tfidf
// CHECK-DAG: %[[TOKENS:.+]] = arith.constant dense<{{\[}}[5, 0], [5, 6], [6, 0]]> : tensor<3x2xi64>
// CHECK-DAG: %[[LENGTHS:.+]] = arith.constant dense<[1, 2, 1]> : tensor<3xindex>
// CHECK-DAG: %[[COLUMNS:.+]] = arith.constant dense<[0, 1, 2]> : tensor<3xindex>
// CHECK: %[[SKIPS:.+]] = tensor.empty() : tensor<2xf32>
// CHECK: %[[COUNTS:.+]] = linalg.generic {indexing_maps = [#[[ROW]], #[[SKIP]], #[[COUNT]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %[[SKIPS]] : tensor<2x6xi32>, tensor<2xf32>)
// CHECK: tensor.extract %[[LENGTHS]]
// CHECK: arith.extsi {{.*}} : i32 to i64
// CHECK: tensor.extract %[[TOKENS]]
// CHECK: tensor.extract %arg0
// CHECK: %[[FREQ:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[COUNTS]], %[[COLUMNS]] : tensor<2x3xf32>, tensor<3xindex>)
// TFIDF: the count times the column's weight.
// CHECK: %[[W:.+]] = arith.constant dense<[5.000000e-01, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[FREQ]], %[[W]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK: arith.mulf
func.func @tfidf(%x: tensor<2x6xi32>) -> tensor<2x3xf32> {
  %0 = "onnx.TfIdfVectorizer"(%x) <{max_gram_length = 2 : i64, max_skip_count = 1 : i64, min_gram_length = 1 : i64, mode = "TFIDF", ngram_counts = [0, 2], ngram_indexes = [0, 2, 1], pool_int64s = [5, 6, 5, 6], weights = [0.5 : f32, 2.0 : f32, 3.0 : f32]}> : (tensor<2x6xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// IDF without weights: 1 where the count is non-zero; a 1-D input is one row.
// CHECK-LABEL: func.func @tfidf_idf_1d
// CHECK: tensor.reshape %arg0({{.*}}) : (tensor<?xi64>, tensor<2xi64>) -> tensor<1x?xi64>
// CHECK: %[[ONES:.+]] = arith.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK: %[[IDF:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[ONES]] : tensor<1x2xf32>, tensor<2xf32>)
// CHECK: %[[SEEN:.+]] = arith.cmpf ogt
// CHECK: arith.select %[[SEEN]]
// CHECK: tensor.collapse_shape %[[IDF]] {{.*}} : tensor<1x2xf32> into tensor<2xf32>
func.func @tfidf_idf_1d(%x: tensor<?xi64>) -> tensor<2xf32> {
  %0 = "onnx.TfIdfVectorizer"(%x) <{max_gram_length = 1 : i64, max_skip_count = 0 : i64, min_gram_length = 1 : i64, mode = "IDF", ngram_counts = [0], ngram_indexes = [0, 1], pool_int64s = [7, 8]}> : (tensor<?xi64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
