// RUN: not onnxc-opt --convert-onnx-to-linalg --split-input-file %s 2>&1 | FileCheck %s

// CHECK: error: loc("tfidf"): mode must be TF, IDF or TFIDF, got 'BM25'
func.func @bad_mode(%x: tensor<6xi64>) -> tensor<1xf32> {
  %0 = "onnx.TfIdfVectorizer"(%x) <{max_gram_length = 1 : i64, max_skip_count = 0 : i64, min_gram_length = 1 : i64, mode = "BM25", ngram_counts = [0], ngram_indexes = [0], pool_int64s = [7]}> : (tensor<6xi64>) -> tensor<1xf32> loc("tfidf")
  return %0 : tensor<1xf32>
}

// -----

// CHECK: error: loc("ids"): ngram_indexes has no column for n-gram 2
func.func @short_indexes(%x: tensor<6xi64>) -> tensor<1xf32> {
  %0 = "onnx.TfIdfVectorizer"(%x) <{max_gram_length = 1 : i64, max_skip_count = 0 : i64, min_gram_length = 1 : i64, mode = "TF", ngram_counts = [0], ngram_indexes = [0], pool_int64s = [7, 8]}> : (tensor<6xi64>) -> tensor<1xf32> loc("ids")
  return %0 : tensor<1xf32>
}
