// RUN: onnxc-opt --onnx-shape-inference -split-input-file -verify-diagnostics %s | FileCheck %s

// f32 [O] or [B, O] with O = max(ngram_indexes) + 1 (not the number of
// indexes).
// CHECK-LABEL: func.func @tfidf
func.func @tfidf(%x: tensor<?x6xi64>, %y: tensor<12xi32>) -> (!onnx.unknown, !onnx.unknown) {
  // CHECK: "onnx.TfIdfVectorizer"{{.*}} -> tensor<?x9xf32>
  %0 = "onnx.TfIdfVectorizer"(%x) <{max_gram_length = 1 : i64, max_skip_count = 0 : i64, min_gram_length = 1 : i64, mode = "TF", ngram_counts = [0], ngram_indexes = [8, 0], pool_int64s = [2, 3]}> : (tensor<?x6xi64>) -> !onnx.unknown
  // CHECK: "onnx.TfIdfVectorizer"{{.*}} -> tensor<3xf32>
  %1 = "onnx.TfIdfVectorizer"(%y) <{max_gram_length = 1 : i64, max_skip_count = 0 : i64, min_gram_length = 1 : i64, mode = "TF", ngram_counts = [0], ngram_indexes = [0, 1, 2], pool_int64s = [2, 3, 4]}> : (tensor<12xi32>) -> !onnx.unknown
  return %0, %1 : !onnx.unknown, !onnx.unknown
}

// -----

func.func @tfidf_rank3(%x: tensor<2x3x4xi64>) -> !onnx.unknown {
  // expected-error @+1 {{expects a 1-D or 2-D input, got 'tensor<2x3x4xi64>'}}
  %0 = "onnx.TfIdfVectorizer"(%x) <{max_gram_length = 1 : i64, max_skip_count = 0 : i64, min_gram_length = 1 : i64, mode = "TF", ngram_counts = [0], ngram_indexes = [0], pool_int64s = [2]}> : (tensor<2x3x4xi64>) -> !onnx.unknown
  return %0 : !onnx.unknown
}
